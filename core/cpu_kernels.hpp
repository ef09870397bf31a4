// The CPU's hot loops, compiled once per vector ISA (cpu_kernels_isa.inc, included by core/cpu_kernels.cpp under
// baseline x86-64 and by cpu_kernels_avx2.cpp / cpu_kernels_avx512.cpp under target options) and picked at run
// time, so one portable binary runs the widest vectors the machine has. Used by the FP64 reference
// (core/reference.cpp) and the CPU roof probes (core/cpu_roofs.cpp), so the roofline's roofs and the reference run the
// same instructions.
//
// Every ISA computes the same numbers: out = ((0 + w0*a0) + w1*a1) + ..., taps in the order given, each product
// rounded and then added (the file is compiled with -ffp-contract=off: no fused multiply-add), so results are
// bit-identical across ISAs and with a plain scalar loop over taps in weight-array order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/cpu_features.hpp"

namespace se::cpu_kernels {

// What a row's results are rounded to before they are stored (the grid's storage precision).
enum class Rounding { None, FP32, FP16 };

// A stencil's taps as offsets (in elements, from an output point's index to its neighbour's) and weights.
struct Taps {
  const std::ptrdiff_t* offset = nullptr;
  const double* weight = nullptr;
  int count = 0;
  // With `prefetch`, the row kernel asks for the lines at in + prefetch_offset, prefetch_ahead doubles ahead, into
  // L2: the largest offset, whose row or plane the step reads from memory for the first time.
  bool prefetch = false;
  std::ptrdiff_t prefetch_offset = 0;
  std::ptrdiff_t prefetch_ahead = 1024;
  // Rows too long for L1 to hold the rows one output row reads until the next output row reads them again (a 2D
  // grid's rows of thousands of points): with `prefetch` the trailing tap's row (the smallest offset, read
  // longest ago, in L2 by now) is asked into L1 a few lines ahead, and the presets' kernels load every tap
  // directly, two vectors at a time. On short rows they keep the centre row in registers, four vectors at a time.
  bool long_rows = false;
};

// `count` rows of `n` points, row i at out + i * stride and in + i * stride.
struct Rows {
  double* out = nullptr;
  const double* in = nullptr;
  std::int64_t n = 0, count = 1;
  std::ptrdiff_t stride = 0;
  // For the prefetch (Taps::prefetch): with `whole_rows` the rows fill their stride (a grid's full rows: only
  // halo and padding lie between them), so the prefetch covers those lines too, as one run of count * stride
  // doubles. That run continues past the last row at in + next (the caller's next rows: a 3D sweep's next plane or
  // next block); next < 0: right after the last row.
  bool whole_rows = false;
  std::ptrdiff_t next = -1;
  // Non-zero: every row is computed twice, at out/in and at out + pair/in + pair (a 3D sweep's two planes, pair
  // their distance), chunk after chunk, so the input rows the two share (their planes between) are read from L1
  // by the second where the first brought them in; each output point is computed as alone. With the prefetch the
  // caller's prefetch_offset names the second row's leading tap; the first's (prefetch_offset - pair) is asked too.
  std::ptrdiff_t pair = 0;
};

struct Set {
  CpuIsa isa = CpuIsa::Baseline;
  // out[x] = sum over taps k (in order) of weight[k] * in[x + offset[k]], for every x of the rows, rounded as
  // asked. It may load (and not use) up to one vector of vector_doubles(isa) doubles before and after what the
  // taps read: the buffers need that much room. With `stream` the vector-aligned part of each row is written with non-temporal stores (no read for
  // ownership, not kept in cache): for grids far larger than the last-level cache. FP16 rounding never streams.
  void (*rows)(const Rows& rows, const Taps& taps, Rounding rounding, bool stream) = nullptr;
  // dst[0, n) = src[0, n); non-temporal stores with `stream`.
  void (*copy)(double* dst, const double* src, std::int64_t n, bool stream) = nullptr;
  // `iters` rounds of x = x * a + b on kMultiplyAddChains independent vectors of vector_doubles(isa) lanes
  // (fused multiply-adds on AVX2 and AVX-512, a multiply and an add on SSE2); returns the lanes' sum.
  double (*multiply_add)(std::int64_t iters, double seed) = nullptr;
};

// Independent multiply-add chains per thread: enough to cover the FMA latency on two pipes (4 cycles x 2).
inline constexpr int kMultiplyAddChains = 12;

// Doubles for the kernels: 64-byte aligned; large ones on 2 MiB boundaries with transparent huge pages asked for
// (a 3D stencil's planes lie a page or more apart, and 4 KiB pages would cost a TLB miss every few rows).
// Uninitialised. Throws InputError when the memory cannot be had.
struct FreeDoubles {
  void operator()(double* p) const;
};
using DoubleBuffer = std::unique_ptr<double[], FreeDoubles>;
DoubleBuffer allocate_doubles(std::size_t count);

// The kernels of one ISA; throws InputError when this CPU does not run it.
const Set& kernels(CpuIsa isa);
// Orders this thread's non-temporal stores before its later stores (sfence): before a barrier that lets
// other threads read what it streamed.
void store_fence();

} // namespace se::cpu_kernels
