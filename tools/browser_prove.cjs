#!/usr/bin/env node
// Prove statements in headless Chromium (playwright-core) with tools/browser/prove.html.
//
//   node tools/browser_prove.cjs NODE_MODULES CHROMIUM URL STEM [STEM...] > result.json
//
// URL: where prove.html is served, with each STEM's files beside it (see the page).
// result: {"browser": version, "results": {STEM: {proof, publicSignals, witnessMs, proveMs}}}
// Each STEM is proven twice; the times are the second run's (the first loads snarkjs's
// WebAssembly curve code), the proof the first's. Then, in a fresh page, the first STEM twice
// with the page's kept one-thread curve (curve "one-thread-kept"): result.oneThreadKept, the
// second proof (the one that takes the kept curve from snarkjs's cache).
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [nodeModules, chromium, url, ...stems] = process.argv.slice(2);
const need = createRequire(path.join(path.resolve(nodeModules), 'noop.js'));
const { chromium: launcher } = need('playwright-core');

(async () => {
  const browser = await launcher.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => typeof window.zkbluffProve === 'function' && typeof snarkjs === 'object');
    const results = {};
    for (const stem of stems) {
      const first = await page.evaluate((s) => window.zkbluffProve(s), stem);
      const second = await page.evaluate((s) => window.zkbluffProve(s), stem);
      results[stem] = { ...first, witnessMs: second.witnessMs, proveMs: second.proveMs,
                        firstWitnessMs: first.witnessMs, firstProveMs: first.proveMs };
    }
    const kept = await browser.newPage();
    kept.on('pageerror', (e) => errors.push(String(e)));
    await kept.goto(url);
    await kept.waitForFunction(() => typeof window.zkbluffProve === 'function' && typeof snarkjs === 'object');
    let oneThreadKept = null;
    for (let i = 0; i < 2; i++) {
      oneThreadKept = await kept.evaluate((s) => window.zkbluffProve(s, { curve: 'one-thread-kept' }), stems[0]);
    }
    process.stdout.write(JSON.stringify({ browser: browser.version(), results, oneThreadKept, errors }));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
