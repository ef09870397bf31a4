// What compute device this build can use: a plain C++ view of the CUDA device query, so the app and
// CLI can report a GPU (or why there is none) without including CUDA headers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace se {

struct DeviceInfo {
  bool available = false;
  std::string reason; // why no device is usable, when !available, in a person's words ("no NVIDIA driver found")
  std::string detail; // the precise reason CUDA gave (for a tooltip), when !available
  int ordinal = -1;
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t free_bytes = 0;
  int l2_bytes = 0;
  int shared_per_block_optin = 0;
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  std::string summary() const; // one line for the status bar and `stencil-bench list`
};

bool built_with_cuda();
// Number of CUDA devices; 0 when the build has no CUDA, no driver is installed or no GPU is present.
int cuda_device_count();
DeviceInfo query_device(int ordinal = 0);

} // namespace se
