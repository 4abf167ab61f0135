#!/usr/bin/env node
// Play a whole Proof or Bluff match on `zkbluff play proof-or-bluff --web`'s page in headless
// Chromium (playwright-core), by clicking: each turn the first card of the hand is picked and
// played; a claim is challenged and accepted in turn. Used by tests/server/test_web_table.py.
//
//   node tools/browser_play.cjs NODE_MODULES CHROMIUM URL [SCREENSHOT.png] > result.json
//
// result: {"browser", "moves", "result" (the page's result words), "log" (the narration's
// lines as shown), "verified" (the number of "verified" marks), "bodies" (every response body
// the page received: the test checks none carries a value the seat may not see), "errors"}
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [nodeModules, chromium, url, shot] = process.argv.slice(2);
const need = createRequire(path.join(path.resolve(nodeModules), 'noop.js'));
const { chromium: launcher } = need('playwright-core');

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
    const open = new Set();
    page.on('response', (r) => { open.add(r.url()); pending.push(r.text().then((t) => { open.delete(r.url()); bodies.push({ url: r.url(), status: r.status(), body: t }); },
                                                         (e) => { open.delete(r.url()); if (process.env.ZKBLUFF_TRACE) console.error('no body', r.url(), String(e)); })); });
    await page.goto(url);
    let moves = 0;
    let respond = 0;
    let shotTaken = false;
    for (let i = 0; i < 500; i++) {
      await page.waitForFunction(() => document.body.dataset.over === 'true'
        || (document.getElementById('accept') !== null && !document.getElementById('accept').disabled)
        || document.querySelector('.card:not([disabled])') !== null, null, { timeout: 120000 });
      if (await page.evaluate(() => document.body.dataset.over === 'true')) break;
      const before = await page.evaluate(() => Number(document.body.dataset.version || 0));
      if (await page.evaluate(() => document.getElementById('accept') !== null && !document.getElementById('accept').disabled)) {
        await page.click(respond++ % 2 === 0 ? '#challenge' : '#accept');
      } else {
        await page.click('.card:not([disabled])');
        if (shot && !shotTaken && moves >= 4) { await page.screenshot({ path: shot, fullPage: true }); shotTaken = true; }
        await page.click('#play');
      }
      moves++;
      if (process.env.ZKBLUFF_TRACE) console.error(moves, await page.evaluate(() => [document.getElementById('status').textContent, document.getElementById('error').textContent, document.getElementById('turn').textContent].join(' | ')));
      await page.waitForFunction((v) => Number(document.body.dataset.version || 0) > v, before, { timeout: 120000 });
    }
    const result = await page.textContent('#result-words');
    const log = await page.$$eval('#log li', (items) => items.map((li) => li.innerText));
    const verified = await page.$$eval('#log .verified', (m) => m.filter((x) => x.textContent === '✓ verified').length);
    if (shot && !shotTaken) await page.screenshot({ path: shot, fullPage: true });
    if (process.env.ZKBLUFF_TRACE) console.error('over', new Date().toISOString(), [...open]);
    await Promise.all(pending);
    process.stdout.write(JSON.stringify({ browser: browser.version(), moves, result, log, verified, bodies, errors }));
  } finally {
    if (process.env.ZKBLUFF_TRACE) console.error('closing', new Date().toISOString());
    await browser.close();
    if (process.env.ZKBLUFF_TRACE) console.error('closed', new Date().toISOString());
  }
})().catch((e) => { console.error(e); process.exit(1); });
