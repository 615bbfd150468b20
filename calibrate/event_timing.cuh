// Event-timed launches for the probes (round_overlap, dispatch_overlap, dram_pattern): each of
// `n` launches timed alone between two CUDA events, the best and the mean kept. `before(r)` runs
// untimed ahead of launch r (a cache flush, a fresh slice of a buffer); `launch(r)` is timed.
#pragma once

struct LaunchTimes {
  float best_ms = 1e30f, mean_ms = 0;
};

template <class Before, class Launch>
LaunchTimes time_launches(int n, Before before, Launch launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  LaunchTimes t;
  float sum = 0;
  for (int r = 0; r < n; ++r) {
    before(r);
    cudaEventRecord(e0);
    launch(r);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.best_ms = ms < t.best_ms ? ms : t.best_ms;
    sum += ms;
  }
  t.mean_ms = sum / n;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return t;
}

template <class Launch>
LaunchTimes time_launches(int n, Launch launch) {
  return time_launches(n, [](int) {}, launch);
}
