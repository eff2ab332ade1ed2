#include "retrieval/indexer.h"

#include <sstream>

#include <fmt/format.h>

#include "retrieval/retrieval_module.h"

namespace attractor::retrieval {

IndexSummary index_repository(const IndexOptions& options, std::ostream* progress, bool interactive) {
  return RetrievalModule::get().index_repository(options, progress, interactive);
}

std::string format_summary(const IndexSummary& s) {
  std::ostringstream out;
  int64_t nodes = 0, edges = 0;
  for (const auto& [k, v] : s.nodes_by_kind) nodes += v;
  for (const auto& [k, v] : s.edges_by_type) edges += v;
  out << "files: " << s.files_seen << " seen, " << s.files_indexed << " indexed, " << s.files_unchanged
      << " unchanged, " << s.files_removed << " removed, " << s.files_skipped << " skipped\n";
  out << "nodes: " << nodes << " (+" << s.nodes_added << " -" << s.nodes_removed << ")";
  for (const auto& [k, v] : s.nodes_by_kind) out << "  " << k << "=" << v;
  out << "\nedges: " << edges;
  for (const auto& [k, v] : s.edges_by_type) out << "  " << k << "=" << v;
  out << "\nvectors embedded: " << s.vectors_embedded << "\n";
  out << "parse issues: " << s.issues.size();
  if (s.issues_unchanged > 0) out << " (" << s.issues_unchanged << " in unchanged files)";
  out << "\n";
  out << fmt::format("time: {:.2f} s\nindex size: {:.1f} MiB\n", s.seconds,
                     static_cast<double>(s.index_bytes) / (1024.0 * 1024.0));
  return out.str();
}

}  // namespace attractor::retrieval
