// Browser test of the `attractor serve` web page: starts the server on a temporary folder,
// drives Debian's Chromium through playwright-core and checks a gated run from start to end,
// that server strings are shown as text (no script runs), and that lint errors reach the form.
// Usage: node web_page_test.mjs ATTRACTOR_BINARY REPO_ROOT
// Env: PLAYWRIGHT_CORE (playwright-core folder), ATTRACTOR_WEB_SCREENSHOT (default
// /tmp/attractor-web.png; empty for none), ATTRACTOR_WEB_DIR (passed on to the server).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TIMEOUT_MS = 120_000;
const STEP_MS = 30_000;

const GATE_DOT = `digraph GateFlow {
  graph [goal="Exercise the web page"]
  start [shape=Mdiamond]
  work [prompt="Write a haiku about $goal"]
  approve [shape=hexagon, label="Ship the haiku?"]
  exit [shape=Msquare]
  start -> work -> approve
  approve -> exit [label="[A] Approve"]
  approve -> work [label="[R] Revise"]
}
`;

const XSS_LABEL = '<script>window.__xss=1</script> draft';
const XSS_QUESTION = '<img src=x onerror="window.__xss=3"> ok?';
const XSS_DOT = `digraph Escapes {
  graph [goal="escape test"]
  start [shape=Mdiamond]
  work [label="${XSS_LABEL}", URL="javascript:window.__xss=2"]
  approve [shape=hexagon, label="${XSS_QUESTION.replace(/"/g, '\\"')}"]
  exit [shape=Msquare]
  start -> work -> approve
  approve -> exit [label="[A] Accept"]
  approve -> work [label="[R] Redo"]
}
`;

const NO_START_DOT = `digraph NoStart {
  work [prompt="hello"]
  exit [shape=Msquare]
  work -> exit
}
`;

let server = null;
let browser = null;
let tmp = null;
let serverLog = '';

class CheckFailed extends Error {}

function pass(message) { console.log(`ok - ${message}`); }
function check(condition, message) { if (!condition) throw new CheckFailed(message); }

function loadChromium(repoRoot) {
  const require = createRequire(import.meta.url);
  const dir = process.env.PLAYWRIGHT_CORE || path.join(repoRoot, 'third_party', 'playwright-core');
  return require(dir).chromium;
}

// Starts `attractor serve` on port 0 and resolves with its address once it says it listens.
function startServer(binary) {
  const args = ['serve', '--listen', '127.0.0.1:0', '--logs-root', path.join(tmp, 'runs'),
    '--graphs-dir', path.join(tmp, 'graphs')];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    child.stdout.on('data', (chunk) => { serverLog += chunk; });
    child.stderr.on('data', (chunk) => {
      serverLog += chunk;
      const match = /attractor serve: listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(serverLog);
      if (match) resolve(match[1]);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      server = null;
      reject(new CheckFailed(`attractor serve exited (${code ?? signal}) before listening`));
    });
  });
}

async function stopServer() {
  const child = server;
  if (!child) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  browser = null;
  await stopServer();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = null;
}

async function statusIs(page, status) {
  await page.waitForFunction((s) => document.querySelector('#run-status')?.textContent === s, status,
    { timeout: STEP_MS });
}

async function startFromForm(page, fill) {
  const before = await page.evaluate(() => location.hash);
  await fill();
  await page.selectOption('#backend', 'simulate');
  await page.click('#start-run');
  await page.waitForFunction((old) => /^#run=/.test(location.hash) && location.hash !== old, before,
    { timeout: STEP_MS });
  return decodeURIComponent(await page.evaluate(() => location.hash.slice(5)));
}

async function gatedRun(page) {
  await page.waitForSelector('#graph-select option[value="gate.dot"]', { state: 'attached', timeout: STEP_MS });
  const id = await startFromForm(page, () => page.selectOption('#graph-select', 'gate.dot'));
  pass(`run ${id} started from the graph picker`);

  await page.waitForSelector('#gate-panel', { state: 'visible', timeout: STEP_MS });
  check(await page.textContent('#gate-question') === 'Ship the haiku?', 'the gate shows its question');
  const approve = page.locator('#gate-panel button[data-answer="A"]');
  const revise = page.locator('#gate-panel button[data-answer="R"]');
  check((await approve.textContent()).includes('Approve') && (await revise.textContent()).includes('Revise'),
    'the gate has Approve and Revise buttons');
  check(await page.textContent('#gate-stage') === 'approve', 'the gate names its stage');
  pass('gate panel shows the question and both options');

  await page.waitForSelector(`#runs tr[data-run-id="${id}"] .gate-flag`, { timeout: STEP_MS });
  pass('runs list marks the pending gate');
  const shot = process.env.ATTRACTOR_WEB_SCREENSHOT ?? '/tmp/attractor-web.png';
  if (shot) {
    await page.waitForSelector('#graph-view svg', { timeout: STEP_MS });
    await page.waitForTimeout(1000);  // let the drawing catch up with the gate
    await page.screenshot({ path: shot, fullPage: true });
    pass(`screenshot of the gate saved to ${shot}`);
  }

  check(!(await page.isDisabled('#cancel-run')) && await page.isDisabled('#resume-run'),
    'Cancel is enabled and Resume disabled while the run waits');
  await page.click('#cancel-run');
  await statusIs(page, 'cancelled');
  await page.waitForSelector('#gate-panel', { state: 'hidden', timeout: STEP_MS });
  check(await page.isDisabled('#cancel-run') && !(await page.isDisabled('#resume-run')),
    'Resume is enabled and Cancel disabled once cancelled');
  pass('Cancel stops the run and closes the gate');
  await page.click('#resume-run');
  await statusIs(page, 'running');
  await page.waitForSelector('#gate-panel', { state: 'visible', timeout: STEP_MS });
  pass('Resume runs it again and the gate is asked again');

  await approve.click();
  await page.waitForSelector('#gate-panel', { state: 'hidden', timeout: STEP_MS });
  await statusIs(page, 'completed');
  pass('run completed after Approve');
  return id;
}

async function graphNodes(page, expected) {
  await page.waitForFunction((want) => {
    const titles = [...document.querySelectorAll('#graph-view svg g.node > title')].map((t) => t.textContent);
    return want.every((n) => titles.includes(n));
  }, expected, { timeout: STEP_MS });
}

async function runView(page) {
  await graphNodes(page, ['start', 'work', 'approve', 'exit']);
  pass('SVG graph has a node for each pipeline node');

  await page.click('#stages tr[data-node="work"]');
  const response = page.locator('#stage-detail pre[data-file="response.md"]');
  await response.waitFor({ timeout: STEP_MS });
  check((await response.textContent()).includes('Response for stage: work'), 'response.md is shown');
  check((await page.textContent('#stage-detail pre[data-file="status.json"]')).includes('"outcome"'),
    'status.json is shown');
  pass('stage detail shows status.json and the response text');

  await page.waitForSelector('#event-log li[data-event="PipelineCompleted"]', { state: 'attached', timeout: STEP_MS });
  check((await page.textContent('#stages tr[data-node="work"]')).match(/\d+ \/ \d+/), 'tokens of work are shown');
  pass('event log has PipelineCompleted; stage list has token usage');

  await page.reload();
  await statusIs(page, 'completed');
  await page.waitForSelector('#event-log li[data-event="PipelineCompleted"]', { state: 'attached', timeout: STEP_MS });
  await page.waitForSelector('#stages tr[data-node="approve"]', { timeout: STEP_MS });
  const completed = await page.locator('#event-log li[data-event="PipelineCompleted"]').count();
  check(completed === 1, `after a reload the log has PipelineCompleted once (got ${completed})`);
  const started = await page.locator('#event-log li[data-event="PipelineStarted"]').count();
  check(started === 2, `the log has the start and the resume (got ${started} PipelineStarted)`);
  check(await page.isDisabled('#cancel-run') && await page.isDisabled('#resume-run'),
    'Cancel and Resume are disabled for a completed run');
  pass('reload keeps the run open (#run=ID) and rebuilds it from the event stream');
}

async function escapedRun(page) {
  const id = await startFromForm(page, () => page.fill('#dot-input', XSS_DOT));
  pass(`run ${id} started from pasted DOT`);
  await page.waitForSelector('#gate-panel', { state: 'visible', timeout: STEP_MS });
  check(await page.textContent('#gate-question') === XSS_QUESTION, 'the question is shown literally');
  await page.locator('#run-meta').click();  // focus out of the form: the accelerator key answers
  await page.keyboard.press('a');
  await statusIs(page, 'completed');
  pass('gate answered with its accelerator key; run completed');

  await graphNodes(page, ['start', 'work', 'approve', 'exit']);
  await page.click('#stages tr[data-node="work"]');
  const prompt = page.locator('#stage-detail pre[data-file="prompt.md"]');
  await prompt.waitFor({ timeout: STEP_MS });
  check((await prompt.textContent()).includes(XSS_LABEL), 'the label is shown literally in prompt.md');
  check(await page.evaluate(() => window.__xss) === undefined, 'window.__xss is undefined');
  const unsafe = await page.evaluate(() => document.querySelectorAll(
    '#graph-view script, #graph-view [onclick], #graph-view [onload], [href^="javascript:"]').length);
  check(unsafe === 0, `no script, handler or javascript: link in the page (found ${unsafe})`);
  check(await page.locator('#stage-detail script, #gate-panel img, #stages script').count() === 0,
    'no element was created from server text');
  pass('markup in labels is shown as text and never runs');
}

async function lintError(page) {
  const before = await page.locator('#runs tbody tr').count();
  await page.fill('#dot-input', NO_START_DOT);
  await page.click('#start-run');
  await page.waitForSelector('#form-error', { state: 'visible', timeout: STEP_MS });
  const text = await page.textContent('#form-error');
  check(text.includes('start_node') && /start node/.test(text), `#form-error shows the diagnostic (got "${text}")`);
  await page.waitForTimeout(2500);  // one poll of the runs list
  check(await page.locator('#runs tbody tr').count() === before, 'no run was created');
  pass('lint error is shown in the form with its diagnostic');
}

async function main() {
  const [binary, repoRoot] = process.argv.slice(2);
  if (!binary || !repoRoot) throw new CheckFailed('usage: node web_page_test.mjs ATTRACTOR_BINARY REPO_ROOT');
  check(fs.existsSync(binary), `no attractor binary at ${binary}`);
  const chromium = loadChromium(repoRoot);

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-web-'));
  fs.mkdirSync(path.join(tmp, 'graphs'));
  fs.writeFileSync(path.join(tmp, 'graphs', 'gate.dot'), GATE_DOT);
  const url = await startServer(binary);
  pass(`server listening on ${url}`);

  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'], headless: true });
  const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('dialog', (dialog) => { pageErrors.push(`dialog: ${dialog.message()}`); dialog.dismiss(); });
  await page.goto(url);
  pass('page loaded');

  await gatedRun(page);
  await runView(page);
  await escapedRun(page);
  await lintError(page);
  check(pageErrors.length === 0, `JavaScript errors on the page: ${pageErrors.join('; ')}`);
  pass('no JavaScript errors on the page');
}

const overall = setTimeout(async () => {
  console.error(`FAIL: the test took longer than ${TIMEOUT_MS / 1000} s`);
  await cleanup();
  process.exit(1);
}, TIMEOUT_MS);

try {
  await main();
  await cleanup();
  clearTimeout(overall);
  console.log('browser web page test: all checks passed');
  process.exit(0);
} catch (error) {
  console.error(`FAIL: ${error instanceof CheckFailed ? error.message : error.stack || error}`);
  if (serverLog) console.error(`--- attractor serve output ---\n${serverLog.slice(-4000)}`);
  await cleanup();
  process.exit(1);
}
