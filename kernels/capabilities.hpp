// What this build and this machine can do beyond the CPU: a CUDA device, and the libraries loaded at run time
// (cuDNN, cuFFT, NVRTC). For --version and the status line; nothing here fails when none is present.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace se {

struct Capability {
  std::string name;     // "CUDA device", "cuDNN", "cuFFT", "NVRTC"
  bool available = false;
  std::string detail;   // the device's summary, or why it is missing
};
std::vector<Capability> runtime_capabilities();

// What `--version` prints: "<program> <version> (git <revision>)", the build's CUDA architectures, and one line per
// capability.
std::string version_report(std::string_view program);

} // namespace se
