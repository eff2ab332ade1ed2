// Prints, for every .cs and .sql file of a repository (default: tests/data/csharp_sql_repo; files
// under bin/ and *.generated.cs are skipped like the indexer's .gitignore does), the classifier
// label and the o200k_base token count before and after compaction, then the totals.
// With --nodes, the repository is indexed into a temporary directory first and the node texts the
// retrieval actions see (methods, classes, SQL objects) are measured instead of whole files.
// Usage: compaction_bench [DIR] [--show] [--nodes]   (--show also prints each compacted text)

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attractor/tokens/token_counter.h"
#include "handlers/rag/code_classifier.h"
#include "handlers/rag/code_compactor.h"
#include "retrieval/local/index_store.h"
#include "retrieval/local/local_indexer.h"

namespace fs = std::filesystem;

namespace {

int measure_nodes(const std::string& dir, bool show) {
  fs::path index = fs::temp_directory_path() / fmt::format("compaction-bench-{}", ::getpid());
  attractor::retrieval::IndexOptions o;
  o.src_dir = dir;
  o.index_dir = index.string();
  o.repository = "bench";
  o.branch = "main";
  attractor::retrieval::run_local_indexer(o);
  auto counter = attractor::token_counter_for("o200k_base");
  std::size_t before_total = 0;
  std::size_t after_total = 0;
  std::size_t count = 0;
  {
    attractor::retrieval::IndexStore store(index.string(), false);
    auto st = store.db().prepare("SELECT id, text FROM nodes ORDER BY id");
    fmt::print("{:<72} {:<16} {:>7} {:>7}\n", "node", "kind", "before", "after");
    while (st.step()) {
      std::string id = st.text(0);
      std::string text = st.text(1);
      attractor::CodeKind kind = attractor::classify_code(text);
      std::string compact = attractor::compact_code(text, kind);
      std::size_t before = counter->count(text);
      std::size_t after = counter->count(compact);
      before_total += before;
      after_total += after;
      ++count;
      fmt::print("{:<72} {:<16} {:>7} {:>7}\n", id, attractor::code_kind_name(kind), before, after);
      if (show) fmt::print("----\n{}\n----\n", compact);
    }
  }
  fs::remove_all(index);
  fmt::print("TOTAL ({} nodes) {} -> {} tokens, {:.1f}% saved\n", count, before_total, after_total,
             before_total == 0
                 ? 0.0
                 : 100.0 * static_cast<double>(before_total - after_total) / static_cast<double>(before_total));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "tests/data/csharp_sql_repo";
  bool show = false;
  bool nodes = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--show") {
      show = true;
    } else if (arg == "--nodes") {
      nodes = true;
    } else {
      dir = arg;
    }
  }
  if (nodes) return measure_nodes(dir, show);
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    fs::path rel = fs::relative(entry.path(), dir);
    std::string ext = rel.extension().string();
    if (ext != ".cs" && ext != ".sql") continue;
    if (*rel.begin() == "bin" || rel.filename().string().ends_with(".generated.cs")) continue;
    files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  auto counter = attractor::token_counter_for("o200k_base");
  std::size_t before_total = 0;
  std::size_t after_total = 0;
  fmt::print("{:<48} {:<16} {:>7} {:>7} {:>7}\n", "file", "kind", "before", "after", "saved");
  for (const fs::path& rel : files) {
    std::ifstream in(fs::path(dir) / rel, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    attractor::CodeKind kind = attractor::classify_code(text);
    std::string compact = attractor::compact_code(text, kind);
    std::size_t before = counter->count(text);
    std::size_t after = counter->count(compact);
    before_total += before;
    after_total += after;
    fmt::print("{:<48} {:<16} {:>7} {:>7} {:>6.1f}%\n", rel.string(), attractor::code_kind_name(kind), before, after,
               before == 0 ? 0.0 : 100.0 * static_cast<double>(before - after) / static_cast<double>(before));
    if (show) fmt::print("----\n{}\n----\n", compact);
  }
  fmt::print("{:<48} {:<16} {:>7} {:>7} {:>6.1f}%\n", fmt::format("TOTAL ({} files)", files.size()), "", before_total,
             after_total,
             before_total == 0
                 ? 0.0
                 : 100.0 * static_cast<double>(before_total - after_total) / static_cast<double>(before_total));
  return 0;
}
