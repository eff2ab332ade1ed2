#include "attractor/tokens/token_counter.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "attractor/model/graph.h"
#include "attractor/tokens/tiktoken_encoding.h"
#include "attractor/tokens/token_data.h"

namespace attractor {

std::vector<std::size_t> TokenCounter::count_many(std::span<const std::string_view> texts, unsigned max_threads) const {
  std::vector<std::size_t> results(texts.size(), 0);
  unsigned workers = max_threads != 0 ? max_threads : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, texts.size()));
  if (workers <= 1) {
    for (std::size_t i = 0; i < texts.size(); ++i) results[i] = count(texts[i]);
    return results;
  }
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto work = [&] {
    try {
      for (std::size_t i = next++; i < texts.size(); i = next++) results[i] = count(texts[i]);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next = texts.size();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (unsigned i = 1; i < workers; ++i) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  return results;
}

std::vector<std::size_t> TokenCounter::count_many(const std::vector<std::string>& texts, unsigned max_threads) const {
  std::vector<std::string_view> views(texts.begin(), texts.end());
  return count_many(std::span<const std::string_view>(views), max_threads);
}

std::vector<std::string_view> known_token_encodings() {
  std::vector<std::string_view> names;
  for (const auto& spec : encoding_specs()) names.push_back(spec.name);
  return names;
}

std::shared_ptr<const TokenCounter> token_counter_for(std::string_view encoding_name) {
  const EncodingSpec* spec = find_encoding_spec(encoding_name);
  if (!spec) {
    throw UnknownEncodingError(fmt::format("unknown token encoding '{}' (known: {})", encoding_name,
                                           fmt::join(known_token_encodings(), ", ")));
  }
  struct Slot {
    std::mutex mutex;
    std::shared_ptr<const TokenCounter> counter;
  };
  static std::map<std::string_view, Slot> slots;
  static std::mutex slots_mutex;
  Slot* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(slots_mutex);
    slot = &slots[spec->name];
  }
  std::lock_guard<std::mutex> lock(slot->mutex);
  if (slot->counter) return slot->counter;
  if (std::optional<std::string_view> blob = embedded_token_tables(spec->name)) {
    slot->counter = TiktokenEncoding::load_tables(*spec, *blob, fmt::format("built-in {}", spec->name));
  } else {
    slot->counter = TiktokenEncoding::load(*spec, find_token_data_file(spec->file_name));
  }
  return slot->counter;
}

std::shared_ptr<const TokenCounter> token_counter_for_graph(const Graph& graph) {
  return token_counter_for(graph.data().get("token_encoding", kDefaultTokenEncoding));
}

}  // namespace attractor
