// Device query for builds without nvcc: there is never a device, and the reason says why.
#include "kernels/device.hpp"

namespace se {

bool built_with_cuda() { return false; }
int cuda_device_count() { return 0; }
DeviceInfo query_device(int) {
  DeviceInfo info;
  info.reason = "this build has no CUDA support";
  info.detail = "nvcc was not found when this build was configured, so it has no GPU kernels";
  return info;
}

} // namespace se
