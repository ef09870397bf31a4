// JSON and terminal forms of the measured ceilings.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernels/common/ceilings.hpp"

namespace se {

nlohmann::json to_json(const DeviceCeilings& c) {
  nlohmann::json rates = nlohmann::json::array();
  for (const auto& r : c.rates)
    rates.push_back({{"name", r.name},
                     {"unit", r.unit},
                     {"supported", r.supported},
                     {"median", r.median},
                     {"min", r.min},
                     {"max", r.max},
                     {"repeats", r.repeats},
                     {"note", r.note}});
  return {{"gpu", c.device.name},
          {"compute_capability", fmt::format("{}.{}", c.device.cc_major, c.device.cc_minor)},
          {"sm_count", c.device.sm_count},
          {"memory_bytes", c.device.memory_bytes},
          {"copy_gbs", c.copy_gbs},
          {"rates", rates}};
}

std::string format_ceilings(const DeviceCeilings& c) {
  std::string out = fmt::format("device: {}\n", c.device.summary());
  out += fmt::format("{:<26} {:>12} {:>12} {:>12}  {}\n", "ceiling", "median", "min", "max", "unit");
  for (const auto& r : c.rates) {
    if (!r.supported) {
      out += fmt::format("{:<26} {:>12} {:>12} {:>12}  {} ({})\n", r.name, "-", "-", "-", r.unit, r.note);
      continue;
    }
    out += fmt::format("{:<26} {:>12.1f} {:>12.1f} {:>12.1f}  {} ({} repeats)\n", r.name, r.median, r.min, r.max, r.unit,
                       r.repeats);
  }
  out += fmt::format("copy roof: {:.1f} GB/s = {:.1f} GStencil/s FP64, {:.1f} FP32, {:.1f} FP16 (16/8/4 bytes per point per step)\n",
                     c.copy_gbs, copy_roof_gstencils(c.copy_gbs, 8), copy_roof_gstencils(c.copy_gbs, 4),
                     copy_roof_gstencils(c.copy_gbs, 2));
  return out;
}

} // namespace se
