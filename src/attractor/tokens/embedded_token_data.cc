// The pinned token rank files, linked into the binary by the assembler's `.incbin`: the build
// defines ATTRACTOR_EMBED_O200K / ATTRACTOR_EMBED_CL100K as the files' paths when they exist
// (src/attractor/tokens/CMakeLists.txt). Each blob is followed by a NUL so it never ends a page
// early for readers that scan lines.

#include "attractor/tokens/token_data.h"

#include <cstddef>

#include "attractor/base/incbin.h"

#ifdef ATTRACTOR_EMBED_O200K
ATTRACTOR_INCBIN(attractor_o200k_base_tiktoken, ATTRACTOR_EMBED_O200K)
#endif
#ifdef ATTRACTOR_EMBED_CL100K
ATTRACTOR_INCBIN(attractor_cl100k_base_tiktoken, ATTRACTOR_EMBED_CL100K)
#endif

namespace attractor {

std::optional<std::string_view> embedded_token_data(std::string_view file_name) {
#ifdef ATTRACTOR_EMBED_O200K
  if (file_name == "o200k_base.tiktoken") {
    return std::string_view(attractor_o200k_base_tiktoken_begin,
                            static_cast<std::size_t>(attractor_o200k_base_tiktoken_end - attractor_o200k_base_tiktoken_begin));
  }
#endif
#ifdef ATTRACTOR_EMBED_CL100K
  if (file_name == "cl100k_base.tiktoken") {
    return std::string_view(attractor_cl100k_base_tiktoken_begin,
                            static_cast<std::size_t>(attractor_cl100k_base_tiktoken_end - attractor_cl100k_base_tiktoken_begin));
  }
#endif
  return std::nullopt;
}

}  // namespace attractor
