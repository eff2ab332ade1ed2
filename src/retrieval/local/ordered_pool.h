#pragma once
/// \file
/// Work on worker threads, results taken in order: how the indexer reads and parses files on every
/// core while one thread stores them, so the store sees the files in the same order as a serial run
/// (same rowids, same ids, same bytes).

#include <cstddef>
#include <functional>

namespace attractor::retrieval {

/// Runs `work(i)` for every i in [0, n) on `threads` worker threads, never more than `lead` items
/// ahead of the consumer, and calls `consume(i)` on the calling thread for i = 0, 1, ... each once
/// `work(i)` has returned. `work` must only touch what belongs to item i. An exception thrown by
/// `work(i)` is rethrown on the calling thread in place of `consume(i)`; after any exception the
/// workers stop and are joined before it propagates. With `threads` < 1 everything runs inline.
void run_ordered(size_t n, int threads, size_t lead, const std::function<void(size_t)>& work,
                 const std::function<void(size_t)>& consume);

/// The number of worker threads to parse with: the hardware's concurrency, at least 1, at most 8.
int parse_threads();

}  // namespace attractor::retrieval
