// The main() of every test binary that needs nothing before Catch2 runs; Catch2 itself is in catch_impl.cpp.
#include "tests/catch_run.hpp"

int main(int argc, char** argv) { return se::testing::run_catch(argc, argv); }
