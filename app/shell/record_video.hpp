// Recording a demo: the lecture tour's PNG frames become a video through ffmpeg. The frames come with an ffconcat
// list that says how long each is shown (a still step a few seconds, an animation's captures a fraction of one), so
// one ffmpeg command turns the folder into a video whatever the tour's steps. The command is printed after every
// --record; --record-video runs it where ffmpeg is installed.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace se {

struct RecordedFrame {
  std::string file;     // its name in the frames' folder
  double seconds = 0;   // how long the video shows it
};

// How long a tour step's frames are shown: a still (one capture) kStillSeconds, each capture of an animation
// kAnimationFrameSeconds.
constexpr double kStillSeconds = 3.0, kAnimationFrameSeconds = 0.25;
double recorded_frame_seconds(int captures_of_step);

// Writes `dir`/tour.ffconcat listing `frames` with their durations; returns its path. Throws InputError when it
// cannot be written.
std::filesystem::path write_ffconcat(const std::filesystem::path& dir, const std::vector<RecordedFrame>& frames);

// The ffmpeg command (program first) that encodes the list into `video`; the codec follows the file's extension
// (.mp4, .mkv, .mov: H.264; .webm: VP9). Throws InputError for other extensions.
std::vector<std::string> ffmpeg_command(const std::filesystem::path& ffconcat, const std::filesystem::path& video);
// The command as one line a shell takes (arguments quoted where they need it).
std::string shell_line(const std::vector<std::string>& args);

// `program`'s path when it is on $PATH and executable.
std::optional<std::filesystem::path> find_program(const std::string& program);
// Runs `args` (args[0] looked up on $PATH), waits, and returns its exit code (128 + signal when it was killed).
// Throws InputError when it cannot be started.
int run_program(const std::vector<std::string>& args);

} // namespace se
