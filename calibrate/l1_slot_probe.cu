// Probe (not a table group): what one SM's L1 pays for a global request whose lanes spread over
// several 128 B lines, depending on where in their lines the lanes' words sit. The table's
// `l1_wavefronts_per_cycle` was measured (group `lsu`) with every lane on word 0 of its line, so
// a cycle per line cannot be told apart from a cycle per line that shares a 32 B sector position
// (slot 0-3 of the line) or a 4 B bank with another. The patterns below do tell them apart.
// One CTA of 32 warps on one SM, 4 independent requests per loop trip; lines spread over the
// footprint by an odd multiplier, distinct within a request. Output: one JSON object per line
// with the SM cycles per request and what three models predict for the pattern:
//   lines            one wavefront per distinct line
//   sector_slots     per sector position, the distinct lines that use it; the most of them
//   banks            per 4 B bank, the distinct lines that use it; the most of them
//
//   nvcc -O3 -arch=sm_90 -o l1_slot_probe calibrate/l1_slot_probe.cu && ./l1_slot_probe
#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

// Each pattern: the lines a request touches and, for lane l, its line (0..lines-1) and its
// 4 B word within the line (0..31).
struct Pattern {
  const char* name;
  int lines;
};
constexpr Pattern kPatterns[] = {
    {"32 lines, word 0 of each (the lsu group's pattern)", 32},
    {"32 lines, words 0/8/16/24: four sector slots, 8 lines each", 32},
    {"32 lines, words 0/8: two sector slots, 16 lines each", 32},
    {"32 lines, words 0-7: one sector slot, eight banks", 32},
    {"32 lines, word (lane * 13) % 32: spread over slots and banks", 32},
    {"16 lines, words 0/8/16/24 by lane % 4", 16},
    {"8 lines, four lanes each on words 0/8/16/24", 8},
    {"4 lines, line j's sector j, whole sectors", 4},
    {"4 lines, sector 0 of each, whole sectors", 4},
};
constexpr int kPatternCount = sizeof(kPatterns) / sizeof(kPatterns[0]);

__host__ __device__ inline void lane_place(int pattern, unsigned lane, unsigned& line, unsigned& word) {
  switch (pattern) {
    case 0: line = lane; word = 0; break;
    case 1: line = lane; word = (lane % 4) * 8; break;
    case 2: line = lane; word = (lane % 2) * 8; break;
    case 3: line = lane; word = lane % 8; break;
    case 4: line = lane; word = (lane * 13) % 32; break;
    case 5: line = lane % 16; word = ((lane / 16) * 2 + lane % 2) * 8; break;
    case 6: line = lane / 4; word = (lane % 4) * 8; break;
    case 7: line = lane / 8; word = (lane / 8) * 8 + lane % 8; break;
    default: line = lane / 8; word = lane % 8; break;
  }
}

// OP: 0 load through L1 (ld.ca), 1 load from L2 (ld.cg), 2 store, 3 load through L1 that
// misses (ld.ca over a footprint L1 cannot hold: the line is allocated), 4 a load hit (ld.ca
// over `line_mask`'s low 512 lines) and a store of the same pattern elsewhere, per request.
template <int OP>
__global__ void slot_rate(unsigned* buf, unsigned line_mask, int pattern, int lines, int iters, long long* cycles, unsigned* sink) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned line_in_req, word;
  lane_place(pattern, lane, line_in_req, word);
  unsigned acc = 0;
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const unsigned req = (warp * (unsigned)iters + (unsigned)it) * 4u + (unsigned)u;
      const unsigned line = ((req * (unsigned)lines + line_in_req) * 2654435761u) & line_mask;
      unsigned* a = buf + (size_t)line * 32 + word;
      if (OP == 0 || OP == 3) acc += __ldca(a);
      else if (OP == 1) acc += __ldcg(a);
      else if (OP == 2) *a = req;
      else {
        acc += __ldca(buf + (size_t)(line & 511u) * 32 + word);
        buf[(size_t)(line | 512u) * 32 + word] = req;
      }
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
  if (acc == 0xdeadbeefu) sink[0] = acc;
}

struct Predicted {
  int lines, sector_slots, banks;
};

Predicted predict(int pattern) {
  std::set<unsigned> lines, slot[4], bank[32];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned line, word;
    lane_place(pattern, lane, line, word);
    lines.insert(line);
    slot[word / 8].insert(line);
    bank[word].insert(line);
  }
  Predicted p{static_cast<int>(lines.size()), 0, 0};
  for (auto& s : slot) p.sector_slots = std::max(p.sector_slots, static_cast<int>(s.size()));
  for (auto& b : bank) p.banks = std::max(p.banks, static_cast<int>(b.size()));
  return p;
}

int main(int argc, char** argv) {
  const bool quick = argc > 1;  // one timed launch per case (for a profiler pass)
  const unsigned l1_lines = 512, l2_lines = 1u << 17;  // 64 KiB (stays in L1), 16 MiB (in L2)
  unsigned* buf;
  cudaMalloc(&buf, size_t(l2_lines) * 128);
  cudaMemset(buf, 0, size_t(l2_lines) * 128);
  unsigned* sink;
  cudaMalloc(&sink, 4096);
  long long* cyc;
  cudaMalloc(&cyc, 4096);
  cudaFuncSetAttribute(slot_rate<0>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  cudaFuncSetAttribute(slot_rate<1>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  cudaFuncSetAttribute(slot_rate<2>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  cudaFuncSetAttribute(slot_rate<3>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  cudaFuncSetAttribute(slot_rate<4>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  const char* op_names[] = {"ld_l1", "ld_l2", "st", "ld_l1_miss", "ld_l1_and_st"};
  const int warps = 32, iters = quick ? 16 : 256;
  for (int op = 0; op < 5; ++op)
    for (int pattern = 0; pattern < kPatternCount; ++pattern) {
      const int lines = kPatterns[pattern].lines;
      const unsigned mask = (op == 0 ? l1_lines : l2_lines) - 1;
      auto launch = [&](int n) {
        if (op == 0) slot_rate<0><<<1, warps * 32>>>(buf, mask, pattern, lines, n, cyc, sink);
        else if (op == 1) slot_rate<1><<<1, warps * 32>>>(buf, mask, pattern, lines, n, cyc, sink);
        else if (op == 2) slot_rate<2><<<1, warps * 32>>>(buf, mask, pattern, lines, n, cyc, sink);
        else if (op == 3) slot_rate<3><<<1, warps * 32>>>(buf, mask, pattern, lines, n, cyc, sink);
        else slot_rate<4><<<1, warps * 32>>>(buf, mask, pattern, lines, n, cyc, sink);
      };
      long long best = -1;
      for (int r = 0; r < (quick ? 2 : 4); ++r) {  // the first run warms L1 and L2
        launch(iters);
        long long c = 0;
        cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost);
        if (r > 0 && (best < 0 || c < best)) best = c;
      }
      const Predicted p = predict(pattern);
      printf("{\"op\": \"%s\", \"pattern\": %d, \"what\": \"%s\", \"warps\": %d, \"sm_cycles_per_request\": %.3f, "
             "\"model_lines\": %d, \"model_sector_slots\": %d, \"model_banks\": %d}\n",
             op_names[op], pattern, kPatterns[pattern].name, warps, double(best) / (double(warps) * iters * 4), p.lines, p.sector_slots, p.banks);
    }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "l1_slot_probe: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
