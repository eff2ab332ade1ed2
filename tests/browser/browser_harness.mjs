// The harness the browser tests (web_page_test.mjs, editor_test.mjs) share: checks, screenshots,
// a temporary folder, `attractor serve` on it, Debian's Chromium through playwright-core, and
// the runner that gives a test its overall timeout, exit code and final message.
// Env: PLAYWRIGHT_CORE (playwright-core folder, default REPO_ROOT/third_party/playwright-core),
// ATTRACTOR_WEB_SCREENSHOTS (screenshot folder, default REPO_ROOT/build/browser-screenshots; empty
// for none), ATTRACTOR_WEB_DIR (passed on to the server, which inherits the environment).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let server = null;
let browser = null;
let shotDir = null;
const shots = [];
let lastPassed = 'start';  // the step a page error came after

/** The address `attractor serve` listens on (http://127.0.0.1:PORT/), set by startServer. */
export let serverUrl = null;
/** The server's one-time login address (it requires a token on loopback too). */
export let loginUrl = null;
/** The server's generated access token, for the test's own API calls. */
export let serverToken = null;
/** The test's temporary folder (the server's working folder), made by setUp. */
export let tmp = null;
let serverLog = '';  // everything the server processes printed, shown when the test fails

/** A failed check: the runner prints its message alone, without a stack. */
export class CheckFailed extends Error {}

/** Prints `ok - message` and remembers it as the step page errors come after. */
export function pass(message) { lastPassed = message; console.log(`ok - ${message}`); }

/** Throws CheckFailed(message) unless `condition` holds. */
export function check(condition, message) { if (!condition) throw new CheckFailed(message); }

/** Adds `text` to the server output shown on failure (a marker between server processes). */
export function appendServerLog(text) { serverLog += text; }

function loadChromium(repoRoot) {
  const require = createRequire(import.meta.url);
  const dir = process.env.PLAYWRIGHT_CORE || path.join(repoRoot, 'third_party', 'playwright-core');
  return require(dir).chromium;
}

// The screenshot folder (its subfolder `subdir` when given), created if missing and with its
// earlier NN-*.png removed; null when ATTRACTOR_WEB_SCREENSHOTS is empty.
function prepareScreenshots(repoRoot, subdir) {
  const base = process.env.ATTRACTOR_WEB_SCREENSHOTS ?? path.join(repoRoot, 'build', 'browser-screenshots');
  if (!base) return null;
  const dir = subdir ? path.join(base, subdir) : base;
  fs.mkdirSync(dir, { recursive: true });
  for (const name of fs.readdirSync(dir)) {
    if (/^\d\d-[\w-]+\.png$/.test(name)) fs.rmSync(path.join(dir, name), { force: true });
  }
  return dir;
}

/**
 * Reads ATTRACTOR_BINARY REPO_ROOT from the command line (`script` names the test in the usage
 * message), loads playwright-core, prepares the screenshot folder (its subfolder `shotSubdir` when
 * given) and makes the temporary folder `tmp` (named from `tmpPrefix`). Returns {binary, chromium}.
 */
export function setUp(script, { tmpPrefix, shotSubdir = null }) {
  const [binary, repoRoot] = process.argv.slice(2);
  if (!binary || !repoRoot) throw new CheckFailed(`usage: node ${script} ATTRACTOR_BINARY REPO_ROOT`);
  check(fs.existsSync(binary), `no attractor binary at ${binary}`);
  const chromium = loadChromium(repoRoot);
  shotDir = prepareScreenshots(repoRoot, shotSubdir);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  return { binary, chromium };
}

/**
 * Starts `attractor serve` on port 0 (always on the same logs root tmp/runs and graphs folder
 * tmp/graphs, plus `extraArgs`) and resolves with its address once it has printed where it
 * listens, its one-time login address and its token (then in serverUrl, loginUrl, serverToken).
 */
export function startServer(binary, extraArgs = []) {
  const args = ['serve', '--listen', '127.0.0.1:0', '--logs-root', path.join(tmp, 'runs'),
    '--graphs-dir', path.join(tmp, 'graphs'), ...extraArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    let own = '';  // this process's output: an earlier server's "listening" line must not match
    child.stdout.on('data', (chunk) => { serverLog += chunk; });
    child.stderr.on('data', (chunk) => {
      serverLog += chunk;
      own += chunk;
      const match = /attractor serve: listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(own);
      const login = /log in once at (http:\/\/127\.0\.0\.1:\d+\/login\?code=[0-9a-f]+)/.exec(own);
      const token = /access token ([0-9a-f]{64})/.exec(own);
      if (match && login && token) {
        [serverUrl, loginUrl, serverToken] = [match[1], login[1], token[1]];
        resolve(match[1]);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (server === child) server = null;
      reject(new CheckFailed(`attractor serve exited (${code ?? signal}) before listening`));
    });
  });
}

/**
 * Stops the server: SIGTERM, then SIGKILL after `graceMs`; resolves with {code, signal, killed,
 * ms} once the process is gone (null when none runs).
 */
export async function stopServer(graceMs = 5000) {
  const child = server;
  if (!child) return null;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let killed = false;
  const t0 = Date.now();
  child.kill('SIGTERM');
  const timer = setTimeout(() => { killed = true; child.kill('SIGKILL'); }, graceMs);
  const result = await exited;
  clearTimeout(timer);
  return { ...result, killed, ms: Date.now() - t0 };
}

/** GETs `route` of the server with the token and returns its JSON; a failed answer fails the check. */
export async function getJson(route) {
  const response = await fetch(new URL(route, serverUrl), { headers: { Authorization: `Bearer ${serverToken}` } });
  const text = await response.text();
  check(response.ok, `GET ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Saves a full-page screenshot as NN-name.png in the screenshot folder (none when it is off). */
export async function screenshot(page, name) {
  if (!shotDir) return;
  const file = path.join(shotDir, `${String(shots.length + 1).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  shots.push(path.basename(file));
}

/**
 * Launches headless Chromium, opens a 1500x1000 page that collects page errors, dialogs and
 * console messages matching `consoleErrors` (when given), and logs in with loginUrl, checking it
 * leads to the page. Returns {page, pageErrors}.
 */
export async function openPage(chromium, { consoleErrors = null } = {}) {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'], headless: true });
  const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(`${String(error)} (after "${lastPassed}")`));
  if (consoleErrors) {
    page.on('console', (message) => {
      if (consoleErrors.test(message.text())) pageErrors.push(`console: ${message.text()} (after "${lastPassed}")`);
    });
  }
  page.on('dialog', (dialog) => { pageErrors.push(`dialog: ${dialog.message()}`); dialog.dismiss(); });
  const login = await page.goto(loginUrl);
  check(new URL(page.url()).pathname === '/' && login.ok(), `the login address leads to the page (at ${page.url()})`);
  return { page, pageErrors };
}

/** The last checks of a test: no page errors were collected; then lists the screenshots saved. */
export function checkEnd(pageErrors) {
  check(pageErrors.length === 0, `JavaScript errors on the page: ${pageErrors.join('; ')}`);
  pass('no JavaScript errors on the page');
  if (shotDir) pass(`${shots.length} screenshots saved in ${shotDir}: ${shots.join(', ')}`);
}

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  browser = null;
  await stopServer();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = null;
}

/**
 * Runs `main` within `timeoutMs`, then closes the browser, stops the server and removes tmp.
 * Exits 0 after printing "NAME: all checks passed", or 1 after a FAIL line (and, when there is
 * any, the end of the server output).
 */
export async function runTest(name, timeoutMs, main) {
  const overall = setTimeout(async () => {
    console.error(`FAIL: the test took longer than ${timeoutMs / 1000} s`);
    await cleanup();
    process.exit(1);
  }, timeoutMs);

  try {
    await main();
    await cleanup();
    clearTimeout(overall);
    console.log(`${name}: all checks passed`);
    process.exit(0);
  } catch (error) {
    console.error(`FAIL: ${error instanceof CheckFailed ? error.message : error.stack || error}`);
    if (serverLog) console.error(`--- attractor serve output ---\n${serverLog.slice(-4000)}`);
    await cleanup();
    process.exit(1);
  }
}
