#include "handlers/llm/provider_table.h"

#include <algorithm>
#include <cctype>

#include "attractor/base/ascii.h"
#include "handlers/llm/agent_provider.h"
#include "handlers/llm/anthropic_backend.h"
#include "handlers/llm/cli_backend.h"
#include "handlers/llm/gemini_provider.h"
#include "handlers/llm/openai_backend.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {

namespace {

/// "a, b or c".
std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  }
  return out;
}

std::string join_names(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string placeholder(const ProviderRecord& r, bool metavar) {
  std::string word = r.variant_word;
  if (!metavar) return r.name + ":<" + word + ">";
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return r.name + ":" + word;
}

}  // namespace

void ProviderTable::add(ProviderRecord record) {
  record.name = ascii_lower(record.name);
  for (ProviderRecord& r : records_) {
    if (r.name == record.name) {
      r = std::move(record);
      return;
    }
  }
  records_.push_back(std::move(record));
}

const ProviderRecord* ProviderTable::find(std::string_view name) const {
  for (const ProviderRecord& r : records_) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string ProviderTable::canonical(const std::string& name, const EnvLookup& env) const {
  std::string p = ascii_lower(name);
  for (const ProviderRecord& r : records_) {
    for (const auto& [alias, target] : r.aliases) {
      if (p == alias) return target;
    }
  }
  const ProviderRecord* r = find(p);
  if (r && r->variants != ProviderVariants::kNone && r->default_variant) {
    if (std::string variant = r->default_variant(*this, env, nullptr); !variant.empty()) return p + ":" + variant;
  }
  return p;
}

std::string ProviderTable::from_model(const std::string& model) const {
  std::string m = ascii_lower(model);
  if (auto slash = m.find('/'); slash != std::string::npos) {
    const ProviderRecord* vendor = find(m.substr(0, slash));
    if (vendor && vendor->make && !vendor->model_prefixes.empty()) return vendor->name;
    m = m.substr(slash + 1);
  }
  for (const ProviderRecord& r : records_) {
    for (const std::string& prefix : r.model_prefixes) {
      if (m.starts_with(prefix)) return r.name;
    }
  }
  return "";
}

std::pair<const ProviderRecord*, std::string> ProviderTable::resolve(const std::string& canonical) const {
  std::size_t colon = canonical.find(':');
  const ProviderRecord* r = find(canonical.substr(0, colon));
  if (colon == std::string::npos) return {r, ""};
  if (!r || r->variants == ProviderVariants::kNone) return {nullptr, ""};
  return {r, canonical.substr(colon + 1)};
}

bool ProviderTable::is_known(const std::string& canonical) const {
  auto [r, variant] = resolve(canonical);
  if (!r || !r->make) return false;
  const bool has_variant = canonical.find(':') != std::string::npos;
  if (!has_variant) return true;
  if (r->variants == ProviderVariants::kAnyName) return !variant.empty();
  const ProviderRecord* vendor = find(variant);
  return vendor && vendor->make && vendor->capabilities.tools;
}

std::string ProviderTable::choices(bool metavar) const {
  std::vector<std::string> names;
  for (const ProviderRecord& r : records_) {
    if (!r.make) continue;
    names.push_back(r.name);
    if (r.variants == ProviderVariants::kAnyName) names.push_back(placeholder(r, metavar));
  }
  return or_list(names);
}

std::string ProviderTable::fallback_choices() const {
  std::vector<std::string> http, others;
  for (const ProviderRecord& r : records_) {
    if (!r.make || !r.capabilities.fallback) continue;
    std::string name = r.variants == ProviderVariants::kNone ? r.name : placeholder(r, false);
    (r.key_variable.empty() ? others : http).push_back(name);
  }
  http.insert(http.end(), others.begin(), others.end());
  return join_names(http);
}

std::string ProviderTable::tool_provider_choices() const {
  std::vector<std::string> names;
  for (const ProviderRecord& r : records_) {
    if (r.make && r.capabilities.tools) names.push_back(r.name);
  }
  return or_list(names);
}

std::vector<std::string> ProviderTable::spellings() const {
  std::vector<std::string> out;
  for (const ProviderRecord& r : records_) {
    if (!r.make) continue;
    out.push_back(r.name);
    for (const auto& alias : r.aliases) out.push_back(alias.first);
    if (r.variants != ProviderVariants::kToolProvider) continue;
    for (const ProviderRecord& vendor : records_) {
      if (vendor.make && vendor.capabilities.tools) out.push_back(r.name + ":" + vendor.name);
    }
  }
  return out;
}

std::shared_ptr<const ProviderTable> builtin_providers() {
  // One line per provider, in the order help and messages list them.
  static ProviderRecord (*const kProviders[])() = {
      simulate_provider,   // simulation_backend.h
      openai_provider,     // openai_backend.h
      anthropic_provider,  // anthropic_backend.h
      agent_provider,      // agent_provider.h (the built-in coding agent, handlers/agent)
      cli_provider,        // cli_backend.h
      gemini_provider,     // gemini_provider.h (refused)
  };
  static const std::shared_ptr<const ProviderTable> table = [] {
    auto t = std::make_shared<ProviderTable>();
    for (auto record : kProviders) t->add(record());
    return std::shared_ptr<const ProviderTable>(std::move(t));
  }();
  return table;
}

}  // namespace attractor
