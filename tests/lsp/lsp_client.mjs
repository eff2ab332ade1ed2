// Test-side LSP client for `attractor lsp`, built on the pinned vscode-languageserver-protocol
// library (third_party/lsp/node_modules, see .ci/npm-pins.txt and tests/lsp/README.md).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TIMEOUT_MS = 10_000;
const HERE = path.dirname(fileURLToPath(import.meta.url));

// The pinned packages only expose their entry points through package.json "exports", so they
// are resolved the way Node resolves bare names from a file under third_party/lsp/.
export function loadProtocol(repoRoot = path.resolve(HERE, '..', '..')) {
  const req = createRequire(path.join(repoRoot, 'third_party', 'lsp', 'index.js'));
  return req('vscode-languageserver-protocol/node');
}

export const clientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  window: { workDoneProgress: true, showMessage: {} },
  workspace: {
    applyEdit: true,
    configuration: true,
    workspaceFolders: true,
    workspaceEdit: { documentChanges: true },
    didChangeConfiguration: { dynamicRegistration: false },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, willSave: false, willSaveWaitUntil: false, didSave: true },
    completion: {
      completionItem: { snippetSupport: false, documentationFormat: ['markdown', 'plaintext'] },
      contextSupport: true,
    },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    definition: { linkSupport: true },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    rename: { prepareSupport: true },
    codeAction: {
      codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source'] } },
      isPreferredSupport: true,
    },
    formatting: {},
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
  },
};

// Resolves or rejects like `promise`, or rejects with `what() + " timed out"` after `ms`.
function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function startLsp(attractorBinary, { cwd, repoRoot } = {}) {
  const lsp = loadProtocol(repoRoot);
  const child = spawn(attractorBinary, ['lsp'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e) => reject(new Error(`cannot start ${attractorBinary} lsp: ${e.message}`)));
  });

  // Per uri: publishDiagnostics params not yet consumed, and callers waiting for one.
  const received = new Map();
  const pending = new Map();
  const list = (map, uri) => map.get(uri) ?? map.set(uri, []).get(uri);

  let stderrText = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { stderrText += chunk; });
  let exitCode = null;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => {
    exitCode = code ?? signal;
    for (const waiters of pending.values()) waiters.splice(0).forEach((w) => w.reject(
      new Error(`attractor lsp exited (${exitCode}) while waiting for diagnostics\n${stderrText}`)));
    resolve(exitCode);
  }));

  const connection = lsp.createProtocolConnection(
    new lsp.StreamMessageReader(child.stdout), new lsp.StreamMessageWriter(child.stdin));

  // Takes the oldest unconsumed params for uri (with that version, dropping older ones without).
  const take = (uri, version) => {
    const queue = list(received, uri);
    while (queue.length > 0) {
      const params = queue.shift();
      if (version === undefined || params.version === version) return params;
    }
    return undefined;
  };
  connection.onNotification(lsp.PublishDiagnosticsNotification.type, (params) => {
    list(received, params.uri).push(params);
    const waiters = list(pending, params.uri);
    while (waiters.length > 0) {
      const found = take(params.uri, waiters[0].version);
      if (found === undefined) break;
      waiters.shift().resolve(found);
    }
  });
  // Requests a server may reasonably send to its client.
  connection.onRequest(lsp.RegistrationRequest.type, () => null);
  connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => null);
  connection.onRequest(lsp.ConfigurationRequest.type, (params) => params.items.map(() => null));
  connection.listen();

  const request = (method, params) => withTimeout(
    connection.sendRequest(method, params), TIMEOUT_MS,
    () => `LSP request ${typeof method === 'string' ? method : method.method}`);

  return {
    connection,
    process: child,

    // `capabilities` replaces clientCapabilities' top-level entries it names (e.g. `general`).
    async initialize(rootUri = null, capabilities = {}) {
      const result = await request(lsp.InitializeRequest.type, {
        processId: process.pid,
        clientInfo: { name: 'attractor-lsp-tests', version: '1' },
        locale: 'en',
        rootUri,
        workspaceFolders: rootUri ? [{ uri: rootUri, name: path.basename(rootUri) }] : null,
        capabilities: { ...clientCapabilities, ...capabilities },
        trace: 'off',
      });
      await connection.sendNotification(lsp.InitializedNotification.type, {});
      return result;
    },

    open(uri, text, version = 1) {
      return connection.sendNotification(lsp.DidOpenTextDocumentNotification.type,
        { textDocument: { uri, languageId: 'dot', version, text } });
    },

    // contentChanges: [{range, text}] for incremental edits or [{text}] for the full text.
    change(uri, version, contentChanges) {
      return connection.sendNotification(lsp.DidChangeTextDocumentNotification.type,
        { textDocument: { uri, version }, contentChanges });
    },

    close(uri) {
      return connection.sendNotification(lsp.DidCloseTextDocumentNotification.type, { textDocument: { uri } });
    },

    // The oldest publishDiagnostics for `uri` not returned yet (with `version`, if given; older
    // ones without that version are skipped), waiting up to 10 s for it to arrive.
    nextDiagnostics(uri, { version } = {}) {
      const found = list(pending, uri).length === 0 ? take(uri, version) : undefined;
      if (found !== undefined) return Promise.resolve(found);
      if (exitCode !== null) return Promise.reject(new Error(`attractor lsp already exited (${exitCode})`));
      const waiter = { version };
      const promise = new Promise((resolve, reject) => Object.assign(waiter, { resolve, reject }));
      list(pending, uri).push(waiter);
      const what = () => `textDocument/publishDiagnostics for ${uri}` +
        (version === undefined ? '' : ` (version ${version})`);
      return withTimeout(promise, TIMEOUT_MS, what).catch((e) => {
        const waiters = list(pending, uri);
        if (waiters.includes(waiter)) waiters.splice(waiters.indexOf(waiter), 1);
        throw e;
      });
    },

    request,

    // shutdown request, exit notification; resolves to the server's exit code.
    async shutdown() {
      if (exitCode === null) {
        await request(lsp.ShutdownRequest.type);
        await connection.sendNotification(lsp.ExitNotification.type);
        await withTimeout(exited, TIMEOUT_MS, () => 'attractor lsp exit after shutdown/exit').catch((e) => {
          child.kill('SIGKILL');
          throw e;
        });
      }
      connection.dispose();
      return exitCode;
    },

    stderr: () => stderrText,
  };
}
