#!/usr/bin/env node
// Drive the drop-a-transcript verifier page (`zkbluff transcript verify --web`) in headless
// Chromium (playwright-core): each FILE is dropped on the page (a real drop event carrying
// the file) or, with a `pick:` prefix, chosen with the file input; the verdict the page shows
// is read back. Used by tests/server/test_web_pages.py.
//
//   node tools/browser_verify.cjs NODE_MODULES CHROMIUM URL RESULT.json [pick:]FILE... [SHOT.png as last, ending .png]
//
// result: {"browser", "verdicts": [{"file", "how", "state", "line", "code", "words", "facts"}], "errors", "requests"}
'use strict';
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');

const [nodeModules, chromium, url, resultFile, ...rest] = process.argv.slice(2);
const shot = rest.length && rest[rest.length - 1].endsWith('.png') ? rest.pop() : null;
const need = createRequire(path.join(path.resolve(nodeModules), 'noop.js'));
const { chromium: launcher } = need('playwright-core');

(async () => {
  const browser = await launcher.launch({
    executablePath: chromium, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage',
           '--disable-extensions', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    const errors = [];
    const requests = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    await page.waitForSelector('#drop');
    const verdicts = [];
    for (let i = 0; i < rest.length; i++) {
      const pick = rest[i].startsWith('pick:');
      const file = pick ? rest[i].slice(5) : rest[i];
      const n = i + 1;
      if (pick) {
        await page.setInputFiles('#file', file);
      } else {
        const bytes = [...fs.readFileSync(file)];
        const transfer = await page.evaluateHandle(([b, name]) => {
          const dt = new DataTransfer();
          dt.items.add(new File([new Uint8Array(b)], name, { type: 'application/octet-stream' }));
          return dt;
        }, [bytes, path.basename(file)]);
        await page.dispatchEvent('#drop', 'dragover', { dataTransfer: transfer });
        await page.dispatchEvent('#drop', 'drop', { dataTransfer: transfer });
      }
      await page.waitForFunction((k) => document.getElementById('verdict').dataset.n === String(k), n, { timeout: 60000 });
      verdicts.push(await page.evaluate(([f, how]) => {
        const v = document.getElementById('verdict');
        return { file: f, how, state: v.dataset.state, line: v.dataset.line, code: v.dataset.code,
                 words: document.getElementById('verdict-words').textContent,
                 facts: document.getElementById('verdict-facts').innerText };
      }, [file, pick ? 'pick' : 'drop']));
      if (shot && i === rest.length - 1) await page.screenshot({ path: shot, fullPage: true });
    }
    fs.writeFileSync(resultFile, JSON.stringify({ browser: browser.version(), verdicts, errors, requests }));
  } finally {
    await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
  }
})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
