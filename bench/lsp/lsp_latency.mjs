// The measurement of bench/lsp/run.sh: node lsp_latency.mjs BINARY "SIZES" ROUNDS
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { startLsp } from '../../tests/lsp/lsp_client.mjs';

const [binary, sizesArg, roundsArg] = process.argv.slice(2);
const sizes = sizesArg.split(/\s+/).filter(Boolean).map(Number);
const rounds = Number(roundsArg);

// A chain of `n` LLM stages; every tenth edge has a condition; node s1 has a misspelt shape.
function pipeline(n) {
  const lines = ['digraph Bench {', '    graph [goal="bench"]', '    start [shape=Mdiamond]', '    exit [shape=Msquare]'];
  for (let i = 0; i < n; i++) {
    lines.push(`    s${i} [shape=${i === 1 ? 'bx' : 'box'}, prompt="Stage ${i} does its part of the work", fidelity=compact]`);
  }
  lines.push('    start -> s0');
  for (let i = 0; i + 1 < n; i++) {
    lines.push(i % 10 === 0 ? `    s${i} -> s${i + 1} [condition="outcome=success"]` : `    s${i} -> s${i + 1}`);
  }
  lines.push(`    s${n - 1} -> exit`, '}', '');
  return lines.join('\n');
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const report = (what, xs) =>
  console.log(`${what.padEnd(44)} median ${quantile(xs, 0.5).toFixed(1).padStart(7)} ms   p90 ${quantile(xs, 0.9).toFixed(1).padStart(7)} ms`);

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

for (const n of sizes) {
  const lsp = await startLsp(binary);
  await lsp.initialize('file:///bench');
  const uri = `file:///bench/p${n}.dot`;
  const text = pipeline(n);
  await lsp.open(uri, text);
  await lsp.nextDiagnostics(uri, { version: 1 });
  const middle = 4 + Math.floor(n / 2);  // the line of node s(n/2)
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const version = r + 2;
    const character = 30 + (r % 5);
    times.push(await timed(async () => {
      await lsp.change(uri, version, [{ range: { start: { line: middle, character }, end: { line: middle, character } }, text: 'x' }]);
      await lsp.nextDiagnostics(uri, { version });
    }));
  }
  report(`didChange -> publishDiagnostics, ${n} nodes`, times);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-lsp-bench-')), `p${n}.dot`);
  fs.writeFileSync(file, text);
  const validate = [];
  for (let r = 0; r < Math.min(rounds, 10); r++) {
    validate.push(await timed(async () => {
      try { execFileSync(binary, ['validate', file], { stdio: 'ignore' }); } catch { /* exit 2: it has an error */ }
    }));
  }
  report(`baseline: attractor validate (process), ${n} nodes`, validate);
  fs.rmSync(path.dirname(file), { recursive: true });
  if (n === 1000) {
    const completion = [];
    const hover = [];
    for (let r = 0; r < rounds; r++) {
      completion.push(await timed(() => lsp.request('textDocument/completion',
        { textDocument: { uri }, position: { line: middle, character: 12 } })));
      hover.push(await timed(() => lsp.request('textDocument/hover',
        { textDocument: { uri }, position: { line: middle, character: 5 } })));
    }
    report(`completion (attribute value), ${n} nodes`, completion);
    report(`hover (node id), ${n} nodes`, hover);
  }
  await lsp.shutdown();
}
