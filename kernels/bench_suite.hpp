// The benchmark suite: the papers' experiments (every preset at 1D 10,240,000 / 2D 10240^2 / 3D 512^3,
// T chosen so a run takes about `seconds`) plus a heat-2d size sweep, for every available method; every
// result checked against FP64 (check_run: on a shorter check run where a long run's bound is too loose). `quick`
// uses small grids and few steps, and runs on a machine without a GPU.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/method.hpp"
#include "kernels/checked_run.hpp"

namespace se {

struct SuiteOptions {
  bool quick = false;
  std::vector<std::string> method_ids; // empty: every available method
  std::vector<std::string> stencils;   // empty: every preset
  double seconds = 1.0;                // target time of one timed run
  Boundary boundary{};
  bool sweep = true;
  int fused_steps = 0;                 // base steps per pass asked of every method (0: each method's own choice);
                                       // a method that cannot fuse that many is skipped with its reason
  std::uint64_t seed = 0;              // base seed; each experiment draws its own input from it
  std::optional<double> copy_gbs;      // measured copy bandwidth (GPU runs), for GB/s against the roof
  std::string gpu;                     // device name, or "" without one
};

// One timed run with its check (CheckedFields: kernels/checked_run.hpp).
struct SuiteRecord : CheckedFields {
  std::string experiment; // "papers" or "sweep"
  std::string method, stencil, backend, reference;
  Precision precision = Precision::FP64;
  Extent extent;
  int steps = 0, fused_steps = 1;
  int steps_requested = 0; // the steps asked; more than `steps` when the wall-time guard stopped the run
  std::uint64_t seed = 0;
  double seconds = 0, gstencils = 0, gbs = 0, flops = 0;
  std::optional<double> roof_fraction; // of the copy roof (GPU methods with a measured copy bandwidth)
};

struct SuiteSkip {
  std::string method, stencil, reason;
};

struct SuiteResult {
  SuiteOptions options;
  std::vector<SuiteRecord> results;
  std::vector<SuiteSkip> skipped;
  bool all_passed() const;
};

struct SuiteResult;
// Called after each run with (runs done, runs planned, what just ran, the results so far).
using SuiteProgress = std::function<void(int done, int total, const std::string& label, const SuiteResult& so_far)>;

// Throws InputError for unknown method ids or stencil names.
SuiteResult run_suite(const std::vector<Method>& methods, const SuiteOptions& options, const SuiteProgress& progress = {});

// {gpu, copy_gbs, boundary, quick, results: [the `run --json` record + fused_steps, gbs, flops, ...], skipped}.
// rel_l2_error, max_abs_error and error_bound are the check's, of a run of checked_steps steps; timed_rel_l2_error,
// timed_max_abs_error and timed_error_bound the timed run's (the same numbers where checked_steps == steps).
// steps_requested: the steps the run was asked for (more than steps when the wall-time guard stopped it).
nlohmann::json to_json(const SuiteResult& r);
std::string to_csv(const SuiteResult& r);
std::string format_table(const SuiteResult& r);

} // namespace se
