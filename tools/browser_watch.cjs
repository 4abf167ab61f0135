#!/usr/bin/env node
// Open `zkbluff watch URL CODE --web`'s page in headless Chromium (playwright-core) and stay
// until the match is over, noting how many lines the page showed at each new state (the
// lines arrive while the match is played). Used by tests/server/test_web_pages.py.
//
//   node tools/browser_watch.cjs NODE_MODULES CHROMIUM URL RESULT.json [SHOT.png]
//
// result: {"browser", "seen": [lines shown, per state], "log", "result", "bodies", "errors", "requests"}
'use strict';
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');

const [nodeModules, chromium, url, resultFile, shot] = process.argv.slice(2);
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
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    const errors = [];
    const requests = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    page.on('response', (r) => { pending.push(r.text().then((t) => { bodies.push({ url: r.url(), body: t }); }, () => {})); });
    await page.goto(url);
    const seen = [];
    let v = 0;
    for (let i = 0; i < 2000; i++) {
      await page.waitForFunction((x) => Number(document.body.dataset.version || 0) > x, v, { timeout: 120000 });
      const [nv, n, isOver] = await page.evaluate(() => [Number(document.body.dataset.version),
        document.querySelectorAll('#log li').length, document.body.dataset.over === 'true']);
      v = nv;
      seen.push(n);
      if (isOver) break;
    }
    const log = await page.$$eval('#log li', (items) => items.map((li) => ({ n: Number(li.dataset.n), text: li.innerText })));
    const result = await page.textContent('#result-words');
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    await Promise.race([Promise.all(pending), new Promise((resolve) => setTimeout(resolve, 5000))]);
    fs.writeFileSync(resultFile, JSON.stringify({ browser: browser.version(), seen, log, result, bodies, errors, requests }));
  } finally {
    await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
  }
})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
