// The spectator's page (`zkbluff watch URL CODE --web`): the public lines of a room's match,
// each checked by this machine's zkbluff process before it is shown, in the terminal's words.
// A spectator holds no seat's secrets: this page shows only what every spectator may see.
const token = new URLSearchParams(location.search).get('t') || '';
const $ = (id) => document.getElementById(id);
let version = 0;
let shown = 0;
let match = null;

function render(s) {
  if (s.game) $('title').textContent = `Watching ${s.game}`;
  if (s.id) { $('rules-link').href = `rules/${encodeURIComponent(s.id)}?t=${encodeURIComponent(token)}`; $('rules-link').hidden = false; }
  $('room').textContent = `room ${s.code}` + (s.room ? ` · ${s.room}` : '');
  document.body.dataset.version = String(s.version);
  document.body.dataset.over = String(Boolean(s.over));
  if (s.match !== match || s.log.length < shown) { $('log').replaceChildren(); shown = 0; match = s.match; }
  for (const e of s.log.slice(shown)) {
    const li = document.createElement('li');
    li.dataset.n = String(e.n);
    li.dataset.action = e.action;
    const span = document.createElement('span');
    span.textContent = e.words.length ? e.words.join('\n') : `line ${e.n}: ${e.action}`;
    const mark = document.createElement('span');
    mark.className = 'verified';
    mark.textContent = ' ✓ checked';
    li.append(span, mark);
    $('log').append(li);
  }
  shown = s.log.length;
  $('verified').textContent = `${s.verified} lines checked by this process`;
  $('status').textContent = s.over ? 'the match is over' : (s.log.length ? 'live: each line appears once checked' : 'waiting for the match');
  if (s.result) { $('result').hidden = false; $('result-words').textContent = s.result; }
}

async function poll() {
  for (;;) {
    try {
      const res = await fetch(`state?since=${version}`, { headers: { 'X-Zkbluff-Token': token } });
      if (!res.ok) throw new Error(await res.text());
      const s = await res.json();
      if (s.version > version) { version = s.version; render(s); }
      if (s.over) return;
    } catch (e) {
      $('status').textContent = `the process does not answer (${e.message || e}); retrying`;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
poll();
