#!/usr/bin/env node
// Time tools/browser/prove.html in headless Chromium (playwright-core); benchmarks/browser.py
// builds the site, serves it and runs this.
//
//   node benchmarks/browser_bench.cjs NODE_MODULES CHROMIUM URL PLAN.json > result.json
//
// PLAN: [{"stem": STEM, "curve": "workers" | "one-thread" | "one-thread-kept", "refetch": bool, "pages": P, "warm": W}, ...]
// For each entry, P fresh pages (each in a new browser context, so a new renderer process with
// snarkjs's curve not yet built); in each, one cold proof (the first in the page: fetching the
// files, building the curve) then W warm ones. Each proof: the page's fetch / witness / prove
// milliseconds, the wall clock of the whole call seen from here, and the CPU seconds (user +
// system, every thread) of Chromium's processes over the call, from /proc (10 ms ticks).
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

const [nodeModules, chromium, url, planFile] = process.argv.slice(2);
const need = createRequire(path.join(path.resolve(nodeModules), 'noop.js'));
const { chromium: launcher } = need('playwright-core');
const plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));
const TICK = 100;  // USER_HZ on Linux

function cpuOfTree(root) {
  const parent = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch (e) { /* gone */ }
  }
  let total = 0;
  const inTree = (pid) => { for (let p = pid, n = 0; p > 1 && n < 64; p = parent.get(p)?.ppid, n++) if (p === root) return true; return false; };
  for (const [pid, { ticks }] of parent) if (pid !== root && inTree(pid)) total += ticks;
  return total / TICK;
}

(async () => {
  const browser = await launcher.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox'] });
  const root = process.pid;  // Chromium is this driver's child: its processes are our descendants
  const errors = [];
  const out = [];
  try {
    for (const entry of plan) {
      const runs = [];
      for (let p = 0; p < entry.pages; p++) {
        const context = await browser.newContext();
        const page = await context.newPage();
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(url);
        await page.waitForFunction(() => typeof window.zkbluffProve === 'function' && typeof snarkjs === 'object');
        const proofs = [];
        for (let i = 0; i <= entry.warm; i++) {
          const cpu0 = cpuOfTree(root);
          const t = process.hrtime.bigint();
          const got = await page.evaluate(([s, o]) => window.zkbluffProve(s, o), [entry.stem,
            { curve: entry.curve, refetch: entry.refetch }]);
          const wallMs = Number(process.hrtime.bigint() - t) / 1e6;
          proofs.push({ fetchMs: got.fetchMs, curveMs: got.curveMs, witnessMs: got.witnessMs, proveMs: got.proveMs, wallMs,
                        cpuS: cpuOfTree(root) - cpu0, publicSignals: got.publicSignals, proof: got.proof });
        }
        runs.push(proofs);
        await context.close();
      }
      out.push({ ...entry, runs });
    }
    process.stdout.write(JSON.stringify({ browser: browser.version(), results: out, errors }));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
