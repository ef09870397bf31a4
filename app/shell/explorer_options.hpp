// The stencil-explorer command line: parsing with CLI11, validating every input before a window or
// context is opened, and running the frame loop. Exit codes: 0 ok, 2 bad input or usage, 1 system failure.
#pragma once

namespace se {

int run_explorer(int argc, char** argv);

} // namespace se
