// The drop-a-transcript verifier page: the dropped (or chosen) file goes to this machine's
// zkbluff process (POST verify), which verifies it with the offline verifier; its verdict is
// said here in words. See src/zkbluff/server/web_pages.py.
const token = new URLSearchParams(location.search).get('t');
const $ = (id) => document.getElementById(id);
let sent = 0;

function fact(dl, term, value) {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  dl.append(dt, dd);
}

function show(v, n) {
  const box = $('verdict');
  const dl = $('verdict-facts');
  dl.replaceChildren();
  box.dataset.state = v.valid ? 'valid' : 'invalid';
  box.dataset.kind = v.kind;
  box.dataset.line = v.line == null ? '' : String(v.line);
  box.dataset.code = v.code || '';
  box.dataset.n = String(n);
  if (v.valid && v.kind === 'transcript') {
    $('verdict-words').textContent = `✓ Valid: ${v.game}, ${v.seats.join(' vs ')}; ${v.result}.`
      + (v.complete ? '' : ' (The match is not finished.)');
    fact(dl, 'file', v.name);
    fact(dl, 'game', `${v.game} (${Object.entries(v.options).map(([k, x]) => `${k} ${x}`).join(', ')})`);
    fact(dl, 'seats', v.seats.map((s, i) => `seat ${i}: ${s}`).join('; '));
    fact(dl, 'result', v.result);
    fact(dl, 'checked', `${v.lines} signed lines, ${v.proofs} proofs`);
  } else if (v.valid) {
    $('verdict-words').textContent = `✓ Valid fairness record (${v.scheme}${v.game ? ', ' + v.game : ''}): ${v.message}.`;
    fact(dl, 'file', v.name);
  } else {
    const where = v.line == null ? '' : `line ${v.line}: `;
    const message = v.message.replace(/^(transcript )?line \d+: /, '');
    $('verdict-words').textContent = `✗ Invalid: ${where}${message} [${v.code}]`;
    fact(dl, 'file', v.name);
    if (v.line != null) fact(dl, 'first bad line', String(v.line));
    fact(dl, 'reason', `${v.code}: ${message}`);
  }
}

async function verify(file) {
  const n = ++sent;
  $('verdict').dataset.state = 'checking';
  $('verdict-words').textContent = `Checking ${file.name}…`;
  $('verdict-facts').replaceChildren();
  try {
    const res = await fetch(`verify?t=${encodeURIComponent(token)}`, {
      method: 'POST', body: await file.arrayBuffer(),
      headers: { 'Content-Type': 'application/octet-stream', 'X-Zkbluff-Token': token, 'X-Zkbluff-File': encodeURIComponent(file.name) },
    });
    if (!res.ok) throw new Error(await res.text());
    if (n === sent) show(await res.json(), n);
  } catch (e) {
    if (n === sent) show({ valid: false, kind: 'error', line: null, code: 'page', message: String(e.message || e), name: file.name }, n);
  }
}

const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer && e.dataTransfer.files[0];
  if (f) verify(f);
});
$('file').addEventListener('change', (e) => { const f = e.target.files[0]; if (f) verify(f); });
