// libFuzzer target: a source file as `attractor index` reads it (docs/hardening.md, section 2):
// decode_source, then both the C# and the T-SQL extractor on the decoded text. Beyond "no crash":
// no exception; the text, every node's text and facts and every issue are well-formed UTF-8 (the
// index stores them as JSON and SQLite text); issue messages hold no control byte; lines are
// 1-based and ordered.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "attractor/base/input_file.h"
#include "attractor/base/utf8.h"
#include "retrieval/local/csharp_extractor.h"
#include "retrieval/local/source_text.h"
#include "retrieval/local/sql_extractor.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_extracted(const attractor::retrieval::ExtractedFile& file) {
  for (const auto& node : file.nodes) {
    check(attractor::is_valid_utf8(node.text) && attractor::is_valid_utf8(node.id));
    check(node.start_line >= 1 && node.start_line <= node.end_line);
    check(!node.facts.dump().empty());
  }
  for (const auto& issue : file.issues) {
    check(issue.line >= 1 && issue.column >= 1);
    check(attractor::escape_control_bytes(issue.message) == issue.message);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor::retrieval;
  SourceText source = decode_source(std::string_view(reinterpret_cast<const char*>(data), size));
  check(attractor::escape_control_bytes(source.warning) == source.warning);
  check(source.binary() ? source.text.empty() && !source.warning.empty() : attractor::is_valid_utf8(source.text));
  if (source.binary()) return 0;
  check_extracted(extract_csharp(source.text));
  check_extracted(extract_sql(source.text));
  return 0;
}
