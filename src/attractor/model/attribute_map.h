#pragma once
/// \file
/// The attributes of one node, edge or graph, keyed by name and traversed in key order.
///
/// Stored as a sorted array of (key, value) pairs instead of a tree: a pipeline node carries a
/// handful of attributes, and one array per node costs a fraction of one tree node per entry
/// (a 100,000-node pipeline holds over a million attributes). Lookups are binary searches.
/// Inserting a new key into a large array would move every entry after it, so a map that grows
/// past kSmall entries keeps its newest keys in a second, small sorted array that is merged into
/// the main one when it reaches about the square root of the map's size: n insertions cost
/// O(n^1.5) moves at worst instead of O(n^2). Iteration walks both arrays in key order.
///
/// Unlike std::map, inserting or erasing may move entries: pointers, references and iterators
/// into the map are invalidated by insert_or_assign, operator[] with a new key, and erase.

#include <cstddef>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "attractor/model/value.h"

namespace attractor {

/// Attribute name -> Value, in key order (see the file comment for the storage).
class AttributeMap {
 public:
  using value_type = std::pair<std::string, Value>;
  /// value_type under a name the iterators can use (they declare their own value_type).
  using Pair = value_type;

  /// Forward iterator over both sorted arrays in key order. Keys must not be modified through it.
  template <bool kConst>
  class Iterator {
   public:
    using Entry = std::conditional_t<kConst, const Pair, Pair>;
    using iterator_category = std::forward_iterator_tag;
    using value_type = Pair;
    using difference_type = std::ptrdiff_t;
    using pointer = Entry*;
    using reference = Entry&;

    Iterator() = default;
    Iterator(Entry* main, Entry* main_end, Entry* recent, Entry* recent_end)
        : main_(main), main_end_(main_end), recent_(recent), recent_end_(recent_end) {}
    /// A mutable iterator converts to a const one.
    operator Iterator<true>() const { return {main_, main_end_, recent_, recent_end_}; }

    reference operator*() const { return from_main() ? *main_ : *recent_; }
    pointer operator->() const { return &**this; }
    Iterator& operator++() {
      if (from_main()) ++main_;
      else ++recent_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const Iterator& other) const { return main_ == other.main_ && recent_ == other.recent_; }

   private:
    bool from_main() const { return recent_ == recent_end_ || (main_ != main_end_ && main_->first < recent_->first); }

    Entry* main_ = nullptr;
    Entry* main_end_ = nullptr;
    Entry* recent_ = nullptr;
    Entry* recent_end_ = nullptr;
  };
  using iterator = Iterator<false>;
  using const_iterator = Iterator<true>;

  /// Up to this many entries a map is one array and a new key is inserted in place.
  static constexpr std::size_t kSmall = 32;

  AttributeMap() = default;
  AttributeMap(const AttributeMap& other);
  AttributeMap(AttributeMap&& other) noexcept = default;
  AttributeMap& operator=(const AttributeMap& other);
  AttributeMap& operator=(AttributeMap&& other) noexcept = default;
  ~AttributeMap() = default;

  iterator begin() { return at(0, 0); }
  iterator end() { return at(main_.size(), recent_size()); }
  const_iterator begin() const { return const_cast<AttributeMap&>(*this).begin(); }
  const_iterator end() const { return const_cast<AttributeMap&>(*this).end(); }

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
  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const { return const_cast<AttributeMap&>(*this).find(key); }
  bool contains(std::string_view key) const { return find(key) != end(); }
  std::size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }

  /// Sets `key` to `value`; true when the key is new.
  bool insert_or_assign(std::string key, Value value);
  /// The value of `key`, inserted empty when absent.
  Value& operator[](std::string_view key);
  /// Removes `key`; the number of entries removed (0 or 1).
  std::size_t erase(std::string_view key);

 private:
  using Entries = std::vector<value_type>;

  iterator at(std::size_t main_index, std::size_t recent_index);
  std::size_t recent_size() const { return recent_ ? recent_->size() : 0; }
  /// Position of the first entry not less than `key` in `entries`.
  static Entries::iterator lower_bound(Entries& entries, std::string_view key);
  /// Inserts a key known to be absent; returns its value.
  Value& insert_new(std::string key, Value value);
  /// Moves the recent entries into the main array (one merge pass).
  void merge_recent();

  Entries main_;
  /// Newest keys of a large map, sorted; null while the map has not grown past kSmall.
  std::unique_ptr<Entries> recent_;
};

}  // namespace attractor
