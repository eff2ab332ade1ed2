#pragma once
/// \file
/// How retrieval action handlers reach the code index (one injected backend, docs/retrieval.md). The
/// provider picks the backend from graph attributes `retrieval_backend` (default "local") and
/// `index_dir`; tests inject a fixed backend.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/check/handler_catalog.h"
#include "attractor/model/context.h"
#include "attractor/model/graph.h"
#include "attractor/model/outcome.h"
#include "retrieval/backend.h"

namespace attractor {

/// Marks the retrieval steps' working keys (what `search_nodes` resets, and `node_texts`) as hidden
/// from preambles: merges them into `internal.preamble_hidden_keys` through `outcome`. The answer
/// stage gets the evidence through `${context_blocks}`; a truncated copy of the steps' state in
/// its preamble is noise.
void hide_retrieval_keys_from_preambles(const Context& context, Outcome& outcome);

/// Supplies the retrieval backend for a pipeline. Must be safe to call from several threads.
class RetrievalBackendProvider {
 public:
  virtual ~RetrievalBackendProvider() = default;
  /// The backend for `graph`; throws StageError (terminal) when it cannot be opened.
  virtual std::shared_ptr<retrieval::IRetrievalBackend> backend_for(const Graph& graph) = 0;
};

/// Opens `make_retrieval_backend(retrieval_backend, index_dir)` once per (kind, directory).
/// `index_dir_override` (from the CLI) wins over the graph attribute; a relative `index_dir`
/// attribute is resolved against `base_dir` (the directory of the graph file) when given.
class GraphRetrievalProvider : public RetrievalBackendProvider {
 public:
  explicit GraphRetrievalProvider(std::string index_dir_override = {}, std::string base_dir = {})
      : override_(std::move(index_dir_override)), base_dir_(std::move(base_dir)) {}
  std::shared_ptr<retrieval::IRetrievalBackend> backend_for(const Graph& graph) override;

 private:
  std::string override_;
  std::string base_dir_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<retrieval::IRetrievalBackend>> open_;
};

/// Always returns the same backend (tests, embedding).
class FixedRetrievalProvider : public RetrievalBackendProvider {
 public:
  explicit FixedRetrievalProvider(std::shared_ptr<retrieval::IRetrievalBackend> backend)
      : backend_(std::move(backend)) {}
  std::shared_ptr<retrieval::IRetrievalBackend> backend_for(const Graph&) override { return backend_; }

 private:
  std::shared_ptr<retrieval::IRetrievalBackend> backend_;
};

/// The scope every retrieval step works in (docs/retrieval.md): repository + branch + snapshot + the sacred
/// ACL filters, plus the named index. `filters` is the base filter set handed to the backend:
/// context `retrieval_filters` unchanged, plus `repository`, `branch` and (when a snapshot is
/// selected) `snapshot_id`.
struct RetrievalScope {
  std::string repository;
  std::string branch;
  nlohmann::json filters = nlohmann::json::object();
  std::optional<std::string> active_index;
  /// "primary" or "secondary" (node attribute `snapshot_source`, default primary).
  std::string snapshot_source = "primary";
  /// The selected snapshot (context `snapshot_id` / `snapshot_id_b`); nullopt = the backend's latest.
  std::optional<std::string> snapshot_id;
};

/// Reads the scope of a retrieval step. Context `repository` and `branch` are required non-empty
/// strings; `retrieval_filters` (optional) must be an object; node attribute `snapshot_source`
/// (`primary` | `secondary`, default primary) selects context `snapshot_id` (optional: absent means
/// the most recently indexed snapshot) or `snapshot_id_b` (required then); graph attribute
/// `active_index` is optional. Steps without a `snapshot_source` of their own (expand, fetch) thus
/// use the primary snapshot, the search default; give them the same attribute as the search when it
/// uses `secondary`. A `repository`, `branch` or `snapshot_id`/`snapshot` inside `retrieval_filters`
/// that disagrees with the scope is an error (the sacred filters are never rewritten).
/// Throws StageError (terminal) naming the node and the field.
RetrievalScope read_retrieval_scope(const NodeData& node, const Context& context, const Graph& graph);

/// Filter keys a payload may never set: the scope and the ACL keys of filters.h.
bool is_reserved_filter_key(const std::string& key);

/// `filters_effective = parsed + base` with base always winning (docs/retrieval.md). Entries of `parsed`
/// are dropped, with a warning appended to `warnings` (when given), if their key is reserved
/// (`is_reserved_filter_key`), empty, already in `base`, or their value is not a string, number,
/// boolean or a list of those. A non-object `parsed` contributes nothing. Every member of `base`
/// appears in the result unchanged. Never throws for any JSON input.
nlohmann::json merge_filters(const nlohmann::json& parsed, const nlohmann::json& base,
                             std::vector<std::string>* warnings = nullptr);

/// Maps a backend error to a StageError for node `node_id` (unavailable -> retryable, else terminal).
[[noreturn]] void throw_retrieval_stage_error(const std::string& node_id, const std::string& action,
                                              const retrieval::RetrievalError& error);

/// The attributes every retrieval step reads besides its own (snapshot_source, on_ok, next), for
/// the steps' HandlerDescriptions.
std::vector<AttributeSpec> retrieval_step_attributes();

}  // namespace attractor
