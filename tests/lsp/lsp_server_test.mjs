// `attractor lsp` driven by the real LSP client library (vscode-languageserver-protocol, pinned in
// .ci/npm-pins.txt): every feature of docs/authoring.md, "Language server", with exact results.
// Usage: node lsp_server_test.mjs ATTRACTOR_BINARY
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { startLsp } from './lsp_client.mjs';

const binary = process.argv[2];
const uri = 'file:///work/review.dot';
const td = { uri };
const pos = (line, character) => ({ line, character });
const range = (l1, c1, l2, c2) => ({ start: pos(l1, c1), end: pos(l2, c2) });

const REVIEW = `digraph Review {
    graph [goal="Review the change"]

    start [shape=Mdiamond]
    exit [shape=Msquare]

    draft [shape=bx, prompt="Write a draft", fidelity=ful, thread_id=main]
    check [shape=diamond]
    gate [shape=hexagon, label="Ship it?", retry_target=draft]

    start -> draft -> check
    check -> gate [condition="outcome=succes"]
    check -> draft [condition="outcome=fail && current_node=check"]
    gate -> exit
}
`;

// Applies LSP text edits (non-overlapping) to `text`.
function applyEdits(text, edits) {
  const lines = text.split('\n');
  const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted) text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  return text;
}

async function session(text = REVIEW, capabilities) {
  const lsp = await startLsp(binary);
  const init = await lsp.initialize('file:///work', capabilities);
  await lsp.open(uri, text);
  const diagnostics = await lsp.nextDiagnostics(uri, { version: 1 });
  return { lsp, init, diagnostics };
}

const codes = (published) => published.diagnostics.map((d) => `${d.code}@${d.range.start.line}:${d.range.start.character}`);

test('initialize announces every feature and incremental sync', async () => {
  const { lsp, init } = await session();
  const c = init.capabilities;
  assert.equal(c.textDocumentSync.change, 2);
  assert.equal(c.positionEncoding, 'utf-16');
  for (const p of ['hoverProvider', 'definitionProvider', 'referencesProvider', 'documentSymbolProvider',
    'foldingRangeProvider', 'documentFormattingProvider', 'documentRangeFormattingProvider']) {
    assert.equal(c[p], true, p);
  }
  assert.deepEqual(c.renameProvider, { prepareProvider: true });
  assert.deepEqual(c.codeActionProvider, { codeActionKinds: ['quickfix'] });
  assert.equal(init.serverInfo.name, 'attractor');
  assert.equal(await lsp.shutdown(), 0);
});

test('diagnostics on open: exact ranges, severity, rule as code, related locations', async () => {
  const { lsp, diagnostics } = await session();
  assert.equal(diagnostics.version, 1);
  assert.deepEqual(codes(diagnostics), [
    'shape_known@6:17', 'fidelity_valid@6:54', 'thread_id_fidelity@6:69', 'condition_outcome_value@11:30']);
  const shape = diagnostics.diagnostics[0];
  assert.deepEqual(shape.range, range(6, 17, 6, 19));
  assert.equal(shape.severity, 1);
  assert.equal(shape.source, 'attractor');
  assert.equal(shape.message, "node 'draft' has shape 'bx', which selects no handler type\nfix: did you mean 'box'?");
  assert.deepEqual(shape.relatedInformation, [
    { location: { uri, range: range(6, 4, 6, 9) }, message: "node 'draft' is declared here" }]);
  assert.equal(diagnostics.diagnostics[1].severity, 2);
  assert.equal(await lsp.shutdown(), 0);
});

test('incremental changes re-publish; a fixed file has no diagnostics', async () => {
  const { lsp } = await session();
  await lsp.change(uri, 2, [{ range: range(6, 17, 6, 19), text: 'box' }]);
  assert.deepEqual(codes(await lsp.nextDiagnostics(uri, { version: 2 })), [
    'fidelity_valid@6:55', 'thread_id_fidelity@6:70', 'condition_outcome_value@11:30']);
  await lsp.change(uri, 3, [
    { range: range(6, 55, 6, 58), text: 'full' },
    { range: range(11, 38, 11, 44), text: 'success' },
  ]);
  assert.deepEqual((await lsp.nextDiagnostics(uri, { version: 3 })).diagnostics, []);
  await lsp.change(uri, 4, [{ text: 'digraph G { start -> }' }]);
  const broken = await lsp.nextDiagnostics(uri, { version: 4 });
  assert.equal(broken.diagnostics.length, 1);
  assert.equal(broken.diagnostics[0].severity, 1);
  assert.deepEqual(broken.diagnostics[0].range.start, pos(0, 21));
  await lsp.close(uri);
  assert.deepEqual((await lsp.nextDiagnostics(uri)).diagnostics, []);
  assert.equal(await lsp.shutdown(), 0);
});

test('quick fixes: every did-you-mean is an action, and applying them clears the file', async () => {
  const { lsp } = await session();
  const actions = await lsp.request('textDocument/codeAction',
    { textDocument: td, range: range(0, 0, 15, 0), context: { diagnostics: [] } });
  assert.deepEqual(actions.map((a) => [a.title, a.kind, a.diagnostics[0].code]), [
    ["Replace 'bx' with 'box'", 'quickfix', 'shape_known'],
    ["Replace 'ful' with 'full'", 'quickfix', 'fidelity_valid'],
    ["Replace 'succes' with 'success'", 'quickfix', 'condition_outcome_value'],
  ]);
  assert.deepEqual(actions[2].edit.changes[uri], [{ range: range(11, 38, 11, 44), newText: 'success' }]);
  const only = await lsp.request('textDocument/codeAction',
    { textDocument: td, range: range(11, 32, 11, 32), context: { diagnostics: [] } });
  assert.deepEqual(only.map((a) => a.title), ["Replace 'succes' with 'success'"]);
  const fixed = applyEdits(REVIEW, actions.flatMap((a) => a.edit.changes[uri]));
  await lsp.change(uri, 2, [{ text: fixed }]);
  assert.deepEqual((await lsp.nextDiagnostics(uri, { version: 2 })).diagnostics, []);
  assert.equal(await lsp.shutdown(), 0);
});

test('a misspelt attribute name gets a rename quick fix', async () => {
  const text = 'digraph G {\n    start [shape=Mdiamond]\n    exit [shape=Msquare]\n' +
    '    a [label="A", promt="x"]\n    start -> a -> exit\n}\n';
  const { lsp, diagnostics } = await session(text);
  assert.deepEqual(codes(diagnostics), ['attribute_spelling@3:18']);
  const actions = await lsp.request('textDocument/codeAction',
    { textDocument: td, range: range(3, 20, 3, 20), context: { diagnostics: diagnostics.diagnostics } });
  assert.deepEqual(actions.map((a) => [a.title, a.edit.changes[uri]]), [
    ["Rename 'promt' to 'prompt'", [{ range: range(3, 18, 3, 23), newText: 'prompt' }]]]);
  assert.equal(await lsp.shutdown(), 0);
});

const labels = (result) => result.items.map((i) => i.label);

test('completion: attribute names per handler type, values, node ids, condition keys', async () => {
  const text = 'digraph G {\n    start [shape=Mdiamond]\n    exit [shape=Msquare]\n' +
    '    t [shape=parallelogram, ]\n    w [fidelity=]\n    start -> \n' +
    '    t -> exit [condition="outcome=", ]\n    p [shape=component, join_policy=]\n}\n';
  const { lsp } = await session(text);
  const at = (line, character) => lsp.request('textDocument/completion', { textDocument: td, position: pos(line, character) });
  const tool = labels(await at(3, 28));
  assert.ok(tool.includes('tool_command') && tool.includes('tool_hooks.pre') && tool.includes('prompt'));
  assert.ok(!tool.includes('agent.max_tool_rounds'), 'a tool node gets no agent attributes');
  assert.deepEqual(labels(await at(4, 16)),
    ['compact', 'full', 'summary:high', 'summary:low', 'summary:medium', 'truncate']);
  const shapes = await at(3, 17);
  assert.ok(labels(shapes).includes('Mdiamond') && labels(shapes).includes('parallelogram'));
  assert.deepEqual(shapes.items.find((i) => i.label === 'box').textEdit,
    { range: range(3, 13, 3, 17), newText: 'box' });
  assert.deepEqual(labels(await at(5, 13)), ['exit', 'p', 'start', 't', 'w']);
  assert.deepEqual(labels(await at(7, 36)), ['first_success', 'k_of_n', 'wait_all']);
  assert.deepEqual(labels(await at(6, 34)), ['fail', 'partial_success', 'retry', 'skipped', 'success']);
  const edge = labels(await at(6, 36));
  assert.ok(edge.includes('condition') && edge.includes('weight') && edge.includes('loop_restart'));
  assert.ok(!edge.includes('prompt'));
  assert.equal(await lsp.shutdown(), 0);
});

test('hover: attribute meaning from the catalog, resolved node after defaults', async () => {
  const text = 'digraph G {\n    graph [default_fidelity=truncate]\n    node [llm_model="m1"]\n' +
    '    start [shape=Mdiamond]\n    exit [shape=Msquare]\n    a [class="fast", prompt="p"]\n' +
    '    start -> a -> exit\n}\n';
  const { lsp } = await session(text);
  const hover = (l, c) => lsp.request('textDocument/hover', { textDocument: td, position: pos(l, c) });
  const attr = await hover(1, 14);
  assert.equal(attr.contents.kind, 'markdown');
  assert.match(attr.contents.value, /^\*\*`default_fidelity`\*\* \(graph attribute\): one of full, truncate/);
  assert.deepEqual(attr.range, range(1, 11, 1, 27));
  const node = await hover(6, 13);
  assert.equal(node.contents.value, '**node `a`**\n\n| | |\n|---|---|\n| handler | `codergen` |\n| shape | `box` |\n' +
    '| fidelity | `truncate` |\n| thread | `fast` |\n| model | `m1` |\n');
  assert.equal(await hover(0, 0), null);
  assert.equal(await lsp.shutdown(), 0);
});

test('definition, references and rename across edges, retry targets and conditions', async () => {
  const { lsp } = await session();
  const def = await lsp.request('textDocument/definition', { textDocument: td, position: pos(12, 15) });
  assert.deepEqual(def, { uri, range: range(6, 4, 6, 9) });
  const refs = await lsp.request('textDocument/references',
    { textDocument: td, position: pos(12, 62), context: { includeDeclaration: false } });
  assert.deepEqual(refs.map((r) => r.range), [
    range(10, 22, 10, 27), range(11, 4, 11, 9), range(12, 4, 12, 9), range(12, 60, 12, 65)]);
  const prepared = await lsp.request('textDocument/prepareRename', { textDocument: td, position: pos(8, 57) });
  assert.deepEqual(prepared, { range: range(8, 56, 8, 61), placeholder: 'draft' });
  const edit = await lsp.request('textDocument/rename', { textDocument: td, position: pos(7, 5), newName: 'verify' });
  const renamed = applyEdits(REVIEW, edit.changes[uri]);
  assert.match(renamed, /    verify \[shape=diamond\]/);
  assert.match(renamed, /draft -> verify\n/);
  assert.match(renamed, /verify -> gate/);
  assert.match(renamed, /current_node=verify"/);
  assert.ok(!/\bcheck\b/.test(renamed));
  await assert.rejects(lsp.request('textDocument/rename', { textDocument: td, position: pos(7, 5), newName: 'gate' }),
    /a node 'gate' exists already/);
  await assert.rejects(lsp.request('textDocument/rename', { textDocument: td, position: pos(7, 5), newName: 'a-b' }),
    /not a node id/);
  assert.equal(await lsp.shutdown(), 0);
});

test('document symbols and folding ranges', async () => {
  const text = 'digraph G {\n    start [shape=Mdiamond]\n    subgraph cluster_work {\n        label="Work"\n' +
    '        a [\n            prompt="p",\n        ]\n    }\n    exit [shape=Msquare]\n' +
    '    // one\n    // two\n    start -> a -> exit\n}\n';
  const { lsp } = await session(text);
  const symbols = await lsp.request('textDocument/documentSymbol', { textDocument: td });
  const tree = (list) => list.map((s) => [s.name, s.kind, tree(s.children ?? [])]);
  assert.deepEqual(tree(symbols), [['G', 2, [['start', 12, []], ['cluster_work', 3, [['a', 12, []]]], ['exit', 12, []]]]]);
  const folds = await lsp.request('textDocument/foldingRange', { textDocument: td });
  assert.deepEqual(folds, [
    { startLine: 0, endLine: 11 }, { startLine: 2, endLine: 6 }, { startLine: 4, endLine: 5 },
    { startLine: 9, endLine: 10, kind: 'comment' }]);
  assert.equal(await lsp.shutdown(), 0);
});

test('formatting: the whole document and a range, idempotent', async () => {
  const messy = 'digraph G{start[shape=Mdiamond]\nexit [ shape = Msquare ]\n  a[prompt="p",label="A"]\n' +
    'start->a->exit}\n';
  const { lsp } = await session(messy);
  const options = { tabSize: 4, insertSpaces: true };
  const whole = await lsp.request('textDocument/formatting', { textDocument: td, options });
  const formatted = applyEdits(messy, whole);
  assert.equal(formatted, 'digraph G {\n    start [shape=Mdiamond]\n    exit [shape=Msquare]\n' +
    '    a [label="A", prompt="p"]\n    start -> a -> exit\n}\n');
  const ranged = await lsp.request('textDocument/rangeFormatting',
    { textDocument: td, range: range(2, 0, 2, 5), options });
  assert.deepEqual(ranged, [{ range: range(2, 0, 3, 0), newText: '    a [label="A", prompt="p"]\n' }]);
  await lsp.change(uri, 2, [{ text: formatted }]);
  await lsp.nextDiagnostics(uri, { version: 2 });
  assert.deepEqual(await lsp.request('textDocument/formatting', { textDocument: td, options }), []);
  await lsp.change(uri, 3, [{ text: 'digraph G { a [' }]);
  await lsp.nextDiagnostics(uri, { version: 3 });
  assert.equal(await lsp.request('textDocument/formatting', { textDocument: td, options }), null);
  assert.equal(await lsp.shutdown(), 0);
});

test('positions count UTF-16 code units, or bytes when the client offers utf-8', async () => {
  const text = 'digraph G {\n    start [shape=Mdiamond, label="⚙🚀"]\n    exit [shape=Msquare, fidelity=ful]\n' +
    '    start -> exit\n}\n';
  const utf16 = await session(text.replace('exit [shape=Msquare, fidelity=ful]', 'exit [label="🚀", shape=Msquar]'));
  assert.deepEqual(codes(utf16.diagnostics), ['shape_known@2:28']);
  assert.equal(await utf16.lsp.shutdown(), 0);
  const lsp = await startLsp(binary);
  const init = await lsp.initialize('file:///work', { general: { positionEncodings: ['utf-8', 'utf-16'] } });
  assert.equal(init.capabilities.positionEncoding, 'utf-8');
  await lsp.open(uri, text.replace('exit [shape=Msquare, fidelity=ful]', 'exit [label="🚀", shape=Msquar]'));
  assert.deepEqual(codes(await lsp.nextDiagnostics(uri)), ['shape_known@2:30']);
  assert.equal(await lsp.shutdown(), 0);
});

test('protocol errors: unknown method, request before initialize, a closed document', async () => {
  const lsp = await startLsp(binary);
  await assert.rejects(lsp.request('textDocument/hover', { textDocument: td, position: pos(0, 0) }),
    (e) => e.code === -32002);
  await lsp.initialize('file:///work');
  await assert.rejects(lsp.request('workspace/executeCommand', { command: 'x' }), (e) => e.code === -32601);
  await assert.rejects(lsp.request('textDocument/hover', { textDocument: td, position: pos(0, 0) }),
    (e) => e.code === -32602 && /is not open/.test(e.message));
  assert.equal(await lsp.shutdown(), 0);
});
