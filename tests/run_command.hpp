// Runs a shell command for a test and captures what it printed (stdout and stderr together) and its exit code:
// how the CLI and GUI tests drive stencil-bench and stencil-explorer as a user would.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace se::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output; // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot start: " + command);
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

} // namespace se::testing
