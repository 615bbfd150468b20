// Bounds mode: how much longer a round takes than its largest bound when the warps' latency and
// the SM's busiest resource are of comparable size. Pure.
//
// The maximum of the latency chain and the throughput bounds assumes that warps overlap
// perfectly: the resource is never idle while a warp could use it, and no warp ever waits for
// it. Neither holds near the point where the two meet. The round is modelled as a closed
// queueing network (the "machine repairman" model): each warp alternates between waiting out
// latency (a delay station) and being served by the busiest resource (one first-come-first-
// served queue). Exact mean value analysis (Reiser and Lavenberg, J. ACM 27(2), 1980) gives the
// round's time: the chain for one warp, the throughput bound for many, more than both where
// they meet. No parameter is fitted.
#pragma once

#include <algorithm>
#include <cmath>

namespace gpuperf {

// The time for each of `customers` (warps, or CTAs) to spend `delay_cycles` waiting out latency
// and `demand_cycles` in service at one resource; never below delay + demand, nor below the
// resource's total demand.
inline double closed_queue_round_cycles(double customers, double demand_cycles, double delay_cycles) {
  const double z = std::max(0.0, delay_cycles);
  const double d = std::max(0.0, demand_cycles);
  if (!(d > 0) || !(customers >= 1)) return z + d;
  const auto n = static_cast<long>(std::min(std::round(customers), 4096.0));  // at most 64 warps per SM on any GPU
  double queue = 0, round = z + d;
  for (long k = 1; k <= n; ++k) {
    const double response = d * (1 + queue);  // wait for those ahead, then be served
    round = z + response;                     // one round trip of every customer
    queue = k / round * response;             // throughput times time in the queue
  }
  return std::max({round, z + d, customers * d});
}

// A round's time from its latency chain (one warp alone, `chain_cycles`) and its busiest
// throughput bound (`throughput_cycles`, all `warps` warps of a sub-partition): the resource's
// demand per warp is its bound over the warps, and the rest of the chain is latency.
inline double queued_round_cycles(double warps, double chain_cycles, double throughput_cycles) {
  if (!(warps >= 1) || !(throughput_cycles > 0)) return std::max(chain_cycles, throughput_cycles);
  const double demand = throughput_cycles / warps;
  return closed_queue_round_cycles(warps, demand, chain_cycles - demand);
}

}  // namespace gpuperf
