// Starts `attractor lsp` as the language server for DOT files.
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

async function activate() {
  const command = vscode.workspace.getConfiguration('attractor').get('path', 'attractor');
  const serverOptions = { command, args: ['lsp'], transport: TransportKind.stdio };
  const clientOptions = { documentSelector: [{ scheme: 'file', language: 'dot' }] };
  client = new LanguageClient('attractor', 'Attractor', serverOptions, clientOptions);
  await client.start();
}

async function deactivate() {
  const running = client;
  client = undefined;
  if (running) await running.stop();
}

module.exports = { activate, deactivate };
