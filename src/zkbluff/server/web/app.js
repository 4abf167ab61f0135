// The seat's table: a view and an input of the zkbluff process that served it (nothing here
// proves or checks anything; the process does). Plain ES modules, no build step: this file
// is the page every game shares (the clock, the status, what a proof disclosed, the
// narration with each proof's "verified" mark, the result); games/<game>.js draws the
// game's own table (hand, pile, claim, scores, what the seat may do).
const token = new URLSearchParams(location.search).get('t') || '';
const $ = (id) => document.getElementById(id);
const SUITS = ['♣', '♦', '♥', '♠'];
let version = 0;
let state = null;
let renderer = null;
const picked = new Set();
let shownLines = 0;
let clockEnd = null;
let clockLabel = '';

function words(whole) {
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min` + (whole % 60 ? ` ${whole % 60} s` : '');
}

// the seconds left (the seat's move, a calling window, a pause), in the terminal's words, counted down here
function tick() {
  if (clockEnd === null) { $('clock').textContent = ''; delete $('clock').dataset.left; return; }
  const whole = Math.max(0, Math.ceil((clockEnd - Date.now()) / 1000));
  $('clock').dataset.left = String(whole);
  $('clock').textContent = clockLabel === 'left for this move' ? `clock: ${words(whole)} left for this move`
    : `${clockLabel}: ${words(whole)}`;
}
setInterval(tick, 250);

async function act(move) {
  $('error').textContent = '';
  for (const b of document.querySelectorAll('#actions button, .card')) b.disabled = true;
  const res = await fetch('act', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Zkbluff-Token': token },
                                   body: JSON.stringify({ ...move, v: version }) });
  const said = await res.text();
  if (!res.ok) $('error').textContent = said;
}

function el(tag, props = {}, text = '') {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v; else if (k === 'data') Object.assign(e.dataset, v); else e.setAttribute(k, v);
  }
  if (text) e.textContent = text;
  return e;
}

// an action button; `key` is its keyboard shortcut
function button(id, label, key, onClick, enabled) {
  const b = el('button', { id });
  b.textContent = label + (key ? ` [${key}]` : '');
  if (key) b.dataset.key = key;
  b.disabled = !enabled;
  b.addEventListener('click', onClick);
  return b;
}

// a card of the seat's hand that can be picked (at most `most` at once)
function cardButton(c, may, most, onPick) {
  const b = el('button', { class: 'card' + (c.suit === 1 || c.suit === 2 ? ' red' : '') + (c.joker ? ' joker' : '') + (c.wide ? ' wide' : '') });
  b.textContent = c.text || (c.rank + SUITS[c.suit]);
  b.dataset.card = String(c.id);
  b.setAttribute('aria-label', c.label || `${c.rank} of ${c.suitName}`);
  b.setAttribute('aria-pressed', picked.has(c.id) ? 'true' : 'false');
  b.disabled = !may;
  b.addEventListener('click', () => {
    if (picked.has(c.id)) picked.delete(c.id); else if (picked.size < most) picked.add(c.id);
    b.setAttribute('aria-pressed', picked.has(c.id) ? 'true' : 'false');
    if (onPick) onPick();
  });
  return b;
}

// a card face shown, not picked (the board, a revealed play)
function cardFace(c) {
  const s = el('span', { class: 'face' + (c.suit === 1 || c.suit === 2 ? ' red' : '') });
  s.textContent = c.text || (c.rank + SUITS[c.suit]);
  s.setAttribute('aria-label', c.label || `${c.rank} of ${c.suitName}`);
  return s;
}

function keepPicks(hand, may) {
  const held = new Set(hand.map((c) => c.id));
  for (const id of [...picked]) if (!held.has(id) || !may) picked.delete(id);
}

// pieces every game's renderer uses: a seat's score box, the turn line, the pile's back
function scoreBox(ui, name, big, small, data = {}) {
  const d = ui.el('div', { class: 'score', data });
  d.append(ui.el('span', { class: 'who' }, name), ' ', ui.el('b', {}, String(big)), ' ', ui.el('span', { class: 'cards' }, small));
  return d;
}

function cards(n) { return `${n} card${n === 1 ? '' : 's'}`; }

function turnWords(s, yours) {
  const t = s.table;
  if (s.over || t.turn === null || t.turn === undefined) return '';
  if (t.turn === t.seat) return yours;
  return `${t.names[t.turn]}'s turn`;
}

function pileBack(ui, words) {
  ui.$('pile').append(ui.el('span', { class: 'pile-cards', 'aria-hidden': 'true' }), ui.el('span', { id: 'pile-words' }, words));
}

const ui = { el, act, button, cardButton, cardFace, picked, keepPicks, $, SUITS, scoreBox: (...a) => scoreBox(ui, ...a),
  cards, turnWords, pileBack: (w) => pileBack(ui, w) };

function render(s) {
  $('title').textContent = s.game;
  $('match').textContent = `match ${s.match} · transcript ${s.transcript}`;
  document.body.dataset.game = s.kind;
  $('rules-link').href = `rules/${encodeURIComponent(s.kind)}?t=${encodeURIComponent(token)}`;
  $('verify-link').href = `verify?t=${encodeURIComponent(token)}`;
  for (const id of ['scores', 'pile', 'claim', 'turn', 'hand', 'actions', 'extra']) $(id).textContent = '';
  renderer.render(s, ui);
  const c = s.over ? null : s.clock;
  clockEnd = c ? Date.now() + c.secondsLeft * 1000 : null;
  clockLabel = c ? c.label : '';
  tick();
  $('status').textContent = s.status || '';
  $('error').textContent = s.error ? 'not allowed: ' + s.error.replace(/^[a-z_]+: /, '') : '';
  if (s.disclosed) {
    $('disclosed').hidden = false;
    $('disclosed').textContent = '';
    $('disclosed').append(el('b', {}, 'What the proof disclosed: '), el('span', { id: 'disclosed-words' }, s.disclosed.words.join(' ')));
  }
  for (const entry of s.log.slice(shownLines)) $('log').appendChild(logItem(entry));
  shownLines = s.log.length;
  if (shownLines) $('log').lastElementChild.scrollIntoView({ block: 'nearest' });
  if (s.over) {
    $('result').hidden = false;
    $('result').textContent = '';
    const p = el('p', { id: 'result-words' }, s.result || 'the match is over');
    const v = el('p', {}, `Verify it yourself: ${s.verify}`);
    $('result').append(p, v);
    document.body.dataset.over = 'true';
  }
}

function logItem(e) {
  const li = el('li');
  li.value = e.n;
  li.dataset.n = String(e.n);
  li.dataset.action = e.action;
  li.appendChild(el('span', {}, e.words[0]));
  for (const more of e.words.slice(1)) li.appendChild(el('span', { class: 'more' }, more));
  if (e.proof) {
    const d = el('details');
    const sum = el('summary');
    const mark = el('span', { class: 'verified' }, e.proof.verified ? '✓ verified' : 'not verified');
    sum.append(mark, ` proof (${e.proof.statements.join(', ')})` +
      (e.proof.proveMs !== null ? `: proven in ${e.proof.proveMs} ms, verified in ${e.proof.verifyMs} ms` : ''));
    const pre = el('pre');
    pre.textContent = JSON.stringify(e.line, null, 1);
    d.append(sum, pre);
    li.appendChild(d);
  }
  return li;
}

document.addEventListener('keydown', (ev) => {
  if (ev.target instanceof HTMLButtonElement && (ev.key === 'Enter' || ev.key === ' ')) return;
  if (ev.target instanceof HTMLSelectElement) return;
  const b = [...document.querySelectorAll('#actions button[data-key]')].find((x) => x.dataset.key === ev.key && !x.disabled);
  if (b) b.click();
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
      if (renderer === null && s.renderer) renderer = await import(`./games/${s.renderer}.js?t=${encodeURIComponent(token)}`);
      version = s.version;
      state = s;
      if (renderer) render(s);
      document.body.dataset.version = String(version);
    }
    if (state && state.over) return;
  }
}
poll();
