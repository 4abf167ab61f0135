// Cheat's table: your hand, the pile and the round's plays, the claimed rank; open (name a rank),
// play or pass; during a calling window, "Bluff!" with its countdown.

let openRank = null;

export function render(s, ui) {
  const t = s.table;
  t.names.forEach((n, i) => ui.$('scores').appendChild(ui.scoreBox(n, t.penalties[i], `(${ui.cards(t.handSizes[i])} in hand)`,
    { seat: String(i) })));
  ui.$('scores').appendChild(ui.el('div', {}, `penalty points, lowest wins · hand ${t.handNo} of ${t.hands} · window ${t.window} s`));
  ui.pileBack(`pile: ${ui.cards(t.pile)} face down (${t.plays.length} play${t.plays.length === 1 ? '' : 's'} this round)` +
    (t.rank ? ` · claimed rank: ${t.rank}` : ' · a new round: the opener names the rank') + ` · set aside: ${t.setAside}`);
  ui.$('claim').textContent = t.claim && t.claim.words ? t.claim.words + (t.holdOfClaimRank !== null
    ? ` (you hold ${t.holdOfClaimRank} of that rank)` : '') : '';
  const mayPlay = t.may.includes('play');
  const mayCall = t.may.includes('call');
  ui.$('turn').textContent = mayCall ? `calling window: call "Bluff!" on play ${t.playNo} before it closes`
    : t.phase === 'window' ? 'calling window: the others may call' : ui.turnWords(s, mayPlay
      ? (t.opening ? `your turn: you open: name a rank, pick 1 to ${t.maxPlay} cards` : `your turn: play 1 to ${t.maxPlay} cards as ${t.rank}, or pass`)
      : 'your client does what the table needs from it');
  if (t.revealed.length) {
    const r = ui.el('div', { id: 'revealed' }, 'the called play, turned over: ');
    for (const c of t.revealed) r.appendChild(ui.cardFace(c));
    ui.$('pile').appendChild(r);
  }
  ui.keepPicks(t.hand, mayPlay);
  if (!mayPlay || !t.opening) openRank = null;
  const ready = () => ui.picked.size > 0 && (!t.opening || openRank !== null);
  const play = ui.button('play', 'Play selected', 'p', () => ui.act({ action: 'play', cards: [...ui.picked], rank: openRank }), mayPlay && ready());
  for (const c of t.hand) ui.$('hand').appendChild(ui.cardButton(c, mayPlay, t.maxPlay, () => { play.disabled = !ready(); }));
  if (mayPlay && t.opening) {
    const sel = ui.el('select', { id: 'rank', 'aria-label': 'the rank you claim' });
    sel.appendChild(ui.el('option', { value: '' }, 'rank to claim…'));
    for (const r of t.ranks) { const o = ui.el('option', { value: String(r.rank) }, r.name); if (openRank === r.rank) o.selected = true; sel.appendChild(o); }
    sel.addEventListener('change', () => { openRank = sel.value === '' ? null : Number(sel.value); play.disabled = !ready(); });
    ui.$('actions').appendChild(sel);
  }
  ui.$('actions').append(play,
    ui.button('pass', 'Pass', 's', () => ui.act({ action: 'pass' }), t.may.includes('pass')),
    ui.button('call', 'Bluff!', 'b', () => ui.act({ action: 'call', play: t.playNo }), mayCall));
  ui.$('call').dataset.play = String(t.playNo);
}
