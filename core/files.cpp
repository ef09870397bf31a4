// Checked reads and writes through POSIX calls: errno says why, and fsync makes a full disk show up as a failed
// write rather than as a file cut short after the program reported success.
#include "core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace se {
namespace {

std::string reason(int err) { return std::strerror(err); }

// Closes a descriptor on every path out of a function.
class Descriptor {
public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

private:
  int fd_;
};

} // namespace

std::string read_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
  if (path.empty()) throw InputError(fmt::format("no {} given (an empty path)", what));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(fmt::format("cannot open {} '{}': {}", what, path, reason(errno)));
  if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("{} '{}' is a directory, not a file", what, path));
  if (!S_ISREG(st.st_mode)) throw InputError(fmt::format("{} '{}' is not a regular file", what, path));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw InputError(fmt::format("{} '{}' holds {} bytes; more than the {} such a file can be", what, path, st.st_size,
                                 max_bytes));
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw InputError(fmt::format("cannot open {} '{}': {}", what, path, reason(errno)));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("cannot read {} '{}': {}", what, path, reason(errno)));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) // a file that grew while being read
      throw InputError(fmt::format("{} '{}' holds more than the {} bytes such a file can be", what, path, max_bytes));
  }
  return text;
}

nlohmann::json parse_json_text(std::string_view text, std::string_view what) {
  try {
    return nlohmann::json::parse(text.begin(), text.end()); // strict: one value, then only whitespace
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{} is not valid JSON (one value and nothing after it): {}", what, e.what()));
  }
}

void check_writable(const std::string& path, std::string_view what) {
  if (path.empty()) throw InputError(fmt::format("no {} given (an empty path)", what));
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("cannot write {} '{}': it is a directory", what, path));
    if (::access(path.c_str(), W_OK) != 0)
      throw InputError(fmt::format("cannot write {} '{}': {}", what, path, reason(errno)));
    return;
  }
  if (errno != ENOENT) throw InputError(fmt::format("cannot write {} '{}': {}", what, path, reason(errno)));
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) parent = ".";
  struct stat ps {};
  if (::stat(parent.c_str(), &ps) != 0)
    throw InputError(fmt::format("cannot write {} '{}': the folder '{}' does not exist", what, path, parent.string()));
  if (!S_ISDIR(ps.st_mode))
    throw InputError(fmt::format("cannot write {} '{}': '{}' is not a folder", what, path, parent.string()));
  if (::access(parent.c_str(), W_OK) != 0)
    throw InputError(fmt::format("cannot write {} '{}': {} (the folder '{}')", what, path, reason(errno), parent.string()));
}

void write_file(const std::string& path, std::string_view content, std::string_view what) {
  check_writable(path, what);
  Descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw InputError(fmt::format("cannot write {} '{}': {}", what, path, reason(errno)));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw InputError(fmt::format("writing {} '{}' failed after {} of {} bytes: {}", what, path, written,
                                   content.size(), n < 0 ? reason(errno) : std::string("nothing written")));
    written += static_cast<std::size_t>(n);
  }
  // A regular file is flushed to the device, where a full disk or a lost connection shows; a device such as
  // /dev/null cannot be synced and needs not be.
  if (::fsync(fd.get()) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP)
    throw InputError(fmt::format("writing {} '{}' failed: {}", what, path, reason(errno)));
  if (::close(fd.release()) != 0) throw InputError(fmt::format("writing {} '{}' failed: {}", what, path, reason(errno)));
}

std::optional<std::filesystem::path> find_data_dir(const std::string& sub) {
  std::error_code ec;
  std::vector<std::filesystem::path> starts;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
#ifdef SE_DATA_FROM_BIN
  // Installed: <prefix>/bin/<program> finds <prefix>/share/stencil-explorer/<sub> (cmake --install puts results,
  // stencils, dags and models there).
  if (!ec) {
    const auto installed = (exe.parent_path() / SE_DATA_FROM_BIN / sub).lexically_normal();
    if (std::filesystem::is_directory(installed, ec)) return installed;
  }
#endif
  if (!ec) starts.push_back(exe.parent_path());
  starts.push_back(std::filesystem::current_path(ec));
  for (auto dir : starts)
    for (int up = 0; up < 6 && !dir.empty(); ++up, dir = dir.parent_path()) {
      const auto candidate = dir / "assets" / sub;
      if (std::filesystem::is_directory(candidate, ec)) return candidate;
      if (dir == dir.parent_path()) break;
    }
  return std::nullopt;
}

} // namespace se
