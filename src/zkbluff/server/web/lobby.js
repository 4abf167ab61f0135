// The room's lobby (`zkbluff host GAME --web`): the code big with a copy button, the invite,
// the seats, Add bot / Remove / Start. A view and an input of this machine's zkbluff
// process, which sends the owner's messages to the server (src/zkbluff/server/web_pages.py).
const token = new URLSearchParams(location.search).get('t') || '';
const $ = (id) => document.getElementById(id);
let version = 0;
let state = null;

async function act(move) {
  await fetch('act', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Zkbluff-Token': token },
                       body: JSON.stringify({ ...move, v: version }) });
}

async function copy(text, button) {
  try { await navigator.clipboard.writeText(text); button.dataset.copied = 'true'; button.textContent = 'Copied'; }
  catch (e) { button.dataset.copied = 'false'; button.textContent = 'Select and copy it'; }
}

function render(s) {
  state = s;
  document.body.dataset.version = String(s.version);
  document.body.dataset.state = s.state;
  document.body.dataset.over = String(Boolean(s.over));
  if (s.title) $('title').textContent = `Your room: ${s.title}`;
  $('code').textContent = s.code || '…';
  $('invite').textContent = s.invite;
  $('state').textContent = s.state === 'lobby' ? 'Waiting for players: start when every seat is filled.' : `The room is ${s.state}.`;
  $('error').textContent = s.error || '';
  const filled = s.members.length;
  $('seats-title').textContent = `Seats (${filled} of ${s.seats ?? '?'})`;
  $('members').replaceChildren(...s.members.map((m) => {
    const li = document.createElement('li');
    li.dataset.seat = String(m.seat);
    li.dataset.bot = String(m.bot);
    li.append(`${m.name}${m.bot ? ' (bot)' : ''}${m.connected ? '' : ' [away]'} `);
    if (m.bot && s.owner && s.state === 'lobby') {
      const b = document.createElement('button');
      b.type = 'button'; b.className = 'remove'; b.textContent = 'Remove';
      b.setAttribute('aria-label', `remove ${m.name}`);
      b.addEventListener('click', () => act({ action: 'remove-bot', seat: m.seat }));
      li.append(b);
    }
    return li;
  }));
  const lobby = s.owner && s.state === 'lobby';
  $('add-bot').disabled = !(lobby && s.seats && filled < s.seats);
  $('start').disabled = !(lobby && s.seats && filled === s.seats);
  if (s.result) { $('result').hidden = false; $('result-words').textContent = s.result; }
}

$('copy').addEventListener('click', () => copy(state ? state.code : '', $('copy')));
$('copy-invite').addEventListener('click', () => copy(state ? state.invite : '', $('copy-invite')));
$('add-bot').addEventListener('click', () => act({ action: 'add-bot' }));
$('start').addEventListener('click', () => act({ action: 'start' }));

async function poll() {
  for (;;) {
    try {
      const res = await fetch(`state?since=${version}`, { headers: { 'X-Zkbluff-Token': token } });
      if (!res.ok) throw new Error(await res.text());
      const s = await res.json();
      if (s.version > version && s.kind === 'lobby') { version = s.version; render(s); }
      if (s.over) return;
    } catch (e) {
      $('error').textContent = `the process does not answer (${e.message || e}); retrying`;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
poll();
