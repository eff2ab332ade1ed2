#include "attractor/model/vertex_index.h"

namespace attractor {

std::uint32_t VertexIndex::hash_of(std::string_view id) {
  std::size_t h = std::hash<std::string_view>{}(id);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

std::optional<std::size_t> VertexIndex::find(std::string_view id, const IdOf& id_of) const {
  if (slots_.empty()) return std::nullopt;
  std::uint32_t hash = hash_of(id);
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.vertex_plus_one == 0) return std::nullopt;
    std::size_t vertex = slot.vertex_plus_one - 1;
    if (slot.hash == hash && id_of(vertex) == id) return vertex;
  }
}

void VertexIndex::insert(std::size_t vertex, const IdOf& id_of) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  place(Slot{hash_of(id_of(vertex)), static_cast<std::uint32_t>(vertex + 1)});
  ++count_;
}

void VertexIndex::place(Slot slot) {
  std::size_t mask = slots_.size() - 1;
  std::size_t i = slot.hash & mask;
  while (slots_[i].vertex_plus_one != 0) i = (i + 1) & mask;
  slots_[i] = slot;
}

void VertexIndex::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  for (const Slot& slot : old) {
    if (slot.vertex_plus_one != 0) place(slot);
  }
}

}  // namespace attractor
