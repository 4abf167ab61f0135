// Proof or Bluff's table: your hand, the pile, the required rank, the claim; play, accept or challenge.

export function render(s, ui) {
  const t = s.table;
  for (const i of [t.seat, t.opponent]) ui.$('scores').appendChild(ui.scoreBox(t.names[i], t.scores[i], `(${ui.cards(t.handSizes[i])} in hand)`));
  ui.$('scores').appendChild(ui.el('div', {}, `first to ${t.target} · round ${t.round}`));
  ui.pileBack(`pile: ${t.pile} card${t.pile === 1 ? '' : 's'} face down · required rank: ${t.requiredRank}`);
  ui.$('claim').textContent = t.claim ? t.claim.words + (t.holdOfClaimRank !== null && t.claim.seat !== t.seat
    ? ` (you hold ${t.holdOfClaimRank} of that rank)` : '') : '';
  const mayPlay = t.may.includes('play');
  const mayRespond = t.may.includes('accept');
  ui.$('turn').textContent = ui.turnWords(s, mayPlay ? `your turn: pick 1 to ${t.maxPlay} cards and play them as "${t.requiredRank}"`
    : mayRespond ? 'your turn: accept the claim, or challenge it' : 'your client is proving');
  ui.keepPicks(t.hand, mayPlay);
  const play = ui.button('play', 'Play selected', 'p', () => ui.act({ action: 'play', cards: [...ui.picked] }), mayPlay && ui.picked.size > 0);
  for (const c of t.hand) ui.$('hand').appendChild(ui.cardButton(c, mayPlay, t.maxPlay, () => { play.disabled = ui.picked.size === 0; }));
  ui.$('actions').append(play,
    ui.button('accept', 'Accept', 'a', () => ui.act({ action: 'accept' }), mayRespond),
    ui.button('challenge', 'Challenge (Proof or Bluff!)', 'c', () => ui.act({ action: 'challenge' }), mayRespond));
}
