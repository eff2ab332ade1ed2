#include <csignal>
#include <cstdio>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "attractor/authoring/lsp_server.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"

namespace attractor {

int run_lsp_command(int argc, char** argv) {
  CLI::App app{
      "Serve the Language Server Protocol (3.17) for .dot pipelines over stdin and stdout: diagnostics as you "
      "type with quick fixes, completion, hover, go to definition, references, rename, symbols, folding and "
      "formatting (docs/authoring.md). Editors start it; see editors/."};
  app.name("attractor lsp");
  bool stdio = true;
  app.add_flag("--stdio", stdio, "talk over stdin and stdout (the default and only transport)");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  std::signal(SIGPIPE, SIG_IGN);
  static const AuthoringCatalog catalog = builtin_authoring_catalog();
  std::unique_ptr<MessageChannel> channel = fd_message_channel(STDIN_FILENO, STDOUT_FILENO);
  LspServer server(*channel, catalog);
  return server.serve();
}

}  // namespace attractor
