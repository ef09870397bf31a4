// Errors that a person can act on: bad input, unsupported requests, resource limits.
// Every public entry point throws these instead of crashing; the CLI maps InputError to exit code 2.
#pragma once
#include <stdexcept>
#include <string>

namespace se {

// The user gave something we cannot use (malformed file, bad size, unknown name).
class InputError : public std::runtime_error {
public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

} // namespace se
