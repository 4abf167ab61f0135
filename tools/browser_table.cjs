#!/usr/bin/env node
// Play a game on `zkbluff play GAME --web`'s page in headless Chromium (playwright-core), by
// clicking, as a person would. Used by tests/server/test_web_games.py.
//
//   node tools/browser_table.cjs NODE_MODULES CHROMIUM URL GAME RESULT.json [SCREENSHOT.png]
//
// GAME: cheat (until one call made inside a calling window and one posted after a window closed
// was refused: the process is then stopped by the test), mind-bluff (the series to its end, then
// each game's review and Truth Replay stepped through), bluffers, five-up-two-down and liars-dice (to the end).
// result: {"browser", "moves", "result", "log", "verified", "bodies" (every response body the page
// received), "errors", and the game's own facts}
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [nodeModules, chromium, url, game, resultFile, shot] = process.argv.slice(2);
const fs = require('fs');
const need = createRequire(path.join(path.resolve(nodeModules), 'noop.js'));
const { chromium: launcher } = need('playwright-core');
const trace = (...a) => { if (process.env.ZKBLUFF_TRACE) console.error(new Date().toISOString().slice(11, 23), ...a); };

const enabled = (page, sel) => page.evaluate((s) => { const b = document.querySelector(s); return b !== null && !b.disabled; }, sel);
const version = (page) => page.evaluate(() => Number(document.body.dataset.version || 0));
const over = (page) => page.evaluate(() => document.body.dataset.over === 'true');
const nextState = (page, v) => page.waitForFunction((x) => Number(document.body.dataset.version || 0) > x, v, { timeout: 90000 });

async function waitActionable(page, sels) {
  await page.waitForFunction((ss) => document.body.dataset.over === 'true'
    || ss.some((s) => { const b = document.querySelector(s); return b !== null && !b.disabled; }), sels, { timeout: 90000 });
}

const count = (page, action) => page.evaluate((a) => document.querySelectorAll(`#log li[data-action="${a}"]`).length, action);
const lastLog = (page) => page.evaluate(() => [...document.querySelectorAll('#log li')].map((li) => li.innerText).slice(-3));

async function cheat(page, facts) {
  facts.callInWindow = null;
  facts.lateCall = null;
  for (let i = 0; i < 400 && facts.lateCall === null; i++) {
    await waitActionable(page, ['#call', '.card:not([disabled])']);
    if (await over(page)) break;
    const v = await version(page);
    if (await enabled(page, '#call')) {
      const play = Number(await page.getAttribute('#call', 'data-play'));
      const [calls, closes] = [await count(page, 'call'), await count(page, 'close_window')];
      if (facts.callInWindow === null) {
        const [left, clock] = await page.evaluate(() => [Number(document.getElementById('clock').dataset.left),
                                                          document.getElementById('clock').textContent]);
        if (shot) await page.screenshot({ path: shot, fullPage: true });
        await page.click('#call');
        // the window resolves: our call (or, on a slow machine, a bot's first, or the clock's close)
        await page.waitForFunction(([c, w]) => document.querySelectorAll('#log li[data-action="call"]').length > c
          || document.querySelectorAll('#log li[data-action="close_window"]').length > w
          || document.getElementById('error').textContent !== '', [calls, closes], { timeout: 30000 });
        const ours = await page.evaluate((c) => [...document.querySelectorAll('#log li[data-action="call"]')].slice(c)
          .some((li) => li.innerText.startsWith('you call')), calls);
        trace('called', play, clock, ours);
        if (ours) facts.callInWindow = { play, left, clock };
        facts.moves++;
        continue;
      }
      // let this window close without calling (the referee's close_window), then call it late
      // (a click that reached the process too late); if someone else calls it, try the next window
      await page.waitForFunction(([c, w]) => document.querySelectorAll('#log li[data-action="call"]').length > c
        || document.querySelectorAll('#log li[data-action="close_window"]').length > w, [calls, closes], { timeout: 30000 });
      if (await count(page, 'close_window') === closes) continue;
      const closed = await lastLog(page);
      await page.evaluate(async (p) => {
        const token = new URLSearchParams(location.search).get('t');
        await fetch('act', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Zkbluff-Token': token },
                             body: JSON.stringify({ action: 'call', play: p, v: Number(document.body.dataset.version) }) });
      }, play);
      await page.waitForFunction(() => document.getElementById('error').textContent.startsWith('not allowed'), null, { timeout: 30000 });
      facts.lateCall = { play, error: await page.textContent('#error'), closed };
      trace('late call', facts.lateCall);
      break;
    }
    if (await page.$('#rank')) await page.selectOption('#rank', { index: 1 + (facts.moves % 13) });
    await page.click('.card:not([disabled])');
    await page.click('#play');
    facts.moves++;
    await nextState(page, v);
  }
  facts.disclosed = await page.evaluate(() => { const d = document.getElementById('disclosed-words'); return d ? d.textContent : null; });
}

async function mindBluff(page, facts) {
  const sels = ['#eat-1', '#claim-1', '#claim-2', '#claim-3', '#believe', '#next-game'];
  for (let i = 0; i < 300; i++) {
    await waitActionable(page, sels);
    if (await over(page)) break;
    const v = await version(page);
    if (await enabled(page, '#eat-1')) {
      const eaten = await page.evaluate(() => document.getElementById('my-eats').textContent.split(',').filter((x) => /\d/.test(x)).length);
      if (eaten < 2) await page.click('#eat-1');
      else { await page.click('#all-done'); await page.click('#all-done'); facts.allDone = (facts.allDone || 0) + 1; }
    } else if (await enabled(page, '#believe')) {
      await page.click('#believe');
    } else if (await enabled(page, '#next-game')) {
      if (shot && !facts.shotTaken) { await page.screenshot({ path: shot, fullPage: true }); facts.shotTaken = true; }
      await page.click('#next-game');
    } else {
      for (const k of [1, 2, 3]) if (await enabled(page, `#claim-${k}`)) { await page.click(`#claim-${k}`); break; }
    }
    facts.moves++;
    trace(facts.moves, await page.textContent('#turn'), await page.textContent('#clock'));
    await nextState(page, v);
  }
  await page.waitForSelector('.review');
  facts.reviews = await page.$$eval('.review', (r) => r.map((x) => x.dataset.game));
  const g = facts.reviews[0];
  await page.click(`#replay-${g}-start`);
  const first = await page.$$eval(`.review[data-game="${g}"] .replay li`, (l) => l.filter((x) => !x.hidden).map((x) => x.textContent));
  await page.click(`#replay-${g}-next`);
  const second = await page.$$eval(`.review[data-game="${g}"] .replay li`, (l) => l.filter((x) => !x.hidden).map((x) => x.textContent));
  facts.replay = { first, second, all: await page.$$eval(`.review[data-game="${g}"] .replay li`, (l) => l.map((x) => x.textContent)) };
  facts.download = await page.getAttribute(`.review[data-game="${g}"] a.download`, 'href');
  await page.click(`#replay-${g}-all`);
  if (shot && !facts.shotTaken) await page.screenshot({ path: shot, fullPage: true });
}

async function bluffers(page, facts) {
  for (let i = 0; i < 300; i++) {
    await waitActionable(page, ['#call', '.card:not([disabled])']);
    if (await over(page)) break;
    const v = await version(page);
    const canPlay = await page.$('.card:not([disabled])') !== null;
    if (await enabled(page, '#call') && (!canPlay || facts.moves % 3 === 2)) {
      await page.click('#call'); facts.calls = (facts.calls || 0) + 1;
    } else {
      await page.click('.card:not([disabled])');
      if (shot && !facts.shotTaken && facts.moves >= 2) { await page.screenshot({ path: shot, fullPage: true }); facts.shotTaken = true; }
      await page.click('#play');
    }
    facts.moves++;
    await nextState(page, v);
  }
}

async function fiveUp(page, facts) {
  let respond = 0;
  for (let i = 0; i < 300; i++) {
    await waitActionable(page, ['#make-claim', '#accept']);
    if (await over(page)) break;
    const v = await version(page);
    if (await enabled(page, '#accept')) await page.click(respond++ % 2 === 0 ? '#challenge' : '#accept');
    else {
      const name = await page.$('#names button:not([disabled])');
      if (name && facts.moves % 2 === 0) await name.click();
      if (shot && !facts.shotTaken && facts.moves >= 2) { await page.screenshot({ path: shot, fullPage: true }); facts.shotTaken = true; }
      await page.click('#make-claim');
    }
    facts.moves++;
    await nextState(page, v);
  }
}

async function liarsDice(page, facts) {
  for (let i = 0; i < 300; i++) {
    await waitActionable(page, ['#bid', '#dudo']);
    if (await over(page)) break;
    const v = await version(page);
    if (await enabled(page, '#dudo') && facts.moves % 2 === 1) {
      await page.click('#dudo'); facts.calls = (facts.calls || 0) + 1;
    } else {
      if (shot && !facts.shotTaken && facts.moves >= 1) { await page.screenshot({ path: shot, fullPage: true }); facts.shotTaken = true; }
      facts.dice = await page.$$eval('#hand .die', (d) => d.length);
      await page.click('#bid');  // the lowest raise, as the page offers it
    }
    facts.moves++;
    await nextState(page, v);
  }
}

(async () => {
  const browser = await launcher.launch({
    executablePath: chromium, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage',
           '--disable-extensions', '--no-first-run'],
  });
  const bodies = [];
  const pending = [];
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 1100 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('response', (r) => { pending.push(r.text().then((t) => { bodies.push({ url: r.url(), status: r.status(), body: t }); }, () => {})); });
    await page.goto(url);
    const facts = { moves: 0 };
    await { cheat, 'mind-bluff': mindBluff, bluffers, 'five-up-two-down': fiveUp, 'liars-dice': liarsDice }[game](page, facts);
    if (game !== 'cheat') await page.waitForFunction(() => document.body.dataset.over === 'true', null, { timeout: 60000 });
    const result = game === 'cheat' ? null : await page.textContent('#result-words');
    const log = await page.$$eval('#log li', (items) => items.map((li) => li.innerText));
    const verified = await page.$$eval('#log .verified', (m) => m.filter((x) => x.textContent === '✓ verified').length);
    if (shot && !facts.shotTaken && game !== 'cheat' && game !== 'mind-bluff') await page.screenshot({ path: shot, fullPage: true });
    delete facts.shotTaken;
    await Promise.race([Promise.all(pending), new Promise((resolve) => setTimeout(resolve, 5000))]);
    fs.writeFileSync(resultFile, JSON.stringify({ browser: browser.version(), ...facts, result, log, verified, bodies, errors }));
    trace('written', resultFile);
  } finally {
    // a long poll may still be open to the process: do not wait on it
    await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
  }
})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
