#include "attractor/model/attribute_map.h"

#include <algorithm>

namespace attractor {
namespace {

bool key_less(const AttributeEntry& a, const AttributeEntry& b) { return a.key() < b.key(); }

/// Position of the first entry not less than `key` in the sorted `entries`.
template <typename Entries>
auto lower_bound(Entries& entries, std::string_view key) {
  return std::lower_bound(entries.begin(), entries.end(), key,
                          [](const AttributeEntry& entry, std::string_view k) { return entry.key() < k; });
}

}  // namespace

AttributeMap::AttributeMap(const AttributeMap& other) : main_(other.main_), source_(other.source_) {
  if (other.recent_size() == 0) return;
  // A copy is one array: merging costs nothing more than copying both.
  main_.reserve(other.size());
  main_.insert(main_.end(), other.recent_->begin(), other.recent_->end());
  std::inplace_merge(main_.begin(), main_.begin() + static_cast<std::ptrdiff_t>(other.main_.size()), main_.end(),
                     key_less);
}

AttributeMap& AttributeMap::operator=(const AttributeMap& other) {
  if (this != &other) *this = AttributeMap(other);
  return *this;
}

AttributeMap::const_iterator AttributeMap::at(std::size_t main_index, std::size_t recent_index) const {
  const AttributeEntry* main = main_.data();
  const AttributeEntry* recent = recent_ ? recent_->data() : nullptr;
  return const_iterator(main + main_index, main + main_.size(), recent + recent_index, recent + recent_size(),
                        source_.get());
}

AttributeMap::const_iterator AttributeMap::find(std::string_view key) const {
  auto in_main = lower_bound(main_, key);
  std::size_t main_index = static_cast<std::size_t>(in_main - main_.begin());
  std::size_t recent_index = 0;
  if (recent_) {
    const Entries& recent = *recent_;
    auto in_recent = lower_bound(recent, key);
    recent_index = static_cast<std::size_t>(in_recent - recent.begin());
    if (in_recent != recent.end() && in_recent->key() == key) return at(main_index, recent_index);
  }
  if (in_main == main_.end() || in_main->key() != key) return end();
  return at(main_index, recent_index);
}

AttributeEntry* AttributeMap::find_entry(std::string_view key) {
  auto in_main = lower_bound(main_, key);
  if (in_main != main_.end() && in_main->key() == key) return &*in_main;
  if (!recent_) return nullptr;
  auto in_recent = lower_bound(*recent_, key);
  return in_recent != recent_->end() && in_recent->key() == key ? &*in_recent : nullptr;
}

bool AttributeMap::insert_or_assign(std::string_view key, ValueKind kind, std::string_view text,
                                    SourceLocation location) {
  // The entry copies `text` before the map changes, so `text` may be one of this map's values.
  return put(AttributeEntry(key, kind, text, location));
}

bool AttributeMap::insert_or_assign_in_source(std::string_view key, ValueKind kind, std::string_view text, bool quoted,
                                              const SourceFilePtr& file) {
  if (!source_) source_ = file;
  if (source_ != file) {
    std::size_t offset = static_cast<std::size_t>(text.data() - file->text().data()) - (quoted ? 1 : 0);
    return insert_or_assign(key, kind, text, file->locate(offset));
  }
  return put(AttributeEntry::in_source(key, kind, text, quoted, *file));
}

bool AttributeMap::put(AttributeEntry entry) {
  if (AttributeEntry* existing = find_entry(entry.key())) {
    *existing = std::move(entry);
    return false;
  }
  insert_new(std::move(entry));
  return true;
}

std::size_t AttributeMap::erase(std::string_view key) {
  auto in_main = lower_bound(main_, key);
  if (in_main != main_.end() && in_main->key() == key) {
    main_.erase(in_main);
    return 1;
  }
  if (!recent_) return 0;
  auto in_recent = lower_bound(*recent_, key);
  if (in_recent == recent_->end() || in_recent->key() != key) return 0;
  recent_->erase(in_recent);
  return 1;
}

void AttributeMap::insert_new(AttributeEntry entry) {
  if (main_.size() < kSmall && recent_size() == 0) {
    main_.insert(lower_bound(main_, entry.key()), std::move(entry));
    return;
  }
  if (!recent_) recent_ = std::make_unique<Entries>();
  // Merge when the recent array reaches about sqrt(size): then each merge moves O(size) entries
  // once per sqrt(size) insertions, and each insertion into the recent array moves O(sqrt(size)).
  std::size_t limit = kSmall;
  while (limit * limit < main_.size()) limit *= 2;
  if (recent_->size() >= limit) merge_recent();
  recent_->insert(lower_bound(*recent_, entry.key()), std::move(entry));
}

void AttributeMap::merge_recent() {
  std::size_t old_size = main_.size();
  main_.reserve(old_size + recent_->size());
  std::move(recent_->begin(), recent_->end(), std::back_inserter(main_));
  recent_->clear();
  std::inplace_merge(main_.begin(), main_.begin() + static_cast<std::ptrdiff_t>(old_size), main_.end(), key_less);
}

}  // namespace attractor
