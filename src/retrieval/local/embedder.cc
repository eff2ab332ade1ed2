#include "retrieval/local/embedder.h"

#include "retrieval/backend.h"
#include "retrieval/local/lexical_embedder.h"
#include "retrieval/local/openai_embedder.h"

namespace attractor::retrieval {

std::unique_ptr<IEmbedder> make_embedder(const EmbedderSpec& spec) {
  if (spec.provider == "lexical") {
    if (!spec.model.empty() && spec.model != "lexical-v1") {
      throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                           "unknown lexical embedder model '" + spec.model + "'");
    }
    return std::make_unique<LexicalEmbedder>(spec.dimension > 0 ? spec.dimension : 256);
  }
  if (spec.provider == "openai") return std::make_unique<OpenAiEmbedder>(spec);
  throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                       "unknown embedding provider '" + spec.provider + "' (expected lexical or openai)");
}

}  // namespace attractor::retrieval
