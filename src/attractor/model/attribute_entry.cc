#include "attractor/model/attribute_entry.h"

#include <array>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace attractor {
namespace {

/// The process-wide attribute names. Numbers are handed out under a lock and never change, so a
/// name is read without one: the entry holding a number was made after the number was stored.
class NameTable {
 public:
  static NameTable& instance() {
    static NameTable* table = new NameTable;  // never destroyed: entries may outlive static objects
    return *table;
  }

  /// The name's number, or nullopt when it is too long or the table is full.
  std::optional<std::uint16_t> intern(std::string_view name) {
    if (name.size() > AttributeEntry::kMaxTableNameBytes) return std::nullopt;
    // Each thread remembers recent answers, so parsing a file rarely takes the lock.
    thread_local std::array<std::uint16_t, 256> recent{};
    thread_local std::array<bool, 256> known{};
    std::size_t slot = std::hash<std::string_view>()(name) & 255;
    if (known[slot] && this->name(recent[slot]) == name) return recent[slot];
    std::optional<std::uint16_t> id = lookup_or_add(name);
    if (id) {
      recent[slot] = *id;
      known[slot] = true;
    }
    return id;
  }

  std::string_view name(std::uint16_t id) const {
    return chunks_[id / kChunkSize].load(std::memory_order_acquire)[id % kChunkSize];
  }

 private:
  static constexpr std::size_t kChunkSize = 256;

  std::optional<std::uint16_t> lookup_or_add(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    if (count_ == AttributeEntry::kMaxTableNames) return std::nullopt;
    auto id = static_cast<std::uint16_t>(count_++);
    std::string_view*& chunk = owned_chunks_[id / kChunkSize];
    if (chunk == nullptr) {
      chunk = new std::string_view[kChunkSize];
      chunks_[id / kChunkSize].store(chunk, std::memory_order_release);
    }
    char* copy = new char[name.size() + 1]();
    if (!name.empty()) std::memcpy(copy, name.data(), name.size());
    chunk[id % kChunkSize] = std::string_view(copy, name.size());
    ids_.emplace(chunk[id % kChunkSize], id);
    return id;
  }

  static constexpr std::size_t kChunks = AttributeEntry::kMaxTableNames / kChunkSize + 1;
  std::array<std::atomic<std::string_view*>, kChunks> chunks_{};
  std::mutex mutex_;
  std::array<std::string_view*, kChunks> owned_chunks_{};  ///< chunks_, read under the lock
  std::unordered_map<std::string_view, std::uint16_t> ids_;
  std::size_t count_ = 0;
};

std::uint32_t checked_size(std::string_view text) {
  if (text.size() > UINT32_MAX) throw std::length_error("attribute value longer than 4 GiB");
  return static_cast<std::uint32_t>(text.size());
}

}  // namespace

AttributeEntry::AttributeEntry(std::string_view key, ValueKind kind, std::string_view text, SourceLocation location)
    : kind_(kind) {
  key_ = NameTable::instance().intern(key).value_or(kKeyInBlock);
  own(key, text, location);
}

AttributeEntry AttributeEntry::in_source(std::string_view key, ValueKind kind, std::string_view text, bool quoted,
                                         const SourceFile& file) {
  AttributeEntry entry;
  entry.kind_ = kind;
  entry.key_ = NameTable::instance().intern(key).value_or(kKeyInBlock);
  if (entry.key_ == kKeyInBlock) {
    std::size_t offset = static_cast<std::size_t>(text.data() - file.text().data()) - (quoted ? 1 : 0);
    entry.own(key, text, file.locate(offset));
    return entry;
  }
  entry.data_ = text.data();
  entry.size_ = checked_size(text);
  entry.flags_ = quoted ? kQuoted : 0;
  return entry;
}

AttributeEntry::AttributeEntry(const AttributeEntry& other)
    : data_(other.data_), size_(other.size_), key_(other.key_), kind_(other.kind_), flags_(other.flags_) {
  if (!owned()) return;
  std::size_t bytes = other.block_bytes();
  char* copy = static_cast<char*>(::operator new(bytes));
  std::memcpy(copy, other.data_, bytes);
  data_ = copy;
}

AttributeEntry::AttributeEntry(AttributeEntry&& other) noexcept
    : data_(other.data_), size_(other.size_), key_(other.key_), kind_(other.kind_), flags_(other.flags_) {
  other.data_ = nullptr;
  other.size_ = 0;
  other.flags_ = 0;
}

AttributeEntry& AttributeEntry::operator=(const AttributeEntry& other) {
  if (this != &other) *this = AttributeEntry(other);
  return *this;
}

AttributeEntry& AttributeEntry::operator=(AttributeEntry&& other) noexcept {
  if (this == &other) return *this;
  release();
  data_ = other.data_;
  size_ = other.size_;
  key_ = other.key_;
  kind_ = other.kind_;
  flags_ = other.flags_;
  other.data_ = nullptr;
  other.size_ = 0;
  other.flags_ = 0;
  return *this;
}

std::string_view AttributeEntry::key() const {
  if (key_ != kKeyInBlock) return NameTable::instance().name(key_);
  return {data_ + sizeof(Block), block().key_size};
}

SourceLocation AttributeEntry::location(const SourceFile* file) const {
  if (owned()) return block().location;
  if (file == nullptr || data_ == nullptr) return {};
  auto offset = static_cast<std::size_t>(data_ - file->text().data());
  return file->locate((flags_ & kQuoted) != 0 ? offset - 1 : offset);
}

void AttributeEntry::replace_text(std::string_view text, const SourceFile* file) {
  AttributeEntry replacement;
  replacement.key_ = key_;
  replacement.kind_ = kind_;
  replacement.own(key(), text, location(file));
  *this = std::move(replacement);
}

void AttributeEntry::own(std::string_view key, std::string_view text, SourceLocation location) {
  size_ = checked_size(text);
  std::uint32_t key_size = key_ == kKeyInBlock ? checked_size(key) : 0;
  char* block = static_cast<char*>(::operator new(sizeof(Block) + key_size + size_));
  new (block) Block{location, key_size};
  if (key_size != 0) std::memcpy(block + sizeof(Block), key.data(), key_size);
  if (size_ != 0) std::memcpy(block + sizeof(Block) + key_size, text.data(), size_);
  data_ = block;
  flags_ = kOwned;
}

void AttributeEntry::release() {
  if (owned()) ::operator delete(const_cast<char*>(data_));
  data_ = nullptr;
  flags_ = 0;
}

SourceLocation value_location(const std::optional<ValueView>& value, SourceLocation fallback) {
  if (!value) return fallback;
  SourceLocation at = value->location();
  return at.known() ? at : fallback;
}

}  // namespace attractor
