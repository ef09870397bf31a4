// Printing and serialising cost reports.
#include "core/cost.hpp"

#include <fmt/format.h>

namespace se {

nlohmann::json to_json(const CostReport& c) {
  nlohmann::json notes = nlohmann::json::object();
  for (const auto& [k, v] : c.notes) notes[k] = v;
  return {{"method", c.method},
          {"mma_shape", c.mma_shape},
          {"fused_steps", c.fused_steps},
          {"mma_per_point", c.mma_per_point},
          {"global_bytes_per_point", c.global_bytes_per_point},
          {"shared_bytes_per_point", c.shared_bytes_per_point},
          {"fragment_zero_fraction", c.fragment_zero_fraction},
          {"useful_flops_per_point", c.useful_flops_per_point},
          {"executed_flops_per_point", c.executed_flops_per_point},
          {"cuda_core_flops_per_point", c.cuda_core_flops_per_point},
          {"input_loads_per_point", c.input_loads_per_point},
          {"parameter_loads_per_point", c.parameter_loads_per_point},
          {"arithmetic_intensity", c.arithmetic_intensity()},
          {"notes", notes}};
}

std::string to_string(const CostReport& c) {
  std::string s = fmt::format("cost of {} per updated point and base step{}:\n", c.method,
                              c.fused_steps > 1 ? fmt::format(" ({} steps fused per pass)", c.fused_steps) : "");
  if (!c.mma_shape.empty()) s += fmt::format("  MMA instructions     {:.4f} ({})\n", c.mma_per_point, c.mma_shape);
  s += fmt::format("  global bytes         {:.3f}\n", c.global_bytes_per_point);
  s += fmt::format("  shared bytes loaded  {:.3f}\n", c.shared_bytes_per_point);
  s += fmt::format("  zeros in fragments   {:.1f}%\n", 100 * c.fragment_zero_fraction);
  s += fmt::format("  useful FLOPs         {:.2f}\n", c.useful_flops_per_point);
  s += fmt::format("  executed FLOPs       {:.2f} ({:.2f} on CUDA cores)\n", c.executed_flops_per_point,
                   c.cuda_core_flops_per_point);
  s += fmt::format("  arithmetic intensity {:.3f} FLOP/byte\n", c.arithmetic_intensity());
  if (c.input_loads_per_point > 0 || c.parameter_loads_per_point > 0)
    s += fmt::format("  loads (elements)     {:.3f} input, {:.3f} parameter (SPIDER Table 1's counting)\n",
                     c.input_loads_per_point, c.parameter_loads_per_point);
  for (const auto& [k, v] : c.notes) s += fmt::format("  {}: {}\n", k, v);
  return s;
}

} // namespace se
