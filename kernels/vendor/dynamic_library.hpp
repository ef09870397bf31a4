// Optional vendor libraries (cuDNN, cuFFT) opened at run time with dlopen, never linked, so the app starts
// and runs everything else on a machine without them and names the library it could not find.
#pragma once
#include <string>
#include <vector>

namespace se {

class DynamicLibrary {
public:
  // Tries, in order: the file or folder in $env_var, then each candidate (a soname, an absolute path or a
  // glob pattern). `siblings` are sonames loaded first from the winning file's folder, for libraries such as
  // cuDNN 9 that open their own parts by soname. The handle is opened RTLD_NODELETE: CUDA libraries must
  // not be unmapped while the process may still hold their kernels.
  DynamicLibrary(std::string display_name, const char* env_var, const std::vector<std::string>& candidates,
                 const std::vector<std::string>& siblings = {});
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  bool loaded() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  // Why nothing was loaded: "cuDNN not found (tried: ...; set SE_CUDNN_PATH to libcudnn.so.9)".
  const std::string& failure() const { return failure_; }
  // The symbol's address; throws InputError naming the library when it is missing.
  void* symbol(const char* name) const;
  template <typename F> F function(const char* name) const { return reinterpret_cast<F>(symbol(name)); }

private:
  std::string name_, path_, failure_;
  void* handle_ = nullptr;
};

} // namespace se
