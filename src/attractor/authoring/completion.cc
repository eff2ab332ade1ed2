#include "attractor/authoring/completion.h"

#include <algorithm>
#include <set>

#include "attractor/authoring/attribute_lookup.h"
#include "attractor/authoring/cursor_context.h"
#include "attractor/authoring/node_references.h"
#include "attractor/check/attributes.h"
#include "attractor/model/context_keys.h"

namespace attractor {

namespace {

const std::vector<std::string>& outcome_values() {
  static const std::vector<std::string> values = {"success", "partial_success", "retry", "fail", "skipped"};
  return values;
}

/// The context keys the engine and handlers set that conditions commonly read.
const std::vector<std::string>& condition_keys() {
  static const std::vector<std::string> keys = {
      kOutcomeKey,
      kPreferredLabelKey,
      kCurrentNodeKey,
      kLastStageKey,
      kToolOutputKey,
      kHumanGateSelectedKey,
      kHumanGateLabelKey,
      kParallelBranchCountKey,
      kParallelSuccessCountKey,
      kParallelFailureCountKey,
      kGraphGoalKey,
  };
  return keys;
}

class Completer {
 public:
  Completer(const PipelineDocument& doc, std::size_t offset)
      : doc_(doc), handlers_(*doc.catalog().handlers), ctx_(cursor_context(doc, offset)) {}

  std::vector<CompletionCandidate> run() {
    switch (ctx_.where) {
      case CursorContext::Where::kStatementStart: statement_start(); break;
      case CursorContext::Where::kEdgeTarget: node_ids(); break;
      case CursorContext::Where::kAttributeName: attribute_names(); break;
      case CursorContext::Where::kAttributeValue: attribute_values(); break;
      case CursorContext::Where::kCondition: condition(); break;
      case CursorContext::Where::kNone: break;
    }
    std::sort(out_.begin(), out_.end(),
              [](const CompletionCandidate& a, const CompletionCandidate& b) { return a.label < b.label; });
    return std::move(out_);
  }

 private:
  void add(std::string label, CompletionCandidate::Kind kind, std::string detail = {}, std::string doc = {}) {
    if (!seen_.insert(label).second) return;
    CompletionCandidate c{label, kind, std::move(detail), std::move(doc), {ctx_.replace, label}};
    out_.push_back(std::move(c));
  }

  /// Keywords, node ids, and the attributes a `key=value` statement sets there: the graph's at the
  /// top level, a subgraph's `label` (which names a class for its nodes) inside one.
  void statement_start() {
    for (const char* keyword : {"graph", "node", "edge", "subgraph"}) add(keyword, CompletionCandidate::kKeyword);
    node_ids();
    if (ctx_.in_subgraph) {
      add("label", CompletionCandidate::kProperty, "string (subgraph)",
          "The subgraph's label; its nodes get the class derived from it (model_stylesheet `.name` rules select it).");
      return;
    }
    for (const FoundAttribute& f : attributes_for(AttributeScope::kGraph, "", handlers_)) {
      add(f.spec->name, CompletionCandidate::kProperty, attribute_detail(*f.spec) + " (graph)", f.spec->meaning);
    }
  }

  void node_ids() {
    for (const NodeReference& r : node_references(doc_)) {
      if (r.kind == NodeReference::Kind::kStatement || r.kind == NodeReference::Kind::kEdgeEnd) {
        if (r.range.begin <= ctx_.replace.begin && ctx_.replace.begin <= r.range.end) continue;
        add(r.id, CompletionCandidate::kReference, "node");
      }
    }
  }

  void attribute_names() {
    for (const FoundAttribute& f : attributes_for(ctx_.scope, ctx_.node_type, handlers_)) {
      add(f.spec->name, CompletionCandidate::kProperty, attribute_detail(*f.spec) + " (" + f.owner + ")",
          f.spec->meaning);
    }
    for (const std::string& name : graphviz_attributes()) {
      add(name, CompletionCandidate::kProperty, "Graphviz presentation",
          "Passed on to Graphviz; nothing in a run reads it.");
    }
  }

  void attribute_values() {
    const std::string& key = ctx_.key;
    if (key == "shape") {
      for (const std::string& shape : handlers_.shapes()) {
        add(shape, CompletionCandidate::kEnumMember, "handler " + std::string(handlers_.type_for_shape(shape)));
      }
      return;
    }
    if (key == "type") {
      for (const HandlerDescription* d : handlers_.descriptions())
        add(d->type, CompletionCandidate::kEnumMember, "", d->summary);
      return;
    }
    if (key == "llm_provider") {
      for (const std::string& p : doc_.catalog().providers) add(p, CompletionCandidate::kEnumMember, "provider");
      return;
    }
    FoundAttribute f = find_attribute_for(ctx_.scope, ctx_.node_type, key, handlers_);
    if (!f.spec) return;
    typed_values(*f.spec);
  }

  void typed_values(const AttributeSpec& spec) {
    switch (spec.type) {
      case AttributeType::kEnum:
        for (const std::string& v : spec.values) add(v, CompletionCandidate::kEnumMember, spec.name);
        break;
      case AttributeType::kBoolean:
        add("true", CompletionCandidate::kValue, spec.name);
        add("false", CompletionCandidate::kValue, spec.name);
        break;
      case AttributeType::kDuration:
      case AttributeType::kDurationOrMillis:
        for (const char* d : {"30s", "5m", "15m", "1h"}) add(d, CompletionCandidate::kValue, "duration");
        break;
      case AttributeType::kNodeId: node_ids(); break;
      default: break;
    }
  }

  void condition() {
    std::string before = ctx_.condition_before;
    before.erase(std::remove(before.begin(), before.end(), ' '), before.end());
    if (before.rfind("outcome=", 0) == 0 || before.rfind("outcome!=", 0) == 0) {
      for (const std::string& v : outcome_values()) add(v, CompletionCandidate::kEnumMember, "outcome");
      return;
    }
    for (const char* key : {"current_node=", "current_node!=", "last_stage=", "last_stage!="}) {
      if (before.rfind(key, 0) == 0) {
        node_ids();
        return;
      }
    }
    if (!before.empty()) return;
    for (const std::string& key : condition_keys()) add(key, CompletionCandidate::kProperty, "context key");
    add("context.", CompletionCandidate::kProperty, "a context value the run set");
  }

  const PipelineDocument& doc_;
  const HandlerCatalog& handlers_;
  CursorContext ctx_;
  std::set<std::string> seen_;
  std::vector<CompletionCandidate> out_;
};

}  // namespace

std::vector<CompletionCandidate> complete_at(const PipelineDocument& doc, std::size_t offset) {
  return Completer(doc, offset).run();
}

}  // namespace attractor
