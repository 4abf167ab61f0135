#!/usr/bin/env node
// Compile Solidity verifier contracts with solc-js and call them on a local EVM
// (@ethereumjs/evm, its default hardfork, with the BN254 precompiles 0x06-0x08).
//
//   node tools/evm_verify.cjs NODE_MODULES < job.json > result.json
//
// job:    {"contracts": {KEY: {"source": "...", "name": "ContractName"}},
//          "calls": [{"contract": KEY, "words": ["<uint256 decimal>", ...]}]}
//         each call sends the selector of the contract's one function, then the words
//         (32 bytes each, big-endian): the ABI encoding of static arguments.
// result: {"solc", "hardfork", "contracts": {KEY: {"runtimeBytes", "deployGas"}},
//          "calls": [{"returned": true|false|null, "reverted": bool, "gas": n}]}
//         gas is the call's execution gas (no 21000 base cost, no calldata cost);
//         returned is null when the call reverted or returned no 32-byte bool.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const nodeModules = path.resolve(process.argv[2] || path.join(__dirname, '..', 'node_modules'));
const need = createRequire(path.join(nodeModules, 'noop.js'));
const solc = need('solc');
const { createEVM } = need('@ethereumjs/evm');
const { Address, hexToBytes, bytesToHex } = need('@ethereumjs/util');

const GAS_LIMIT = 30000000n;
const SENDER = new Address(hexToBytes('0x' + '11'.repeat(20)));

function compile(key, { source, name }) {
  const input = {
    language: 'Solidity',
    sources: { [`${key}.sol`]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      outputSelection: { '*': { '*': ['evm.bytecode.object', 'evm.methodIdentifiers'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors || []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`${key}: solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const c = out.contracts[`${key}.sol`][name];
  if (!c) throw new Error(`${key}: no contract ${name} in the source`);
  const selectors = Object.values(c.evm.methodIdentifiers);
  if (selectors.length !== 1) throw new Error(`${key}: expected one external function, got ${selectors.length}`);
  return { bytecode: c.evm.bytecode.object, selector: selectors[0] };
}

function word(w) {
  const v = BigInt(w);
  if (v < 0n || v >= 1n << 256n) throw new Error(`word ${w}: not a uint256`);
  return v.toString(16).padStart(64, '0');
}

async function deploy(evm, key, compiled) {
  const res = await evm.runCall({ caller: SENDER, data: hexToBytes('0x' + compiled.bytecode), gasLimit: GAS_LIMIT });
  if (res.execResult.exceptionError || !res.createdAddress) {
    throw new Error(`${key}: deployment failed (${res.execResult.exceptionError && res.execResult.exceptionError.error})`);
  }
  const code = await evm.stateManager.getCode(res.createdAddress);
  return { address: res.createdAddress, runtimeBytes: code.length, deployGas: Number(res.execResult.executionGasUsed) };
}

// As a transaction does (EIP-2929): a fresh access set, with the sender, the called contract
// and every precompile warm, so no call pays for an earlier call's cold accesses.
async function startTransaction(evm, to) {
  await evm.journal.cleanup();
  for (const address of [...evm.precompiles.keys(), SENDER.toString(), to.toString()]) {
    evm.journal.addAlwaysWarmAddress(address);
  }
}

async function call(evm, deployed, compiled, words) {
  await startTransaction(evm, deployed.address);
  const data = hexToBytes('0x' + compiled.selector + words.map(word).join(''));
  const res = await evm.runCall({ caller: SENDER, to: deployed.address, data, gasLimit: GAS_LIMIT });
  const reverted = Boolean(res.execResult.exceptionError);
  const ret = res.execResult.returnValue;
  let returned = null;
  if (!reverted && ret.length === 32) {
    const v = BigInt(bytesToHex(ret));
    returned = v === 1n ? true : v === 0n ? false : null;
  }
  return { returned, reverted, gas: Number(res.execResult.executionGasUsed) };
}

async function main() {
  const job = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const evm = await createEVM();
  const compiled = {};
  const deployed = {};
  for (const [key, spec] of Object.entries(job.contracts)) {
    compiled[key] = compile(key, spec);
    deployed[key] = await deploy(evm, key, compiled[key]);
  }
  const calls = [];
  for (const c of job.calls) {
    if (!(c.contract in deployed)) throw new Error(`call to unknown contract ${c.contract}`);
    calls.push(await call(evm, deployed[c.contract], compiled[c.contract], c.words));
  }
  const contracts = Object.fromEntries(Object.entries(deployed).map(
    ([k, d]) => [k, { runtimeBytes: d.runtimeBytes, deployGas: d.deployGas }]));
  process.stdout.write(JSON.stringify({ solc: solc.version(), hardfork: evm.common.hardfork(), contracts, calls }));
}

main().catch((e) => { process.stderr.write(`${e.stack || e}\n`); process.exit(1); });
