#include "attractor/run/checkpoint.h"

#include <filesystem>
#include <stdexcept>

#include "attractor/base/clock.h"
#include "attractor/base/json_limits.h"
#include "attractor/base/json_text.h"
#include "attractor/run/checkpoint_history.h"
#include "attractor/run/checkpoint_journal.h"

namespace attractor {

namespace fs = std::filesystem;

nlohmann::json outcome_entry_json(const Outcome& o) {
  nlohmann::json oj = {{"status", status_name(o.status)}, {"outcome", status_name(o.status)}};
  if (!o.preferred_label.empty()) oj["preferred_label"] = o.preferred_label;
  if (!o.failure_reason.empty()) oj["failure_reason"] = o.failure_reason;
  if (o.status == StageStatus::kFail || o.status == StageStatus::kRetry) {
    oj["error_category"] = error_category_name(o.category);
  }
  return oj;
}

namespace {

/// Run directories written before `node_attempts` kept the simulation's call counters in the
/// context as `internal.codergen_calls.<id>`; resuming one continues from them.
std::map<std::string, std::int64_t> attempts_from_old_context(const nlohmann::json& context) {
  constexpr std::string_view kOldPrefix = "internal.codergen_calls.";
  std::map<std::string, std::int64_t> attempts;
  if (!context.is_object()) return attempts;
  for (const auto& [key, value] : context.items()) {
    if (key.starts_with(kOldPrefix) && value.is_number_integer()) {
      attempts[key.substr(kOldPrefix.size())] = value.get<std::int64_t>();
    }
  }
  return attempts;
}

}  // namespace

std::string Checkpoint::to_text() const {
  CheckpointWriter writer;
  return writer.serialize(*this);
}

nlohmann::json Checkpoint::to_json() const { return nlohmann::json::parse(to_text()); }

Checkpoint Checkpoint::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("checkpoint is not a JSON object");
  Checkpoint c;
  try {
    c.timestamp_ms = j.value("timestamp_ms", std::int64_t{0});
    c.run_id = j.value("run_id", std::string());
    c.current_node = j.value("current_node", std::string());
    c.next_node = j.value("next_node", std::string());
    c.state = j.value("state", std::string("running"));
    if (j.contains("completed_nodes")) c.completed_nodes = j["completed_nodes"].get<std::vector<std::string>>();
    if (j.contains("completed_statuses")) {
      c.completed_statuses = j["completed_statuses"].get<std::vector<std::string>>();
    }
    if (j.contains("completed_commits")) {
      c.completed_commits = j["completed_commits"].get<std::vector<std::string>>();
    }
    if (j.contains("node_retries")) c.node_retries = j["node_retries"].get<std::map<std::string, std::int64_t>>();
    if (j.contains("context") && j["context"].is_object()) c.context = j["context"];
    if (j.contains("logs")) c.logs = j["logs"].get<std::vector<std::string>>();
    if (j.contains("node_outcomes") && j["node_outcomes"].is_object()) {
      for (const auto& [id, o] : j["node_outcomes"].items()) c.node_outcomes[id] = outcome_from_json(o);
    }
    if (j.contains("visit_counts")) c.visit_counts = j["visit_counts"].get<std::map<std::string, std::int64_t>>();
    if (j.contains("node_attempts")) {
      c.node_attempts = j["node_attempts"].get<std::map<std::string, std::int64_t>>();
    } else {
      c.node_attempts = attempts_from_old_context(c.context);
    }
    c.total_executions = j.value("total_executions", std::int64_t{0});
    c.last_fidelity = j.value("last_fidelity", std::string());
    if (j.contains("inbox") && j["inbox"].is_array()) c.inbox = j["inbox"];
    if (j.contains("final_outcome")) c.final_outcome = j["final_outcome"];
    if (j.contains("seed_context") && j["seed_context"].is_object()) c.seed_context = j["seed_context"];
    c.restart_count = j.value("restart_count", std::int64_t{0});
    if (j.contains("usage") && j["usage"].is_object()) c.usage = j["usage"];
    c.journal_seq = j.value("journal_seq", std::uint64_t{0});
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed checkpoint: ") + e.what());
  }
  return c;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string_view view = content;
  write_file_atomic(path, std::span<const std::string_view>(&view, 1));
}

void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                       const std::function<void()>& written) {
  posix_run_disk().write_file_atomic(path, parts, written);
}

void save_checkpoint(const Checkpoint& checkpoint, const std::string& run_dir, RunDisk& disk) {
  CheckpointWriter writer;
  writer.save(checkpoint, run_dir, disk);
}

namespace {

/// `"key":` in compact JSON.
std::string json_key(const std::string& key) {
  std::string out;
  append_json_string(out, key, JsonInvalidUtf8::strict);
  out += ':';
  return out;
}

/// `"key":value` as compact JSON (invalid UTF-8 throws, as `dump()` does).
std::string json_member(const std::string& key, const nlohmann::json& value) {
  std::string out = json_key(key);
  append_json(out, value, JsonInvalidUtf8::strict);
  return out;
}

std::string visit_member(const std::string& id, std::int64_t count) { return json_key(id) + std::to_string(count); }

std::string outcome_member(const std::string& id, const Outcome& outcome) {
  return json_member(id, outcome_entry_json(outcome));
}

}  // namespace

void CheckpointWriter::AppendedArray::update(const std::vector<std::string>& items) {
  if (items.size() < count) {
    text.clear();
    count = 0;
  }
  for (; count < items.size(); ++count) {
    if (count > 0) text += ',';
    append_json_string(text, items[count], JsonInvalidUtf8::strict);
  }
}

void CheckpointWriter::AppendedArray::extend(const std::vector<std::string>& items) {
  for (const std::string& item : items) {
    if (count++ > 0) text += ',';
    append_json_string(text, item, JsonInvalidUtf8::strict);
  }
}

void CheckpointWriter::start_over(const Checkpoint& checkpoint) {
  delta_parts_.whole = true;
  run_id_ = checkpoint.run_id;
  completed_ = {};
  statuses_ = {};
  commits_ = {};
  logs_ = {};
  outcomes_.clear();
  visits_.clear();
  attempts_.clear();
  context_all_ = true;
  for (const auto& [id, outcome] : checkpoint.node_outcomes) outcomes_.set(id, outcome_member(id, outcome));
  for (const auto& [id, count] : checkpoint.visit_counts) visits_.set(id, visit_member(id, count));
  for (const auto& [id, count] : checkpoint.node_attempts) attempts_.set(id, visit_member(id, count));
}

void CheckpointWriter::refresh_entries(const Checkpoint& checkpoint, std::size_t first_new) {
  for (std::size_t i = first_new; i < checkpoint.completed_nodes.size(); ++i) {
    const std::string& id = checkpoint.completed_nodes[i];
    if (auto it = checkpoint.node_outcomes.find(id); it != checkpoint.node_outcomes.end()) {
      std::string member = outcome_member(id, it->second);
      delta_parts_.outcomes[id] = member;
      outcomes_.set(id, std::move(member));
    }
    if (auto it = checkpoint.visit_counts.find(id); it != checkpoint.visit_counts.end()) {
      std::string member = visit_member(id, it->second);
      delta_parts_.visits[id] = member;
      visits_.set(id, std::move(member));
    }
    if (auto it = checkpoint.node_attempts.find(id); it != checkpoint.node_attempts.end()) {
      std::string member = visit_member(id, it->second);
      delta_parts_.attempts[id] = member;
      attempts_.set(id, std::move(member));
    }
  }
}

void CheckpointWriter::note_context_changes(const ContextChanges& changes) {
  if (changes.all) context_all_ = true;
  if (context_all_) {
    context_dirty_.clear();
  } else {
    context_dirty_.insert(context_dirty_.end(), changes.keys.begin(), changes.keys.end());
  }
}

void CheckpointWriter::update_context(const nlohmann::json& context) {
  context_text_.reset();
  if (!context.is_object()) {
    context_text_ = context.dump();
    return;
  }
  if (!context_all_) {
    for (const std::string& key : context_dirty_) {
      auto it = context.find(key);
      if (it == context.end()) {
        context_.erase(key);
      } else {
        context_.set(key, json_member(key, *it));
      }
    }
  }
  if (context_all_ || context_.size() != context.size()) {
    context_.clear();
    for (auto it = context.begin(); it != context.end(); ++it) context_.set(it.key(), json_member(it.key(), *it));
  }
  context_all_ = false;
  context_dirty_.clear();
}

void CheckpointWriter::read_live(const Context& context) {
  ContextChanges changes = context.changes_since(live_cursor_);
  if (changes.all || context_all_ || live_ != &context) {
    delta_parts_.whole = true;
    live_ = &context;
    context_.clear();
    nlohmann::json values = context.snapshot();
    for (auto it = values.begin(); it != values.end(); ++it) context_.set(it.key(), json_member(it.key(), *it));
    logs_ = {};
  } else {
    for (const std::string& key : changes.keys) {
      if (auto value = context.get(key)) {
        std::string member = json_member(key, *value);
        std::erase(delta_parts_.removed, key);
        delta_parts_.context[key] = member;
        context_.set(key, std::move(member));
      } else {
        delta_parts_.context.erase(key);
        delta_parts_.removed.push_back(key);
        context_.erase(key);
      }
    }
  }
  context_all_ = false;
  context_dirty_.clear();
  delta_parts_.logs = context.logs_from(logs_.count);
  logs_.extend(delta_parts_.logs);
}

const std::vector<std::string_view>& CheckpointWriter::serialize_views(const Checkpoint& c) {
  return serialize_views(c, nullptr);
}

void CheckpointWriter::update(const Checkpoint& c, const Context* live) {
  wait_for_queued_save();
  delta_parts_ = {};
  delta_parts_.whole = live == nullptr || run_id_.empty();
  const std::size_t first_completed = completed_.count;
  const std::size_t first_status = statuses_.count;
  const std::size_t first_commit = commits_.count;
  if (c.run_id != run_id_ || c.completed_nodes.size() < completed_.count ||
      c.completed_commits.size() < commits_.count) {
    start_over(c);
  }
  refresh_entries(c, completed_.count);
  if (outcomes_.size() != c.node_outcomes.size() || visits_.size() != c.visit_counts.size() ||
      attempts_.size() != c.node_attempts.size()) {
    start_over(c);
  }
  completed_.update(c.completed_nodes);
  statuses_.update(c.completed_statuses);
  commits_.update(c.completed_commits);
  if (live) {
    context_text_.reset();
    read_live(*live);
  } else {
    if (live_) {  // the cached context and logs came from a live context
      live_ = nullptr;
      context_all_ = true;
      logs_ = {};
    }
    logs_.update(c.logs);
    update_context(c.context);
  }
  scalars_ = {
      {"current_node", json_text(c.current_node, JsonInvalidUtf8::strict)},
      {"final_outcome", json_text(c.final_outcome, JsonInvalidUtf8::strict)},
      {"inbox", json_text(c.inbox, JsonInvalidUtf8::strict)},
      {"journal_seq", std::to_string(c.journal_seq)},
      {"last_fidelity", json_text(c.last_fidelity, JsonInvalidUtf8::strict)},
      {"next_node", json_text(c.next_node, JsonInvalidUtf8::strict)},
      {"node_retries", json_text(c.node_retries, JsonInvalidUtf8::strict)},
      {"restart_count", std::to_string(c.restart_count)},
      {"run_id", json_text(c.run_id, JsonInvalidUtf8::strict)},
      {"seed_context", json_text(c.seed_context, JsonInvalidUtf8::strict)},
      {"state", json_text(c.state, JsonInvalidUtf8::strict)},
      {"timestamp", json_text(format_iso8601(c.timestamp_ms), JsonInvalidUtf8::strict)},
      {"timestamp_ms", std::to_string(c.timestamp_ms)},
      {"total_executions", std::to_string(c.total_executions)},
      {"usage", json_text(c.usage, JsonInvalidUtf8::strict)},
  };
  build_delta(c, first_completed, first_status, first_commit);
  views_current_ = false;
  serialized_ = true;
}

const std::vector<std::string_view>& CheckpointWriter::views() {
  if (views_current_) return views_;
  views_.clear();
  auto key = [this](std::string_view name) {
    views_.push_back(views_.empty() ? "{\"" : ",\"");
    views_.push_back(name);
    views_.push_back("\":");
  };
  // The members in key order: the scalars (sorted) between the tables and lists.
  std::size_t next_scalar = 0;
  auto scalars_before = [&](std::string_view name) {
    for (; next_scalar < scalars_.size() && scalars_[next_scalar].first < name; ++next_scalar) {
      key(scalars_[next_scalar].first);
      views_.push_back(scalars_[next_scalar].second);
    }
  };
  key("completed_commits");
  views_.insert(views_.end(), {"[", commits_.text, "]"});
  key("completed_nodes");
  views_.insert(views_.end(), {"[", completed_.text, "]"});
  key("completed_statuses");
  views_.insert(views_.end(), {"[", statuses_.text, "]"});
  key("context");
  if (context_text_) {
    views_.push_back(*context_text_);
  } else {
    context_.append_views(views_);
  }
  scalars_before("logs");
  key("logs");
  views_.insert(views_.end(), {"[", logs_.text, "]"});
  scalars_before("node_attempts");
  key("node_attempts");
  attempts_.append_views(views_);
  key("node_outcomes");
  outcomes_.append_views(views_);
  scalars_before("visit_counts");
  key("visit_counts");
  visits_.append_views(views_);
  for (; next_scalar < scalars_.size(); ++next_scalar) {  // any that sort after visit_counts
    key(scalars_[next_scalar].first);
    views_.push_back(scalars_[next_scalar].second);
  }
  views_.push_back("}");
  views_current_ = true;
  return views_;
}

const std::vector<std::string_view>& CheckpointWriter::serialize_views(const Checkpoint& c, const Context* live) {
  update(c, live);
  return views();
}

void CheckpointWriter::build_delta(const Checkpoint& c, std::size_t first_completed, std::size_t first_status,
                                   std::size_t first_commit) {
  delta_.clear();
  if (delta_parts_.whole) return;
  auto list = [this](std::string_view name, auto begin, auto end, bool& first) {
    if (begin == end) return;
    delta_ += first ? "\"" : ",\"";
    first = false;
    delta_ += name;
    delta_ += "\":[";
    for (auto it = begin; it != end; ++it) {
      if (it != begin) delta_ += ',';
      append_json_string(delta_, *it, JsonInvalidUtf8::strict);
    }
    delta_ += ']';
  };
  auto object = [this](std::string_view name, const std::map<std::string, std::string>& members, bool& first) {
    if (members.empty()) return;
    delta_ += first ? "\"" : ",\"";
    first = false;
    delta_ += name;
    delta_ += "\":{";
    bool first_member = true;
    for (const auto& [id, text] : members) {
      if (!first_member) delta_ += ',';
      first_member = false;
      delta_ += text;
    }
    delta_ += '}';
  };
  delta_ += "{\"append\":{";
  bool first = true;
  list("completed_commits", c.completed_commits.begin() + static_cast<std::ptrdiff_t>(first_commit),
       c.completed_commits.end(), first);
  list("completed_nodes", c.completed_nodes.begin() + static_cast<std::ptrdiff_t>(first_completed),
       c.completed_nodes.end(), first);
  list("completed_statuses", c.completed_statuses.begin() + static_cast<std::ptrdiff_t>(first_status),
       c.completed_statuses.end(), first);
  list("logs", delta_parts_.logs.begin(), delta_parts_.logs.end(), first);
  delta_ += "},\"merge\":{";
  first = true;
  object("context", delta_parts_.context, first);
  object("node_attempts", delta_parts_.attempts, first);
  object("node_outcomes", delta_parts_.outcomes, first);
  object("visit_counts", delta_parts_.visits, first);
  delta_ += "},\"remove\":{";
  first = true;
  list("context", delta_parts_.removed.begin(), delta_parts_.removed.end(), first);
  delta_ += "},\"set\":{";
  for (std::size_t i = 0; i < scalars_.size(); ++i) {
    delta_ += i == 0 ? "\"" : ",\"";
    delta_ += scalars_[i].first;
    delta_ += "\":";
    delta_ += scalars_[i].second;
  }
  delta_ += "}}";
}

std::string CheckpointWriter::serialize(const Checkpoint& checkpoint) {
  std::string out;
  for (std::string_view v : serialize_views(checkpoint)) out += v;
  return out;
}

void CheckpointWriter::save(const Checkpoint& checkpoint, const std::string& run_dir, RunDisk& disk) {
  serialize_views(checkpoint);
  views_.push_back("\n");
  disk.write_file_atomic((fs::path(run_dir) / "checkpoint.json").string(), views_);
}

void CheckpointWriter::save(const Checkpoint& checkpoint, const std::string& run_dir, WriteBehind& writer) {
  serialize_views(checkpoint);
  enqueue_save(run_dir, writer);
}

void CheckpointWriter::enqueue_save(const std::string& run_dir, WriteBehind& writer) {
  views();
  views_.push_back("\n");
  std::string path = (fs::path(run_dir) / "checkpoint.json").string();
  queued_seq_ = writer.enqueue([this, &writer, path = std::move(path)] {
    writer.disk().write_file_atomic(path, views_, [&writer] { writer.release_running(); });
  });
  queued_on_ = &writer;
}

std::string CheckpointWriter::serialize(const Checkpoint& checkpoint, const Context& context) {
  std::string out;
  for (std::string_view v : serialize_views(checkpoint, &context)) out += v;
  return out;
}

void CheckpointWriter::save(const Checkpoint& checkpoint, const Context& context, const std::string& run_dir,
                            WriteBehind& writer) {
  serialize_views(checkpoint, &context);
  enqueue_save(run_dir, writer);
}

void CheckpointWriter::save_journaled(const Checkpoint& checkpoint, const Context& context, const std::string& run_dir,
                                      WriteBehind& writer) {
  update(checkpoint, &context);
  enqueue_history(checkpoint.journal_seq, run_dir, writer);
  const std::size_t record_bytes = delta_.size() + 32;
  const bool by_count = snapshot_every_ > 0 && journal_records_ + 1 >= snapshot_every_;
  const bool small = snapshot_bytes_ <= rewrite_below_;
  if (delta_.empty() || by_count || small ||
      journal_bytes_ + record_bytes > std::max(kMinJournalBytes, snapshot_bytes_)) {
    enqueue_snapshot(run_dir, writer, JournalAfter::kEmptied);
    return;
  }
  std::string record = encode_journal_record(checkpoint.journal_seq, delta_);
  journal_bytes_ += record.size();
  ++journal_records_;
  empty_journal_.clear();
  std::string path = (fs::path(run_dir) / kCheckpointJournalFile).string();
  writer.enqueue([&writer, journal = journal_, path = std::move(path), record = std::move(record)] {
    if (!journal->file || journal->path != path) {
      journal->file = writer.disk().open_synced_append(path);
      journal->path = path;
    }
    journal->file->append(record);
  });
}

void CheckpointWriter::save_last(const Checkpoint& checkpoint, const Context& context, const std::string& run_dir,
                                 WriteBehind& writer) {
  update(checkpoint, &context);
  enqueue_history(checkpoint.journal_seq, run_dir, writer);
  enqueue_snapshot(run_dir, writer, JournalAfter::kRemoved);
}

void CheckpointWriter::enqueue_history(std::uint64_t seq, const std::string& run_dir, WriteBehind& writer) {
  if (!history_) return;
  std::string record;
  if (delta_.empty()) {
    std::string text;
    for (std::string_view v : views()) text += v;
    if (!text.empty() && text.back() == '\n') text.pop_back();
    record = full_history_record(seq, text);
  } else {
    record = encode_journal_record(seq, delta_);
  }
  std::string path = (fs::path(run_dir) / kCheckpointHistoryFile).string();
  writer.enqueue([&writer, file = history_file_, path = std::move(path), record = std::move(record)] {
    if (!file->file || file->path != path) {
      file->file = open_record_append(writer.disk(), path);
      file->path = path;
    }
    if (file->file) file->file->append(record);
  });
}

void CheckpointWriter::compact(const std::string& run_dir, WriteBehind& writer) {
  if (journal_bytes_ == 0 || !serialized_) return;
  wait_for_queued_save();
  views();
  if (views_.back() == "\n") views_.pop_back();  // enqueue_snapshot adds it again
  enqueue_snapshot(run_dir, writer, JournalAfter::kRemoved);
}

void CheckpointWriter::enqueue_snapshot(const std::string& run_dir, WriteBehind& writer, JournalAfter after) {
  std::string journal = (fs::path(run_dir) / kCheckpointJournalFile).string();
  // A journal this writer left empty after its last snapshot needs neither creating nor emptying.
  const bool already_empty = after == JournalAfter::kEmptied && empty_journal_ == journal;
  if (after == JournalAfter::kEmptied && !already_empty) {
    writer.enqueue([&writer, journal] { writer.disk().open_append(journal); });
  }
  enqueue_save(run_dir, writer);
  snapshot_bytes_ = 0;
  for (std::string_view v : views_) snapshot_bytes_ += v.size();
  journal_bytes_ = 0;
  journal_records_ = 0;
  empty_journal_ = after == JournalAfter::kEmptied ? journal : std::string();
  if (already_empty) return;
  writer.enqueue([&writer, after, open = journal_, journal = std::move(journal)] {
    if (after == JournalAfter::kRemoved) {
      if (open->path == journal) open->file.reset();
      writer.disk().remove_file(journal);
    } else {
      writer.disk().write_file(journal, "");  // in place: an open file appends at its new end
    }
  });
}

void CheckpointWriter::wait_for_queued_save() {
  if (!queued_on_) return;
  WriteBehind* writer = queued_on_;
  queued_on_ = nullptr;
  writer->wait_released(queued_seq_);
}

Checkpoint load_checkpoint(const std::string& run_dir, RunDisk& disk) {
  fs::path path = fs::path(run_dir) / "checkpoint.json";
  nlohmann::json j = read_checkpoint_document(run_dir, disk);
  try {
    return Checkpoint::from_json(j);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

}  // namespace attractor
