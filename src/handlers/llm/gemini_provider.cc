#include "handlers/llm/gemini_provider.h"

namespace attractor {

ProviderRecord gemini_provider() {
  ProviderRecord r;
  r.name = "gemini";
  r.summary =
      "No Gemini API client: gemini-* models are refused before the run; use cli:gemini, or openai "
      "with an OpenAI-compatible OPENAI_BASE_URL.";
  r.model_prefixes = {"gemini"};
  r.refusal =
      "provider 'gemini' is not supported; set llm_provider to cli:gemini, or to openai with an "
      "OpenAI-compatible OPENAI_BASE_URL";
  return r;
}

}  // namespace attractor
