// Loads editors/vscode/extension.js with the pinned vscode-languageclient (third_party/lsp) and a
// small stand-in for the `vscode` module, then checks the LanguageClient that activate() builds.
// Usage: node vscode_extension_test.cjs [repository-root]
const assert = require('node:assert/strict');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..'));
const extensionDir = path.join(root, 'editors', 'vscode');
const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));

// Just enough of the VS Code API for the client library to load and construct a LanguageClient.
const settings = new Map();
const noEvent = () => ({ dispose() {} });
class EventEmitter { event = noEvent; fire() {} dispose() {} }
const kind = (value) => ({ value });
const vscode = {
  version: manifest.engines.vscode.replace(/^[\^~>=]+/, ''), // the oldest VS Code the manifest allows
  EventEmitter,
  LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
  CodeActionKind: Object.fromEntries(Object.entries({
    Empty: '', QuickFix: 'quickfix', Refactor: 'refactor', RefactorExtract: 'refactor.extract',
    RefactorInline: 'refactor.inline', RefactorRewrite: 'refactor.rewrite', Source: 'source',
    SourceOrganizeImports: 'source.organizeImports',
  }).map(([name, value]) => [name, kind(value)])),
  window: {
    createOutputChannel: (name) => ({ name, appendLine() {}, info() {}, error() {}, show() {}, dispose() {} }),
  },
  workspace: new Proxy({
    getConfiguration: (section) => ({ get: (key, fallback) => settings.get(`${section}.${key}`) ?? fallback }),
  }, { get: (target, name) => target[name] ?? (String(name).startsWith('on') ? noEvent : undefined) }),
};
// Classes the client library extends when it loads.
for (const name of ['CompletionItem', 'CodeLens', 'DocumentLink', 'CodeAction', 'Diagnostic', 'CallHierarchyItem',
  'TypeHierarchyItem', 'SymbolInformation', 'InlayHint', 'CancellationError']) {
  vscode[name] = class {};
}

// require('vscode') gets the stand-in; require('vscode-languageclient/node') the pinned copy.
const pinned = Module.createRequire(path.join(root, 'third_party', 'lsp', 'index.js'));
let clientPath;
try {
  clientPath = pinned.resolve('vscode-languageclient/node');
} catch (e) {
  console.error(`lsp_vscode_extension: FAIL: pinned vscode-languageclient missing (run .ci/deps.sh): ${e.message}`);
  process.exit(1);
}
const vscodeId = path.join(__dirname, '<vscode stand-in>');
const vscodeModule = new Module(vscodeId);
Object.assign(vscodeModule, { filename: vscodeId, exports: vscode, loaded: true });
Module._cache[vscodeId] = vscodeModule;
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'vscode') return vscodeId;
  if (request === 'vscode-languageclient/node') return clientPath;
  return resolveFilename.call(this, request, ...rest);
};

const { LanguageClient, TransportKind } = require(clientPath);
const clientVersion = JSON.parse(fs.readFileSync(path.join(clientPath, '../../../package.json'), 'utf8')).version;

// Starting would spawn the server and drive the editor UI, so only record start() and stop().
const calls = [];
LanguageClient.prototype.start = async function () { calls.push(['start', this]); };
LanguageClient.prototype.stop = async function () { calls.push(['stop', this]); };

async function main() {
  assert.equal(manifest.name, 'attractor-dot');
  assert.equal(manifest.publisher, 'attractor');
  assert.equal(manifest.dependencies['vscode-languageclient'], clientVersion,
    'editors/vscode/package.json must pin the vscode-languageclient version from .ci/npm-pins.txt');
  assert.ok(manifest.activationEvents.includes('onLanguage:dot'));
  const dot = manifest.contributes.languages.find((l) => l.id === 'dot');
  assert.deepEqual(dot?.extensions, ['.dot', '.gv']);
  assert.equal(manifest.contributes.configuration.properties['attractor.path'].default, 'attractor');

  const extension = require(path.join(extensionDir, manifest.main));
  const activate = async (attractorPath) => {
    calls.length = 0;
    settings.clear();
    if (attractorPath !== undefined) settings.set('attractor.path', attractorPath);
    await extension.activate({ subscriptions: [] });
    assert.equal(calls.length, 1, 'activate() starts the client once');
    const [[what, client]] = calls;
    assert.equal(what, 'start');
    assert.ok(client instanceof LanguageClient, 'activate() builds a vscode-languageclient LanguageClient');
    return client;
  };

  // Constructing the client also runs its VS Code version check against the stand-in's version.
  const client = await activate('/opt/attractor/bin/attractor');
  assert.equal(client.name, 'Attractor');
  assert.deepEqual(client._serverOptions,
    { command: '/opt/attractor/bin/attractor', args: ['lsp'], transport: TransportKind.stdio });
  assert.deepEqual(client.clientOptions.documentSelector, [{ scheme: 'file', language: 'dot' }]);
  calls.length = 0;
  await extension.deactivate();
  assert.deepEqual(calls, [['stop', client]], 'deactivate() stops the client activate() started');

  const byDefault = await activate(undefined);
  assert.equal(byDefault._serverOptions.command, 'attractor');
  await extension.deactivate();

  console.log(`lsp_vscode_extension: ok (vscode-languageclient ${clientVersion}, VS Code ${vscode.version}: ` +
    `'${client._serverOptions.command} lsp' over stdio for dot files)`);
}

main().catch((e) => {
  console.error(`lsp_vscode_extension: FAIL: ${e.stack ?? e}`);
  process.exit(1);
});
