// analyze(): the analysis passes of analysis.hpp run in order over one kernel. A definition
// file: compiled once in the library (src/lib/model.cpp), or included by gpuperf.hpp when
// GPUPERF_HEADER_ONLY; never include it beside the compiled library.
#pragma once

#include <memory>

#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/sampled_ctas.hpp"

namespace gpuperf {

GPUPERF_FUNC KernelAnalysis analyze(std::shared_ptr<const Kernel> kp) {
  const Kernel& k = *kp;
  KernelAnalysis a;
  a.kernel = kp;
  a.pcs.resize(k.program.size());
  a.dynamic = k.has_dynamic_trace();
  a.has_addresses = !k.addresses.empty();
  const double grid = static_cast<double>(k.launch.grid.count());
  a.total_warps = grid * k.launch.warps_per_cta();
  a.scale = (a.dynamic || k.representative_cta) && k.traced_ctas ? grid / static_cast<double>(k.traced_ctas) : 1.0;
  detail::program_order_and_loops(k, a);
  if (a.dynamic) detail::group_ctas(k, a);
  detail::weigh_sampled_ctas(k, a);
  detail::static_counts(k, a);
  detail::indexed_constant_loads(k, a);
  if (a.dynamic) {
    detail::profile_addresses(k, a);
    detail::cta_index_classes(k, a);
  } else {
    detail::load_groups(k, a);
    detail::sector_issue_groups(k, a);
    detail::address_sources(k, a);
    detail::reads_of_kernel_stores(k, a);
    detail::profiled_atomics(k, a);
  }
  return a;
}

}  // namespace gpuperf
