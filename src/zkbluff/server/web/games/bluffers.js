// Bluffers' table: the table card, your hand, the last claim, each revolver's pulls; play 1-3 cards, call, or leave.

export function render(s, ui) {
  const t = s.table;
  t.names.forEach((n, i) => {
    const out = !t.alive[i];
    ui.$('scores').appendChild(ui.scoreBox(n, out ? 'out' : `${t.chambers[i]}/${t.chamberCount}`,
      out ? (t.places[i] ? `(place ${t.places[i]})` : '') : `revolver pulls · ${ui.cards(t.handSizes[i])} in hand · next: 1 in ${t.chamberCount - t.chambers[i]}`,
      { seat: String(i) }));
  });
  ui.$('scores').appendChild(ui.el('div', { id: 'table-card' }, t.tableCard ? `table card: ${t.tableCard} · round ${t.round}` : `round ${t.round}`));
  ui.pileBack(`middle: ${ui.cards(t.pile)} face down`);
  ui.$('claim').textContent = t.claim ? t.claim.words : '';
  if (t.revealed.length) {
    const r = ui.el('div', { id: 'revealed' }, 'the called play, turned over: ');
    t.revealed.forEach((c, i) => r.appendChild(ui.cardFace({ text: c.name + (t.matched[i] ? ' ✓' : ' ✗'), label: c.name })));
    ui.$('pile').appendChild(r);
  }
  if (t.lastPull) ui.$('pile').appendChild(ui.el('div', { id: 'last-pull' },
    `${t.names[t.lastPull.seat]} pulled chamber ${t.lastPull.chamber + 1}: ${t.lastPull.fired ? 'BANG' : 'click'}`));
  const mayPlay = t.may.includes('play');
  const mayCall = t.may.includes('call');
  ui.$('turn').textContent = ui.turnWords(s, t.may.length ? `your turn: play 1 to ${t.maxPlay} cards as ${t.tableCard}` +
    (mayCall ? ', or call the last claim a bluff' : '') : 'your client does what the table needs from it');
  ui.keepPicks(t.hand, mayPlay);
  const play = ui.button('play', 'Play selected', 'p', () => ui.act({ action: 'play', cards: [...ui.picked] }), mayPlay && ui.picked.size > 0);
  for (const c of t.hand) ui.$('hand').appendChild(ui.cardButton({ ...c, text: c.name, label: c.name, joker: c.name === 'Joker', wide: true },
    mayPlay, t.maxPlay, () => { play.disabled = ui.picked.size === 0; }));
  ui.$('actions').append(play,
    ui.button('call', 'Call bluff!', 'c', () => ui.act({ action: 'call' }), mayCall),
    ui.button('leave', 'Leave table (no points)', '', () => ui.act({ action: 'leave' }), t.may.includes('leave')));
}
