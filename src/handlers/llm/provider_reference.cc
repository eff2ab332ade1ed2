#include "handlers/llm/provider_reference.h"

#include <vector>

namespace attractor {

namespace {

std::string code(const std::string& s) { return "`" + s + "`"; }

std::string codes(const std::vector<std::string>& items, const std::string& suffix = "") {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + code(item + suffix);
  return out.empty() ? "-" : out;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string names_of(const ProviderRecord& r) {
  std::string names = code(r.name);
  if (r.variants != ProviderVariants::kNone) names += ", " + code(r.name + ":<" + r.variant_word + ">");
  return names;
}

std::string aliases_of(const ProviderRecord& r) {
  std::string out;
  for (const auto& [alias, target] : r.aliases) out += (out.empty() ? "" : ", ") + code(alias) + " = " + code(target);
  return out.empty() ? "-" : out;
}

std::string model_of(const ProviderRecord& r) {
  if (!r.fixed_model.empty()) return code(r.fixed_model) + " (always)";
  if (r.variants == ProviderVariants::kToolProvider) return "that of the provider";
  std::string model = r.model_variable.empty() ? "" : code(r.model_variable);
  if (!r.default_model.empty()) model += (model.empty() ? "" : ", else ") + code(r.default_model);
  if (model.empty()) return r.make ? "its own" : "-";
  return model;
}

std::string variable(const std::string& name) { return name.empty() ? "-" : code(name); }

std::string row(const ProviderRecord& r) {
  if (!r.make) {
    return "| " + names_of(r) + " | " + aliases_of(r) + " | " + codes(r.model_prefixes, "*") +
           " | - | - | - | no | no | no | refused |\n";
  }
  const ProviderCapabilities& c = r.capabilities;
  return "| " + names_of(r) + " | " + aliases_of(r) + " | " + codes(r.model_prefixes, "*") + " | " +
         variable(r.key_variable) + " | " + variable(r.base_url_variable) + " | " + model_of(r) + " | " +
         yes_no(c.tools) + " | " + yes_no(c.streaming) + " | " + yes_no(c.fallback) + " | " +
         (c.in_process ? "in the process" : "outside") + " |\n";
}

}  // namespace

std::string providers_reference(const ProviderTable& providers) {
  std::string out =
      "| Provider | Other names | Chosen for models | Key | Base URL | Default model | Tools | Streaming | "
      "In `llm_fallbacks` | Runs |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ProviderRecord& r : providers.records()) out += row(r);
  out += "\n";
  for (const ProviderRecord& r : providers.records()) out += "- " + code(r.name) + ": " + r.summary + "\n";
  return out;
}

}  // namespace attractor
