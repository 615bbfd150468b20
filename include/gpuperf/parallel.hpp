// A small fork-join pool on std::thread for independent work items (kernels of one input,
// GPU specs of a sweep). Results land in their item's slot, so the outcome does not depend on
// the number of threads or on scheduling; an error is the one of the lowest-numbered failing
// item, as a serial loop would have raised it first.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace gpuperf {

// Every core of the machine (at least 1): the default for jobs = 0.
inline unsigned hardware_jobs() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1u : n;
}

// fn(i) for i in [0, n) on up to `jobs` threads (0: every core; 1: this thread, no thread
// started). Items are taken in index order from a shared counter; after an item fails, items
// with higher indices that have not started are skipped, and the lowest failing item's
// exception is rethrown once every thread has finished.
template <class F>
void parallel_for(std::size_t n, unsigned jobs, F&& fn) {
  if (jobs == 0) jobs = hardware_jobs();
  std::size_t workers = std::min<std::size_t>(jobs, n);
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> first_failed{n};
  std::vector<std::exception_ptr> errors(n);
  auto work = [&] {
    for (;;) {
      std::size_t i = next.fetch_add(1);
      if (i >= n || i > first_failed.load()) return;
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
        std::size_t cur = first_failed.load();
        while (i < cur && !first_failed.compare_exchange_weak(cur, i)) {}
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  try {
    for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  } catch (...) {
    // No thread could be started (resource limits): the threads that did start and this one
    // finish the work.
  }
  work();
  for (auto& t : threads) t.join();
  if (first_failed.load() < n) std::rethrow_exception(errors[first_failed.load()]);
}

}  // namespace gpuperf
