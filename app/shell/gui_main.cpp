// stencil-explorer: the GUI's entry point; everything else lives in the se_gui library so tests can
// drive the same code headless.
#include "app/shell/explorer_options.hpp"

int main(int argc, char** argv) { return se::run_explorer(argc, argv); }
