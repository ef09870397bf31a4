// The random complex-stencil generator (paper Section 3.5); see dag_generate.hpp.
#include "core/dag/dag_generate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se::dag {

namespace {

// splitmix64: the same numbers on every platform and standard library.
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int uniform(int lo, int hi) { // inclusive
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  double real() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  bool chance(double p) { return real() < p; }
};

using Off = std::array<int, 3>;

int chebyshev(const Off& o) { return std::max({std::abs(o[0]), std::abs(o[1]), std::abs(o[2])}); }

// Neighbour access: the largest order from a fixed distribution, then layer by layer outwards: every point of
// the last layer picks each of its 26 neighbours one layer further out with a small probability (at least one
// point a layer); duplicates fall away in the set.
std::vector<Off> neighbour_access(Rng& r) {
  const double u = r.real();
  const int order = u < 0.15 ? 0 : u < 0.55 ? 1 : u < 0.80 ? 2 : 3;
  std::set<Off> points{{0, 0, 0}};
  std::vector<Off> frontier{{0, 0, 0}};
  for (int layer = 1; layer <= order; ++layer) {
    std::vector<Off> next;
    std::vector<Off> candidates;
    for (const Off& p : frontier)
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const Off q{p[0] + dx, p[1] + dy, p[2] + dz};
            if (chebyshev(q) != layer) continue;
            candidates.push_back(q);
            // face steps are likelier than diagonal ones (stars and lines are the common real shapes)
            const int moved = (dx != 0) + (dy != 0) + (dz != 0);
            if (r.chance(moved == 1 ? 0.30 : 0.04) && points.insert(q).second) next.push_back(q);
          }
    if (next.empty()) {
      const Off q = candidates[r.uniform(0, static_cast<int>(candidates.size()) - 1)];
      if (points.insert(q).second) next.push_back(q);
    }
    frontier = next;
  }
  return {points.begin(), points.end()};
}

// The access of a consumer to a stencil node it depends on: with probability `pointwise` (a per-program share)
// the centre, one face neighbour, or both (values used where they are made, as in real programs: hdiff's
// fluxes, p_grad_c's wk), else a general neighbour access. Inlining such a producer costs little recomputation.
std::vector<Off> producer_access(Rng& r, double pointwise) {
  if (!r.chance(pointwise)) return neighbour_access(r);
  const double u = r.real();
  if (u < 0.7) return {{0, 0, 0}};
  Off face{0, 0, 0};
  face[r.uniform(0, 2)] = r.chance(0.5) ? 1 : -1;
  if (u < 0.85) return {face};
  std::vector<Off> both{{0, 0, 0}, face};
  std::sort(both.begin(), both.end());
  return both;
}

std::string read_text(const std::string& grid, const Off& o) {
  if (o == Off{0, 0, 0}) return grid;
  return fmt::format("{}[{},{},{}]", grid, o[0], o[1], o[2]);
}

// The mean of a grid over its neighbour access.
std::string mean_term(const std::string& grid, const std::vector<Off>& pts) {
  if (pts.size() == 1) return read_text(grid, pts[0]);
  std::string s = "(";
  for (std::size_t i = 0; i < pts.size(); ++i) s += (i ? " + " : "") + read_text(grid, pts[i]);
  return s + fmt::format(") * {:.6g}", 1.0 / static_cast<double>(pts.size()));
}

bool connected_undirected(int n, const std::vector<std::pair<int, int>>& edges) {
  if (n == 0) return true;
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  const auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  int components = n;
  for (auto [a, b] : edges) {
    const int ra = find(a), rb = find(b);
    if (ra != rb) parent[ra] = rb, --components;
  }
  return components == 1;
}

// The first m nodes of a chain and the edges among them.
Chain prefix(const Chain& c, int m) {
  Chain out;
  out.nodes = m;
  for (auto e : c.edges)
    if (e.first < m && e.second < m) out.edges.push_back(e);
  return out;
}

} // namespace

std::vector<Chain> extract_chains(const std::vector<Program>& real, int max_len) {
  std::vector<Chain> out{Chain{}}; // the single operator is always there
  for (const Program& p : real) {
    const std::vector<int> st = p.stencils();
    std::vector<int> local_of(p.nodes.size(), -1);
    for (std::size_t i = 0; i < st.size(); ++i) local_of[st[i]] = static_cast<int>(i);
    const Analysis a = analyse(p);
    for (std::size_t begin = 0; begin < st.size(); ++begin)
      for (int len = 2; len <= max_len && begin + len <= st.size(); ++len) {
        Chain c;
        c.nodes = len;
        for (int j = 0; j < len; ++j)
          for (int k = 0; k < len; ++k)
            if (a.adjacency[st[begin + j]][st[begin + k]]) c.edges.push_back({j, k});
        std::sort(c.edges.begin(), c.edges.end());
        if (connected_undirected(len, c.edges) && std::find(out.begin(), out.end(), c) == out.end())
          out.push_back(c);
      }
  }
  return out;
}

std::vector<Program> load_programs(const std::filesystem::path& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".dag") files.push_back(e.path().string());
  if (ec) throw InputError(fmt::format("cannot read the directory {}: {}", dir.string(), ec.message()));
  if (files.empty()) throw InputError(fmt::format("no .dag programs in {}", dir.string()));
  std::sort(files.begin(), files.end());
  std::vector<Program> out;
  for (const auto& f : files) out.push_back(load_program(f));
  return out;
}

std::string generate_program_text(std::uint64_t seed, const std::vector<Chain>& chains, const GeneratorLimits& L) {
  if (chains.empty()) throw InputError("the generator needs at least one sub-topological chain");
  if (L.min_stencils < 1 || L.max_stencils < L.min_stencils || L.min_inputs < 1 || L.max_inputs < L.min_inputs ||
      L.max_grids_per_stencil < 2 || L.max_points_per_stencil < L.max_grids_per_stencil)
    throw InputError("the generator's limits are inconsistent");
  Rng r(seed);
  for (int attempt = 0;; ++attempt) {
    // ---- Dependencies: chains concatenated, each root of a new chain fed by an earlier operator. ----
    const int k = r.uniform(L.min_stencils, L.max_stencils);
    std::vector<std::vector<int>> producers(k);
    int count = 0;
    while (count < k) {
      const Chain& pick = chains[r.uniform(0, static_cast<int>(chains.size()) - 1)];
      const int m = std::min(pick.nodes, k - count);
      const Chain c = prefix(pick, m);
      if (!connected_undirected(m, c.edges)) continue; // a cut chain that fell apart: take another
      std::vector<bool> has_in(m, false);
      for (auto [a, b] : c.edges) {
        producers[count + b].push_back(count + a);
        has_in[b] = true;
      }
      if (count > 0) {
        bool first = true;
        for (int j = 0; j < m; ++j) {
          if (has_in[j] || !(first || r.chance(0.5))) continue;
          first = false;
          // mostly a recent operator (real programs chain locally), sometimes any earlier one
          const int lo = r.chance(0.7) ? std::max(0, count - 3) : 0;
          const int from = r.uniform(lo, count - 1);
          producers[count + j].push_back(from);
        }
      }
      count += m;
    }
    bool too_wide = false;
    for (auto& pr : producers) {
      std::sort(pr.begin(), pr.end());
      pr.erase(std::unique(pr.begin(), pr.end()), pr.end());
      too_wide |= static_cast<int>(pr.size()) > L.max_grids_per_stencil;
    }
    if (too_wide) continue;

    // ---- Inputs: each operator reads some, operators with no producer at least one. ----
    const int n_inputs = r.uniform(L.min_inputs, L.max_inputs);
    std::vector<std::vector<int>> input_reads(k);
    std::vector<bool> used(n_inputs, false);
    for (int s = 0; s < k; ++s) {
      const int room = L.max_grids_per_stencil - static_cast<int>(producers[s].size());
      const int want_min = producers[s].empty() ? 1 : 0;
      int want = std::min(room, std::min(n_inputs, r.uniform(want_min, std::max(want_min, 3))));
      std::vector<int> pool(n_inputs);
      std::iota(pool.begin(), pool.end(), 0);
      for (int i = 0; i < want; ++i) {
        const int j = r.uniform(i, n_inputs - 1);
        std::swap(pool[i], pool[j]);
        input_reads[s].push_back(pool[i]);
        used[pool[i]] = true;
      }
    }
    // Unused inputs are dropped (the program reads every input it declares); the rest renumbered.
    std::vector<int> renumber(n_inputs, -1);
    int inputs = 0;
    for (int i = 0; i < n_inputs; ++i)
      if (used[i]) renumber[i] = inputs++;

    // ---- Multi-grid computations: a neighbour access per grid read, within the operator's point limit. ----
    std::string text = fmt::format("# generated by stencil-explorer's random complex-stencil generator, seed {}\n"
                                   "program gen_{}\ndomain 128 128 128\n",
                                   seed, seed);
    for (int i = 0; i < inputs; ++i) text += fmt::format("input in{} f64\n", i);
    const double pointwise = r.chance(0.5) ? 1.0 : r.real(); // the program's share of pointwise producer reads
    for (int s = 0; s < k; ++s) {
      std::vector<std::string> grids;
      for (int pidx : producers[s]) grids.push_back(fmt::format("s{}", pidx));
      for (int in : input_reads[s]) grids.push_back(fmt::format("in{}", renumber[in]));
      // the reads of an operator in a random order
      for (std::size_t i = grids.size(); i > 1; --i) std::swap(grids[i - 1], grids[r.uniform(0, static_cast<int>(i) - 1)]);
      std::vector<std::vector<Off>> access;
      for (int tries = 0;; ++tries) {
        access.clear();
        std::size_t total = 0;
        for (std::size_t g = 0; g < grids.size(); ++g) {
          const bool producer = grids[g][0] == 's';
          access.push_back(tries >= 50  ? std::vector<Off>{{0, 0, 0}}
                           : producer   ? producer_access(r, pointwise)
                                        : neighbour_access(r));
          total += access.back().size();
        }
        if (static_cast<int>(total) <= L.max_points_per_stencil) break; // else regenerate, as the paper does
      }
      std::vector<std::string> terms;
      for (std::size_t g = 0; g < grids.size(); ++g) terms.push_back(mean_term(grids[g], access[g]));
      // Weighted mean of the terms (weights sum to one): values stay in the inputs' range [0.5, 1.5).
      std::vector<double> w(terms.size());
      double sum = 0;
      for (double& x : w) sum += (x = 0.2 + r.real());
      std::string body;
      for (std::size_t g = 0; g < terms.size(); ++g)
        body += fmt::format("{}{:.4f} * {}", g ? " + " : "", w[g] / sum, terms[g]);
      const double form = r.real();
      std::string rhs;
      if (terms.size() >= 2 && form < 0.2) // a quotient: the last term damps the others, as a flux limiter would
        rhs = fmt::format("({}) / (1.0 + 0.5 * {} * {})", body, terms.back(), terms.back());
      else if (form < 0.4)
        rhs = fmt::format("sqrt({})", body);
      else if (terms.size() >= 2 && form < 0.5)
        rhs = fmt::format("max({}, {})", body, terms.front());
      else
        rhs = body;
      text += fmt::format("s{} = {}\n", s, rhs);
    }
    Program p = parse_program(text, fmt::format("gen_{}", seed));
    const GraphCheck g = check_graph(p);
    if (!g.acyclic || !g.connected) {
      if (attempt > 1000) throw InputError("the generator found no connected acyclic program in 1000 attempts");
      continue;
    }
    return fmt::format("# generated by stencil-explorer's random complex-stencil generator, seed {}\n", seed) +
           print_program(p);
  }
}

GraphCheck check_graph(const Program& p) {
  const Analysis a = analyse(p);
  const int n = static_cast<int>(p.nodes.size());
  GraphCheck out;
  std::vector<int> indegree(n, 0);
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (a.adjacency[i][j]) ++indegree[j], edges.push_back({i, j});
  std::vector<int> ready;
  for (int i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push_back(i);
  int seen = 0;
  while (!ready.empty()) {
    const int i = ready.back();
    ready.pop_back();
    ++seen;
    for (int j = 0; j < n; ++j)
      if (a.adjacency[i][j] && --indegree[j] == 0) ready.push_back(j);
  }
  out.acyclic = seen == n;
  out.connected = connected_undirected(n, edges);
  return out;
}

} // namespace se::dag
