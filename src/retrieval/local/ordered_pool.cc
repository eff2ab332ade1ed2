#include "retrieval/local/ordered_pool.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace attractor::retrieval {

namespace {

/// What the workers and the consumer share; every field is guarded by `mutex`.
struct OrderedState {
  std::mutex mutex;
  std::condition_variable changed;
  size_t next = 0;      ///< the next item a worker takes
  size_t consumed = 0;  ///< items the consumer has taken
  bool stop = false;
  std::vector<char> done;
  std::vector<std::exception_ptr> errors;
};

void worker_loop(OrderedState& state, size_t n, size_t lead, const std::function<void(size_t)>& work) {
  for (;;) {
    size_t i = 0;
    {
      std::unique_lock lock(state.mutex);
      state.changed.wait(lock, [&] { return state.stop || state.next >= n || state.next < state.consumed + lead; });
      if (state.stop || state.next >= n) return;
      i = state.next++;
    }
    std::exception_ptr error;
    try {
      work(i);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(state.mutex);
    state.errors[i] = error;
    state.done[i] = 1;
    state.changed.notify_all();
  }
}

/// Stops and joins the workers however the consumer leaves.
struct Joiner {
  OrderedState& state;
  std::vector<std::thread>& threads;
  ~Joiner() {
    {
      std::lock_guard lock(state.mutex);
      state.stop = true;
    }
    state.changed.notify_all();
    for (auto& t : threads) t.join();
  }
};

}  // namespace

void run_ordered(size_t n, int threads, size_t lead, const std::function<void(size_t)>& work,
                 const std::function<void(size_t)>& consume) {
  if (threads < 1 || n < 2) {
    for (size_t i = 0; i < n; ++i) {
      work(i);
      consume(i);
    }
    return;
  }
  OrderedState state;
  state.done.assign(n, 0);
  state.errors.assign(n, nullptr);
  lead = std::max<size_t>(lead, 1);
  std::vector<std::thread> pool;
  Joiner joiner{state, pool};
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker_loop, std::ref(state), n, lead, std::cref(work));
  for (size_t i = 0; i < n; ++i) {
    std::exception_ptr error;
    {
      std::unique_lock lock(state.mutex);
      state.changed.wait(lock, [&] { return state.done[i] != 0; });
      error = state.errors[i];
      state.consumed = i + 1;
    }
    state.changed.notify_all();
    if (error) std::rethrow_exception(error);
    consume(i);
  }
}

int parse_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hw, 1u, 8u));
}

}  // namespace attractor::retrieval
