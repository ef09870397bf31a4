#include "core/cpu_roofs.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/cpu_kernels.hpp"
#include "core/error.hpp"
#include "core/grid.hpp"

namespace se {

std::string CpuRoofs::copy_name() const {
  return fmt::format("copy, {} thread{}, {} non-temporal stores", threads, threads == 1 ? "" : "s", to_string(isa));
}
std::string CpuRoofs::fma_name() const {
  return fmt::format("CPU FP64 {} ({}, {} thread{})", isa == CpuIsa::Baseline ? "multiply+add" : "FMA", to_string(isa),
                     threads, threads == 1 ? "" : "s");
}
std::string CpuRoofs::device() const {
  return fmt::format("{} (CPU, {} thread{}, {})", cpu, threads, threads == 1 ? "" : "s", to_string(isa));
}

CpuRoofs measure_cpu_roofs(const CpuRoofOptions& options) {
  using clock = std::chrono::steady_clock;
  const cpu_kernels::Set& k = cpu_kernels::kernels(options.isa);
  CpuRoofs r;
  r.cpu = cpu_model_name();
  r.isa = options.isa;
  r.threads = options.threads > 0 ? options.threads : cpu_thread_count();
  const auto go_on = [&] { return !options.keep_going || options.keep_going(); };

  // Copy: each thread its own slice, touched first by that thread; the best of a few repeats (a roof measured
  // while something else had the cores would sit under the stencils measured later). The two arrays lie half a
  // 4 KiB page apart (mod 4 KiB), as a tuned copy places them: with source and destination at the same offset in
  // their pages the loads wait on the stores' addresses (4 KiB aliasing) and the copy moves a sixth less.
  const std::int64_t n = std::max<std::int64_t>(std::int64_t{8} << 20, cpu_llc_bytes() / 2); // 4 x LLC bytes
  r.copy_bytes = static_cast<double>(n) * sizeof(double);
  check_host_memory(static_cast<std::uint64_t>(n) * 2 * sizeof(double), "the CPU copy probe");
  constexpr std::int64_t kApart = 256; // doubles: 2 KiB
  cpu_kernels::DoubleBuffer src_buffer = cpu_kernels::allocate_doubles(static_cast<std::size_t>(n)),
                           dst_buffer = cpu_kernels::allocate_doubles(static_cast<std::size_t>(n + kApart));
  double* src = src_buffer.get();
  double* dst = dst_buffer.get() + kApart;
  const int threads = r.threads;
  const auto slice = [n](int t, int of) { return n * t / of / 8 * 8; };
#pragma omp parallel num_threads(threads)
  {
    const int team = omp_get_num_threads(), me = omp_get_thread_num();
    const std::int64_t a = slice(me, team), b = me + 1 == team ? n : slice(me + 1, team);
    std::fill(src + a, src + b, 1.0);
    std::fill(dst + a, dst + b, 0.0);
  }
  const int passes = std::max(1, options.copy_passes);
  for (int rep = 0; rep < options.copy_repeats && go_on(); ++rep) {
    const auto t0 = clock::now();
#pragma omp parallel num_threads(threads)
    {
      const int team = omp_get_num_threads(), me = omp_get_thread_num();
      const std::int64_t a = slice(me, team), b = me + 1 == team ? n : slice(me + 1, team);
      double *from = src, *to = dst;
      for (int pass = 0; pass < passes; ++pass) {
        k.copy(to + a, from + a, b - a, true);
        cpu_kernels::store_fence();
        std::swap(from, to);
        if (pass + 1 < passes) {
#pragma omp barrier
        }
      }
    }
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > 0) r.copy_gbs = std::max(r.copy_gbs, 2.0 * r.copy_bytes * passes / s / 1e9);
    if (passes % 2 == 1) std::swap(src, dst);
  }

  // Multiply-adds: kMultiplyAddChains independent vector chains per thread, in registers.
  const std::int64_t iters = 2'000'000;
  for (int rep = 0; rep < options.fma_repeats && go_on(); ++rep) {
    std::vector<double> sink(static_cast<std::size_t>(threads), 0.0);
    int team_size = 1;
    const auto t0 = clock::now();
#pragma omp parallel num_threads(threads)
    {
      const int me = omp_get_thread_num();
#pragma omp master
      team_size = omp_get_num_threads();
      sink[static_cast<std::size_t>(me)] = k.multiply_add(iters, me);
    }
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    double check = 0;
    for (double v : sink) check += v;
    const double flops = 2.0 * cpu_kernels::kMultiplyAddChains * vector_doubles(options.isa) * iters * team_size;
    if (s > 0 && std::isfinite(check)) r.fma_gflops = std::max(r.fma_gflops, flops / s / 1e9);
  }
  return r;
}

} // namespace se
