// libFuzzer target: any bytes as a stencil file. A stencil file either parses to a valid stencil that survives a
// round trip through the file format unchanged, or is refused with an InputError; nothing else may happen (a
// crash, a leak, undefined behaviour, another exception). Built with clang by scripts/sanitize.sh, which runs it
// for a bounded time on the seeds in tests/fuzz/corpus/stencil_file and assets/stencils.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/stencil.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const se::Stencil s = se::stencil_from_json(se::parse_json_text(text, "fuzz input"));
    const se::Stencil again = se::stencil_from_json(se::parse_json_text(se::format_stencil_json(s), "round trip"));
    if (!(again == s)) __builtin_trap(); // the file format must not change a stencil
  } catch (const se::InputError&) {
    // refused with a message: what hostile input must get
  }
  return 0;
}
