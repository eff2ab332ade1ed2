// Attractor web page, Editor tab: open a graph of --graphs-dir (or a new one), edit it in
// CodeMirror 6 with live diagnostics, completion and hover from the server's language service
// (POST /editor/*, docs/server.md "The pipeline editor"), a Graphviz preview beside it, save it
// and start a run. CodeMirror comes from /vendor/*.js (tools/web_vendor.py), served by the binary.
// Server text goes into the page only as text nodes; the preview SVG only as an <img> data: URL.
import { EditorState } from '/vendor/codemirror-state.js';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  hoverTooltip,
} from '/vendor/codemirror-view.js';
import {
  StreamLanguage, HighlightStyle, syntaxHighlighting, bracketMatching,
} from '/vendor/codemirror-language.js';
import { tags } from '/vendor/lezer-highlight.js';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '/vendor/codemirror-commands.js';
import {
  autocompletion, completionKeymap, closeBrackets, closeBracketsKeymap, insertCompletionText, pickedCompletion,
} from '/vendor/codemirror-autocomplete.js';
import { linter, lintGutter, lintKeymap, forEachDiagnostic, setDiagnosticsEffect } from '/vendor/codemirror-lint.js';

const LINT_DELAY_MS = 250;
const PREVIEW_DELAY_MS = 400;
const DRAFT_KEY = 'attractor.editor.draft';
const NEW_GRAPH = `digraph NewPipeline {
  graph [goal="Describe the goal"]
  start [shape=Mdiamond]
  work [prompt="Work towards $goal"]
  exit [shape=Msquare]
  start -> work -> exit
}
`;
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };
// LSP CompletionItemKind -> CodeMirror completion type (its icon).
const KIND = { 10: 'property', 12: 'constant', 14: 'keyword', 18: 'variable', 20: 'enum' };

const $ = (selector) => document.querySelector(selector);
const hook = () => window.attractor;  // app.js
// saved: the text as last opened or saved (or the untouched new graph); openedPath: the graph file
// that text is in on the server ('' for a new graph).
const ed = {
  view: null, saved: null, openedPath: '', previewSeq: 0, previewText: null, discardAsked: 0, completion: null, lintError: null,
};

// ---------------------------------------------------------------- DOT highlighting

const DOT_KEYWORDS = new Set(['digraph', 'graph', 'node', 'edge', 'subgraph', 'strict']);

function readString(stream, state) {
  let escaped = false;
  for (let ch = stream.next(); ch !== undefined && ch !== null; ch = stream.next()) {
    if (ch === '"' && !escaped) { state.inString = false; return 'string'; }
    escaped = !escaped && ch === '\\';
  }
  return 'string';  // continues on the next line
}

const dotLanguage = StreamLanguage.define({
  name: 'dot',
  startState: () => ({ inString: false, inComment: false, afterEquals: false }),
  copyState: (state) => ({ ...state }),
  token(stream, state) {
    if (state.inComment || state.inString || stream.eatSpace()) return continued(stream, state);
    const type = dotToken(stream, state);
    state.afterEquals = type === 'punctuation' && stream.current() === '=';
    return type;
  },
  languageData: { commentTokens: { line: '//', block: { open: '/*', close: '*/' } } },
});

// The rest of a comment or string that started on an earlier line, or the spaces before a token.
function continued(stream, state) {
  if (state.inComment) {
    if (stream.skipTo('*/')) { stream.pos += 2; state.inComment = false; } else stream.skipToEnd();
    return 'comment';
  }
  if (state.inString) return readString(stream, state);
  return null;
}

// One token: comments, strings, keywords, `->` / `--`, numbers, attribute names (an identifier
// before `=`), values (an identifier after `=`), other identifiers (node ids), brackets.
function dotToken(stream, state) {
  if (stream.match('//') || (stream.sol() && stream.peek() === '#')) { stream.skipToEnd(); return 'comment'; }
  if (stream.match('/*')) { state.inComment = true; return 'comment'; }
  if (stream.eat('"')) { state.inString = true; return readString(stream, state); }
  if (stream.match('->') || stream.match('--')) return 'operator';
  if (stream.match(/^-?(\.\d+|\d+(\.\d*)?)(?![\w.])/)) return 'number';
  if (stream.match(/^[A-Za-z_\u0080-\uffff][\w.\u0080-\uffff]*/)) {
    if (stream.match(/^\s*=/, false)) return 'propertyName';
    if (state.afterEquals) return 'atom';
    return DOT_KEYWORDS.has(stream.current().toLowerCase()) ? 'keyword' : 'variableName';
  }
  if (stream.match(/^[[\]{}]/)) return 'bracket';
  if (stream.match(/^[=;,:]/)) return 'punctuation';
  stream.next();
  return null;
}

const dotHighlight = HighlightStyle.define([
  { tag: tags.comment, color: '#6b7280', fontStyle: 'italic' },
  { tag: tags.string, color: '#166534' },
  { tag: tags.keyword, color: '#7c2d92', fontWeight: '600' },
  { tag: tags.number, color: '#9a3412' },
  { tag: tags.atom, color: '#9a3412' },
  { tag: tags.propertyName, color: '#1d4ed8' },
  { tag: tags.variableName, color: '#1d2330', fontWeight: '600' },
  { tag: tags.operator, color: '#7c3aed' },
]);

// ---------------------------------------------------------------- positions and requests

// An LSP position (0-based line, UTF-16 character: a JS string index) as a document offset.
function offsetOf(doc, position) {
  if (!position || position.line >= doc.lines) return doc.length;
  const line = doc.line(Math.max(0, position.line) + 1);
  return Math.min(line.from + Math.max(0, position.character || 0), line.to);
}

function positionOf(doc, offset) {
  const line = doc.lineAt(offset);
  return { line: line.number - 1, character: offset - line.from };
}

function api(method, path, body) { return hook().api(method, path, body); }

// ---------------------------------------------------------------- minimal, safe Markdown

// `**bold**` (which may hold `code`) and `code`; everything else is text.
function inline(parent, text) {
  let plain = '';
  const flush = () => { if (plain) parent.append(plain); plain = ''; };
  for (let i = 0; i < text.length;) {
    if (text.startsWith('**', i)) {
      const end = text.indexOf('**', i + 2);
      if (end > i + 2) {
        flush();
        const strong = document.createElement('strong');
        inline(strong, text.slice(i + 2, end));
        parent.append(strong);
        i = end + 2;
        continue;
      }
    }
    if (text[i] === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1) {
        flush();
        const code = document.createElement('code');
        code.textContent = text.slice(i + 1, end);
        parent.append(code);
        i = end + 1;
        continue;
      }
    }
    plain += text[i++];
  }
  flush();
}

// Paragraphs and `| a | b |` table rows (the header separator and an empty header row skipped).
function markdown(text, className) {
  const root = document.createElement('div');
  root.className = 'md ' + (className || '');
  let paragraph = [];
  let table = null;
  const endParagraph = () => {
    if (!paragraph.length) return;
    const p = document.createElement('p');
    inline(p, paragraph.join('\n'));
    root.append(p);
    paragraph = [];
  };
  for (const line of String(text).split('\n')) {
    if (/^\s*\|.*\|\s*$/.test(line)) {
      endParagraph();
      const cells = line.trim().slice(1, -1).split('|').map((c) => c.trim());
      if (cells.every((c) => c === '' || /^:?-+:?$/.test(c))) continue;
      if (!table) { table = document.createElement('table'); root.append(table); }
      const row = table.insertRow();
      for (const cell of cells) inline(row.insertCell(), cell);
      continue;
    }
    table = null;
    if (line.trim()) paragraph.push(line); else endParagraph();
  }
  endParagraph();
  return root;
}

// ---------------------------------------------------------------- diagnostics

function toDiagnostic(doc, d) {
  const from = offsetOf(doc, d.range && d.range.start);
  const to = Math.max(from, offsetOf(doc, d.range && d.range.end));
  const diagnostic = {
    from, to,
    severity: SEVERITY[d.severity] || 'info',
    source: d.code ? String(d.code) : (d.source || 'attractor'),
    message: String(d.message || ''),
    renderMessage: () => messageNode(String(d.message || '')),
  };
  const fix = d.quickFix;
  if (fix && fix.range && typeof fix.newText === 'string') {
    // Kept as distances from the diagnostic's ends, which CodeMirror maps through later edits.
    const before = offsetOf(doc, fix.range.start) - from;
    const after = offsetOf(doc, fix.range.end) - to;
    // A fix of several places (a misspelt node that edges mention): distances from the start.
    const many = Array.isArray(fix.edits) && fix.edits.length > 1
      ? fix.edits.map((e) => [offsetOf(doc, e.range.start) - from, offsetOf(doc, e.range.end) - from, String(e.newText)])
      : null;
    diagnostic.actions = [{
      name: String(fix.title || 'Fix'),
      apply(view, curFrom, curTo) {
        const length = view.state.doc.length;
        const clamp = (n) => Math.min(length, Math.max(0, n));
        if (many) {
          view.dispatch({ changes: many.map(([a, b, insert]) => ({ from: clamp(curFrom + a), to: clamp(curFrom + b), insert })) });
          return;
        }
        const a = clamp(curFrom + before);
        view.dispatch({ changes: { from: a, to: Math.min(length, Math.max(a, curTo + after)), insert: fix.newText } });
      },
    }];
  }
  return diagnostic;
}

// A message as lines of text ("...\nfix: ...").
function messageNode(text) {
  const box = document.createElement('div');
  box.className = 'editor-diag-message';
  box.textContent = text;
  return box;
}

async function lintSource(view) {
  const doc = view.state.doc;
  const r = await api('POST', '/editor/diagnostics', { dot: doc.toString() });
  const ok = r.ok && r.data && Array.isArray(r.data.diagnostics);
  ed.lintError = ok ? null : (r.data && r.data.error) || `HTTP ${r.status}`;
  return ok ? r.data.diagnostics.map((d) => toDiagnostic(doc, d)) : [];
}

// The count under the editor, once each answer of the diagnostics endpoint is shown.
function showCount(state) {
  const box = $('#editor-diag-count');
  if (ed.lintError) {
    box.textContent = 'diagnostics unavailable: ' + ed.lintError;
    box.className = 'error';
    box.dataset.errors = box.dataset.warnings = box.dataset.infos = '';
    return;
  }
  const n = { error: 0, warning: 0, info: 0 };
  forEachDiagnostic(state, (d) => { n[d.severity === 'hint' ? 'info' : d.severity] += 1; });
  const plural = (k, word) => `${k} ${word}${k === 1 ? '' : 's'}`;
  box.textContent = n.error + n.warning + n.info === 0 ? 'no problems'
    : `${plural(n.error, 'error')}, ${plural(n.warning, 'warning')}, ${n.info} info`;
  box.className = n.error ? 'has-errors' : 'muted';
  box.dataset.errors = n.error;
  box.dataset.warnings = n.warning;
  box.dataset.infos = n.info;
}

// ---------------------------------------------------------------- completion and hover

// How well `label` matches what was typed: null for no match, else {tier, matched} (lower tiers
// first; matched: [from, to, ...] of the label's matched characters, for highlighting). A prefix
// matches best, then the typed letters in order from the label's first one, then anywhere: so
// "bx" offers "box", which CodeMirror's own filter does not (it drops two-letter patterns with gaps).
function matchLabel(label, typed) {
  if (!typed) return { tier: 0, matched: [] };
  if (label.startsWith(typed)) return { tier: 0, matched: [0, typed.length] };
  const l = label.toLowerCase();
  const t = typed.toLowerCase();
  if (l.startsWith(t)) return { tier: 1, matched: [0, typed.length] };
  const matched = [];
  let k = 0;
  for (let i = 0; i < l.length && k < t.length; i++) {
    if (l[i] !== t[k]) continue;
    k += 1;
    if (matched.length && matched[matched.length - 1] === i) matched[matched.length - 1] = i + 1;
    else matched.push(i, i + 1);
  }
  if (k < t.length) return null;
  return { tier: matched[0] === 0 ? 2 : 3, matched };
}

// The server's items for the text around the word being typed, so typing more of the word
// filters the same list instead of asking again.
async function completionItems(context, word) {
  const doc = context.state.doc;
  const key = doc.sliceString(0, word.from) + '\u0000' + doc.sliceString(context.pos);
  if (ed.completion && ed.completion.key === key) return ed.completion;
  const r = await api('POST', '/editor/completion', { dot: doc.toString(), ...positionOf(doc, context.pos) });
  if (!r.ok || !r.data) return null;
  const items = Array.isArray(r.data) ? r.data : r.data.items;
  if (!Array.isArray(items)) return null;
  // The server gives every item the same range: the start of the token at the cursor to the
  // cursor, or beyond it (`tail` characters after the cursor are replaced too).
  const range = items.length && items[0].textEdit && items[0].textEdit.range;
  const from = Math.min(range ? offsetOf(doc, range.start) : word.from, context.pos);
  const tail = range ? Math.max(0, offsetOf(doc, range.end) - context.pos) : 0;
  ed.completion = { key, items, from, tail };
  return ed.completion;
}

async function completionSource(context) {
  const word = context.matchBefore(/[\w.]*$/) || { from: context.pos, text: '' };
  if (!context.explicit && !word.text && !context.matchBefore(/(->|[=[,"])\s*$/)) return null;
  const found = await completionItems(context, word);
  if (context.aborted || !found || !found.items.length) return null;
  const typed = context.state.sliceDoc(found.from, context.pos);
  const options = [];
  for (const item of found.items) {
    const label = String(item.label);
    const match = matchLabel(label, typed);
    if (!match) continue;
    const text = item.textEdit && item.textEdit.newText !== undefined ? String(item.textEdit.newText) : label;
    const option = {
      label, type: KIND[item.kind] || 'text', matched: match.matched, tier: match.tier,
      apply: (view, completion, from, to) => view.dispatch({
        ...insertCompletionText(view.state, text, from, Math.min(view.state.doc.length, to + found.tail)),
        annotations: pickedCompletion.of(completion),
      }),
    };
    if (item.detail) option.detail = String(item.detail);
    const docText = item.documentation && (item.documentation.value ?? item.documentation);
    if (docText) option.info = () => markdown(String(docText), 'editor-completion-info');
    options.push(option);
  }
  if (!options.length) return null;
  options.sort((a, b) => a.tier - b.tier);  // stable: the server's order within a tier
  return { from: found.from, options, filter: false, getMatch: (option) => option.matched };
}

const hover = hoverTooltip(async (view, pos) => {
  const doc = view.state.doc;
  const r = await api('POST', '/editor/hover', { dot: doc.toString(), ...positionOf(doc, pos) });
  if (!r.ok || !r.data || !r.data.contents || !view.state.doc.eq(doc)) return null;
  const contents = r.data.contents;
  const text = typeof contents === 'string' ? contents : contents.value;
  if (!text) return null;
  const range = r.data.range;
  const from = range ? offsetOf(doc, range.start) : pos;
  const to = range ? offsetOf(doc, range.end) : pos;
  return {
    pos: Math.min(from, pos), end: Math.max(to, pos), above: true,
    create: () => ({ dom: markdown(text, 'editor-hover') }),
  };
}, { hoverTime: 300 });

// ---------------------------------------------------------------- preview

function base64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function schedulePreview() {
  clearTimeout(ed.previewTimer);
  ed.previewTimer = setTimeout(refreshPreview, PREVIEW_DELAY_MS);
}

async function refreshPreview() {
  const text = ed.view.state.doc.toString();
  if (text === ed.previewText) return;
  const seq = ++ed.previewSeq;
  let response = null;
  let body = null;
  let error = null;
  try {
    response = await fetch('/editor/preview', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'image/svg+xml, application/json' },
      body: JSON.stringify({ dot: text }),
    });
    body = new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    error = 'the server cannot be reached';
  }
  if (seq !== ed.previewSeq) return;  // a newer preview is on its way
  if (!error && response.ok) {
    ed.previewText = text;
    const img = $('#editor-preview-img');
    img.src = 'data:image/svg+xml;base64,' + base64(body);
    img.hidden = false;
    $('#editor-preview-empty').hidden = true;
    showPreviewError(null);
    return;
  }
  if (!error) {
    let data = null;
    try { data = JSON.parse(new TextDecoder().decode(body)); } catch (e) { /* not JSON */ }
    error = (data && data.error) || `HTTP ${response.status}`;
    const first = data && Array.isArray(data.diagnostics) && data.diagnostics.find((d) => d && d.message);
    if (first) error += ': ' + String(first.message).split('\n')[0];
  }
  showPreviewError(error);
}

function showPreviewError(text) {
  const box = $('#editor-preview-error');
  box.textContent = text ? 'Preview not updated: ' + text : '';
  box.hidden = !text;
}

// ---------------------------------------------------------------- open, save, format, run

function showStatus(text, kind, diagnostics) {
  const box = $('#editor-status');
  box.replaceChildren(text || '');
  box.dataset.kind = kind || '';
  box.className = 'editor-status' + (kind === 'error' ? ' error' : ' muted');
  if (Array.isArray(diagnostics) && diagnostics.length) {
    const list = document.createElement('ul');
    for (const d of diagnostics.slice(0, 20)) {
      const item = document.createElement('li');
      const where = d.line != null ? ` ${d.line}:${d.column ?? 1}` : '';
      item.append(Object.assign(document.createElement('code'), { textContent: d.rule || d.code || '' }),
        `${where} ${String(d.message || '')}`);
      list.append(item);
    }
    box.append(list);
  }
}

// Edited since it was opened or saved.
function isModified() { return !ed.saved || !ed.view.state.doc.eq(ed.saved); }

function renderDirty() {
  const mark = $('#editor-dirty');
  mark.textContent = isModified() ? '(modified)' : ed.openedPath ? '' : '(not saved)';
  mark.hidden = !mark.textContent;
}

// A new editor state (undo history starts afresh) holding `text`, which is the file `openedPath`
// of the graphs folder unless that is '' (a new graph, saved to `path`); `modified` for a draft
// that differs from what was opened.
function load(text, openedPath, path, modified) {
  ed.view.setState(EditorState.create({ doc: text, extensions: extensions() }));
  ed.saved = modified ? null : ed.view.state.doc;
  ed.openedPath = openedPath;
  $('#editor-path').value = path;
  renderDirty();
  saveDraft();
  schedulePreview();
}

async function openSelected() {
  const path = $('#editor-graph').value;
  if (isModified() && Date.now() - ed.discardAsked > 10000) {
    ed.discardAsked = Date.now();
    showStatus('The editor has unsaved changes: press Open again to discard them.', 'warning');
    return;
  }
  ed.discardAsked = 0;
  if (!path) {
    load(NEW_GRAPH, '', 'new.dot', false);
    showStatus('New graph: give it a path and Save.', 'ok');
    return;
  }
  const r = await api('GET', '/editor/graph?path=' + encodeURIComponent(path));
  if (!r.ok) { showStatus(`Cannot open ${path}: ${r.data.error}`, 'error'); return; }
  load(String(r.data.dot), String(r.data.path || path), String(r.data.path || path), false);
  showStatus(`Opened ${r.data.path || path}`, 'ok');
}

async function save() {
  const path = $('#editor-path').value.trim();
  if (!path) { showStatus('Give the path to save to, inside the graphs folder (e.g. drafts/new.dot).', 'error'); return; }
  const doc = ed.view.state.doc;
  // docs/server.md, "The pipeline editor": POST /editor/graph saves.
  const r = await api('POST', '/editor/graph', { path, dot: doc.toString() });
  if (!r.ok) { showStatus(`Not saved: ${r.data.error}`, 'error'); return; }
  ed.saved = doc;
  ed.openedPath = String(r.data.path || path);
  renderDirty();
  saveDraft();
  showStatus(`saved ${ed.openedPath} (${r.data.bytes} bytes)`, 'ok');
  await loadGraphList(ed.openedPath);
  hook().loadGraphs();
}

// Replaces only the part that changed, so the cursor and scroll stay where they were.
function replaceText(text) {
  const old = ed.view.state.doc.toString();
  let start = 0;
  while (start < old.length && start < text.length && old[start] === text[start]) start++;
  let end = 0;
  while (end < old.length - start && end < text.length - start &&
         old[old.length - 1 - end] === text[text.length - 1 - end]) end++;
  ed.view.dispatch({ changes: { from: start, to: old.length - end, insert: text.slice(start, text.length - end) } });
}

async function format() {
  const doc = ed.view.state.doc;
  const r = await api('POST', '/editor/format', { dot: doc.toString() });
  if (!r.ok) { showStatus(`Cannot format: ${r.data.error}`, 'error', r.data.diagnostics); return; }
  if (!ed.view.state.doc.eq(doc)) { showStatus('The text changed while it was being formatted; press Format again.', 'warning'); return; }
  const text = String(r.data.dot);
  if (text === doc.toString()) { showStatus('Already formatted.', 'ok'); return; }
  replaceText(text);
  showStatus('Formatted.', 'ok');
}

async function run() {
  const button = $('#editor-run');
  const request = { simulate: $('#editor-simulate').checked };
  // A saved, unchanged graph runs as its file (relative paths in it resolve there); else the text.
  if (!isModified() && ed.openedPath && ed.openedPath === $('#editor-path').value.trim()) request.graph = ed.openedPath;
  else request.dot = ed.view.state.doc.toString();
  button.disabled = true;
  const r = await api('POST', '/pipelines', request);
  button.disabled = false;
  if (!r.ok) { showStatus(`The run did not start: ${r.data.error}`, 'error', r.data.diagnostics); return; }
  showStatus(`Started run ${r.data.id}`, 'ok');
  hook().openRun(r.data.id);
}

async function loadGraphList(select) {
  const r = await api('GET', '/graphs');
  const graphs = r.ok && Array.isArray(r.data) ? r.data : [];
  const box = $('#editor-graph');
  const chosen = select ?? box.value;
  const options = [new Option('New graph', '')];
  for (const g of graphs) {
    const name = g.name && g.name !== g.path ? `${g.name} (${g.path})` : g.path;
    options.push(new Option(name + (g.ok === false ? ' (has errors)' : ''), g.path));
  }
  box.replaceChildren(...options);
  box.value = graphs.some((g) => g.path === chosen) ? chosen : '';
}

// ---------------------------------------------------------------- the unsaved draft

function saveDraft() {
  clearTimeout(ed.draftTimer);
  ed.draftTimer = setTimeout(() => {
    try {
      localStorage.setItem(DRAFT_KEY, JSON.stringify({
        dot: ed.view.state.doc.toString(), path: $('#editor-path').value, opened: ed.openedPath, modified: isModified(),
      }));
    } catch (e) { /* storage full or off: the draft is not kept */ }
  }, 300);
}

function restoreDraft() {
  try {
    const draft = JSON.parse(localStorage.getItem(DRAFT_KEY) || 'null');
    if (draft && typeof draft.dot === 'string') {
      load(draft.dot, String(draft.opened || ''), String(draft.path || ''), !!draft.modified);
      return true;
    }
  } catch (e) { /* an unreadable draft is dropped */ }
  return false;
}

// ---------------------------------------------------------------- start-up

function extensions() {
  return [
    lineNumbers(), highlightActiveLineGutter(), history(), drawSelection(), highlightActiveLine(),
    bracketMatching(), closeBrackets(), dotLanguage, syntaxHighlighting(dotHighlight),
    linter(lintSource, { delay: LINT_DELAY_MS }), lintGutter(),
    autocompletion({ override: [completionSource], activateOnTyping: true }),
    hover,
    keymap.of([
      { key: 'Mod-s', preventDefault: true, run: () => { save(); return true; } },
      ...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...lintKeymap, indentWithTab,
    ]),
    EditorView.updateListener.of((update) => {
      if (update.transactions.some((tr) => tr.effects.some((e) => e.is(setDiagnosticsEffect)))) showCount(update.state);
      if (update.docChanged) { renderDirty(); schedulePreview(); saveDraft(); }
    }),
    EditorView.contentAttributes.of({ 'aria-label': 'DOT source of the pipeline' }),
  ];
}

function init() {
  const host = $('#editor-cm');
  host.replaceChildren();
  ed.view = new EditorView({ parent: host, state: EditorState.create({ doc: '', extensions: extensions() }) });
  if (!restoreDraft()) load(NEW_GRAPH, '', 'new.dot', false);
  $('#editor-open').addEventListener('click', openSelected);
  $('#editor-save').addEventListener('click', save);
  $('#editor-format').addEventListener('click', format);
  $('#editor-run').addEventListener('click', run);
  $('#editor-path').addEventListener('input', () => { saveDraft(); });
  $('#editor-preview-img').addEventListener('click', (e) => e.currentTarget.classList.toggle('full-size'));
  document.addEventListener('attractor-tab', (e) => { if (e.detail === 'editor') ed.view.requestMeasure(); });
  loadGraphList();
  $('#editor-panel').dataset.ready = 'true';
}

init();
