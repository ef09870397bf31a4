// lorastencil-bench: one device call that measures the ceilings (copy bandwidth, FP64 MMA rate per shape),
// checks the LoRAStencil kernels against the FP64 reference (presets, random stencils, awkward sizes, both
// boundaries, 1 and 100 steps, output poisoned before every pass) and times the papers' sizes per fusion.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/method.hpp"
#include "core/reference.hpp"
#include "kernels/lorastencil/lora_gpu_runner.hpp"
#include "kernels/common/ceilings.hpp"

namespace se::lora_gpu {
namespace {

using nlohmann::json;

// Core's plan for the kernels' tile at depth `fused` (0: the cost model's choice).
LoraStencilPlan plan_at_depth(const Stencil& s, int fused) {
  LoraStencilOptions options = gpu_plan_options();
  options.fused_steps = fused;
  return plan_for_gpu(s, options);
}

// Positive weights summing to 1 (so 100 steps stay bounded); `symmetric` gives radially symmetric weights.
Stencil random_stencil(int dims, int radius, bool symmetric, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  Stencil s = make_stencil(dims, radius, fmt::format("random-{}d-r{}-{}", dims, radius, symmetric ? "sym" : "gen"));
  for_each_offset(s, [&](int dx, int dy, int dz) {
    if (symmetric && (dx < 0 || dy < 0 || dz < 0 || dy > dx || dz > dy)) return;
    const double w = u(rng);
    if (!symmetric) s.at(dx, dy, dz) = w;
    else
      for (const auto& p : symmetric_positions(dims, dx, dy, dz)) s.at(p[0], p[1], p[2]) = w;
  });
  return normalized(s);
}

// Positive weights on the axes only, drawn independently (not symmetric), summing to 1: a star whose planes
// take the cross split and, fused, the multinomial expansion.
Stencil random_star(int dims, int radius, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  Stencil s = make_stencil(dims, radius, fmt::format("random-star-{}d-r{}", dims, radius));
  s.at(0, 0, 0) = u(rng);
  for (int k = -radius; k <= radius; ++k)
    if (k != 0)
      for (int axis = 0; axis < dims; ++axis) s.at(axis == 0 ? k : 0, axis == 1 ? k : 0, axis == 2 ? k : 0) = u(rng);
  return normalized(s);
}

struct Check {
  std::string stencil, boundary, extent;
  int steps = 0, fused = 0;
  ErrorMetrics error;
  bool pass = false;
  std::string note;
};

Check run_check(const Stencil& s, const Extent& e, const Boundary& b, int steps, int fused, std::uint64_t seed) {
  Check c;
  c.stencil = s.name;
  c.boundary = b.kind == BoundaryKind::Dirichlet ? fmt::format("dirichlet={:g}", b.value) : std::string(to_string(b.kind));
  c.extent = e.to_string();
  c.steps = steps;
  std::vector<double> values = initial_values(e, InitialCondition::Random, seed);
  const std::vector<double> initial = values;
  std::vector<double> reference = values;
  try {
    RunnerOptions o;
    o.poison_each_pass = true;
    LoraGpuRunner runner(plan_at_depth(s, fused), e, b, o);
    c.fused = runner.fused_steps();
    runner.upload(values);
    runner.advance(steps);
    values = runner.download();
  } catch (const InputError& err) {
    c.note = err.what();
    return c;
  }
  ReferenceOptions ro;
  ro.boundary = b;
  reference_advance(s, e, reference, steps, Precision::FP64, ro);
  c.error = compare(values, reference);
  c.pass = c.error.finite && c.error.rel_l2 <= error_bound(s, Precision::FP64, steps, b, initial, reference);
  return c;
}

// Every preset with the cost model's fusion on awkward, exact-tile and tiny grids; each other fusion depth
// (its band fix and remainder pass), random symmetric and general stencils and random stars (unfused and fused
// twice) on the awkward grid.
std::vector<Check> correctness_suite(bool quick) {
  std::vector<Check> out;
  std::uint64_t seed = 1;
  // Dirichlet 0 is what the TMA's out-of-bounds fill gives for free: its tiles take the tensor-map box even at
  // the faces; other boundaries take it for interior tiles only (even nx) and copy face tiles row by row.
  const Boundary dirichlet{BoundaryKind::Dirichlet, 0.25}, periodic{BoundaryKind::Periodic, 0.0},
      zero{BoundaryKind::Dirichlet, 0.0};
  const auto extents_for = [&](int dims, bool all) -> std::vector<Extent> {
    std::vector<Extent> e; // odd and even awkward sizes first (odd nx: the cp.async path; even: bulk copies, TMA)
    switch (dims) {
    case 1: e = {parse_extent("100003"), parse_extent("100002"), parse_extent("4096"), parse_extent("23")}; break;
    case 2: e = {parse_extent("333x517"), parse_extent("334x518"), parse_extent("64x32"), parse_extent("13x9")}; break;
    default:
      e = {parse_extent("37x45x29"), parse_extent("38x46x30"), parse_extent("64x32x8"), parse_extent("9x10x11")};
      break;
    }
    if (!all) e.resize(2);
    return e;
  };
  const auto add = [&](const Stencil& s, int fused, bool all_extents) {
    for (const Extent& e : extents_for(s.dims, all_extents)) {
      bool fits = true; // the tiny grids are narrower than the widest presets (box-2d225p), which refuse them
      for (int axis = 0; axis < s.dims; ++axis) fits = fits && e.n[axis] >= 2 * s.radius + 1;
      if (!fits) continue;
      for (const Boundary& b : {dirichlet, periodic, zero})
        for (int steps : {1, 6, 100}) {
          if (quick && steps == 100 && !all_extents) continue;
          if (steps == 6 && !all_extents) continue; // 6 = T + 2 at T = 4: the remainder split (3 + 3)
          Check c = run_check(s, e, b, steps, fused, seed++);
          std::printf("check %-22s %-14s %-10s steps %3d T=%d  rel L2 %.2e  %s %s\n", c.stencil.c_str(),
                      c.boundary.c_str(), c.extent.c_str(), c.steps, c.fused, c.error.rel_l2,
                      c.pass ? "ok" : "FAIL", c.note.c_str());
          std::fflush(stdout);
          out.push_back(std::move(c));
        }
    }
  };
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    const int chosen = plan_for_gpu(s, gpu_plan_options()).fused_steps;
    add(s, chosen, true);
    for (int t = 1; t <= std::min(3, kMaxRadius / s.radius); ++t)
      if (t != chosen) add(s, t, false);
  }
  std::mt19937_64 rng(20240611);
  for (int dims = 1; dims <= 3; ++dims)
    for (bool symmetric : {true, false})
      for (int radius : {1, 2, 3}) add(random_stencil(dims, radius, symmetric, rng), 0, false);
  for (int dims = 2; dims <= 3; ++dims)
    for (int radius : {1, 2}) {
      const Stencil star = random_star(dims, radius, rng);
      add(star, 0, false);
      add(star, 2, false); // fused: the expansion's chains of 1D kernels of different lengths
    }
  return out;
}

Extent paper_extent(int dims) {
  return dims == 1 ? parse_extent("10240000") : dims == 2 ? parse_extent("10240x10240") : parse_extent("512x512x512");
}

json time_one(const Stencil& s, int fused, double copy_gbs, std::uint64_t seed) {
  const Extent e = paper_extent(s.dims);
  const Boundary b{BoundaryKind::Dirichlet, 0.0};
  LoraGpuRunner runner(plan_at_depth(s, fused), e, b, RunnerOptions{});
  const int T = runner.fused_steps();
  static std::map<std::string, std::vector<double>> inputs; // one random grid per size: drawing 1e8 values takes a second
  auto& cached = inputs[e.to_string()];
  if (cached.empty()) cached = initial_values(e, InitialCondition::Random, seed);
  const std::vector<double>& values = cached;
  // Correct at full size: one fused pass against the reference.
  runner.upload(values);
  runner.advance(T);
  const std::vector<double> got = runner.download();
  // The reference of T steps on this input, once per stencil and depth (a repeat timing reuses it).
  static std::map<std::string, std::vector<double>> references;
  std::vector<double>& reference = references[fmt::format("{} {}", s.name, T)];
  if (reference.empty()) {
    reference = values;
    ReferenceOptions ro;
    ro.boundary = b;
    reference_advance(s, e, reference, T, Precision::FP64, ro);
  }
  const ErrorMetrics err = compare(got, reference);
  // Timing: warm-up, then about 0.25 s per repeat, the median of 3.
  runner.upload(values);
  const double warm = runner.timed_advance(4 * T);
  const int steps = std::max(T, static_cast<int>(0.25 / std::max(warm / (4 * T), 1e-6)) / T * T);
  std::vector<double> seconds;
  for (int i = 0; i < 3; ++i) seconds.push_back(runner.timed_advance(steps));
  std::sort(seconds.begin(), seconds.end());
  const double gst = gstencils_per_second(e.points(), steps, seconds[1]);
  const double roof = copy_gbs / (16.0 / T);
  const GpuPass& p = runner.pass();
  const CostReport& cost = runner.plan().cost;
  // Core's cost model for this depth: max(bytes / bandwidth, tensor FLOPs / peak) per point and base step.
  double predicted = 0;
  for (const FusionCandidate& c : runner.plan().fusion_candidates)
    if (c.steps == T && c.estimated_ps_per_point > 0) predicted = 1e3 / c.estimated_ps_per_point;
  const int chosen = plan_for_gpu(s, gpu_plan_options()).fused_steps;
  json j = {{"stencil", s.name},
            {"cost_model_choice", chosen},
            {"extent", e.to_string()},
            {"fused_steps", T},
            {"fusion_rule", runner.plan().fusion_rule},
            {"steps", steps},
            {"seconds", seconds[1]},
            {"seconds_min", seconds.front()},
            {"seconds_max", seconds.back()},
            {"gstencils", gst},
            {"roof_gstencils", roof},
            {"fraction_of_roof", gst / roof},
            {"gbs_effective", gst * 16.0 / T},
            {"tensor_tflops", gst * p.counts.mma_per_point * 1024.0 / T / 1e3},
            {"blocks", runner.blocks()},
            {"rel_l2_one_pass", err.rel_l2},
            {"kernel_mma_per_point_pass", p.counts.mma_per_point},
            {"kernel_terms", p.describe()},
            {"cost_model_gstencils", predicted},
            {"plan_mma_per_point_step", cost.mma_per_point},
            {"plan_global_bytes_per_point_step", cost.global_bytes_per_point},
            {"plan_arithmetic_intensity", cost.arithmetic_intensity()}};
  std::printf("time  %-12s %-14s T=%d%s %8.1f GStencil/s (model %7.1f)  roof %7.1f (%4.0f%%)  TC %5.1f TFLOP/s  "
              "err %.1e  blocks %d\n",
              s.name.c_str(), e.to_string().c_str(), T, T == chosen ? "*" : " ", gst, predicted, roof, 100 * gst / roof,
              j["tensor_tflops"].get<double>(), err.rel_l2, runner.blocks());
  std::fflush(stdout);
  return j;
}

} // namespace
} // namespace se::lora_gpu

int main(int argc, char** argv) {
  using namespace se;
  using namespace se::lora_gpu;
  CLI::App app{"LoRAStencil GPU: ceilings, correctness and timing in one run"};
  std::string json_path = "lorastencil-bench.json";
  bool quick = false, skip_check = false, skip_time = false, skip_probe = false, probe_grid = false;
  std::vector<std::string> stencils = {"heat-1d", "heat-2d", "box-2d9p", "star-2d13p", "box-2d49p", "heat-3d",
                                       "box-3d27p"};
  std::vector<int> fusions = {1, 2, 3};
  std::vector<int> line_fusions = {1, 2, 3, 4, 5, 6, 7};
  app.add_option("--json", json_path, "write every number here");
  app.add_flag("--quick", quick, "fewer correctness cases");
  app.add_flag("--skip-check", skip_check, "no correctness suite");
  app.add_flag("--skip-time", skip_time, "no timing");
  app.add_flag("--skip-probe", skip_probe, "no copy / MMA rate probes");
  app.add_flag("--probe-grid", probe_grid, "m16n8k4 rate by warps per SM and independent chains per warp");
  app.add_option("--stencils", stencils, "stencils to time");
  app.add_option("--fusions", fusions, "fused steps to time in 2D and 3D (0: the cost model's choice)");
  app.add_option("--line-fusions", line_fusions, "fused steps to time in 1D; deeper than radius 7 is skipped");
  CLI11_PARSE(app, argc, argv);
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  try {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      std::fprintf(stderr, "no CUDA device\n");
      return 77;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    const std::string summary = fmt::format("{} (sm_{}{}, {} SMs, {} MB L2, {} GB)", prop.name, prop.major, prop.minor,
                                            prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.totalGlobalMem >> 30);
    nlohmann::json out = {{"gpu", prop.name}, {"device", summary}};
    std::printf("%s\n", summary.c_str());
    double copy_gbs = h200_roofline().memory_gbs;
    if (!skip_probe) { // the project's one ceiling probe (kernels/common/ceilings), FP64 shapes
      const DeviceCeilings ceilings = measure_device_ceilings(5, true);
      copy_gbs = ceilings.copy_gbs;
      out["copy_gbs"] = copy_gbs;
      std::printf("device-to-device copy: %.0f GB/s (read + write)\n", copy_gbs);
      for (const RateMeasurement& r : ceilings.rates) {
        if (!r.supported || r.name.rfind("mma.m", 0) != 0 || r.name.find(".f64") == std::string::npos) continue;
        const std::string shape = r.name.substr(4, r.name.size() - 8); // "mma.m16n8k4.f64" -> "m16n8k4"
        out["dmma_tflops"][shape] = r.median;
        std::printf("%s: %.1f TFLOP/s\n", r.name.c_str(), r.median);
      }
      std::fflush(stdout);
    }
    if (probe_grid) {
      for (bool from_shared : {false, true})
        for (int warps : {4, 8, 16}) {
          std::printf("mma grid: %2d warps/SM, B %-8s", warps, from_shared ? "shared" : "register");
          for (int chains : {1, 2, 4, 8}) {
            double t = 0; // 0: that block did not launch (registers)
            try {
              t = measure_mma_grid_tflops(warps, chains, from_shared);
            } catch (const InputError&) {
              cudaGetLastError();
            }
            out["dmma_grid"].push_back({{"warps_per_sm", warps}, {"chains", chains}, {"b_shared", from_shared},
                                        {"tflops", t}});
            std::printf("  %d chains %5.1f", chains, t);
          }
          std::printf(" TFLOP/s\n");
        }
      std::fflush(stdout);
    }
    int failures = 0;
    if (!skip_check) {
      for (const auto& c : correctness_suite(quick)) {
        failures += !c.pass;
        out["checks"].push_back({{"stencil", c.stencil}, {"boundary", c.boundary}, {"extent", c.extent},
                                 {"steps", c.steps}, {"fused_steps", c.fused}, {"rel_l2", c.error.rel_l2},
                                 {"max_abs", c.error.max_abs}, {"finite", c.error.finite}, {"pass", c.pass},
                                 {"note", c.note}});
      }
      std::printf("correctness: %d failure(s) of %zu (%.0f s)\n", failures, out["checks"].size(), elapsed());
    }
    if (!skip_time) {
      std::uint64_t seed = 99;
      for (const std::string& name : stencils)
        for (int f : preset(name).dims == 1 ? line_fusions : fusions) {
          try {
            if (f * preset(name).radius > kMaxRadius) continue;
            out["timings"].push_back(time_one(preset(name), f, copy_gbs, seed++));
          } catch (const InputError& e) {
            std::printf("time  %-12s T=%d  not run: %s\n", name.c_str(), f, e.what());
          }
        }
    }
    std::printf("total %.0f s\n", elapsed());
    std::ofstream(json_path) << out.dump(2) << "\n";
    return failures == 0 ? 0 : 1;
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
