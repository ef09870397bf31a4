// Where the optional vendor libraries are looked for, and whether this process can load them now.
#pragma once
#include <string>
#include <vector>

namespace se {

// Empty when cuDNN 9 loads; otherwise why not (the library name and the paths tried).
std::string cudnn_unavailable_reason();
// Empty when cuFFT loads; otherwise why not.
std::string cufft_unavailable_reason();
// Empty when NVRTC (run-time compilation of generated kernels) loads; otherwise why not.
std::string nvrtc_unavailable_reason();

struct VendorLibrarySearch {
  std::string display_name;
  const char* env_var;
  std::vector<std::string> candidates; // the soname first
  std::vector<std::string> siblings;
};
const VendorLibrarySearch& cudnn_search();
const VendorLibrarySearch& cufft_search();
const VendorLibrarySearch& nvrtc_search();

} // namespace se
