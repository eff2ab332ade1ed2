#include "attractor/model/attribute_map.h"

#include <algorithm>

namespace attractor {

AttributeMap::AttributeMap(const AttributeMap& other) : main_(other.main_) {
  if (other.recent_size() == 0) return;
  // A copy is one array: merging costs nothing more than copying both.
  main_.reserve(other.size());
  main_.insert(main_.end(), other.recent_->begin(), other.recent_->end());
  std::inplace_merge(main_.begin(), main_.begin() + static_cast<std::ptrdiff_t>(other.main_.size()), main_.end(),
                     [](const value_type& a, const value_type& b) { return a.first < b.first; });
}

AttributeMap& AttributeMap::operator=(const AttributeMap& other) {
  if (this != &other) *this = AttributeMap(other);
  return *this;
}

AttributeMap::iterator AttributeMap::at(std::size_t main_index, std::size_t recent_index) {
  value_type* main = main_.data();
  value_type* recent = recent_ ? recent_->data() : nullptr;
  std::size_t recent_count = recent_size();
  return iterator(main + main_index, main + main_.size(), recent + recent_index, recent + recent_count);
}

AttributeMap::Entries::iterator AttributeMap::lower_bound(Entries& entries, std::string_view key) {
  return std::lower_bound(entries.begin(), entries.end(), key,
                          [](const value_type& entry, std::string_view k) { return entry.first < k; });
}

AttributeMap::iterator AttributeMap::find(std::string_view key) {
  auto in_main = lower_bound(main_, key);
  std::size_t recent_index = 0;
  if (recent_) {
    auto in_recent = lower_bound(*recent_, key);
    recent_index = static_cast<std::size_t>(in_recent - recent_->begin());
    bool found_recent = in_recent != recent_->end() && in_recent->first == key;
    if (found_recent) return at(static_cast<std::size_t>(in_main - main_.begin()), recent_index);
  }
  if (in_main == main_.end() || in_main->first != key) return end();
  return at(static_cast<std::size_t>(in_main - main_.begin()), recent_index);
}

bool AttributeMap::insert_or_assign(std::string key, Value value) {
  auto it = find(key);
  if (it != end()) {
    it->second = std::move(value);
    return false;
  }
  insert_new(std::move(key), std::move(value));
  return true;
}

Value& AttributeMap::operator[](std::string_view key) {
  auto it = find(key);
  if (it != end()) return it->second;
  return insert_new(std::string(key), Value());
}

std::size_t AttributeMap::erase(std::string_view key) {
  auto in_main = lower_bound(main_, key);
  if (in_main != main_.end() && in_main->first == key) {
    main_.erase(in_main);
    return 1;
  }
  if (!recent_) return 0;
  auto in_recent = lower_bound(*recent_, key);
  if (in_recent == recent_->end() || in_recent->first != key) return 0;
  recent_->erase(in_recent);
  return 1;
}

Value& AttributeMap::insert_new(std::string key, Value value) {
  if (main_.size() < kSmall && recent_size() == 0) {
    auto at = lower_bound(main_, key);
    return main_.emplace(at, std::move(key), std::move(value))->second;
  }
  if (!recent_) recent_ = std::make_unique<Entries>();
  // Merge when the recent array reaches about sqrt(size): then each merge moves O(size) entries
  // once per sqrt(size) insertions, and each insertion into the recent array moves O(sqrt(size)).
  std::size_t limit = kSmall;
  while (limit * limit < main_.size()) limit *= 2;
  if (recent_->size() >= limit) merge_recent();
  auto at = lower_bound(*recent_, key);
  return recent_->emplace(at, std::move(key), std::move(value))->second;
}

void AttributeMap::merge_recent() {
  std::size_t old_size = main_.size();
  main_.reserve(old_size + recent_->size());
  std::move(recent_->begin(), recent_->end(), std::back_inserter(main_));
  recent_->clear();
  std::inplace_merge(main_.begin(), main_.begin() + static_cast<std::ptrdiff_t>(old_size), main_.end(),
                     [](const value_type& a, const value_type& b) { return a.first < b.first; });
}

}  // namespace attractor
