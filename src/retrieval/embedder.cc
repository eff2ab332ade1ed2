#include "retrieval/embedder.h"

#include <cstdlib>

#include "retrieval/backend.h"
#include "retrieval/lexical_embedder.h"
#include "retrieval/openai_embedder.h"

namespace attractor::retrieval {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

EmbedderSpec EmbedderSpec::from_environment() {
  EmbedderSpec spec;
  if (auto p = env("ATTRACTOR_EMBEDDINGS_PROVIDER"); !p.empty()) spec.provider = p;
  spec.base_url = env("ATTRACTOR_EMBEDDINGS_BASE_URL");
  spec.model = env("ATTRACTOR_EMBEDDINGS_MODEL");
  spec.api_key = env("ATTRACTOR_EMBEDDINGS_API_KEY");
  if (spec.api_key.empty()) spec.api_key = env("OPENAI_API_KEY");
  if (auto d = env("ATTRACTOR_EMBEDDINGS_DIMENSIONS"); !d.empty()) spec.dimension = std::atoi(d.c_str());
  return spec;
}

std::unique_ptr<IEmbedder> make_embedder(const EmbedderSpec& spec) {
  if (spec.provider == "lexical") {
    if (!spec.model.empty() && spec.model != "lexical-v1") {
      throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "unknown lexical embedder model '" + spec.model + "'");
    }
    return std::make_unique<LexicalEmbedder>(spec.dimension > 0 ? spec.dimension : 256);
  }
  if (spec.provider == "openai") return std::make_unique<OpenAiEmbedder>(spec);
  throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                       "unknown embedding provider '" + spec.provider + "' (expected lexical or openai)");
}

}  // namespace attractor::retrieval
