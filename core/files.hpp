// The files a person names: an input must be a regular file and is read whole; an output is checked before a long
// run starts, and every write is checked and flushed, so that a result is never reported written when it was not.
// Every failure is an InputError naming the path and the system's reason.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace se {

constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{64} << 20;

// The whole of the regular file `path`: throws InputError when it does not exist, is a directory or another kind of
// file, cannot be read, or holds more than `max_bytes`. `what` names the file in messages ("stencil file").
std::string read_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes = kMaxInputFileBytes);

// One JSON value and nothing after it (whitespace aside): throws InputError naming `what` and the parser's reason.
nlohmann::json parse_json_text(std::string_view text, std::string_view what);

// Throws InputError when `path` cannot be written: a directory, a folder that does not exist, no permission.
// Called before a run whose result goes there, so the run is not lost at the end.
void check_writable(const std::string& path, std::string_view what);

// Writes `content` to `path` (created or truncated) and flushes it to the device; throws InputError with the path
// and the reason on any failure (a full disk, a read-only file system, a directory in the way).
void write_file(const std::string& path, std::string_view content, std::string_view what);

// The folder `sub` of the shared data (results, stencils, dags, models): an installed program's
// <prefix>/share/stencil-explorer/<sub> (found from its own path), else `assets/<sub>` in a folder above the running
// program or the working directory (a built tree).
std::optional<std::filesystem::path> find_data_dir(const std::string& sub);

} // namespace se
