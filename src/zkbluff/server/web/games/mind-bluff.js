// Mind Bluff's table: the series, the debts, the claim on the table, your secret eats this game;
// eat 1-3 in secret or call All done, claim, believe or doubt; after each game its review and
// Truth Replay (the referee's reveal line: public once the game is over) with its JSON download.

const END = { ate_last: 'ate the last dango', all_done_won: 'All done with exactly one left', all_done_lost: 'All done with two or more left' };
let confirmAllDone = false;
let replayStep = {};

function who(n, i) { return n[i]; }
// "you eat", "house eats"
function v(n, i, verb) { return `${n[i]} ${n[i] === 'you' ? verb : verb + 's'}`; }

function replayLines(r, n) {
  return r.turns.map((t) => {
    if (t.action === 'all_done') return `turn ${t.turn}: ${v(n, t.seat, 'call')} All done with ${t.remaining_before} left (${t.all_done_won ? 'exactly one left: wins' : 'two or more left: loses'})`;
    let s = `turn ${t.turn}: ${v(n, t.seat, 'eat')} ${t.choice} (${t.remaining_before} → ${t.remaining_after} left)`;
    if (t.ate_last) return s + ': the last dango, loses';
    s += `, ${n[t.seat] === 'you' ? 'claim' : 'claims'} ${t.claim}` + (t.forced_honest ? ' (forced honest)' : t.claim === t.choice ? '' : ' (a bluff)');
    if (t.response === 'doubt') s += `; ${v(n, 1 - t.seat, 'doubt')}: ${t.verdict}`;
    else if (t.response === 'believe') s += `; ${v(n, 1 - t.seat, 'believe')}`;
    return s + `; debts ${t.debts_after[0]}–${t.debts_after[1]}`;
  });
}

function review(ui, r, n) {
  const sec = ui.el('section', { class: 'review', data: { game: String(r.game) } });
  sec.appendChild(ui.el('h2', {}, `Review of game ${r.game}: the bowl held ${r.start}; ${n[r.winner]} won (${END[r.end_reason] || r.end_reason.replace(/_/g, ' ')})`));
  const table = ui.el('table', { class: 'turns' });
  const head = ui.el('tr');
  for (const h of ['turn', 'who', 'action', 'left', 'ate', 'claim', 'response', 'verdict', 'debts']) head.appendChild(ui.el('th', {}, h));
  table.appendChild(head);
  for (const t of r.turns) {
    const tr = ui.el('tr');
    for (const v of [t.turn, n[t.seat], t.action === 'eat' ? 'eat' : 'all done', t.remaining_before, t.choice ?? '',
      (t.claim ?? '') + (t.forced_honest ? '*' : ''), t.response || '', t.verdict || '', `${t.debts_after[0]}–${t.debts_after[1]}`]) tr.appendChild(ui.el('td', {}, String(v)));
    table.appendChild(tr);
  }
  sec.appendChild(table);
  const lines = replayLines(r, n);
  const step = replayStep[r.game] ?? lines.length;
  sec.appendChild(ui.el('h3', {}, `Truth Replay of game ${r.game} (the bowl held ${r.start})`));
  const ol = ui.el('ol', { class: 'replay' });
  lines.forEach((l, i) => { const li = ui.el('li', {}, l); if (i >= step) li.hidden = true; if (i === step - 1) li.className = 'now'; ol.appendChild(li); });
  sec.appendChild(ol);
  const controls = ui.el('div', { class: 'replay-controls' });
  const show = (k) => { replayStep[r.game] = k; [...ol.children].forEach((li, i) => { li.hidden = i >= k; li.className = i === k - 1 ? 'now' : ''; }); };
  controls.append(
    ui.button(`replay-${r.game}-start`, 'Replay from the start', '', () => show(1), true),
    ui.button(`replay-${r.game}-next`, 'Next turn', '', () => show(Math.min(lines.length, (replayStep[r.game] ?? lines.length) + 1)), true),
    ui.button(`replay-${r.game}-all`, 'Show all', '', () => show(lines.length), true));
  const a = ui.el('a', { class: 'download', download: `mind-bluff-game-${r.game}-review.json`,
    href: 'data:application/json;charset=utf-8,' + encodeURIComponent(JSON.stringify(r, null, 1)) }, 'Download the review (JSON)');
  controls.appendChild(a);
  sec.appendChild(controls);
  return sec;
}

export function render(s, ui) {
  const t = s.table;
  const n = t.names;
  for (const i of [t.seat, t.opponent]) ui.$('scores').appendChild(ui.scoreBox(n[i], t.wins[i], `game${t.wins[i] === 1 ? '' : 's'} won · honesty debt ${t.debts[i]}`, { seat: String(i) }));
  ui.$('scores').appendChild(ui.el('div', {}, `first to 2 games · game ${t.game} · turn ${t.turnNo}`));
  ui.$('pile').appendChild(ui.el('span', { class: 'bowl', 'aria-hidden': 'true' }));
  ui.$('pile').appendChild(ui.el('span', { id: 'pile-words' }, t.game === 0 ? '' : `the bowl started with ${t.start === null ? '?? (hidden until the game ends)' : t.start} dango; what is left is secret (the referee holds it committed)`));
  ui.$('claim').textContent = t.claim ? t.claim.words : '';
  const may = (a) => t.may.includes(a);
  if (!may('eat')) confirmAllDone = false;
  ui.$('turn').textContent = ui.turnWords(s, may('eat') ? 'your turn: eat 1, 2 or 3 in secret, or call All done'
    : may('claim') ? `you ate ${t.myChoices[t.myChoices.length - 1]}: claim ${t.claims.join(', ')}` + (t.debts[t.seat] ? ` (you owe ${t.debts[t.seat]} honest claim${t.debts[t.seat] === 1 ? '' : 's'})` : '')
      : may('believe') ? 'your turn: believe the claim, or doubt it' : may('consent') ? `series ${t.wins[0]}–${t.wins[1]}: the next game when you are ready`
        : 'your client does what the table needs from it');
  ui.$('hand-title').textContent = 'Your secret eats this game';
  ui.$('hand').appendChild(ui.el('span', { id: 'my-eats' }, t.myChoices.length ? t.myChoices.join(', ') : '(none yet)'));
  for (const k of [1, 2, 3]) ui.$('actions').appendChild(ui.button(`eat-${k}`, `Eat ${k}`, String(k), () => ui.act({ action: 'eat', amount: k }), may('eat')));
  ui.$('actions').appendChild(ui.button('all-done', confirmAllDone ? 'All done! (confirm)' : 'All done', 'd', () => {
    if (!confirmAllDone) { confirmAllDone = true; ui.$('all-done').textContent = 'All done! (confirm) [d]'; ui.$('keep-playing').disabled = false; return; }
    confirmAllDone = false; ui.act({ action: 'all_done' });
  }, may('eat')));
  ui.$('actions').appendChild(ui.button('keep-playing', 'Keep playing', '', () => { confirmAllDone = false; ui.$('all-done').textContent = 'All done [d]'; ui.$('keep-playing').disabled = true; }, may('eat') && confirmAllDone));
  for (const k of [1, 2, 3]) ui.$('actions').appendChild(ui.button(`claim-${k}`, `Claim ${k}`, '', () => ui.act({ action: 'claim', amount: k }), may('claim') && t.claims.includes(k)));
  ui.$('actions').append(
    ui.button('believe', 'Believe', 'b', () => ui.act({ action: 'believe' }), may('believe')),
    ui.button('doubt', 'Doubt!', 'u', () => ui.act({ action: 'doubt' }), may('doubt')),
    ui.button('next-game', 'Next game', 'n', () => ui.act({ action: 'consent' }), may('consent')));
  for (const r of t.reviews) ui.$('extra').appendChild(review(ui, r, n));
}
