// Checking a run against FP64: the CPU reference where it is affordable, otherwise the FP64 cuda-core
// kernel on the GPU, itself validated against the CPU reference on the same input for as many steps as
// the CPU budget allows. Shared by `stencil-bench run`, the suite and the GPU tests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/method.hpp"

namespace se {

struct ReferencePolicy {
  // Multiply-adds (points x non-zero weights x steps) the CPU reference may spend; beyond it the GPU one is used.
  double cpu_budget = 4e9;
  bool allow_gpu = true;
  // Empty: validate the GPU reference against the CPU on this input. Otherwise it was validated already
  // (this says how), and the CPU is not run again.
  std::string validated;
};

struct CheckedReference {
  std::vector<double> values; // the FP64 result after `steps` steps
  std::string source;         // "cpu-reference" or "cuda-core (gpu, validated against cpu-reference for N steps)"
  int validation_steps = 0;   // GPU source only: steps compared against the CPU
  double validation_rel_l2 = 0.0;
};

// Throws InputError when neither reference can run, and CudaError-like std::runtime_error when the GPU
// reference disagrees with the CPU on its validation (rel L2 above 1e-12): then no GPU number is trusted.
CheckedReference compute_reference(const Stencil& s, const Extent& e, const Boundary& b, const std::vector<double>& initial,
                                   int steps, const ReferencePolicy& policy = {}, const StepProgress& progress = {});

// CPU work of the reference: points x non-zero weights x steps.
double reference_cost(const Stencil& s, const Extent& e, int steps);

} // namespace se
