#include "attractor/run/member_table.h"

#include <iterator>

namespace attractor {

std::map<std::string, MemberTable::Chunk>::iterator MemberTable::chunk_for(const std::string& key) {
  if (chunks_.empty()) chunks_.emplace(std::string(), Chunk{});
  auto it = chunks_.upper_bound(key);
  return std::prev(it);
}

void MemberTable::split(std::map<std::string, Chunk>::iterator chunk) {
  auto& members = chunk->second.members;
  auto middle = std::next(members.begin(), static_cast<std::ptrdiff_t>(members.size() / 2));
  Chunk upper;
  upper.members.insert(std::make_move_iterator(middle), std::make_move_iterator(members.end()));
  members.erase(middle, members.end());
  chunk->second.dirty = true;
  std::string first = upper.members.begin()->first;
  chunks_.emplace(std::move(first), std::move(upper));
}

void MemberTable::set(const std::string& key, std::string member) {
  auto chunk = chunk_for(key);
  auto [it, inserted] = chunk->second.members.insert_or_assign(key, std::move(member));
  (void)it;
  chunk->second.dirty = true;
  if (inserted) {
    ++size_;
    if (chunk->second.members.size() > kMaxChunk) split(chunk);
  }
}

void MemberTable::erase(const std::string& key) {
  if (chunks_.empty()) return;
  auto chunk = chunk_for(key);
  if (chunk->second.members.erase(key) == 0) return;
  --size_;
  chunk->second.dirty = true;
  if (chunk->second.members.empty() && chunk != chunks_.begin()) chunks_.erase(chunk);
}

void MemberTable::clear() {
  chunks_.clear();
  size_ = 0;
}

void MemberTable::refresh(Chunk& chunk) {
  if (!chunk.dirty) return;
  chunk.joined.clear();
  for (const auto& [key, member] : chunk.members) {
    if (!chunk.joined.empty()) chunk.joined += ',';
    chunk.joined += member;
  }
  chunk.dirty = false;
}

void MemberTable::append_to(std::string& out) {
  std::vector<std::string_view> views;
  append_views(views);
  for (std::string_view v : views) out += v;
}

void MemberTable::append_views(std::vector<std::string_view>& views) {
  views.push_back("{");
  bool first = true;
  for (auto& [lowest, chunk] : chunks_) {
    refresh(chunk);
    if (chunk.joined.empty()) continue;
    if (!first) views.push_back(",");
    views.push_back(chunk.joined);
    first = false;
  }
  views.push_back("}");
}

std::string MemberTable::str() {
  std::string out;
  append_to(out);
  return out;
}

}  // namespace attractor
