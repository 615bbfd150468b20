// Probe (not a table group): which pipe the opcodes that the ISA table classed by analogy issue
// to on sm_90 (VIADD, PRMT, IMAD's forms, IABS, FMNMX, FSETP/FSEL, I2FP, F2FP, VIMNMX3, HFMA2,
// HADD2). ptxas for sm_90 emits VIADD for most adds of an immediate and PRMT for every sign or
// zero extension of a byte or half, so both are common in real kernels (HeCBench convolution1D's
// conv1d<short>: 3 VIADD and 3 PRMT in its 16-instruction loop).
//
// Every kernel runs 8 independent chains a thread, 1,024 threads on every SM (8 warps a
// sub-partition), and reports the cycles of the slowest CTA over the warp instructions of one
// sub-partition: an opcode's issue interval. The mixes interleave 4 chains of one opcode with
// 4 of another: on one pipe their intervals add (the mix takes their mean), on two pipes the
// slower one alone sets the pace (the mix takes half of it). The SASS of each kernel and
// Nsight Compute's instructions by pipe, which the driver script saves, show what ptxas made of
// the PTX and where it issued.
//
//   nvcc -O3 -arch=sm_90 -o alu_pipe_probe calibrate/alu_pipe_probe.cu && ./alu_pipe_probe
// Output: one JSON object per line.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.cuh"

constexpr int kSteps = 256;  // steps of each chain a timed pass (unrolled)
constexpr int kPasses = 16;

// One step of each kind on x (y: a value the compiler cannot see).
#define OP_LOP3(x, y) asm volatile("lop3.b32 %0, %0, %1, %1, 0x96;" : "+r"(x) : "r"(y))
// An add of an immediate (ptxas may fold a chain of them: the SASS shows) and of a value the
// same for every thread (a uniform register, as `VIADD R0, R6, UR4`).
#define OP_VIADD(x, y) do { (void)(y); asm volatile("add.u32 %0, %0, 0x1234567;" : "+r"(x)); } while (0)
#define OP_VIADD_U(x, y) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y))
#define OP_PRMT(x, y) asm volatile("prmt.b32 %0, %0, %1, 0x5140;" : "+r"(x) : "r"(y))
#define OP_FFMA(x, y) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x) : "f"(y))
#define OP_IMAD(x, y) asm volatile("mad.lo.u32 %0, %0, %1, %1;" : "+r"(x) : "r"(y))

// Steps of two dependent instructions: an add of an immediate that ptxas cannot fold into the
// next one's (it emits VIADD), then a LOP3, an IMAD or an FFMA (on the add's bits). On one pipe
// with the second instruction the pair takes the sum of their intervals; on another, the
// longer of the two.
#define OP_VIADD_LOP3(x, y) asm volatile("add.u32 %0, %0, 0x1234567; lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(y * 3u))
#define OP_VIADD_IMAD(x, y) asm volatile("add.u32 %0, %0, 0x1234567; mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(y * 3u))
#define OP_VIADD_FFMA(x, y) \
  asm volatile("{.reg .f32 f; add.u32 %0, %0, 0x1234567; mov.b32 f, %0; fma.rn.f32 f, f, %1, %1; mov.b32 %0, f;}" : "+r"(x) : "f"(__uint_as_float(y)))
#define OP_LOP3_LOP3(x, y) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96; lop3.b32 %0, %0, %2, %1, 0x69;" : "+r"(x) : "r"(y), "r"(y * 3u))

// Opcodes the ISA table classes by analogy, each in a chain of its own or (where ptxas would
// fold or re-pick it) after a LOP3: Nsight Compute's instructions by pipe
// (sm__inst_executed_pipe_{alu,fma,fmaheavy,fmalite}) beside the SASS's opcode counts say where
// each goes, the timings how fast.
#define OP_SHL_LOP3(x, y) asm volatile("mul.lo.u32 %0, %0, 8; lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(y * 3u))
#define OP_ADDR_LOP3(x, y) asm volatile("add.u32 %0, %0, %1; lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(y * 3u))
#define OP_FMNMX(x, y) asm volatile("min.f32 %0, %0, %1;" : "+f"(x) : "f"(y))
#define OP_FSETP_FSEL(x, y) asm volatile("{.reg .pred p; setp.lt.f32 p, %0, %1; selp.f32 %0, %1, %0, p;}" : "+f"(x) : "f"(y))
#define OP_ISETP_SEL(x, y) asm volatile("{.reg .pred p; setp.lt.u32 p, %0, %1; selp.b32 %0, %1, %0, p;}" : "+r"(x) : "r"(y))
#define OP_IMNMX(x, y) asm volatile("min.s32 %0, %0, %1;" : "+r"(x) : "r"(y))
#define OP_IABS_LOP3(x, y) asm volatile("abs.s32 %0, %0; lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(y * 3u))
#define OP_I2FP(x, y) do { (void)(y); asm volatile("{.reg .f32 f; cvt.rn.f32.s32 f, %0; mov.b32 %0, f;}" : "+r"(x)); } while (0)
#define OP_F2FP(x, y) asm volatile("cvt.rn.bf16x2.f32 %0, %1, %0;" : "+r"(x) : "f"(__uint_as_float(y)))
#define OP_HFMA2(x, y) asm volatile("fma.rn.f16x2 %0, %0, %1, %1;" : "+r"(x) : "r"(y))
#define OP_HADD2(x, y) asm volatile("add.rn.f16x2 %0, %0, %1;" : "+r"(x) : "r"(y))

// 8 chains: a[0..3] take step A, b[0..3] step B (A == B: the opcode alone).
#define PIPE_KERNEL(NAME, TA, OPA, TB, OPB)                                                     \
  __global__ void NAME(long long* cycles, unsigned* sink, unsigned seed) {                      \
    TA a0 = (TA)(seed + threadIdx.x), a1 = a0 + (TA)1, a2 = a0 + (TA)2, a3 = a0 + (TA)3;        \
    TB b0 = (TB)(seed ^ threadIdx.x), b1 = b0 + (TB)5, b2 = b0 + (TB)6, b3 = b0 + (TB)7;        \
    const TA ya = (TA)(seed | 1u);                                                              \
    const TB yb = (TB)(seed | 3u);                                                              \
    __syncthreads();                                                                            \
    const long long t0 = clock64();                                                             \
    for (int p = 0; p < kPasses; ++p) {                                                         \
      _Pragma("unroll") for (int i = 0; i < kSteps; ++i) {                                      \
        OPA(a0, ya); OPB(b0, yb); OPA(a1, ya); OPB(b1, yb);                                     \
        OPA(a2, ya); OPB(b2, yb); OPA(a3, ya); OPB(b3, yb);                                     \
      }                                                                                         \
    }                                                                                           \
    __syncthreads();                                                                            \
    const long long t1 = clock64();                                                             \
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;                                         \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned)(a0 + a1 + a2 + a3) ^ (unsigned)(b0 + b1 + b2 + b3); \
  }

PIPE_KERNEL(pipe_lop3, unsigned, OP_LOP3, unsigned, OP_LOP3)
PIPE_KERNEL(pipe_viadd, unsigned, OP_VIADD, unsigned, OP_VIADD)
PIPE_KERNEL(pipe_viadd_u, unsigned, OP_VIADD_U, unsigned, OP_VIADD_U)
PIPE_KERNEL(pipe_viadd_u_lop3, unsigned, OP_VIADD_U, unsigned, OP_LOP3)
PIPE_KERNEL(pipe_viadd_u_ffma, unsigned, OP_VIADD_U, float, OP_FFMA)
PIPE_KERNEL(pipe_viadd_then_lop3, unsigned, OP_VIADD_LOP3, unsigned, OP_VIADD_LOP3)
PIPE_KERNEL(pipe_viadd_then_imad, unsigned, OP_VIADD_IMAD, unsigned, OP_VIADD_IMAD)
PIPE_KERNEL(pipe_viadd_then_ffma, unsigned, OP_VIADD_FFMA, unsigned, OP_VIADD_FFMA)
PIPE_KERNEL(pipe_lop3_then_lop3, unsigned, OP_LOP3_LOP3, unsigned, OP_LOP3_LOP3)
PIPE_KERNEL(pipe_shl_then_lop3, unsigned, OP_SHL_LOP3, unsigned, OP_SHL_LOP3)
PIPE_KERNEL(pipe_addr_then_lop3, unsigned, OP_ADDR_LOP3, unsigned, OP_ADDR_LOP3)
PIPE_KERNEL(pipe_fmnmx, float, OP_FMNMX, float, OP_FMNMX)
PIPE_KERNEL(pipe_fsetp_then_fsel, float, OP_FSETP_FSEL, float, OP_FSETP_FSEL)
PIPE_KERNEL(pipe_isetp_then_sel, unsigned, OP_ISETP_SEL, unsigned, OP_ISETP_SEL)
PIPE_KERNEL(pipe_imnmx, unsigned, OP_IMNMX, unsigned, OP_IMNMX)
PIPE_KERNEL(pipe_iabs_then_lop3, unsigned, OP_IABS_LOP3, unsigned, OP_IABS_LOP3)
PIPE_KERNEL(pipe_i2fp, unsigned, OP_I2FP, unsigned, OP_I2FP)
PIPE_KERNEL(pipe_f2fp, unsigned, OP_F2FP, unsigned, OP_F2FP)
PIPE_KERNEL(pipe_hfma2, unsigned, OP_HFMA2, unsigned, OP_HFMA2)
PIPE_KERNEL(pipe_hadd2, unsigned, OP_HADD2, unsigned, OP_HADD2)
PIPE_KERNEL(pipe_prmt, unsigned, OP_PRMT, unsigned, OP_PRMT)
PIPE_KERNEL(pipe_ffma, float, OP_FFMA, float, OP_FFMA)
PIPE_KERNEL(pipe_imad, unsigned, OP_IMAD, unsigned, OP_IMAD)
PIPE_KERNEL(pipe_lop3_ffma, unsigned, OP_LOP3, float, OP_FFMA)
PIPE_KERNEL(pipe_lop3_imad, unsigned, OP_LOP3, unsigned, OP_IMAD)
PIPE_KERNEL(pipe_viadd_lop3, unsigned, OP_VIADD, unsigned, OP_LOP3)
PIPE_KERNEL(pipe_viadd_ffma, unsigned, OP_VIADD, float, OP_FFMA)
PIPE_KERNEL(pipe_viadd_imad, unsigned, OP_VIADD, unsigned, OP_IMAD)
PIPE_KERNEL(pipe_prmt_lop3, unsigned, OP_PRMT, unsigned, OP_LOP3)
PIPE_KERNEL(pipe_prmt_ffma, unsigned, OP_PRMT, float, OP_FFMA)
PIPE_KERNEL(pipe_prmt_imad, unsigned, OP_PRMT, unsigned, OP_IMAD)
PIPE_KERNEL(pipe_viadd_prmt, unsigned, OP_VIADD, unsigned, OP_PRMT)

using Kernel = void (*)(long long*, unsigned*, unsigned);

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount, threads = 1024;
  long long* cycles = nullptr;
  unsigned* sink = nullptr;
  CK(cudaMalloc(&cycles, sizeof(long long) * sms));
  CK(cudaMalloc(&sink, sizeof(unsigned) * sms * threads));
  struct Case { const char* name; Kernel k; };
  const Case cases[] = {{"lop3", pipe_lop3},           {"viadd", pipe_viadd},           {"prmt", pipe_prmt},
                        {"ffma", pipe_ffma},           {"imad", pipe_imad},             {"lop3+ffma", pipe_lop3_ffma},
                        {"lop3+imad", pipe_lop3_imad}, {"viadd+lop3", pipe_viadd_lop3}, {"viadd+ffma", pipe_viadd_ffma},
                        {"viadd+imad", pipe_viadd_imad}, {"prmt+lop3", pipe_prmt_lop3}, {"prmt+ffma", pipe_prmt_ffma},
                        {"prmt+imad", pipe_prmt_imad}, {"viadd+prmt", pipe_viadd_prmt},
                        {"viadd_u", pipe_viadd_u},     {"viadd_u+lop3", pipe_viadd_u_lop3}, {"viadd_u+ffma", pipe_viadd_u_ffma},
                        {"viadd>lop3", pipe_viadd_then_lop3}, {"viadd>imad", pipe_viadd_then_imad}, {"viadd>ffma", pipe_viadd_then_ffma},
                        {"lop3>lop3", pipe_lop3_then_lop3},   {"shl>lop3", pipe_shl_then_lop3}, {"addr>lop3", pipe_addr_then_lop3},
                        {"fmnmx", pipe_fmnmx},               {"fsetp>fsel", pipe_fsetp_then_fsel},   {"isetp>sel", pipe_isetp_then_sel},
                        {"imnmx", pipe_imnmx},               {"iabs>lop3", pipe_iabs_then_lop3}, {"i2fp", pipe_i2fp},
                        {"f2fp", pipe_f2fp},                 {"hfma2", pipe_hfma2},             {"hadd2", pipe_hadd2}};
  std::vector<long long> host(sms);
  // Warp instructions a sub-partition issues: 8 warps x 8 chains x steps x passes, two a step
  // for the pairs (name with '>').
  const double per_smsp = 8.0 * 8.0 * kSteps * kPasses;
  for (const Case& c : cases) {
    double best = 1e300;
    for (int rep = 0; rep < 5; ++rep) {
      c.k<<<sms, threads>>>(cycles, sink, 0x9e3779b9u + rep);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(host.data(), cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
      long long slowest = 0;
      for (long long v : host) slowest = v > slowest ? v : slowest;
      best = slowest < best ? double(slowest) : best;
    }
    std::printf("{\"probe\": \"alu_pipe\", \"gpu\": \"%s\", \"case\": \"%s\", \"cycles\": %.0f, \"cycles_per_warp_instruction\": %.4f}\n", prop.name,
                c.name, best, best / (per_smsp * (std::strchr(c.name, '>') ? 2 : 1)));
  }
  return 0;
}
