#!/usr/bin/env node
// The room's lobby page (`zkbluff host GAME --web`) in headless Chromium (playwright-core):
// read the code, copy it (the clipboard read back), Add bot, Remove it, Add bot again, Start,
// then wait for the result. Used by tests/server/test_web_pages.py.
//
//   node tools/browser_lobby.cjs NODE_MODULES CHROMIUM URL RESULT.json [SHOT.png]
'use strict';
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');

const [nodeModules, chromium, url, resultFile, shot] = process.argv.slice(2);
const need = createRequire(path.join(path.resolve(nodeModules), 'noop.js'));
const { chromium: launcher } = need('playwright-core');
const bots = (page) => page.$$eval('#members li[data-bot="true"]', (l) => l.length);

(async () => {
  const browser = await launcher.launch({
    executablePath: chromium, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage',
           '--disable-extensions', '--no-first-run'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.state === 'lobby' && !document.getElementById('add-bot').disabled, null, { timeout: 60000 });
    const facts = { code: await page.textContent('#code'), invite: await page.textContent('#invite'),
                    startBefore: await page.evaluate(() => document.getElementById('start').disabled) };
    await page.click('#copy');
    await page.waitForFunction(() => document.getElementById('copy').dataset.copied !== undefined);
    facts.copied = await page.getAttribute('#copy', 'data-copied');
    facts.clipboard = facts.copied === 'true' ? await page.evaluate(() => navigator.clipboard.readText()) : null;
    await page.click('#add-bot');
    await page.waitForFunction(() => document.querySelectorAll('#members li[data-bot="true"]').length === 1, null, { timeout: 30000 });
    facts.afterAdd = await page.$$eval('#members li', (l) => l.map((x) => x.textContent));
    await page.click('#members li[data-bot="true"] .remove');
    await page.waitForFunction(() => document.querySelectorAll('#members li[data-bot="true"]').length === 0, null, { timeout: 30000 });
    facts.afterRemove = await bots(page);
    await page.click('#add-bot');
    await page.waitForFunction(() => !document.getElementById('start').disabled, null, { timeout: 30000 });
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    await page.click('#start');
    await page.waitForFunction(() => document.body.dataset.state !== 'lobby', null, { timeout: 60000 });
    facts.started = await page.evaluate(() => document.body.dataset.state);
    await page.waitForFunction(() => document.body.dataset.over === 'true', null, { timeout: 240000 });
    facts.result = await page.textContent('#result-words');
    fs.writeFileSync(resultFile, JSON.stringify({ browser: browser.version(), ...facts, errors }));
  } finally {
    await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
  }
})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
