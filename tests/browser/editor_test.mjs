// Browser test of the web page's editor (the Editor tab, editor.js): starts `attractor serve` on a
// temporary folder, drives Debian's Chromium through playwright-core, and checks each step of
// writing a pipeline: open a graph of the graphs folder, the Graphviz preview, an error
// diagnostic from a typo, completion that fixes it, hover over a node, the preview following an
// edit, Format, Save (and a refused save outside the graphs folder), and a simulated run started
// from the editor. A screenshot of each step is saved. The harness (checks, screenshots, server,
// browser, runner) is shared with web_page_test.mjs in browser_harness.mjs.
// Usage: node editor_test.mjs ATTRACTOR_BINARY REPO_ROOT
// Env: PLAYWRIGHT_CORE (playwright-core folder), ATTRACTOR_WEB_SCREENSHOTS (the screenshots go to
// its subfolder editor/, default REPO_ROOT/build/browser-screenshots/editor, created if missing,
// earlier NN-*.png in it removed; empty for none), ATTRACTOR_WEB_DIR (passed on to the server).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  CheckFailed, check, checkEnd, getJson, openPage, pass, runTest, screenshot, setUp, startServer, tmp,
} from './browser_harness.mjs';

const TIMEOUT_MS = 120_000;
const STEP_MS = 20_000;

// Not in the canonical layout (two-space indentation), so Format has something to do.
const HELLO_DOT = `digraph Hello {
  graph [goal="Greet the reader"]
  start [shape=Mdiamond]
  greet [shape=box, prompt="Say hello to the reader"]
  exit [shape=Msquare]
  start -> greet -> exit
}
`;
const GREET_LINE = 3;  // 0-based line of `greet [shape=box, ...]`
const EDGE_LINE = 5;   // 0-based line of `start -> greet -> exit`
const SAVE_AS = 'drafts/hello-edited.dot';
// The elements the hover's Markdown may become; anything else would be markup from server text.
const HOVER_TAGS = ['DIV', 'P', 'STRONG', 'CODE', 'TABLE', 'TBODY', 'TR', 'TD'];

// Waits for `fn(arg)` in the page to be true; on timeout fails with `message()` (awaited, so it
// can read the page).
async function waitFor(page, fn, arg, message) {
  try {
    await page.waitForFunction(fn, arg, { timeout: STEP_MS });
  } catch (error) {
    throw new CheckFailed(await message());
  }
}

// ---------------------------------------------------------------- reading and driving the editor

// The editor's whole text, from CodeMirror's lines (every line of these short graphs is drawn).
function editorText(page) {
  return page.evaluate(() => [...document.querySelectorAll('#editor-cm .cm-line')].map((l) => l.textContent).join('\n'));
}

async function editorLine(page, line) { return (await editorText(page)).split('\n')[line]; }

const countText = (page) => page.textContent('#editor-diag-count').catch(() => '?');
const statusText = (page) => page.textContent('#editor-status').catch(() => '?');

// Puts the cursor at (line, column), 0-based, with the keyboard. Escape first: an open completion
// list would take the arrow keys.
async function moveTo(page, line, column) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < line; i++) await page.keyboard.press('ArrowDown');
  for (let i = 0; i < column; i++) await page.keyboard.press('ArrowRight');
}

// Selects `length` characters from (line, column) and types `text` over them.
async function typeOver(page, line, column, length, text) {
  await moveTo(page, line, column);
  for (let i = 0; i < length; i++) await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.type(text);
  await page.keyboard.press('Escape');
}

// The count under the editor once the diagnostics of the current text arrived: {errors, text}.
async function waitForErrors(page, errors, what) {
  await waitFor(page, (n) => {
    const box = document.querySelector('#editor-diag-count');
    const marks = document.querySelectorAll('#editor-cm .cm-lintRange-error').length;
    return box && box.dataset.errors === String(n) && (n === 0 ? marks === 0 : marks > 0);
  }, errors, async () => `${what}: the editor should show ${errors} error(s) (count shows "${await countText(page)}", ` +
    `${await page.locator('#editor-cm .cm-lintRange-error').count()} error marks)`);
}

// The centre of `word` on `line` (0-based) of the editor, in page coordinates.
function wordCentre(page, line, word) {
  return page.evaluate(([n, w]) => {
    const el = document.querySelectorAll('#editor-cm .cm-line')[n];
    if (!el) return null;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(w);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + w.length);
      const box = range.getBoundingClientRect();
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    }
    return null;
  }, [line, word]);
}

// The preview image's src and SVG once it is loaded and drawn (naturalWidth > 0), differs from
// `old`, and its SVG holds the text `node` and not `gone` (an edit in progress is drawn too).
async function previewShown(page, old, node, gone, what) {
  await waitFor(page, ([before, want, unwanted]) => {
    const img = document.querySelector('#editor-preview-img');
    if (!img || img.hidden || !img.src.startsWith('data:image/svg+xml;base64,') || img.src === before) return false;
    const svg = atob(img.src.slice(img.src.indexOf(',') + 1));
    return img.complete && img.naturalWidth > 0 && svg.includes(want) && !(unwanted && svg.includes(unwanted));
  }, [old, node, gone], async () => {
    const shown = await page.evaluate(() => {
      const img = document.querySelector('#editor-preview-img');
      return { src: (img?.src || '').slice(0, 40), width: img?.naturalWidth, hidden: img?.hidden,
        error: document.querySelector('#editor-preview-error')?.textContent };
    });
    return `${what}: the preview should show a new SVG image with ${node}${gone ? ` and without ${gone}` : ''} ` +
      `(img ${JSON.stringify(shown)})`;
  });
  const src = await page.getAttribute('#editor-preview-img', 'src');
  return { src, svg: Buffer.from(src.slice(src.indexOf(',') + 1), 'base64').toString('utf8') };
}

// ---------------------------------------------------------------- the steps

async function openGraph(page) {
  await page.click('#tab-editor');
  await waitFor(page, () => document.querySelector('#editor-panel')?.dataset.ready === 'true' &&
    !document.querySelector('#editor-panel').hidden, null,
  async () => 'the Editor tab should show a loaded editor (editor.js or a /vendor/*.js module did not load: ' +
    `${await page.textContent('#editor-cm').catch(() => '?')})`);
  check(await page.getAttribute('#tab-editor', 'aria-selected') === 'true' && await page.locator('#run-panel').isHidden(),
    'the Editor tab is selected and the run view hidden');
  await page.waitForSelector('#editor-graph option[value="hello.dot"]', { state: 'attached', timeout: STEP_MS })
    .catch(() => { throw new CheckFailed('the editor\'s graph list should offer hello.dot (GET /graphs)'); });
  await page.selectOption('#editor-graph', 'hello.dot');
  await page.click('#editor-open');
  await waitFor(page, () => /^Opened hello\.dot/.test(document.querySelector('#editor-status')?.textContent || ''), null,
    async () => `Open should load hello.dot (status "${await statusText(page)}")`);
  const text = await editorText(page);
  check(text === HELLO_DOT, `the editor should hold hello.dot as it is on disk (got ${JSON.stringify(text)})`);
  check(await page.inputValue('#editor-path') === 'hello.dot', 'the path field names the opened graph');
  await waitForErrors(page, 0, 'hello.dot as opened');
  await screenshot(page, 'editor-opened');
  pass(`hello.dot opened in the editor (GET /editor/graph); diagnostics: "${await countText(page)}"`);

  const preview = await previewShown(page, '', 'greet', null, 'after Open');
  check(/<svg[\s>]/.test(preview.svg), 'the preview is an SVG drawing');
  check(await page.locator('#editor-preview svg, #editor-preview script').count() === 0,
    'the SVG is shown as an image, not put into the page');
  await screenshot(page, 'editor-preview');
  pass('the preview shows the graph as an SVG image (POST /editor/preview)');
  return preview.src;
}

async function typoAndCompletion(page) {
  const line = await editorLine(page, GREET_LINE);
  const end = line.indexOf('shape=box') + 'shape=box'.length;
  await page.click('#editor-cm .cm-content');
  await moveTo(page, GREET_LINE, end);
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('x');
  await page.keyboard.press('Escape');  // the completion list typing may have opened
  check((await editorLine(page, GREET_LINE)).includes('shape=bx,'), `typing made shape=bx (line: ${await editorLine(page, GREET_LINE)})`);
  await waitForErrors(page, 1, 'after typing shape=bx');
  check(/^1 error\b/.test(await countText(page)), `the count names the error (shows "${await countText(page)}")`);
  await screenshot(page, 'editor-typo-error');
  pass(`typing shape=bx marks an error in the editor (POST /editor/diagnostics); count "${await countText(page)}"`);

  await page.hover('#editor-cm .cm-lintRange-error');
  await waitFor(page, () => !!document.querySelector('.cm-tooltip-lint .cm-diagnosticAction'), null,
    async () => `hovering the error should show its diagnostic with a quick fix (tooltips: "${
      await page.locator('.cm-tooltip').allTextContents().then((t) => t.join(' | '))}")`);
  const lint = await page.evaluate(() => ({
    source: document.querySelector('.cm-tooltip-lint .cm-diagnosticSource')?.textContent || '',
    action: document.querySelector('.cm-tooltip-lint .cm-diagnosticAction')?.textContent || '',
    text: document.querySelector('.cm-tooltip-lint .cm-diagnosticText')?.textContent || '',
  }));
  check(lint.source.includes('shape_known'), `the diagnostic names its rule shape_known (source "${lint.source}")`);
  check(lint.action === "Replace 'bx' with 'box'", `the quick fix is offered (action "${lint.action}")`);
  check(lint.text.includes('bx'), `the message is shown (got "${lint.text}")`);
  await screenshot(page, 'editor-quick-fix-offered');
  await page.mouse.move(5, 5);
  pass(`the diagnostic shows its rule and the quick fix "${lint.action}"`);

  await moveTo(page, GREET_LINE, end - 1);  // just after "bx": completion is asked with the typo typed
  await page.keyboard.press('Control+Space');
  const box = page.locator('.cm-tooltip-autocomplete li[role="option"]',
    { has: page.locator('.cm-completionLabel', { hasText: /^box$/ }) });
  try {
    await box.waitFor({ timeout: STEP_MS });
  } catch (error) {
    const offered = await page.locator('.cm-tooltip-autocomplete .cm-completionLabel').allTextContents();
    throw new CheckFailed(`Ctrl-Space at shape=bx should offer box (POST /editor/completion; offered: ${JSON.stringify(offered)})`);
  }
  await screenshot(page, 'editor-completion');
  await box.click();
  await waitFor(page, (n) => {
    const line = document.querySelectorAll('#editor-cm .cm-line')[n];
    return line && line.textContent.includes('shape=box,');
  }, GREET_LINE, async () => `picking box should make shape=box (line: ${await editorLine(page, GREET_LINE)})`);
  await waitForErrors(page, 0, 'after picking box');
  check((await editorText(page)) === HELLO_DOT, 'the text is hello.dot again');
  await screenshot(page, 'editor-error-gone');
  pass('Ctrl-Space offered box; picking it replaced bx and the error went away');
}

async function hoverNode(page) {
  await page.keyboard.press('Escape');
  const at = await wordCentre(page, GREET_LINE, 'greet');
  check(at, 'the node id greet is on its line');
  await page.mouse.move(at.x, at.y);
  await waitFor(page, () => /handler/.test(document.querySelector('.cm-tooltip-hover .editor-hover')?.textContent || ''),
    null, async () => `hovering greet should show its hover with the handler (POST /editor/hover; tooltips: "${
      await page.locator('.cm-tooltip').allTextContents().then((t) => t.join(' | '))}")`);
  const hover = await page.evaluate((allowed) => {
    const box = document.querySelector('.cm-tooltip-hover .editor-hover');
    return { text: box.textContent, bad: [...box.querySelectorAll('*')].map((e) => e.tagName).filter((t) => !allowed.includes(t)),
      cells: box.querySelectorAll('td').length };
  }, HOVER_TAGS);
  check(hover.text.includes('greet') && hover.text.includes('codergen'),
    `the hover names the node and its handler codergen (got "${hover.text}")`);
  check(hover.bad.length === 0, `the hover is built of text elements only (found ${hover.bad.join(', ')})`);
  check(hover.cells >= 2, `the hover's table rows are shown as a table (${hover.cells} cells)`);
  await screenshot(page, 'editor-hover');
  await page.mouse.move(5, 5);
  pass(`hovering greet shows "${hover.text.slice(0, 60).replace(/\s+/g, ' ')}…"`);
}

async function renameNode(page, oldSrc) {
  await page.click('#editor-cm .cm-content');
  await typeOver(page, GREET_LINE, 2, 'greet'.length, 'welcome');
  const edge = await editorLine(page, EDGE_LINE);
  await typeOver(page, EDGE_LINE, edge.indexOf('greet'), 'greet'.length, 'welcome');
  const text = await editorText(page);
  check(text === HELLO_DOT.replaceAll('greet', 'welcome'), `both mentions of greet became welcome (text ${JSON.stringify(text)})`);
  await previewShown(page, oldSrc, 'welcome', 'greet', 'after renaming greet to welcome');
  await waitForErrors(page, 0, 'after the rename');
  check(!(await page.locator('#editor-dirty').isHidden()), 'the editor marks the text as modified');
  await screenshot(page, 'editor-renamed');
  pass('renaming the node redraws the preview (a new image)');
}

async function format(page, binary) {
  const before = await editorText(page);
  const file = path.join(tmp, 'format-check.dot');
  fs.writeFileSync(file, before);
  const expected = execFileSync(binary, ['fmt', file], { encoding: 'utf8' });
  check(expected !== before, 'the test graph is not in the canonical layout yet');
  await page.click('#editor-format');
  await waitFor(page, (want) => [...document.querySelectorAll('#editor-cm .cm-line')].map((l) => l.textContent).join('\n') === want,
    expected, async () => `Format should rewrite the text as attractor fmt does (status "${await statusText(page)}", ` +
      `text ${JSON.stringify(await editorText(page))}, expected ${JSON.stringify(expected)})`);
  await screenshot(page, 'editor-formatted');
  pass('Format rewrote the text in the canonical layout (POST /editor/format, as attractor fmt)');
  return expected;
}

async function save(page, text) {
  await page.fill('#editor-path', '../outside.dot');
  await page.click('#editor-save');
  await waitFor(page, () => document.querySelector('#editor-status')?.dataset.kind === 'error', null,
    async () => `saving to ../outside.dot should be refused (status "${await statusText(page)}")`);
  check(!fs.existsSync(path.join(tmp, 'outside.dot')), 'nothing was written outside the graphs folder');
  pass(`saving outside the graphs folder is refused: "${await statusText(page)}"`);

  await page.fill('#editor-path', SAVE_AS);
  await page.click('#editor-save');
  await waitFor(page, (p) => (document.querySelector('#editor-status')?.textContent || '').startsWith('saved ' + p), SAVE_AS,
    async () => `Save should write ${SAVE_AS} (status "${await statusText(page)}")`);
  const file = path.join(tmp, 'graphs', SAVE_AS);
  check(fs.existsSync(file), `${SAVE_AS} exists in the graphs folder`);
  const saved = fs.readFileSync(file, 'utf8');
  check(saved === text, `the file holds the editor's text (file ${JSON.stringify(saved)})`);
  check(fs.readFileSync(path.join(tmp, 'graphs', 'hello.dot'), 'utf8') === HELLO_DOT, 'hello.dot is unchanged');
  check(await page.locator('#editor-dirty').isHidden(), 'the editor no longer marks the text as modified');
  await waitFor(page, (p) => document.querySelector('#editor-graph')?.value === p &&
    !!document.querySelector(`#graph-select option[value="${p}"]`), SAVE_AS,
  async () => `the saved graph should be chosen in the editor's list and offered by the new-run form`);
  await screenshot(page, 'editor-saved');
  pass(`Save wrote ${SAVE_AS} (POST /editor/graph); the graph lists offer it`);
}

async function run(page) {
  check(await page.isChecked('#editor-simulate'), 'simulate is checked by default');
  const before = await page.evaluate(() => location.hash);
  await page.click('#editor-run');
  await waitFor(page, (old) => /^#run=/.test(location.hash) && location.hash !== old, before,
    async () => `Run should open the new run (status "${await statusText(page)}")`);
  const id = decodeURIComponent(await page.evaluate(() => location.hash.slice('#run='.length)));
  check(await page.getAttribute('#tab-run', 'aria-selected') === 'true' && await page.locator('#editor-panel').isHidden(),
    'the page shows the Run tab with the new run');
  await waitFor(page, () => document.querySelector('#run-status')?.textContent === 'completed', null,
    async () => `the run should complete (shows "${await page.textContent('#run-status').catch(() => '?')}")`);
  try {
    await page.waitForSelector(`#runs tr[data-run-id="${id}"] .status-completed`, { timeout: STEP_MS });
  } catch (error) {
    throw new CheckFailed(`the runs list should show ${id} as completed`);
  }
  const info = await getJson(`pipelines/${encodeURIComponent(id)}`);
  check(info.status === 'completed', `the run's status is completed (${info.status})`);
  check(JSON.stringify(info.completed_nodes) === '["start","welcome"]',
    `the run executed the edited graph: start, welcome (completed_nodes ${JSON.stringify(info.completed_nodes)})`);
  check((info.completed_statuses || []).length === 2 && info.completed_statuses.every((s) => s === 'success'),
    `every stage ended success (${JSON.stringify(info.completed_statuses)})`);
  await screenshot(page, 'editor-run-completed');
  pass(`Run started ${id} (simulated); it is in the runs list and completed, every stage success`);
}

async function main() {
  const { binary, chromium } = setUp('editor_test.mjs', { tmpPrefix: 'attractor-editor-', shotSubdir: 'editor' });
  fs.mkdirSync(path.join(tmp, 'graphs', 'drafts'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'graphs', 'hello.dot'), HELLO_DOT);
  const url = await startServer(binary);
  pass(`server listening on ${url}`);

  const { page, pageErrors } = await openPage(chromium,
    { consoleErrors: /Content Security Policy|Failed to load module|Failed to resolve module/i });
  pass('logged in with the one-time address; page loaded');

  const firstPreview = await openGraph(page);
  await typoAndCompletion(page);
  await hoverNode(page);
  await renameNode(page, firstPreview);
  const formatted = await format(page, binary);
  await save(page, formatted);
  await run(page);
  checkEnd(pageErrors);
}

await runTest('browser editor test', TIMEOUT_MS, main);
