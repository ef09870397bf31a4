// The version of this build and the git revision it was built from (a file generated at build time by
// cmake/version_stamp.cmake), for --version and the About line.
#pragma once
#include <string_view>

namespace se {

std::string_view project_version(); // "0.3.0"
std::string_view git_revision();    // "a1b2c3d4e5f6", "+local changes" when the tree differed; "unknown ..." outside git

} // namespace se
