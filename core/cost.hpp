// The cost model every tensor-core method reports, per updated point and base-stencil step, and the plan
// summary (text + JSON + cost) that the CLI's `plan`, the views and the bench print beside measurements.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace se {

struct CostReport {
  std::string method;                  // method id
  std::string mma_shape;               // e.g. "mma.m8n8k4.f64"; empty for CUDA-core-only methods
  int fused_steps = 1;                 // base steps per pass (temporal fusion)
  double mma_per_point = 0;            // MMA instructions per point per base step
  double global_bytes_per_point = 0;   // device-memory bytes read + written per point per base step
  double shared_bytes_per_point = 0;   // shared-memory bytes loaded per point per base step
  double fragment_zero_fraction = 0;   // fraction of zeros in the operand fragments fed to the MMAs
  double useful_flops_per_point = 0;   // 2 x non-zero weights (the stencil's own arithmetic)
  double executed_flops_per_point = 0; // arithmetic the hardware performs, tensor and CUDA cores, zeros included
  double cuda_core_flops_per_point = 0;// the part of executed flops done on CUDA cores
  // The SPIDER paper's Table 1 quantities, per updated point and base step, where a tensor-core method's cost model
  // counts them (0: not counted): input elements loaded into operand fragments (and read by CUDA-core taps), and
  // weight ("parameter") elements the MMAs take as operands, whether a kernel reloads them or keeps them in
  // registers (as the paper counts them).
  double input_loads_per_point = 0;
  double parameter_loads_per_point = 0;
  // Executed FLOPs per device-memory byte: where the method sits on a roofline.
  double arithmetic_intensity() const {
    return global_bytes_per_point > 0 ? executed_flops_per_point / global_bytes_per_point : 0.0;
  }
  std::vector<std::pair<std::string, std::string>> notes; // how each number was counted, and paper comparisons
};

nlohmann::json to_json(const CostReport& c);
std::string to_string(const CostReport& c);

// What `stencil-bench plan` prints for one method and stencil: the plan's matrices, index maps and
// layouts as readable text, the same as JSON, and the cost.
struct PlanSummary {
  std::string method;
  std::string text;
  nlohmann::json json;
  CostReport cost;
};

} // namespace se
