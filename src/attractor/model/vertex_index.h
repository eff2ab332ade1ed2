#pragma once
/// \file
/// Node id -> vertex lookup for Graph without a second copy of every id: an open-addressing
/// table of (hash, vertex) slots, 8 bytes each, that reads the ids from the graph itself.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace attractor {

/// Maps ids to vertex numbers. The ids are not stored: every call that compares ids gets
/// `id_of`, a function from a vertex number to its id (a view that stays valid during the call).
class VertexIndex {
 public:
  using IdOf = std::function<std::string_view(std::size_t)>;

  /// The vertex with id `id`, or nullopt.
  std::optional<std::size_t> find(std::string_view id, const IdOf& id_of) const;
  /// Adds `vertex`, whose id must not be in the index yet.
  void insert(std::size_t vertex, const IdOf& id_of);
  std::size_t size() const { return count_; }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t vertex_plus_one = 0;  ///< 0: empty
  };

  static std::uint32_t hash_of(std::string_view id);
  void place(Slot slot);
  void grow();

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace attractor
