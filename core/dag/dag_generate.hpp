// The random complex-stencil generator of the paper's Section 3.5 (Plasticine, ICS'25), seeded and reproducible:
// random neighbour accesses (7x7x7, grown layer by layer from the centre), multi-grid computations (1 to 5 grids
// a stencil, a limit on the neighbour points it reads in all), and dependencies made by concatenating
// sub-topological chains taken from real programs (assets/dags), checked acyclic and connected. It writes the
// project's text format (dag.hpp), so every generated program goes through the same parser as a written one.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dag/dag.hpp"

namespace se::dag {

struct GeneratorLimits {
  int min_stencils = 3, max_stencils = 12;  // the paper's benchmark set spans 3 to 12 operators
  int min_inputs = 1, max_inputs = 6;
  int max_grids_per_stencil = 5;            // the paper: fewer than 6 grids per operator
  int max_points_per_stencil = 40;          // neighbour points over all grids of one operator
};

// A sub-topological chain: a small connected DAG of stencil operators (local indices 0..nodes-1, edges go from
// a lower index to a higher one), cut from a real program's stencil DAG.
struct Chain {
  int nodes = 1;
  std::vector<std::pair<int, int>> edges;
  bool operator==(const Chain& o) const { return nodes == o.nodes && edges == o.edges; }
};

// Every connected window of 1..max_len consecutive stencil operators (in program order) of each program, with
// the edges among them; duplicates removed, in a fixed order.
std::vector<Chain> extract_chains(const std::vector<Program>& real, int max_len = 4);
// The .dag programs of a directory, sorted by file name (refuses a directory with none).
std::vector<Program> load_programs(const std::filesystem::path& dir);

// The program of one seed, as text (the canonical form of print_program). Same seed, chains and limits: the same
// text on every machine (the generator's own random numbers, no std:: distributions).
std::string generate_program_text(std::uint64_t seed, const std::vector<Chain>& chains,
                                  const GeneratorLimits& limits = {});

struct GraphCheck {
  bool acyclic = false, connected = false;
};
// Acyclic: the adjacency matrix (const and stencil nodes) has a topological order. Connected: one component
// when edges are taken undirected.
GraphCheck check_graph(const Program& p);


} // namespace se::dag
