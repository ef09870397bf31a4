// `stencil-bench dag`: complex-stencil programs (core/dag): print the analysis, run the strategies on the CPU
// or the GPU, check every one against the CPU interpreter.
#pragma once
#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace se {

struct DagCliOptions {
  std::string file, strategy = "auto", size, backend, json, print, model;
  std::string seed_text, seconds_text = "0.3", recompute_limit = "8";
  bool strategy_given = false;
};

// Adds the subcommand to `app`; the options land in `o` when it is parsed.
CLI::App* add_dag_subcommand(CLI::App& app, DagCliOptions& o);
// Runs it: 0 when every strategy run matched the interpreter; throws InputError on bad input (exit 2).
int cmd_dag(const DagCliOptions& o);

struct DagGenCliOptions {
  std::string out, real, seed_text = "1";
  int count = 10;
};
// `stencil-bench dag-gen`: random complex-stencil programs (core/dag/dag_generate.hpp) written as .dag files.
CLI::App* add_dag_gen_subcommand(CLI::App& app, DagGenCliOptions& o);
int cmd_dag_gen(const DagGenCliOptions& o);

struct DagLabelCliOptions {
  std::string out, files, seed_text = "1", sizes = "128,256";
  int count = 0, repeats = 3, threads = 0;
  double max_seconds = 0;
  bool features_only = false;
  bool ptxas = false; // with features_only: each strategy's compiled kernels (registers, spills), NVRTC, no GPU
};
// `stencil-bench dag-label`: time every GPU strategy of many programs (generated and/or a directory's) in one
// process; one JSON line per program (its representations, counts and timings) for the fusion-choice model.
CLI::App* add_dag_label_subcommand(CLI::App& app, DagLabelCliOptions& o);
int cmd_dag_label(const DagLabelCliOptions& o);

} // namespace se
