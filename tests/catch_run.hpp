#pragma once
// Runs the Catch2 session of a test binary (defined in tests/catch_impl.cpp, which holds Catch2's implementation;
// Catch::Session is declared only there). Test binaries with their own main() call it after their own checks.
namespace se::testing {
int run_catch(int argc, char** argv);
} // namespace se::testing
