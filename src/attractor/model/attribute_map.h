#pragma once
/// \file
/// The attributes of one node, edge or graph, keyed by name and traversed in key order.
///
/// Stored as a sorted array of 16-byte entries (attribute_entry.h) instead of a tree: a pipeline
/// node carries a handful of attributes, and one array per node costs a fraction of one tree node
/// per entry (a 100,000-node pipeline holds over a million attributes). Lookups are binary
/// searches. Inserting a new key into a large array would move every entry after it, so a map that
/// grows past kSmall entries keeps its newest keys in a second, small sorted array that is merged
/// into the main one when it reaches about the square root of the map's size: n insertions cost
/// O(n^1.5) moves at worst instead of O(n^2). Iteration walks both arrays in key order.
///
/// Values parsed from a file are views of its text; the map keeps that file alive (`source()`).
/// Iterators and lookups hand out (name, ValueView) pairs by value; they, and the views, are
/// invalidated by any insertion or erasure.

#include <cstddef>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attractor/model/attribute_entry.h"
#include "attractor/model/source_file.h"
#include "attractor/model/value.h"

namespace attractor {

/// Attribute name -> value, in key order (see the file comment for the storage).
class AttributeMap {
 public:
  /// What iteration yields: the name and a view of the value.
  using value_type = std::pair<std::string_view, ValueView>;

  /// Forward iterator over both sorted arrays in key order, yielding value_type by value.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = AttributeMap::value_type;
    using difference_type = std::ptrdiff_t;
    using reference = value_type;
    /// What operator-> points into: the pair, kept alive for the expression.
    struct pointer {
      value_type pair;
      const value_type* operator->() const { return &pair; }
    };

    const_iterator() = default;
    const_iterator(const AttributeEntry* main, const AttributeEntry* main_end, const AttributeEntry* recent,
                   const AttributeEntry* recent_end, const SourceFile* file)
        : main_(main), main_end_(main_end), recent_(recent), recent_end_(recent_end), file_(file) {}

    value_type operator*() const {
      const AttributeEntry& current = *entry();
      return {current.key(), ValueView(current, file_)};
    }
    pointer operator->() const { return {**this}; }
    const_iterator& operator++() {
      if (from_main()) ++main_;
      else ++recent_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const const_iterator& other) const { return main_ == other.main_ && recent_ == other.recent_; }

   private:
    friend class AttributeMap;
    const AttributeEntry* entry() const { return from_main() ? main_ : recent_; }
    bool from_main() const { return recent_ == recent_end_ || (main_ != main_end_ && main_->key() < recent_->key()); }

    const AttributeEntry* main_ = nullptr;
    const AttributeEntry* main_end_ = nullptr;
    const AttributeEntry* recent_ = nullptr;
    const AttributeEntry* recent_end_ = nullptr;
    const SourceFile* file_ = nullptr;
  };
  using iterator = const_iterator;

  /// Up to this many entries a map is one array and a new key is inserted in place.
  static constexpr std::size_t kSmall = 32;

  AttributeMap() = default;
  AttributeMap(const AttributeMap& other);
  AttributeMap(AttributeMap&& other) noexcept = default;
  AttributeMap& operator=(const AttributeMap& other);
  AttributeMap& operator=(AttributeMap&& other) noexcept = default;
  ~AttributeMap() = default;

  const_iterator begin() const { return at(0, 0); }
  const_iterator end() const { return at(main_.size(), recent_size()); }

  std::size_t size() const { return main_.size() + recent_size(); }
  bool empty() const { return size() == 0; }
  /// Room for `n` entries in total, so a known number of insertions allocates once. Only a hint
  /// for small maps (n <= kSmall): reserving one more entry at a time for a large map would copy
  /// it at every step.
  void reserve(std::size_t n) {
    if (n <= kSmall && recent_size() == 0) main_.reserve(n);
  }
  /// Drops unused capacity.
  void shrink_to_fit() { main_.shrink_to_fit(); }

  /// The entry for `key`, or end().
  const_iterator find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != end(); }
  std::size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }

  /// Sets `key` to a copy of `text`; true when the key is new. `text` may view this map.
  bool insert_or_assign(std::string_view key, ValueKind kind, std::string_view text, SourceLocation location = {});
  /// Sets `key` to a copy of `value`; true when the key is new.
  bool insert_or_assign(std::string_view key, const Value& value) {
    return insert_or_assign(key, value.kind, value.text, value.location);
  }
  /// Sets `key` to `text`, a slice of `file`'s text (its token starts one byte earlier when
  /// `quoted`), without copying it: the map takes `file` as its source when it has none. A map
  /// with another source stores a copy. True when the key is new.
  bool insert_or_assign_in_source(std::string_view key, ValueKind kind, std::string_view text, bool quoted,
                                  const SourceFilePtr& file);
  /// Gives the value at `position` (from find(), not end()) a copy of `text`, which may view this
  /// map, keeping its name, kind and location: a rewrite without a second lookup.
  void replace_text(const_iterator position, std::string_view text) {
    const_cast<AttributeEntry*>(position.entry())->replace_text(text, source_.get());
  }
  /// Removes `key`; the number of entries removed (0 or 1).
  std::size_t erase(std::string_view key);

  /// The file this map's values view, or null when none does.
  const SourceFilePtr& source() const { return source_; }

 private:
  using Entries = std::vector<AttributeEntry>;

  const_iterator at(std::size_t main_index, std::size_t recent_index) const;
  std::size_t recent_size() const { return recent_ ? recent_->size() : 0; }
  /// The entry named `key`, or null.
  AttributeEntry* find_entry(std::string_view key);
  /// Inserts or replaces the entry with `entry`'s name; true when the key is new.
  bool put(AttributeEntry entry);
  /// Inserts an entry whose key is known to be absent.
  void insert_new(AttributeEntry entry);
  /// Moves the recent entries into the main array (one merge pass).
  void merge_recent();

  Entries main_;
  /// Newest keys of a large map, sorted; null while the map has not grown past kSmall.
  std::unique_ptr<Entries> recent_;
  /// The file that views among the entries lie in.
  SourceFilePtr source_;
};

}  // namespace attractor
