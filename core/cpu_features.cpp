#include "core/cpu_features.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

std::string_view to_string(CpuIsa isa) {
  switch (isa) {
  case CpuIsa::Baseline: return "SSE2";
  case CpuIsa::Avx2: return "AVX2";
  case CpuIsa::Avx512: return "AVX-512";
  }
  return "?";
}

CpuIsa parse_cpu_isa(std::string_view text) {
  if (text == "sse2" || text == "baseline") return CpuIsa::Baseline;
  if (text == "avx2") return CpuIsa::Avx2;
  if (text == "avx512") return CpuIsa::Avx512;
  throw InputError(fmt::format("unknown CPU ISA '{}' (known: sse2, avx2, avx512)", text));
}

bool cpu_supports(CpuIsa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  switch (isa) {
  case CpuIsa::Baseline: return true;
  case CpuIsa::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case CpuIsa::Avx512: return __builtin_cpu_supports("avx512f");
  }
  return false;
#else
  return isa == CpuIsa::Baseline;
#endif
}

std::vector<CpuIsa> supported_cpu_isas() {
  std::vector<CpuIsa> out;
  for (CpuIsa isa : {CpuIsa::Baseline, CpuIsa::Avx2, CpuIsa::Avx512})
    if (cpu_supports(isa)) out.push_back(isa);
  return out;
}

CpuIsa best_cpu_isa() {
  static const CpuIsa best = [] {
    CpuIsa b = supported_cpu_isas().back();
    if (const char* cap = std::getenv("SE_CPU_ISA"); cap != nullptr && *cap != '\0') {
      try {
        b = std::min(b, parse_cpu_isa(cap));
      } catch (const InputError&) {
        // An unknown name caps nothing; the ISA that runs is named wherever it matters.
      }
    }
    return b;
  }();
  return best;
}

int vector_doubles(CpuIsa isa) {
  switch (isa) {
  case CpuIsa::Baseline: return 2;
  case CpuIsa::Avx2: return 4;
  case CpuIsa::Avx512: return 8;
  }
  return 1;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(colon + 1);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty()) return name;
  }
  return "unknown CPU";
}

int cpu_thread_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

namespace {

// Size of the cache of this level (and type Data/Unified) that cpu0 reports in sysfs; 0 when none.
std::int64_t sysfs_cache_bytes(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::ifstream lv(dir + "level"), ty(dir + "type"), sz(dir + "size");
    int l = 0;
    std::string type, size;
    if (!(lv >> l) || !(ty >> type) || !(sz >> size)) continue;
    if (l != level || type == "Instruction") continue;
    std::int64_t n = std::atoll(size.c_str());
    if (size.back() == 'K') n <<= 10;
    else if (size.back() == 'M') n <<= 20;
    return n;
  }
  return 0;
}

} // namespace

std::int64_t cpu_l1_bytes() {
  static const std::int64_t bytes = [] {
    const std::int64_t n = sysfs_cache_bytes(1);
    return n > 0 ? n : std::int64_t{32} << 10;
  }();
  return bytes;
}

std::int64_t cpu_l2_bytes() {
  static const std::int64_t bytes = [] {
    const std::int64_t n = sysfs_cache_bytes(2);
    return n > 0 ? n : std::int64_t{1} << 20;
  }();
  return bytes;
}

std::int64_t cpu_llc_bytes() {
  static const std::int64_t bytes = [] {
    std::int64_t n = sysfs_cache_bytes(3);
    if (n <= 0) n = sysfs_cache_bytes(2);
    return n > 0 ? n : std::int64_t{32} << 20;
  }();
  return bytes;
}

} // namespace se
