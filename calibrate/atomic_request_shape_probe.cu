// The L2's atomic rate by the shape of each warp's request: how many lanes, sectors and lines one
// RED.ADD (u32) request spreads over, with the grid's requests spread over every L2 slice alike.
// The rate curves of calibrate/microbench.cu vary the addresses of the whole grid (k words or k
// lines shared by every CTA); the atomics model takes their rate at the grid's spread and counts
// one L2 pass per sector of a request (lanes on distinct words of a sector share it). A
// histogram whose CTAs each update their own bins (HeCBench histogram_gmem_atomics, 3 channels,
// train part: 0.73x from its trace) spreads its requests over thousands of lines, yet took 1.4x
// the model's time: is it the request's shape (20 sectors over 8 lines) that costs?
//
// Every CTA owns 32 words a thread (8,192 for 256 threads; the grid's 1,056 x 256 threads, in CTAs
// of any size, hold 34.6 MB, inside the L2, zeroed first so that no update waits for DRAM). A warp's request falls in a 256-word chunk of its CTA's region
// (1,024 for the line-apart shapes) that moves with the warp and the step, so no two warps of a
// CTA update one chunk at once. Shapes (lane l, step hash r):
//   random256   lanes at random over the chunk's 256 words (8 lines): the histogram's request
//   random1024  lanes at random over 1,024 words (32 lines)
//   line        lane l on word l: one line, 4 sectors
//   sector8     lane l on word 8 l: one lane a sector, 32 sectors over 8 lines
//   sector8r    lane l on a random word of sector l: the same, the word within it at random
//   line32      lane l on word 32 l: one lane a line, 32 lines
//   word        every lane on one word of the chunk: 32 passes on one sector
//   random256cta  as random256, but every warp of the CTA in the same three chunks in turn (the
//                 histogram's three channels, which its CTA's warps all update)
//   wordcta     every lane of every warp of the CTA on one word of those chunks in turn (a
//               histogram of uniform data privatised per CTA: all its updates on one bin)
// Prints per shape the lane updates per ns and per SM-clock cycle (at the clock given, 1980 MHz
// by default), the model's passes per request and passes per cycle. Run under Nsight Compute
// (`ncu --metrics lts__t_sectors_op_red.sum,lts__t_requests_op_red.sum`) for the L2's own count.
// Usage: atomic_request_shape_probe [clock_mhz [shape|-1 [threads_per_cta]]]; with threads per
// CTA from 32 to 1024, random256cta says how the rate falls with the warps that share lines.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_check.cuh"
#include "event_timing.cuh"
#include "hash_mix.cuh"

namespace {

constexpr unsigned kWordsPerThread = 32;

enum Shape { random256, random1024, line, sector8, sector8r, line32, word, random256cta, wordcta, kShapes };
const char* kNames[kShapes] = {"random256", "random1024", "line", "sector8", "sector8r", "line32", "word", "random256cta", "wordcta"};

__global__ void red_shape(unsigned* bins, int shape, int steps, unsigned region_words) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  unsigned* region = bins + static_cast<size_t>(blockIdx.x) * region_words;
  const unsigned chunk = (shape == random1024 || shape == line32) ? 1024 : 256;
  const unsigned chunks = region_words / chunk;
  const unsigned seed = mix(blockIdx.x * blockDim.x + threadIdx.x + 1);
  for (int i = 0; i < steps; ++i) {
    const unsigned r = mix(seed + static_cast<unsigned>(i) * 0x9e3779b9u);
    unsigned w;
    switch (shape) {
      case random256:
      case random256cta: w = r & 255; break;
      case random1024: w = r & 1023; break;
      case line: w = lane; break;
      case sector8: w = lane * 8; break;
      case sector8r: w = lane * 8 + (r & 7); break;
      case line32: w = lane * 32; break;
      default: w = 0; break;
    }
    const unsigned c = shape == random256cta || shape == wordcta ? static_cast<unsigned>(i) % 3 : (warp + static_cast<unsigned>(i) * warps) % chunks;
    atomicAdd(region + c * chunk + w, 1u);  // result unused: RED.E.ADD
  }
}

// The model's L2 passes for one request (include/gpuperf/model/memory.hpp atomic_sector_passes):
// per 32 B sector, the most lanes on one of its words. Expected over the shape's lanes.
double model_passes(int shape) {
  if (shape == line) return 4;
  if (shape == sector8 || shape == sector8r || shape == line32 || shape == word || shape == wordcta) return 32;
  const unsigned words = shape == random1024 ? 1024 : 256;
  unsigned state = 12345;
  double total = 0;
  const int trials = 20000;
  for (int t = 0; t < trials; ++t) {
    static unsigned count[1024];
    std::memset(count, 0, sizeof count);
    for (int l = 0; l < 32; ++l) {
      state = state * 1664525u + 1013904223u;
      count[(state >> 8) % words]++;
    }
    for (unsigned s = 0; s < words / 8; ++s) {
      unsigned most = 0;
      for (unsigned k = 0; k < 8; ++k) most = count[s * 8 + k] > most ? count[s * 8 + k] : most;
      total += most;
    }
  }
  return total / trials;
}

}  // namespace

int main(int argc, char** argv) {
  const double clock_mhz = argc > 1 ? std::atof(argv[1]) : 1980.0;
  const int only = argc > 2 ? std::atoi(argv[2]) : -1;  // one shape (for Nsight Compute), or all
  const int threads = argc > 3 ? std::atoi(argv[3]) : 256;
  if (threads < 32 || threads > 1024 || threads % 32 != 0) {
    std::fprintf(stderr, "threads per CTA must be a multiple of 32 in 32..1024, not %d\n", threads);
    return 2;
  }
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int ctas = sms * 8 * 256 / threads, steps = 256;
  const unsigned region_words = kWordsPerThread * static_cast<unsigned>(threads);
  unsigned* bins = nullptr;
  const size_t words = static_cast<size_t>(ctas) * region_words;
  CK(cudaMalloc(&bins, words * sizeof(unsigned)));
  std::printf("# %d CTAs of %d threads, %d steps, %zu MB of bins, clock %.0f MHz\n", ctas, threads, steps, words * 4 >> 20, clock_mhz);
  std::printf("shape\tupdates_per_ns\tupdates_per_cycle\tmodel_passes_per_request\tmodel_passes_per_cycle\tbest_ms\n");
  for (int s = 0; s < kShapes; ++s) {
    if (only >= 0 && s != only) continue;
    red_shape<<<ctas, threads>>>(bins, s, 8, region_words);  // warm-up
    CK(cudaDeviceSynchronize());
    const LaunchTimes t = time_launches(5, [&](int) { CK(cudaMemset(bins, 0, words * sizeof(unsigned))); return 0; },
                                        [&](int) { red_shape<<<ctas, threads>>>(bins, s, steps, region_words); });
    CK(cudaGetLastError());
    const double updates = static_cast<double>(ctas) * threads * steps;
    const double per_ns = updates / (t.best_ms * 1e6);
    const double passes = model_passes(s);
    std::printf("%s\t%.3f\t%.3f\t%.2f\t%.3f\t%.4f\n", kNames[s], per_ns, per_ns * 1e3 / clock_mhz, passes,
                per_ns * 1e3 / clock_mhz * passes / 32.0, t.best_ms);
  }
  CK(cudaFree(bins));
  return 0;
}
