#include "parser/dot_parser.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>

#include "attractor/base/utf8.h"
#include "parser/dot_builder.h"
#include "parser/dot_grammar.h"
#include "parser/dot_grammar_config.h"
#include "parser/dot_lexemes.h"

namespace attractor {
namespace {

/// A fix hint for "expected X, found Y" errors where the usual mistake is known.
std::string expectation_fix(const std::string& which, const char* at, const char* end) {
  bool eof = at >= end;
  if (which == "a node id after '->'") {
    if (!eof && *at == '{')
      return "edges to '{...}' groups are not supported: write one edge per target (a -> b; a -> c)";
    return "complete the edge: a -> b";
  }
  if (which == "']' or another attribute") {
    if (eof) return "close the attribute list with ']'";
    return "separate attributes with ',' and close the list with ']'";
  }
  if (which == "'}' or a statement") {
    if (eof) return "add the missing '}'";
    return "";
  }
  if (which == "a value") return "write key=value; quote text: key=\"some text\"";
  if (which == "'='") return "write attributes as key=value";
  if (which == "'digraph'") return "a pipeline file starts with 'digraph NAME {'";
  if (which == "end of file after the graph's closing '}'") return "remove the text after the closing '}'";
  if (which == "'['") return "default blocks are written node [key=value], edge [key=value] or graph [key=value]";
  return "";
}

}  // namespace

ParseResult parse_dot(SourceFilePtr source, const ParseLimits& limits) {
  namespace x3 = boost::spirit::x3;
  ParseResult result;
  result.source = source;
  const std::string& text = source->text();
  const char* begin = text.data();
  const char* end = begin + text.size();

  auto fail_at = [&](const char* where, std::string rule, std::string message, std::string fix) {
    result.diagnostics.push_back(make_diagnostic(std::move(rule), Severity::kError, std::move(message), "",
                                                 std::move(fix),
                                                 source->locate(static_cast<std::size_t>(where - begin))));
    return std::move(result);
  };

  if (text.size() > limits.max_file_bytes) {
    result.diagnostics.push_back(make_diagnostic("file_too_large", Severity::kError,
                                                 "file is " + std::to_string(text.size()) +
                                                     " bytes, more than the limit of " +
                                                     std::to_string(limits.max_file_bytes) + " bytes",
                                                 "", "split the pipeline into smaller files", {}));
    return result;
  }
  if (std::size_t bad = find_invalid_utf8(text); bad != std::string::npos) {
    static const char* hex = "0123456789abcdef";
    auto byte = static_cast<unsigned char>(text[bad]);
    std::string shown = {'0', 'x', hex[byte >> 4], hex[byte & 15]};
    return fail_at(begin + bad, "encoding", "invalid UTF-8 (byte " + shown + "): DOT files are read as UTF-8",
                   "save the file as UTF-8");
  }

  const char* first = begin;
  if (text.size() >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) first += 3;  // byte order mark

  dot::ParseState state;
  state.begin = begin;
  state.max_value_bytes = limits.max_value_bytes;
  state.max_depth = limits.max_subgraph_depth;
  dot::Skipper skipper(begin);
  // Statements are applied as they are parsed; the builder's warnings are kept apart and only
  // reported when the whole file parses (a syntax error reports that error alone).
  std::vector<Diagnostic> warnings;
  dot::GraphBuilder builder(source, warnings);
  state.on_statement = [&builder](dot::ast::Statement&& statement) { builder.add(statement); };
  dot::ast::GraphName name;
  try {
    auto const parser = x3::with<dot::state_tag>(std::ref(state))[dot::dot_file()];
    if (!x3::phrase_parse(first, end, parser, skipper, name)) {
      return fail_at(first, "syntax", "expected 'digraph', found " + dot::describe_found(first, end),
                     "a pipeline file starts with 'digraph NAME {'");
    }
  } catch (const x3::expectation_failure<const char*>& e) {
    const char* at = e.where();
    try {
      at = dot::skip_space(at, begin, end);
    } catch (const dot::DotError& inner) {
      return fail_at(inner.where, inner.rule, inner.message, inner.fix);
    }
    return fail_at(at, "syntax", "expected " + e.which() + ", found " + dot::describe_found(at, end),
                   expectation_fix(e.which(), at, end));
  } catch (const dot::DotError& e) {
    return fail_at(e.where, e.rule, e.message, e.fix);
  }

  result.graph = builder.finish(name);
  result.diagnostics.insert(result.diagnostics.end(), std::make_move_iterator(warnings.begin()),
                            std::make_move_iterator(warnings.end()));
  return result;
}

ParseResult parse_dot_file(const std::string& path, const ParseLimits& limits) {
  auto io_error = [&](std::string message, std::string rule = "io") {
    ParseResult result;
    result.source = std::make_shared<const SourceFile>(path, std::string());
    result.diagnostics.push_back(make_diagnostic(std::move(rule), Severity::kError, std::move(message), "", "", {}));
    return result;
  };
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return io_error("cannot read '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) return io_error("cannot read '" + path + "': it is a directory");
  if (static_cast<std::size_t>(info.st_size) > limits.max_file_bytes) {
    auto result = io_error("file is " + std::to_string(info.st_size) + " bytes, more than the limit of " +
                               std::to_string(limits.max_file_bytes) + " bytes",
                           "file_too_large");
    result.diagnostics.back().fix = "split the pipeline into smaller files";
    return result;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot read '" + path + "': " + std::strerror(errno));
  std::string text;
  text.resize(static_cast<std::size_t>(info.st_size));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return io_error("cannot read '" + path + "': read error");
  // Files that grow while being read (or report size 0, like /proc or a pipe) are read to the
  // end, but never past the limit: one byte more is enough for parse_dot to refuse the file, and
  // /dev/zero must not be read forever.
  char buffer[65536];
  while (in && text.size() <= limits.max_file_bytes) {
    in.read(buffer, static_cast<std::streamsize>(std::min(sizeof buffer, limits.max_file_bytes + 1 - text.size())));
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  return parse_dot(std::make_shared<const SourceFile>(path, std::move(text)), limits);
}

}  // namespace attractor
