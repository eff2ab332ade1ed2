#pragma once
/// \file
/// The providers an LLM stage can be routed to (provider.h describes one). builtin_providers()
/// is the table attractor runs with; adding a provider is its own files (backend and record) plus
/// one line in provider_table.cc. Names are matched lower-cased; a family is written
/// `name:VARIANT` (`cli:codex`, `agent:openai`).

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "handlers/llm/provider.h"

namespace attractor {

class ProviderTable {
 public:
  /// Adds `record` after the others, replacing one of the same name in place.
  void add(ProviderRecord record);
  /// Every record, in the order added (the order help and messages list them in).
  const std::vector<ProviderRecord>& records() const { return records_; }
  /// The record named `name` (not an alias); nullptr when none.
  const ProviderRecord* find(std::string_view name) const;

  /// The lower-cased canonical form of `name`: an alias becomes what it stands for, a family's bare
  /// name gets its default variant when it has one without a node (`cli` → `cli:claude`); an
  /// unknown name is returned lower-cased. `env` may be empty.
  std::string canonical(const std::string& name, const EnvLookup& env) const;
  /// The provider an `llm_model` implies: a `vendor/` prefix naming a provider with model
  /// prefixes, else the first record with a matching prefix; "" when none.
  std::string from_model(const std::string& model) const;
  /// The record of canonical name `canonical` (for a family, of the part before the colon) and
  /// the variant; the record is nullptr when unknown.
  std::pair<const ProviderRecord*, std::string> resolve(const std::string& canonical) const;
  /// True when `canonical` names a provider with a backend (and, for a family, an acceptable variant).
  bool is_known(const std::string& canonical) const;

  /// The names a user may write, for messages: "simulate, openai, anthropic, agent, cli or
  /// cli:<agent>"; `metavar` writes the variant placeholders as `cli:AGENT` (command-line style).
  std::string choices(bool metavar = false) const;
  /// The providers `llm_fallbacks` accepts, HTTP providers first: "openai, anthropic, simulate, cli:<agent>".
  std::string fallback_choices() const;
  /// The providers the built-in coding agent can drive ("openai or anthropic").
  std::string tool_provider_choices() const;
  /// Every complete name a user may write (names, aliases, `agent:<tool provider>`), for "did you mean".
  std::vector<std::string> spellings() const;

 private:
  std::vector<ProviderRecord> records_;
};

/// The built-in providers: simulate, openai, anthropic, agent, cli and gemini (recognised from
/// `gemini-*` models in order to be refused).
std::shared_ptr<const ProviderTable> builtin_providers();

}  // namespace attractor
