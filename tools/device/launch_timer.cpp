// gpuperf launch timer: times each kernel launch of an unmodified CUDA program in two ways.
//  - run time: the launch's own duration in the program's run, from CUPTI's kernel activity
//    records (start to end on the GPU; caches as the program left them). Always recorded.
//  - replay time (GPUPERF_TIMER_REPLAY=1): the mean of back-to-back replays of that same launch
//    between two CUDA events (warm caches), which is what a CUDA-event timing loop around one
//    kernel reports. Replays change the program's data like any repeated launch would: a kernel
//    whose second run is not valid (a decoupled look-back scan whose tile counters must be reset,
//    say) can fault, so replays run in a separate pass from every other measurement.
//
// Loaded with CUDA_INJECTION64_PATH=launch_timer.so. It subscribes to CUPTI's driver-API
// callbacks for the kernel-launch entry points, so it sees every launch: the runtime's (static
// or shared), the libraries' (cuBLAS, cuDNN) and JIT-compiled ones (Triton) alike. On the exit
// of launch N (1-based, in API call order, as Nsight Compute numbers them) it waits for that
// launch (the warm-up), then replays it R times between two events on the same stream and
// writes one line per launch:
//   launch <TAB> mangled name <TAB> grid <TAB> block <TAB> dynamic shared bytes <TAB> mean us <TAB> R
// (R = 0 and us = the run time when replays are off). Environment:
//   GPUPERF_TIMER_OUT        output file (default launch_times.tsv)
//   GPUPERF_TIMER_LAUNCHES   time launches 1..N only (default 40)
//   GPUPERF_TIMER_REPLAY     1: replay each launch (default 0: run times only)
//   GPUPERF_TIMER_BUDGET_MS  replay time per launch, from which R is chosen (default 100)
// Replays change the program's data like any repeated launch would; launches after a replayed
// one can therefore differ from an untimed run, so consumers match launches by id *and* name.
#include <cuda.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string name;
  unsigned grid[3], block[3], shared;
  double replay_us = -1;
  int reps = 0;
  double run_us = -1;  // from the activity record
};

struct State {
  std::string path = "launch_times.tsv";
  unsigned long long launches = 0;
  unsigned long long limit = 40;
  bool replay = false;
  double budget_ms = 100.0;
  std::map<unsigned long long, Row> rows;             // by launch number
  std::map<uint32_t, unsigned long long> launch_of;   // CUPTI correlation id -> launch number
  std::mutex mutex;
};

State& state() {
  static State s;
  return s;
}

thread_local bool in_replay = false;

struct Launch {
  CUfunction f = nullptr;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned shared = 0;
  CUstream stream = nullptr;
  void** params = nullptr;
  void** extra = nullptr;
  const CUlaunchConfig* config = nullptr;  // cuLaunchKernelEx
};

bool decode(CUpti_CallbackId id, const void* p, Launch& l) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* a = static_cast<const cuLaunchKernel_params*>(p);
      l.f = a->f;
      l.grid[0] = a->gridDimX; l.grid[1] = a->gridDimY; l.grid[2] = a->gridDimZ;
      l.block[0] = a->blockDimX; l.block[1] = a->blockDimY; l.block[2] = a->blockDimZ;
      l.shared = a->sharedMemBytes; l.stream = a->hStream; l.params = a->kernelParams; l.extra = a->extra;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* a = static_cast<const cuLaunchKernelEx_params*>(p);
      if (!a->config) return false;
      l.f = a->f; l.config = a->config;
      l.grid[0] = a->config->gridDimX; l.grid[1] = a->config->gridDimY; l.grid[2] = a->config->gridDimZ;
      l.block[0] = a->config->blockDimX; l.block[1] = a->config->blockDimY; l.block[2] = a->config->blockDimZ;
      l.shared = a->config->sharedMemBytes; l.stream = a->config->hStream; l.params = a->kernelParams; l.extra = a->extra;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
      auto* a = static_cast<const cuLaunchCooperativeKernel_params*>(p);
      l.f = a->f;
      l.grid[0] = a->gridDimX; l.grid[1] = a->gridDimY; l.grid[2] = a->gridDimZ;
      l.block[0] = a->blockDimX; l.block[1] = a->blockDimY; l.block[2] = a->blockDimZ;
      l.shared = a->sharedMemBytes; l.stream = a->hStream; l.params = a->kernelParams;
      return true;
    }
    default:
      return false;
  }
}

CUresult relaunch(CUpti_CallbackId id, const Launch& l) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return cuLaunchKernelEx(l.config, l.f, l.params, l.extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      return cuLaunchCooperativeKernel(l.f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                       l.shared, l.stream, l.params);
    default:
      return cuLaunchKernel(l.f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared,
                            l.stream, l.params, l.extra);
  }
}

// Mean time of `reps` back-to-back replays in microseconds, or a negative value on failure.
double time_replays(CUpti_CallbackId id, const Launch& l, int reps) {
  CUevent e0, e1;
  if (cuEventCreate(&e0, CU_EVENT_DEFAULT) != CUDA_SUCCESS) return -1;
  if (cuEventCreate(&e1, CU_EVENT_DEFAULT) != CUDA_SUCCESS) { cuEventDestroy(e0); return -1; }
  double us = -1;
  bool ok = cuEventRecord(e0, l.stream) == CUDA_SUCCESS;
  for (int i = 0; ok && i < reps; ++i) ok = relaunch(id, l) == CUDA_SUCCESS;
  ok = ok && cuEventRecord(e1, l.stream) == CUDA_SUCCESS && cuEventSynchronize(e1) == CUDA_SUCCESS;
  float ms = 0;
  if (ok && cuEventElapsedTime(&ms, e0, e1) == CUDA_SUCCESS) us = 1000.0 * ms / reps;
  cuEventDestroy(e0);
  cuEventDestroy(e1);
  return us;
}

void write_rows() {
  State& s = state();
  FILE* out = std::fopen(s.path.c_str(), "w");
  if (!out) return;
  for (const auto& [n, r] : s.rows)
    std::fprintf(out, "%llu\t%s\t%u,%u,%u\t%u,%u,%u\t%u\t%.4f\t%d\t%.4f\n", n, r.name.c_str(), r.grid[0], r.grid[1],
                 r.grid[2], r.block[0], r.block[1], r.block[2], r.shared, s.replay ? r.replay_us : r.run_us, r.reps, r.run_us);
  std::fclose(out);
}

constexpr size_t kActivityBuffer = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kActivityBuffer));
  *size = kActivityBuffer;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  State& s = state();
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(s.mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
    auto it = s.launch_of.find(k->correlationId);
    if (it == s.launch_of.end()) continue;  // a replay, or a launch past the limit
    s.rows[it->second].run_us = (k->end - k->start) / 1000.0;
  }
  std::free(buffer);
}

void flush_at_exit() {
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> lock(state().mutex);
  write_rows();
}

void CUPTIAPI on_launch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || in_replay) return;
  auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_EXIT) return;
  Launch l;
  if (!decode(id, info->functionParams, l)) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  unsigned long long n = ++s.launches;
  if (n > s.limit) return;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(l.stream, &capture) == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE) return;
  // Runtime launches pass a CUkernel where a CUfunction is expected (CUDA 12+).
  const char* name = nullptr;
  if ((cuFuncGetName(&name, l.f) != CUDA_SUCCESS || !name) &&
      (cuKernelGetName(&name, reinterpret_cast<CUkernel>(l.f)) != CUDA_SUCCESS || !name))
    name = "?";
  Row& row = s.rows[n];
  row.name = name;
  for (int i = 0; i < 3; ++i) { row.grid[i] = l.grid[i]; row.block[i] = l.block[i]; }
  row.shared = l.shared;
  s.launch_of[info->correlationId] = n;
  if (!s.replay) return;
  in_replay = true;
  if (cuCtxSynchronize() == CUDA_SUCCESS) {           // the program's own launch is the warm-up
    double probe = time_replays(id, l, 1);
    if (probe > 0) {
      row.reps = static_cast<int>(std::clamp(s.budget_ms * 1000.0 / probe, 3.0, 200.0));
      row.replay_us = time_replays(id, l, row.reps);
    }
  }
  in_replay = false;
  write_rows();  // after each replay: a later fault must not lose what was measured
}

}  // namespace

extern "C" int InitializeInjection() {
  State& s = state();
  if (const char* v = std::getenv("GPUPERF_TIMER_OUT")) s.path = v;
  if (FILE* probe = std::fopen(s.path.c_str(), "w")) {
    std::fclose(probe);
  } else {
    std::fprintf(stderr, "gpuperf launch timer: cannot write %s\n", s.path.c_str());
    return 0;
  }
  if (const char* v = std::getenv("GPUPERF_TIMER_LAUNCHES")) s.limit = std::strtoull(v, nullptr, 10);
  if (const char* v = std::getenv("GPUPERF_TIMER_REPLAY")) s.replay = std::string(v) == "1";
  if (const char* v = std::getenv("GPUPERF_TIMER_BUDGET_MS")) s.budget_ms = std::max(1.0, std::atof(v));
  CUpti_SubscriberHandle sub;
  if (cuptiSubscribe(&sub, on_launch, nullptr) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "gpuperf launch timer: cuptiSubscribe failed\n");
    return 0;
  }
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel})
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  std::atexit(flush_at_exit);
  return 1;
}
