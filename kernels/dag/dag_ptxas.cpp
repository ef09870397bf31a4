// parse_ptxas_log (dag_gpu.hpp): the `ptxas -v` report NVRTC returns in its log, per entry function. The lines it
// reads (CUDA 13's ptxas):
//   ptxas info    : Compiling entry function 'NAME' for 'sm_90'
//   ptxas info    : Function properties for NAME
//   ptxas         .     S bytes stack frame, T bytes spill stores, U bytes spill loads
//   ptxas info    : Used R registers, used 1 barriers, ...
// Device functions' properties (no "Compiling entry function" before them) are skipped.
#include <algorithm>
#include <sstream>

#include "kernels/dag/dag_gpu.hpp"

namespace se::dag {

namespace {

// The integer right before `word` in `line` (-1 when `word` is not there).
int number_before(const std::string& line, const std::string& word) {
  const std::size_t at = line.find(word);
  if (at == std::string::npos) return -1;
  std::size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  return begin < end ? std::stoi(line.substr(begin, end - begin)) : -1;
}

} // namespace

std::vector<KernelResources> parse_ptxas_log(const std::string& log) {
  std::vector<KernelResources> out;
  std::istringstream in(log);
  std::string line;
  bool in_entry = false; // between an entry's "Compiling entry function" and its "Used N registers"
  while (std::getline(in, line)) {
    const std::string entry = "Compiling entry function '";
    if (const std::size_t at = line.find(entry); at != std::string::npos) {
      const std::size_t begin = at + entry.size(), end = line.find('\'', begin);
      out.push_back({line.substr(begin, end == std::string::npos ? std::string::npos : end - begin)});
      in_entry = true;
      continue;
    }
    if (!in_entry) continue;
    KernelResources& k = out.back();
    if (const int v = number_before(line, "bytes stack frame"); v >= 0) {
      k.stack_bytes = v;
      k.spill_store_bytes = std::max(0, number_before(line, "bytes spill stores"));
      k.spill_load_bytes = std::max(0, number_before(line, "bytes spill loads"));
    } else if (const int r = number_before(line, "registers"); r >= 0 && line.find("Used") != std::string::npos) {
      k.registers = r;
      in_entry = false;
    }
  }
  return out;
}

} // namespace se::dag
