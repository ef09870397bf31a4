// The capability lines of --version. Plain C++: without CUDA in the build every line says so.
#include "kernels/capabilities.hpp"

#include <fmt/format.h>

#include "core/version.hpp"
#include "kernels/device.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/vendor/vendor_libraries.hpp"
#endif

namespace se {

std::vector<Capability> runtime_capabilities() {
  std::vector<Capability> out;
  const DeviceInfo dev = query_device();
  out.push_back({"CUDA device", dev.available, dev.available ? dev.summary() : dev.reason});
#if defined(SE_HAVE_CUDA)
  for (const auto& [name, why] : {std::pair<const char*, std::string>{"cuDNN", cudnn_unavailable_reason()},
                                  {"cuFFT", cufft_unavailable_reason()},
                                  {"NVRTC", nvrtc_unavailable_reason()}})
    out.push_back({name, why.empty(), why.empty() ? std::string("loads") : why});
#else
  for (const char* name : {"cuDNN", "cuFFT", "NVRTC"}) out.push_back({name, false, "this build has no CUDA support"});
#endif
  return out;
}

std::string version_report(std::string_view program) {
  std::string out = fmt::format("{} {} (git {})\n", program, project_version(), git_revision());
  out += fmt::format("built {} CUDA kernels{}\n", built_with_cuda() ? "with" : "without",
                     built_with_cuda() ? " for sm_80 and sm_90" : " (nvcc was not found)");
  for (const Capability& c : runtime_capabilities())
    out += fmt::format("  {:<12} {:<4} {}\n", c.name + ":", c.available ? "yes" : "no", c.detail);
  return out;
}

} // namespace se
