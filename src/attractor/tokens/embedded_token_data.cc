// The token-table blobs built from the pinned rank files (bpe_table_blob.h), linked into the
// binary by the assembler's `.incbin`: the build defines ATTRACTOR_EMBED_O200K /
// ATTRACTOR_EMBED_CL100K as the blobs' paths when the rank files exist
// (src/attractor/tokens/CMakeLists.txt). ATTRACTOR_INCBIN aligns each blob to 64 bytes, more
// than the 8 the blob's sections need.

#include "attractor/tokens/token_data.h"

#include <cstddef>

#include "attractor/base/incbin.h"

#ifdef ATTRACTOR_EMBED_O200K
ATTRACTOR_INCBIN(attractor_o200k_base_tables, ATTRACTOR_EMBED_O200K)
#endif
#ifdef ATTRACTOR_EMBED_CL100K
ATTRACTOR_INCBIN(attractor_cl100k_base_tables, ATTRACTOR_EMBED_CL100K)
#endif

namespace attractor {

namespace {

[[maybe_unused]] std::string_view bytes_between(const char* begin, const char* end) {
  return std::string_view(begin, static_cast<std::size_t>(end - begin));
}

}  // namespace

std::optional<std::string_view> embedded_token_tables(std::string_view encoding) {
#ifdef ATTRACTOR_EMBED_O200K
  if (encoding == "o200k_base") {
    return bytes_between(attractor_o200k_base_tables_begin, attractor_o200k_base_tables_end);
  }
#endif
#ifdef ATTRACTOR_EMBED_CL100K
  if (encoding == "cl100k_base") {
    return bytes_between(attractor_cl100k_base_tables_begin, attractor_cl100k_base_tables_end);
  }
#endif
  return std::nullopt;
}

}  // namespace attractor
