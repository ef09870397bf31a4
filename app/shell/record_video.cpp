#include "app/shell/record_video.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"

extern char** environ;

namespace se {

double recorded_frame_seconds(int captures_of_step) {
  return captures_of_step <= 1 ? kStillSeconds : kAnimationFrameSeconds;
}

std::filesystem::path write_ffconcat(const std::filesystem::path& dir, const std::vector<RecordedFrame>& frames) {
  if (frames.empty()) throw InputError("no frames were recorded, so there is no video to make");
  std::ostringstream list;
  list << "ffconcat version 1.0\n";
  for (const RecordedFrame& f : frames) list << "file '" << f.file << "'\nduration " << f.seconds << "\n";
  // The concat demuxer shows the last file for its duration only when it is listed once more.
  list << "file '" << frames.back().file << "'\n";
  const std::filesystem::path path = dir / "tour.ffconcat";
  write_file(path.string(), list.str(), "ffmpeg frame list");
  return path;
}

std::vector<std::string> ffmpeg_command(const std::filesystem::path& ffconcat, const std::filesystem::path& video) {
  std::string ext = video.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> codec;
  if (ext == ".mp4" || ext == ".mkv" || ext == ".mov")
    codec = {"-c:v", "libx264", "-preset", "medium", "-crf", "18"};
  else if (ext == ".webm")
    codec = {"-c:v", "libvpx-vp9", "-b:v", "0", "-crf", "30"};
  else
    throw InputError(fmt::format("--record-video writes .mp4, .mkv, .mov or .webm; got '{}'", video.string()));
  // 30 fps out of the listed durations; even sizes and 4:2:0 so that every player takes it.
  std::vector<std::string> args{"ffmpeg", "-y", "-loglevel", "error", "-f", "concat", "-safe", "0",
                                "-i", ffconcat.string(), "-vf", "fps=30,scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p"};
  args.insert(args.end(), codec.begin(), codec.end());
  if (ext == ".mp4" || ext == ".mov") args.insert(args.end(), {"-movflags", "+faststart"});
  args.push_back(video.string());
  return args;
}

std::string shell_line(const std::vector<std::string>& args) {
  std::string line;
  for (const std::string& a : args) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                         "_-+=./:,%") == std::string::npos;
    std::string quoted = "'";
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    line += (line.empty() ? "" : " ") + (plain ? a : quoted);
  }
  return line;
}

std::optional<std::filesystem::path> find_program(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::filesystem::path candidate = std::filesystem::path(end > start ? dirs.substr(start, end - start) : ".") / program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

int run_program(const std::vector<std::string>& args) {
  if (args.empty()) throw InputError("no program to run");
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int err = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); err != 0)
    throw InputError(fmt::format("cannot run {}: {}", args[0], std::strerror(err)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw InputError(fmt::format("waiting for {}: {}", args[0], std::strerror(errno)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

} // namespace se
