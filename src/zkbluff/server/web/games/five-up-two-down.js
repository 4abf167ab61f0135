// 5 Up 2 Down's table: the board face up, your two hidden cards; name the board ranks you match, or respond.

const named = [];

export function render(s, ui) {
  const t = s.table;
  for (const i of [t.seat, t.opponent]) ui.$('scores').appendChild(ui.scoreBox(t.names[i], t.scores[i], ''));
  ui.$('scores').appendChild(ui.el('div', {}, `first to ${t.target} · round ${t.round}`));
  const board = ui.el('div', { id: 'board-cards', 'aria-label': 'the board (face up)' });
  board.append(ui.el('span', {}, 'board: '));
  for (const c of t.board) board.appendChild(ui.cardFace(c));
  ui.$('pile').appendChild(board);
  ui.$('claim').textContent = t.claim ? t.claim.words : '';
  const mayClaim = t.may.includes('claim');
  const mayRespond = t.may.includes('accept');
  ui.$('turn').textContent = ui.turnWords(s, mayClaim ? `your turn: name up to ${t.maxNames} board ranks your two cards match (or none)`
    : mayRespond ? 'your turn: accept the claim, or challenge it' : 'your client is proving');
  ui.$('hand-title').textContent = 'Your two hidden cards';
  for (const c of t.hand) ui.$('hand').appendChild(ui.cardFace(c));
  if (!mayClaim) named.length = 0;
  const picks = ui.el('div', { id: 'names', role: 'group', 'aria-label': 'board ranks to name' });
  const said = ui.el('span', { id: 'named' }, named.length ? `you name: ${named.map((r) => t.boardRanks.find((b) => b.rank === r).name).join(', ')}` : '');
  for (const b of t.boardRanks) {
    picks.appendChild(ui.button(`name-${b.rank}`, b.name, '', () => {
      if (named.length < t.maxNames) named.push(b.rank);
      said.textContent = `you name: ${named.map((r) => t.boardRanks.find((x) => x.rank === r).name).join(', ')}`;
    }, mayClaim));
  }
  if (mayClaim) ui.$('actions').append(picks, said);
  ui.$('actions').append(
    ui.button('make-claim', 'Claim', 'p', () => { const r = [...named]; named.length = 0; ui.act({ action: 'claim', ranks: r }); }, mayClaim),
    ui.button('clear', 'Clear', '', () => { named.length = 0; said.textContent = ''; }, mayClaim),
    ui.button('accept', 'Accept', 'a', () => ui.act({ action: 'accept' }), mayRespond),
    ui.button('challenge', 'Challenge (Proof or Bluff!)', 'c', () => ui.act({ action: 'challenge' }), mayRespond));
}
