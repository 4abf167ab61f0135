// The seat's table: a view and an input of the zkbluff process that served it (nothing here
// proves or checks anything; the process does). Plain ES module, no build step.
const token = new URLSearchParams(location.search).get('t') || '';
const $ = (id) => document.getElementById(id);
const SUITS = ['♣', '♦', '♥', '♠'];
let version = 0;
let state = null;
const picked = new Set();
let shownLines = 0;
let clockEnd = null;

// the seconds left for the seat's move, in the terminal's words ("9 min 30 s"), counted down here
function tick() {
  if (clockEnd === null) { $('clock').textContent = ''; return; }
  const whole = Math.max(0, Math.ceil((clockEnd - Date.now()) / 1000));
  const words = whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min` + (whole % 60 ? ` ${whole % 60} s` : '');
  $('clock').textContent = `clock: ${words} left for this move`;
}
setInterval(tick, 1000);

async function act(move) {
  $('error').textContent = '';
  for (const b of document.querySelectorAll('#actions button, .card')) b.disabled = true;
  const res = await fetch('act', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Zkbluff-Token': token },
                                   body: JSON.stringify(move) });
  const said = await res.text();
  if (!res.ok) $('error').textContent = said;
}

function cardButton(c, may) {
  const b = document.createElement('button');
  b.className = 'card' + (c.suit === 1 || c.suit === 2 ? ' red' : '');
  b.textContent = c.rank + SUITS[c.suit];
  b.dataset.card = String(c.id);
  b.setAttribute('aria-label', `${c.rank} of ${c.suitName}`);
  b.setAttribute('aria-pressed', picked.has(c.id) ? 'true' : 'false');
  b.disabled = !may;
  b.addEventListener('click', () => {
    if (picked.has(c.id)) picked.delete(c.id); else if (picked.size < state.table.maxPlay) picked.add(c.id);
    b.setAttribute('aria-pressed', picked.has(c.id) ? 'true' : 'false');
    $('play').disabled = picked.size === 0;
  });
  return b;
}

function render(s) {
  const t = s.table;
  const you = t.seat;
  const other = t.opponent;
  $('title').textContent = s.game;
  $('match').textContent = `match ${s.match} · transcript ${s.transcript}`;
  $('scores').innerHTML = '';
  for (const i of [you, other]) {
    const d = document.createElement('div');
    d.className = 'score';
    d.innerHTML = `<span class="who"></span> <b></b> <span class="cards"></span>`;
    d.querySelector('.who').textContent = t.names[i];
    d.querySelector('b').textContent = String(t.scores[i]);
    d.querySelector('.cards').textContent = `(${t.handSizes[i]} card${t.handSizes[i] === 1 ? '' : 's'} in hand)`;
    $('scores').appendChild(d);
  }
  const target = document.createElement('div');
  target.textContent = `first to ${t.target} · round ${t.round}`;
  $('scores').appendChild(target);
  $('pile-words').textContent = `pile: ${t.pile} card${t.pile === 1 ? '' : 's'} face down · required rank: ${t.requiredRank}`;
  $('claim').textContent = t.claim ? t.claim.words + (t.holdOfClaimRank !== null && t.claim.seat !== you
    ? ` (you hold ${t.holdOfClaimRank} of that rank)` : '') : '';
  const mayPlay = t.may.includes('play');
  const mayRespond = t.may.includes('accept');
  $('turn').textContent = s.over ? '' : t.turn === null ? '' : t.turn === you
    ? (mayPlay ? `your turn: pick 1 to ${t.maxPlay} cards and play them as "${t.requiredRank}"`
      : mayRespond ? 'your turn: accept the claim, or challenge it' : 'your client is proving')
    : `${t.names[t.turn]}'s turn`;
  clockEnd = s.secondsLeft !== null && s.secondsLeft !== undefined && !s.over ? Date.now() + s.secondsLeft * 1000 : null;
  tick();
  $('status').textContent = s.status || '';
  $('error').textContent = s.error ? 'not allowed: ' + s.error.replace(/^[a-z_]+: /, '') : '';
  const held = new Set(t.hand.map((c) => c.id));
  for (const id of [...picked]) if (!held.has(id) || !mayPlay) picked.delete(id);
  $('hand').innerHTML = '';
  for (const c of t.hand) $('hand').appendChild(cardButton(c, mayPlay));
  $('play').disabled = !mayPlay || picked.size === 0;
  $('accept').disabled = !mayRespond;
  $('challenge').disabled = !mayRespond;
  for (const entry of s.log.slice(shownLines)) $('log').appendChild(logItem(entry));
  shownLines = s.log.length;
  if (shownLines) $('log').lastElementChild.scrollIntoView({ block: 'nearest' });
  if (s.over) {
    $('result').hidden = false;
    $('result').textContent = '';
    const p = document.createElement('p');
    p.id = 'result-words';
    p.textContent = s.result || 'the match is over';
    const v = document.createElement('p');
    v.textContent = `Verify it yourself: ${s.verify}`;
    $('result').append(p, v);
    document.body.dataset.over = 'true';
  }
}

function logItem(e) {
  const li = document.createElement('li');
  li.value = e.n;
  li.dataset.n = String(e.n);
  const head = document.createElement('span');
  head.textContent = e.words[0];
  li.appendChild(head);
  for (const more of e.words.slice(1)) {
    const m = document.createElement('span');
    m.className = 'more';
    m.textContent = more;
    li.appendChild(m);
  }
  if (e.proof) {
    const d = document.createElement('details');
    const sum = document.createElement('summary');
    const mark = document.createElement('span');
    mark.className = 'verified';
    mark.textContent = e.proof.verified ? '✓ verified' : 'not verified';
    sum.append(mark, ` proof (${e.proof.statements.join(', ')})` +
      (e.proof.proveMs !== null ? `: proven in ${e.proof.proveMs} ms, verified in ${e.proof.verifyMs} ms` : ''));
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify(e.line, null, 1);
    d.append(sum, pre);
    li.appendChild(d);
  }
  return li;
}

$('play').addEventListener('click', () => act({ action: 'play', cards: [...picked] }));
$('accept').addEventListener('click', () => act({ action: 'accept' }));
$('challenge').addEventListener('click', () => act({ action: 'challenge' }));
document.addEventListener('keydown', (ev) => {
  if (ev.target instanceof HTMLButtonElement && (ev.key === 'Enter' || ev.key === ' ')) return;
  if (ev.key === 'a' && !$('accept').disabled) $('accept').click();
  if (ev.key === 'c' && !$('challenge').disabled) $('challenge').click();
  if (ev.key === 'p' && !$('play').disabled) $('play').click();
});

async function poll() {
  for (;;) {
    let res;
    try {
      res = await fetch(`state?since=${version}`, { headers: { 'X-Zkbluff-Token': token } });
    } catch (e) {
      $('status').textContent = state && state.over ? 'the match is over; the zkbluff process has closed this page'
        : 'the zkbluff process does not answer (was it stopped?)';
      return;
    }
    if (!res.ok) { $('error').textContent = await res.text(); return; }
    const s = await res.json();
    if (s.version > version) {
      version = s.version;
      state = s;
      render(s);
      document.body.dataset.version = String(version);
    }
    if (state && state.over) return;
  }
}
poll();
