// DeviceInfo::summary, shared by the CUDA and the no-CUDA builds.
#include "kernels/device.hpp"

#include <fmt/format.h>

namespace se {

std::string DeviceInfo::summary() const {
  if (!available) return fmt::format("no CUDA device: {}", reason);
  return fmt::format("{} (sm_{}{}, {} SMs, {:.1f} GiB)", name, cc_major, cc_minor, sm_count,
                     memory_bytes / 1073741824.0);
}

} // namespace se
