// Generates vectors/fair/vectors.json from vectors/fair/cases.json with seed 002's own
// JavaScript. Lines between "BEGIN SEED 002 (verbatim)" and "END SEED 002" are copied
// unchanged from ../shared/seeds/002_58ecd3e775048f71.txt; everything else composes
// them per game as zkbluff reads the seed (see README.md, "Readings").
// Usage: node vectors/fair/generate.cjs [--check]   (--check: compare, write nothing)
'use strict';
const fs = require('fs');
const path = require('path');

function matchSeedV2(serverSeed, commitment, clientSeeds, game, matchId, opts) {
  const logs = [];
  const console = { log: (v) => logs.push(v) };
  // ---- BEGIN SEED 002 (verbatim)
const { createHash, createHmac } = require('crypto');
const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const word = (key, msg) => BigInt('0x' + createHmac('sha256', key).update(msg).digest('hex').slice(0, 13));

console.log(sha256(serverSeed) === commitment);            // 1. the reveal matches the commitment

let k = 0;                                                  // 2. the draw stream: one counter per match
const seeds = clientSeeds.map((s, i) => i + '=' + s).join(',');
const next = () => word(serverSeed, 'pf2:' + game + ':' + matchId + ':' + seeds + ':' + (k++));
const SPAN = 1n << 52n;
function int(n) {                                           // 3. whole number below n, no modulo bias
  const N = BigInt(n), limit = SPAN - (SPAN % N);
  for (;;) { const w = next(); if (w < limit) return Number(w % N); }
}
const die = () => int(6) + 1;
function shuffle(a) {                                       // 4. Fisher–Yates from the top
  a = a.slice();
  for (let i = a.length - 1; i > 0; i--) { const j = int(i + 1); [a[i], a[j]] = [a[j], a[i]]; }
  return a;
}
// seat order (pairings): shuffle([0, 1]) first, then the game's opening deal / roll
  // ---- END SEED 002
  const range = (n) => Array.from({ length: n }, (_, i) => i);
  if (opts.ints) {  // primitive vectors: int(n) repeatedly on the match stream
    const values = opts.ints.n.map((n) => int(n));
    return { values, counter: k };
  }
  const out = { scheme: 'match_seed_v2', game };
  if (commitment !== undefined) out.commitmentValid = logs[0];
  out.seatOrder = shuffle([0, 1]);
  if (game === 'backgammon') {
    const turns = opts.turns === undefined ? 1 : opts.turns;
    out.dice = range(2 + 2 * turns).map(() => die());
  } else if (['bridge', 'tarneeb', 'trix'].includes(game)) {
    const deals = opts.deals === undefined ? 1 : opts.deals;
    out.deals = range(deals).map(() => { const d = shuffle(range(52)); return range(4).map((i) => d.slice(13 * i, 13 * i + 13)); });
  } else if (game === 'baloot') {
    const deck = shuffle(range(32));
    out.deck = deck;
    out.deals = [range(4).map((i) => deck.slice(5 * i, 5 * i + 5))];
    out.faceUp = deck[20];
    out.rest = shuffle(deck.slice(21));
  } else if (game === 'mahjong') {
    const tiles = opts.tiles === undefined ? 144 : opts.tiles;
    const wall = range(tiles);
    const draws = [];
    const nDraws = Math.min(opts.draws === undefined ? tiles : opts.draws, tiles);
    for (let d = 0; d < nDraws; d++) draws.push(wall.splice(int(wall.length), 1)[0]);
    out.draws = draws;
  }
  out.counter = k;
  return out;
}

function pokerHmacV1(serverSeed, T, S, n, seatSeeds, handCommitment, commitment, positions) {
  const logs = [];
  const console = { log: (v) => logs.push(v) };
  const { createHash, createHmac } = require('crypto');
  const sha256 = (s) => createHash('sha256').update(s).digest('hex');
  const word = (key, msg) => BigInt('0x' + createHmac('sha256', key).update(msg).digest('hex').slice(0, 13));
  // ---- BEGIN SEED 002 (verbatim)
const handValue = createHmac('sha256', serverSeed).update('pk1:hand:' + T + ':' + S + ':' + n).digest('hex');
console.log(sha256(handValue) === handCommitment);         // stored before the deal
  // ---- END SEED 002
  // deck = shuffle([0..51]); key = handValue; message = pk1:T:S:n:{seat}={seed},…:{k}; seats ↑
  const seats = Object.keys(seatSeeds).sort((a, b) => Number(a) - Number(b)).map((s) => s + '=' + seatSeeds[s]).join(',');
  let k = 0;
  const SPAN = 1n << 52n;
  const next = () => word(handValue, 'pk1:' + T + ':' + S + ':' + n + ':' + seats + ':' + (k++));
  function int(n) { const N = BigInt(n), limit = SPAN - (SPAN % N); for (;;) { const w = next(); if (w < limit) return Number(w % N); } }
  function shuffle(a) { a = a.slice(); for (let i = a.length - 1; i > 0; i--) { const j = int(i + 1); [a[i], a[j]] = [a[j], a[i]]; } return a; }
  const deck = shuffle(Array.from({ length: 52 }, (_, i) => i));
  // salt_i = HMAC(handValue, 'pk1:salt:' + i); leaf_i = sha256('pk1:leaf:' + i + ':' + card_i + ':' + salt_i)
  const salt = (i) => createHmac('sha256', handValue).update('pk1:salt:' + i).digest('hex');
  let level = deck.map((c, i) => sha256('pk1:leaf:' + i + ':' + c + ':' + salt(i)));
  // 64 leaves (52..63 = sha256('pk1:pad')), parent = sha256('pk1:node:' + left + right) → root
  while (level.length < 64) level.push(sha256('pk1:pad'));
  const levels = [level];
  while (level.length > 1) {
    const up = [];
    for (let i = 0; i < level.length; i += 2) up.push(sha256('pk1:node:' + level[i] + level[i + 1]));
    levels.push(up);
    level = up;
  }
  const RANKS = '23456789TJQKA', SUITS = 'cdhs';
  const out = { scheme: 'poker_hmac_v1', handValue, handCommitment: sha256(handValue) };
  if (commitment !== undefined) out.commitmentValid = sha256(serverSeed) === commitment;
  if (handCommitment !== undefined) out.handCommitmentValid = logs[0];
  out.deck = deck;
  out.cards = deck.map((id) => RANKS[id % 13] + SUITS[Math.floor(id / 13)]);
  out.root = levels[levels.length - 1][0];
  out.cardProofs = (positions || []).map((pos) => {
    const pathSteps = [];
    let idx = pos;
    for (let d = 0; d < levels.length - 1; d++) {
      const sib = idx ^ 1;
      pathSteps.push({ hash: levels[d][sib], side: sib < idx ? 'left' : 'right' });
      idx = Math.floor(idx / 2);
    }
    return { position: pos, card: deck[pos], salt: salt(pos), path: pathSteps, root: out.root };
  });
  return out;
}

function chessColourV1(seedA, seedB, clientA, clientB, commitAIn) {
  const { createHash, createHmac } = require('crypto');
  const sha256 = (s) => createHash('sha256').update(s).digest('hex');
  const word = (key, msg) => BigInt('0x' + createHmac('sha256', key).update(msg).digest('hex').slice(0, 13));
  const commitA = sha256(seedA);
  const commitB = seedB === null ? undefined : sha256(seedB);
  // ---- BEGIN SEED 002 (verbatim)
const m = (k) => 'cc1:' + commitA + ':' + (commitB || '-') + ':0=' + clientA + ',1=' + clientB + ':' + k;
  // ---- END SEED 002
  // w = word(seedA, m(k)) XOR word(seedB, m(k)); int(2) over w as above → 0 means A plays White
  let k = 0;
  const SPAN = 1n << 52n;
  const next = () => { const kk = k++; const w = word(seedA, m(kk)); return seedB === null ? w : w ^ word(seedB, m(kk)); };
  function int(n) { const N = BigInt(n), limit = SPAN - (SPAN % N); for (;;) { const w = next(); if (w < limit) return Number(w % N); } }
  const out = { scheme: 'chess_colour_v1', commitA, commitB: commitB === undefined ? null : commitB };
  if (commitAIn !== undefined) out.commitmentValid = commitAIn === commitA;
  out.white = int(2) === 0 ? 'A' : 'B';
  return out;
}

function expectedFor(c) {
  const rec = c.record;
  if (c.kind === 'int') {
    return matchSeedV2(rec.serverSeed, undefined, rec.clientSeeds, rec.game, rec.matchId, { ints: { n: c.n } });
  }
  switch (rec.scheme) {
    case 'match_seed_v2':
      return matchSeedV2(rec.serverSeed, rec.commitment, rec.clientSeeds || [], rec.game, String(rec.matchId), rec);
    case 'poker_hmac_v1':
      return pokerHmacV1(rec.serverSeed, rec.table, rec.session, rec.hand, rec.seeds, rec.handCommitment, rec.commitment, c.positions);
    case 'chess_colour_v1':
      return chessColourV1(rec.seedA, rec.seedB === undefined ? null : rec.seedB, rec.clientA || '', rec.clientB || '', rec.commitA);
    default:
      return null;  // not a scheme the seed defines: the case expects an error
  }
}

const here = __dirname;
const cases = JSON.parse(fs.readFileSync(path.join(here, 'cases.json'), 'utf8'));
const tests = cases.tests.map((c) => ({ ...c, expected: expectedFor(c) }));
const doc = { ...cases, tests };
const text = JSON.stringify(doc, null, 1) + '\n';
const target = path.join(here, 'vectors.json');
if (process.argv.includes('--check')) {
  const old = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (old !== text) { process.stderr.write('vectors/fair/vectors.json differs from what the seed\'s code gives\n'); process.exit(1); }
  process.stdout.write('vectors/fair/vectors.json matches the seed\'s code\n');
} else {
  fs.writeFileSync(target, text);
  process.stdout.write(`wrote ${tests.length} vectors\n`);
}
