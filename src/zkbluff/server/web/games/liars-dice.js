// Liar's Dice's table: your own dice (nobody else's), every seat's dice count, the last bid; bid or call Dudo.

const PIPS = ['', '⚀', '⚁', '⚂', '⚃', '⚄', '⚅'];

export function render(s, ui) {
  const t = s.table;
  t.names.forEach((n, i) => ui.$('scores').appendChild(ui.scoreBox(n, `${t.diceCounts[i]} dice`,
    t.diceCounts[i] ? '' : 'out', { seat: String(i) })));
  ui.$('scores').appendChild(ui.el('div', {}, `round ${t.round} · ${t.inPlay} dice in play · ones ${t.wild ? 'wild' : 'not wild'}`));
  ui.pileBack(t.last ? t.last.words : 'every cup is closed: each seat sees only its own dice');
  ui.$('claim').textContent = t.bid ? t.bid.words : '';
  const mayBid = t.may.includes('bid');
  const mayDudo = t.may.includes('dudo');
  ui.$('turn').textContent = ui.turnWords(s, t.may.length ? 'your turn: raise the bid' + (mayDudo ? ', or call Dudo' : '')
    : 'your client proves its count when a bid is called');
  for (const d of t.dice) ui.$('hand').appendChild(ui.el('span', { class: 'die', 'aria-label': `a ${d}` }, PIPS[d] || String(d)));
  const low = t.lowest || { quantity: 1, face: 1 };
  const quantity = ui.el('input', { id: 'bid-quantity', type: 'number', min: '1', max: String(t.inPlay), value: String(low.quantity),
    'aria-label': 'quantity' });
  const face = ui.el('input', { id: 'bid-face', type: 'number', min: '1', max: String(t.faces), value: String(low.face),
    'aria-label': 'face' });
  quantity.disabled = face.disabled = !mayBid;
  ui.$('actions').append(quantity, ' × ', face,
    ui.button('bid', 'Bid', 'b', () => ui.act({ action: 'bid', quantity: Number(quantity.value), face: Number(face.value) }), mayBid),
    ui.button('dudo', 'Dudo!', 'd', () => ui.act({ action: 'dudo' }), mayDudo));
}
