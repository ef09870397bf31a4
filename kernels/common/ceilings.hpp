// Measured device ceilings: device-to-device copy bandwidth (bytes read + written) and the tensor-core
// rates of each MMA shape the kernels use. The roofs every benchmark figure is compared against.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernels/device.hpp"

namespace se {

struct RateMeasurement {
  std::string name;   // "copy.memcpy", "mma.m8n8k4.f64", ...
  std::string unit;   // "GB/s" or "TFLOP/s"
  bool supported = true;
  std::string note;   // how it was counted, or why it was not measured
  double median = 0, min = 0, max = 0;
  int repeats = 0;
};

struct DeviceCeilings {
  DeviceInfo device;
  double copy_gbs = 0; // the better of cudaMemcpy and a 16-byte-vector copy kernel
  std::vector<RateMeasurement> rates;
};

// Runs the microbenchmarks on device 0 (about a second; the copy alone with include_mma false).
// Throws InputError without a CUDA device.
DeviceCeilings measure_device_ceilings(int repeats = 7, bool include_mma = true);

// mma.m16n8k4.f64's rate (TFLOP/s) with one block of `warps_per_sm` warps per SM and `chains` independent
// accumulators per warp (1, 2, 4, 8), B in a register or loaded from shared memory before each MMA: how latency
// and occupancy bound a kernel's tensor rate. Throws InputError without a Hopper GPU.
double measure_mma_grid_tflops(int warps_per_sm, int chains, bool b_from_shared, int repeats = 3);

// An FP64 MMA shape's rate held for `seconds` (the probe of measure_device_ceilings, launched back to back), as one
// rate per window of `window_s`: the first windows run at the boost clock, the later ones where the power cap
// holds the clock. The operands stay the same from one MMA to the next, so a kernel whose operands change draws
// more power per MMA: for it the later windows are an upper bound. `shape` is one of sustained_mma_shapes() (the
// shapes with more k per instruction read fewer accumulator registers per FLOP, which may let the cap hold a higher
// clock). Throws InputError without a Hopper GPU or for another shape.
struct SustainedWindow {
  double start_s = 0, end_s = 0; // since the first launch
  double tflops = 0;
};
std::vector<SustainedWindow> measure_sustained_mma(double seconds, double window_s = 0.25,
                                                   const std::string& shape = "mma.m16n8k4.f64");
// The shapes measure_sustained_mma holds, by their full names.
inline const std::vector<std::string>& sustained_mma_shapes() {
  static const std::vector<std::string> names{"mma.m16n8k4.f64", "mma.m16n8k8.f64", "mma.m16n8k16.f64"};
  return names;
}

nlohmann::json to_json(const DeviceCeilings& c);
std::string format_ceilings(const DeviceCeilings& c); // a table for the terminal

// The copy roof in GStencil/s for a method that moves one value in and one out per point per launch.
inline double copy_roof_gstencils(double copy_gbs, std::size_t bytes_per_value, int fused_steps = 1) {
  return bytes_per_value ? copy_gbs / (2.0 * static_cast<double>(bytes_per_value)) * fused_steps : 0.0;
}

} // namespace se
