// dlopen with an ordered search (environment variable, sonames, known install folders and wheels).
#include "kernels/vendor/dynamic_library.hpp"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

namespace {

std::vector<std::string> expand(const std::string& pattern) {
  if (pattern.find_first_of("*?[") == std::string::npos) return {pattern};
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

bool is_directory(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

} // namespace

DynamicLibrary::DynamicLibrary(std::string display_name, const char* env_var,
                               const std::vector<std::string>& candidates, const std::vector<std::string>& siblings)
    : name_(std::move(display_name)) {
  std::vector<std::string> tries;
  const std::string soname = candidates.empty() ? std::string() : candidates.front();
  if (const char* env = env_var ? std::getenv(env_var) : nullptr; env && *env)
    tries.push_back(is_directory(env) ? std::string(env) + "/" + soname : std::string(env));
  for (const auto& c : candidates)
    for (auto& p : expand(c)) tries.push_back(std::move(p));
  std::string tried;
  for (const auto& path : tries) {
    const std::string dir = folder_of(path);
    if (!dir.empty()) // sub-libraries the main one opens by soname: load them from the same folder first
      for (const auto& s : siblings) dlopen((dir + "/" + s).c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle_) {
      path_ = path;
      return;
    }
    tried += (tried.empty() ? "" : ", ") + path;
  }
  failure_ = fmt::format("{} not found (tried {}{})", name_, tried.empty() ? "nothing" : tried,
                         env_var ? fmt::format("; set {} to the library file or its folder", env_var) : "");
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) dlclose(handle_); // RTLD_NODELETE keeps the code mapped; this only drops the reference
}

void* DynamicLibrary::symbol(const char* name) const {
  if (!handle_) throw InputError(failure_);
  void* p = dlsym(handle_, name);
  if (!p) throw InputError(fmt::format("{} at {} has no symbol {}: a different major version?", name_, path_, name));
  return p;
}

} // namespace se
