// Browser test of the `attractor serve` web page: starts the server on a temporary folder,
// drives Debian's Chromium through playwright-core and checks a gated run from start to end
// (the SVG graph turning green stage by stage, cancel and resume), a freeform gate, a run
// interrupted by a server restart and resumed from the page, a worktree run's stage diff, that
// server strings are shown as text (no script runs), and that lint errors reach the form. A
// screenshot of each step is saved. The harness (checks, screenshots, server, browser, runner)
// is shared with editor_test.mjs in browser_harness.mjs.
// Usage: node web_page_test.mjs ATTRACTOR_BINARY REPO_ROOT
// Env: PLAYWRIGHT_CORE (playwright-core folder), ATTRACTOR_WEB_SCREENSHOTS (folder for the
// numbered screenshots NN-step.png, default REPO_ROOT/build/browser-screenshots, created if
// missing, earlier NN-*.png in it removed; empty for none), ATTRACTOR_WEB_DIR (passed on to the
// server).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  CheckFailed, appendServerLog, check, checkEnd, getJson, loginUrl, openPage, pass, runTest, screenshot,
  serverToken, serverUrl, setUp, startServer, stopServer, tmp,
} from './browser_harness.mjs';

const TIMEOUT_MS = 150_000;
const STEP_MS = 30_000;
// How long `attractor serve` may take to exit on SIGTERM while the page holds a run's event
// stream open: the stream only notices the stop at its next keep-alive (--keepalive, 15 s).
const SHUTDOWN_MS = 20_000;
// `attractor serve` flags beyond the harness's (the worktree run's tool stages run commands).
const SERVE_ARGS = ['--allow-commands'];

// The node fills of `attractor render --run` (status_fill in src/attractor/launch/render_dot.cc).
const SUCCESS_FILL = '#c8e6c9';
const RUNNING_FILL = '#bbdefb';

const GATE_DOT = `digraph GateFlow {
  graph [goal="Exercise the web page"]
  start [shape=Mdiamond]
  work [prompt="Write a haiku about $goal"]
  approve [shape=hexagon, label="Ship the haiku?"]
  polish [prompt="Polish the haiku"]
  exit [shape=Msquare]
  start -> work -> approve
  approve -> polish [label="[A] Approve"]
  approve -> work [label="[R] Revise"]
  polish -> exit
}
`;

const FREEFORM_TEXT = 'Credit the <b>docs</b> team & say "thanks"';
const FREEFORM_DOT = `digraph Notes {
  graph [goal="Release notes"]
  start [shape=Mdiamond]
  draft [prompt="Draft the $goal"]
  notes [shape=hexagon, label="Anything to add?", human.question_type=freeform]
  exit [shape=Msquare]
  start -> draft -> notes -> exit
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

const LONG_NAME = 'A_pipeline_whose_name_is_long_enough_to_wrap_the_run_id_onto_many_lines';
const LONG_DOT = `digraph ${LONG_NAME} {
  start [shape=Mdiamond]
  work [prompt="hello"]
  exit [shape=Msquare]
  start -> work -> exit
}
`;

const NO_START_DOT = `digraph NoStart {
  work [prompt="hello"]
  exit [shape=Msquare]
  work -> exit
}
`;

async function statusIs(page, status) {
  try {
    await page.waitForFunction((s) => document.querySelector('#run-status')?.textContent === s, status,
      { timeout: STEP_MS });
  } catch (error) {
    const shown = await page.textContent('#run-status').catch(() => '?');
    throw new CheckFailed(`the run status should become "${status}" but shows "${shown}"`);
  }
}

// The header's counts read `counts` ("R running, Q queued, G at a gate") within `ms`: sooner than
// any timer of the page but its 2 s poll, so they follow the run's events.
async function headerShows(page, counts, ms = 2000) {
  try {
    await page.waitForFunction((want) => (document.querySelector('#health')?.textContent || '').endsWith(want),
      counts, { timeout: ms });
  } catch (error) {
    const shown = await page.textContent('#health').catch(() => '?');
    throw new CheckFailed(`the header should show "${counts}" within ${ms} ms but shows "${shown}"`);
  }
}

// The runs list (polled every 2 s) shows the run with `status`.
async function listShows(page, id, status) {
  try {
    await page.waitForSelector(`#runs tr[data-run-id="${id}"] .status-${status}`, { timeout: STEP_MS });
  } catch (error) {
    const row = await page.textContent(`#runs tr[data-run-id="${id}"]`).catch(() => '(no row)');
    throw new CheckFailed(`the runs list should show ${id} as ${status} (row: ${row})`);
  }
}

// The fill of each node of the drawn graph ({title: fill}; 'none' when not filled), read from the
// node's first shape (polygon, ellipse or path) in the SVG.
function readFills() {
  const fills = {};
  for (const node of document.querySelectorAll('#graph-view svg g.node')) {
    const title = node.querySelector('title');
    const shape = node.querySelector('polygon, ellipse, path');
    if (title) fills[title.textContent] = shape ? (shape.getAttribute('fill') || 'none').toLowerCase() : null;
  }
  return fills;
}

const isGreen = (fill) => fill === SUCCESS_FILL;
const isRunning = (fill) => fill === RUNNING_FILL;
const isUnfilled = (fill) => fill === 'none';

// Waits until every node of `want` ({node: predicate}) has a fill the predicate accepts.
async function waitForFills(page, want, what) {
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const fills = await page.evaluate(readFills);
    const wrong = Object.entries(want).filter(([node, test]) => !test(fills[node]));
    if (!wrong.length) return fills;
    if (Date.now() > deadline) {
      throw new CheckFailed(`${what}: wrong fill for ${wrong.map(([node]) => node).join(', ')} ` +
        `(graph fills: ${JSON.stringify(fills)})`);
    }
    await page.waitForTimeout(200);
  }
}

// At a gate of GATE_DOT: the stages before it green, the gate running, the ones after it not filled.
async function partlyGreen(page) {
  await waitForFills(page, { start: isGreen, work: isGreen, approve: isRunning, polish: isUnfilled, exit: isUnfilled },
    'at the gate, start and work should be green, approve running and polish, exit not filled');
}

// Once the run completed: every node the run executed (completed_nodes of the API) is green.
async function allGreen(page, id, expected) {
  const info = await getJson(`pipelines/${encodeURIComponent(id)}`);
  const done = info.completed_nodes || [];
  check(expected.every((node) => done.includes(node)),
    `completed_nodes ${JSON.stringify(done)} should hold ${JSON.stringify(expected)}`);
  await waitForFills(page, Object.fromEntries(done.map((node) => [node, isGreen])),
    `every executed node (${done.join(', ')}) should be green`);
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

// Holds back the answer to the page's next GET /pipelines/ID, taken from the server while the
// run still waits at its gate (status "running"), until `deliver()`; the page's other requests
// pass. This is the order a busy browser can produce: an old answer processed after a newer one.
async function holdOneStatusAnswer(page, id) {
  const url = new URL(`/pipelines/${encodeURIComponent(id)}`, serverUrl).href;
  let held = null;
  let markHeld;
  const isHeld = new Promise((resolve) => { markHeld = resolve; });
  const handler = async (route) => {
    if (held) { await route.fallback(); return; }
    held = { route, response: route.fetch() };
    markHeld();
  };
  await page.route(url, handler);
  await isHeld;
  const body = await (await held.response).json();
  check(body.status === 'running', `the held answer was taken while the run waits (status ${body.status})`);
  return {
    // Delivers the held answer and returns every status the page showed in the next half second.
    async deliver() {
      await page.evaluate(() => {
        window.__shownStatuses = [];
        const header = document.querySelector('#run-status').parentElement;
        new MutationObserver(() => window.__shownStatuses.push(document.querySelector('#run-status')?.textContent))
          .observe(header, { childList: true, subtree: true, characterData: true });
      });
      await held.route.fulfill({ response: await held.response });
      await page.unroute(url, handler);
      await page.waitForTimeout(500);  // the page's fetch and render of the late answer
      return page.evaluate(() => window.__shownStatuses);
    },
  };
}

async function gatedRun(page) {
  await page.waitForSelector('#graph-select option[value="gate.dot"]', { state: 'attached', timeout: STEP_MS });
  const id = await startFromForm(page, () => page.selectOption('#graph-select', 'gate.dot'));
  await page.waitForFunction(() => document.querySelector('#run-status')?.textContent !== 'loading', null,
    { timeout: STEP_MS });
  await screenshot(page, 'run-started');
  pass(`run ${id} started from the graph picker`);

  await page.waitForSelector('#gate-panel', { state: 'visible', timeout: STEP_MS });
  check(await page.textContent('#gate-question') === 'Ship the haiku?', 'the gate shows its question');
  const approve = page.locator('#gate-panel button[data-answer="A"]');
  const revise = page.locator('#gate-panel button[data-answer="R"]');
  check((await approve.textContent()).includes('Approve') && (await revise.textContent()).includes('Revise'),
    'the gate has Approve and Revise buttons');
  check(await page.textContent('#gate-stage') === 'approve', 'the gate names its stage');
  await screenshot(page, 'gate-shown');
  pass('gate panel shows the question and both options');

  await page.waitForSelector(`#runs tr[data-run-id="${id}"] .gate-flag`, { timeout: STEP_MS });
  pass('runs list marks the pending gate');
  await headerShows(page, ': 0 running, 0 queued, 1 at a gate');
  pass('the header counts the run at its gate (it holds no slot) as soon as it waits');

  await page.waitForSelector('#graph-view svg', { timeout: STEP_MS });
  await partlyGreen(page);
  await screenshot(page, 'graph-partly-green');
  pass('at the gate the graph shows start and work green, approve running, polish and exit not yet');

  check(!(await page.isDisabled('#cancel-run')) && await page.isDisabled('#resume-run'),
    'Cancel is enabled and Resume disabled while the run waits');
  const stale = await holdOneStatusAnswer(page, id);
  await page.click('#cancel-run');
  await statusIs(page, 'cancelled');
  await page.waitForSelector('#gate-panel', { state: 'hidden', timeout: STEP_MS });
  const shown = await stale.deliver();
  check(shown.every((s) => s === 'cancelled') && await page.textContent('#run-status') === 'cancelled',
    `a status answer from before the cancel, arriving after it, leaves "cancelled" (shown: ${JSON.stringify(shown)})`);
  check(await page.isDisabled('#cancel-run') && !(await page.isDisabled('#resume-run')),
    'Resume is enabled and Cancel disabled once cancelled');
  await listShows(page, id, 'cancelled');
  await headerShows(page, ': 0 running, 0 queued, 0 at a gate');
  await screenshot(page, 'cancelled');
  pass('Cancel stops the run and closes the gate; the header counts follow');
  await page.click('#resume-run');
  await statusIs(page, 'running');
  await page.waitForSelector('#gate-panel', { state: 'visible', timeout: STEP_MS });
  pass('Resume runs it again and the gate is asked again');

  await approve.click();
  await page.waitForSelector('#gate-panel', { state: 'hidden', timeout: STEP_MS });
  await statusIs(page, 'completed');
  pass('run completed after Approve');
  await allGreen(page, id, ['start', 'work', 'approve', 'polish']);
  await listShows(page, id, 'completed');
  await screenshot(page, 'completed');
  pass('at the end every executed node (start, work, approve, polish) is green');
  return id;
}

async function graphNodes(page, expected) {
  await page.waitForFunction((want) => {
    const titles = [...document.querySelectorAll('#graph-view svg g.node > title')].map((t) => t.textContent);
    return want.every((n) => titles.includes(n));
  }, expected, { timeout: STEP_MS });
}

async function runView(page) {
  await graphNodes(page, ['start', 'work', 'approve', 'polish', 'exit']);
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

// The headers of table `selector` that stick out of its scrolling box (none when all are visible).
function clippedColumns(selector) {
  const wrap = document.querySelector(selector).closest('.table-wrap').getBoundingClientRect();
  return [...document.querySelectorAll(`${selector} th`)]
    .filter((th) => th.getBoundingClientRect().right > wrap.right + 0.5)
    .map((th) => `${th.textContent} (right ${th.getBoundingClientRect().right} > ${wrap.right})`);
}

// A run with a long name: its id stays on one line in the runs list (cut, whole in the title),
// and at 1400 px every column of the stages table and of the runs list is inside its box.
async function layout(page) {
  const id = await startFromForm(page, () => page.fill('#dot-input', LONG_DOT));
  await statusIs(page, 'completed');
  await page.waitForSelector('#stages tr[data-node="work"]', { timeout: STEP_MS });
  const cell = `#runs tr[data-run-id="${id}"] .run-id`;
  await page.waitForSelector(cell, { timeout: STEP_MS });
  const box = await page.$eval(cell, (e) => ({ height: e.getBoundingClientRect().height, title: e.title,
    font: parseFloat(getComputedStyle(e).fontSize), cut: e.scrollWidth > e.clientWidth }));
  check(box.height < 2 * box.font, `the run id takes one line (${box.height} px high at ${box.font} px)`);
  check(box.title === id && box.cut, `a cut run id has its whole text in the title (${JSON.stringify(box)})`);
  pass('a long run id stays on one line, cut with its whole text in the title');

  await page.setViewportSize({ width: 1400, height: 1000 });
  const stages = await page.evaluate(clippedColumns, '#stages');
  const runs = await page.evaluate(clippedColumns, '#runs');
  await screenshot(page, 'layout-1400');
  await page.setViewportSize({ width: 1500, height: 1000 });
  check(stages.length === 0, `at 1400 px the stages table shows every column (clipped: ${stages.join(', ')})`);
  check(runs.length === 0, `at 1400 px the runs list shows every column (clipped: ${runs.join(', ')})`);
  pass('at 1400 px every column of the stages table (Attempts included) and of the runs list is visible');
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

async function freeformRun(page) {
  const id = await startFromForm(page, () => page.fill('#dot-input', FREEFORM_DOT));
  pass(`run ${id} with a freeform gate started from pasted DOT`);
  await page.waitForSelector('#gate-panel #gate-text', { state: 'visible', timeout: STEP_MS });
  check(await page.textContent('#gate-question') === 'Anything to add?', 'the freeform gate shows its question');
  check(await page.textContent('#gate-stage') === 'notes', 'the freeform gate names its stage');
  check(await page.locator('#gate-panel button[data-answer]').count() === 0, 'a freeform gate has no option buttons');
  await page.locator('#gate-text').pressSequentially(FREEFORM_TEXT);
  check(await page.inputValue('#gate-text') === FREEFORM_TEXT, 'the typed text is in the box (no key answered the gate)');
  await page.waitForSelector('#graph-view svg', { timeout: STEP_MS });
  await waitForFills(page, { start: isGreen, draft: isGreen, notes: isRunning, exit: isUnfilled },
    'at the freeform gate, start and draft should be green and notes running');
  await screenshot(page, 'freeform-gate');
  pass('freeform gate shows a text box; the text is typed in');

  await page.click('#gate-send');
  await page.waitForSelector('#gate-panel', { state: 'hidden', timeout: STEP_MS });
  await statusIs(page, 'completed');
  const context = await getJson(`pipelines/${encodeURIComponent(id)}/context`);
  check(context['human.gate.text'] === FREEFORM_TEXT,
    `context human.gate.text should be the typed text (got ${JSON.stringify(context['human.gate.text'])})`);
  await allGreen(page, id, ['start', 'draft', 'notes']);
  await listShows(page, id, 'completed');
  await screenshot(page, 'freeform-completed');
  pass('Send answered the freeform gate; the run completed with the text in human.gate.text');
}

// A gated run whose server stops (SIGTERM) while it waits, resumed from the page of a new server
// process on the same logs root.
async function restartRun(page, binary, earlierId) {
  await page.waitForSelector('#graph-select option[value="gate.dot"]', { state: 'attached', timeout: STEP_MS });
  const id = await startFromForm(page, () => page.selectOption('#graph-select', 'gate.dot'));
  await page.waitForSelector('#gate-panel', { state: 'visible', timeout: STEP_MS });
  pass(`run ${id} started and waits at its gate`);

  const oldUrl = serverUrl;
  const stopped = await stopServer(SHUTDOWN_MS);
  check(stopped && !stopped.killed, `the server should exit by itself within ${SHUTDOWN_MS / 1000} s of SIGTERM ` +
    '(it needed SIGKILL)');
  pass(`server stopped by SIGTERM in ${(stopped.ms / 1000).toFixed(1)} s (exit ${stopped.code ?? stopped.signal})`);
  appendServerLog('\n--- attractor serve restarted ---\n');
  const url = await startServer(binary, SERVE_ARGS);
  check(url !== oldUrl, `the new server should listen on a new address (both ${url})`);
  pass(`new server on the same logs root listening on ${url}`);

  await page.goto(loginUrl);  // the new server's own session
  await page.goto(`${url}#run=${encodeURIComponent(id)}`);
  await statusIs(page, 'interrupted');
  check(!(await page.isDisabled('#resume-run')) && await page.isDisabled('#cancel-run'),
    'Resume is enabled and Cancel disabled for an interrupted run');
  check(await page.locator('#gate-panel').isHidden(), 'an interrupted run shows no gate');
  await listShows(page, id, 'interrupted');
  await listShows(page, earlierId, 'completed');
  await page.waitForSelector('#graph-view svg', { timeout: STEP_MS });
  await waitForFills(page, { start: isGreen, work: isGreen, approve: (f) => !isGreen(f), polish: isUnfilled },
    'after the restart, start and work should be green and approve, polish not');
  await screenshot(page, 'interrupted-after-restart');
  pass('after the restart the page shows the run interrupted (and the earlier runs), stages before the gate green');

  await page.click('#resume-run');
  await page.waitForSelector('#gate-panel', { state: 'visible', timeout: STEP_MS });
  await statusIs(page, 'running');
  check(await page.textContent('#gate-question') === 'Ship the haiku?', 'the resumed gate shows its question');
  await partlyGreen(page);
  await screenshot(page, 'resumed-gate');
  pass('Resume runs it on the new server and the gate is asked again');

  await page.locator('#gate-panel button[data-answer="A"]').click();
  await page.waitForSelector('#gate-panel', { state: 'hidden', timeout: STEP_MS });
  await statusIs(page, 'completed');
  await allGreen(page, id, ['start', 'work', 'approve', 'polish']);
  await listShows(page, id, 'completed');
  await screenshot(page, 'resumed-completed');
  pass('resumed run completed after Approve; every executed node is green');
}

const EDIT_DOT = `digraph Edits {
  start [shape=Mdiamond]
  edit [shape=parallelogram, tool_command="printf 'two\\\\n' >> a.txt; printf 'new\\\\n' > b.txt"]
  look [shape=parallelogram, tool_command="cat a.txt"]
  exit [shape=Msquare]
  start -> edit -> look -> exit
}
`;

// A worktree run (started through the API, in a git repository inside the server's workdir
// root): the stage view shows the stage's diff, and the header the run's branch.
async function worktreeRun(page) {
  const repo = path.join(tmp, 'repo');
  fs.mkdirSync(repo);
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  const git = (...args) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args]);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  const response = await fetch(new URL('/pipelines', serverUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${serverToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ dot: EDIT_DOT, workspace: 'worktree', workdir: 'repo' }),
  });
  const started = await response.json();
  check(response.status === 201, `the worktree run starts (${response.status}: ${JSON.stringify(started)})`);
  await page.evaluate((id) => { location.hash = '#run=' + encodeURIComponent(id); }, started.id);
  await statusIs(page, 'completed');
  await page.waitForFunction(() => /branch attractor\//.test(document.querySelector('#run-meta')?.textContent || ''),
    null, { timeout: STEP_MS });
  check((await page.textContent('#run-meta')).includes('2 files changed'), 'the header counts the changed files');
  await page.click('#stages tr[data-node="edit"]');
  const diff = page.locator('#stage-detail pre[data-file="diff"]');
  await diff.waitFor({ timeout: STEP_MS });
  const text = await diff.textContent();
  check(text.includes('+two') && text.includes('b/b.txt'), `the stage's diff is shown (got "${text.slice(0, 200)}")`);
  check(await page.locator('#stage-detail pre.diff .diff-add').count() >= 2, 'added lines are marked');
  check(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8') === 'one\n', 'the checkout is untouched');
  await screenshot(page, 'stage-diff');
  await page.click('#stages tr[data-node="look"]');
  await page.waitForFunction(() => /changes: none/.test(document.querySelector('#stage-detail')?.textContent || ''),
    null, { timeout: STEP_MS });
  await listShows(page, started.id, 'completed');
  pass('a worktree run shows its branch, and each stage its diff');

  await page.click('#stages tr[data-node="edit"]');
  await page.click('#stage-detail #fork-stage', { timeout: STEP_MS });
  await page.waitForFunction((id) => /^#run=/.test(location.hash) && !location.hash.includes(encodeURIComponent(id)),
    started.id, { timeout: STEP_MS });
  const forkId = decodeURIComponent(await page.evaluate(() => location.hash.slice('#run='.length)));
  await statusIs(page, 'interrupted');
  await page.click('#resume-run');
  await statusIs(page, 'completed');
  const forked = JSON.parse(fs.readFileSync(path.join(tmp, 'runs', forkId, 'manifest.json'), 'utf8'));
  check(forked.forked_from?.point === 'edit@1', `the fork records where it came from (${JSON.stringify(forked.forked_from)})`);
  check(fs.readFileSync(path.join(tmp, 'runs', forkId, 'worktree', 'b.txt'), 'utf8') === 'new\n',
    "the fork's worktree has the stage's files");
  await listShows(page, forkId, 'completed');
  pass('Fork makes a new run from a stage, and Resume runs it');

  await page.evaluate((id) => { location.hash = '#run=' + encodeURIComponent(id); }, started.id);
  await statusIs(page, 'completed');
  await page.click('#stages tr[data-node="edit"]');
  await page.click('#stage-detail #rewind-stage', { timeout: STEP_MS });
  try {
    await page.waitForFunction(() => /Rewound to edit@1/.test(document.querySelector('#run-message')?.textContent || ''),
      null, { timeout: STEP_MS });
  } catch (error) {
    throw new CheckFailed(`the page should say it rewound (shows "${await page.textContent('#run-message')}")`);
  }
  try {
    await page.waitForFunction(() => !document.querySelector('#stages tr[data-node="look"]'), null, { timeout: STEP_MS });
  } catch (error) {
    throw new CheckFailed(`the rewound stage should leave the table (${await page.textContent('#stages tbody')})`);
  }
  await screenshot(page, 'stage-rewound');
  await statusIs(page, 'interrupted');
  check(fs.existsSync(path.join(tmp, 'runs', started.id, 'rewound-1', 'look')), 'the later stage is kept aside');
  await page.click('#resume-run');
  await statusIs(page, 'completed');
  await page.waitForSelector('#stages tr[data-node="look"]', { timeout: STEP_MS });
  pass('Rewind takes a run back to a stage, and Resume continues it');
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
  await screenshot(page, 'lint-error');
  pass('lint error is shown in the form with its diagnostic');
}

async function main() {
  const { binary, chromium } = setUp('web_page_test.mjs', { tmpPrefix: 'attractor-web-' });
  fs.mkdirSync(path.join(tmp, 'graphs'));
  fs.writeFileSync(path.join(tmp, 'graphs', 'gate.dot'), GATE_DOT);
  const url = await startServer(binary, SERVE_ARGS);
  pass(`server listening on ${url}`);

  const { page, pageErrors } = await openPage(chromium);
  await page.waitForSelector('#graph-select option[value="gate.dot"]', { state: 'attached', timeout: STEP_MS });
  await screenshot(page, 'page-loaded');
  pass('logged in with the one-time address; page loaded');

  const gatedId = await gatedRun(page);
  await runView(page);
  await layout(page);
  await escapedRun(page);
  await freeformRun(page);
  await restartRun(page, binary, gatedId);
  await worktreeRun(page);
  await lintError(page);
  checkEnd(pageErrors);
}

await runTest('browser web page test', TIMEOUT_MS, main);
