// What a test expects of a refusal: the InputError's message, to match against what a person should read.
#pragma once
#include <functional>
#include <string>

#include "core/error.hpp"

namespace se::testing {

// The message of the InputError `f` throws; "(no InputError)" when it throws none.
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

} // namespace se::testing
