// libFuzzer target: the jsonish_v1 query parser of search_nodes. It must never throw, its filters
// never hold metadata keys, top_k/rrf_k stay in [1, 2^31-1], search_type and match_operator take
// only their documented values, and it is deterministic. normalize_jsonish must not crash either.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "handlers/rag/jsonish_query.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  JsonishQuery q = parse_jsonish_query(text);
  if (!q.filters.is_object()) __builtin_trap();
  for (const auto& [key, value] : q.filters.items()) {
    if (is_jsonish_metadata_key(key)) __builtin_trap();
  }
  for (const auto& k : {q.top_k, q.rrf_k}) {
    if (k && (*k < 1 || *k > 2147483647)) __builtin_trap();
  }
  if (q.search_type && *q.search_type != "semantic" && *q.search_type != "bm25" && *q.search_type != "hybrid" &&
      *q.search_type != "semantic_rerank") {
    __builtin_trap();
  }
  if (q.match_operator && *q.match_operator != "and" && *q.match_operator != "or") __builtin_trap();
  JsonishQuery again = parse_jsonish_query(text);
  if (again.query != q.query || again.filters != q.filters || again.warnings != q.warnings) __builtin_trap();
  (void)q.filters.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)normalize_jsonish(text);
  return 0;
}
