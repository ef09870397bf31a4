// The CPU interpreter (the reference) and the CPU versions of the strategies. Expressions are evaluated a row
// (all x of one y, z) at a time: one pass over the row per expression node, in the grid's own type.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/dag/dag.hpp"

namespace se::dag {

namespace {

inline int wrap(int i, int n) {
  i %= n;
  return i < 0 ? i + n : i;
}

// Where a read's row comes from: a stored field, or (producer-consumer) a row recomputed on demand.
struct RowContext {
  const Program* p;
  std::array<int, 3> d;
  const State* s;
  // For producer-consumer: nodes not stored are recomputed; rows cached per (node, y, z) for one output row.
  const std::vector<bool>* materialised = nullptr;
  std::map<std::tuple<int, int, int>, std::vector<double>>* cache64 = nullptr;
  std::map<std::tuple<int, int, int>, std::vector<float>>* cache32 = nullptr;
};

template <typename T> const std::vector<T>& field_vec(const Field& f) {
  if constexpr (std::is_same_v<T, double>)
    return f.f64;
  else
    return f.f32;
}
template <typename T> std::vector<T>& field_vec(Field& f) {
  if constexpr (std::is_same_v<T, double>)
    return f.f64;
  else
    return f.f32;
}

template <typename T> void eval_row(const RowContext& c, int node, int y, int z, T* out);

template <typename T> const std::vector<T>& recomputed_row(const RowContext& c, int node, int y, int z) {
  auto& cache = [&]() -> auto& {
    if constexpr (std::is_same_v<T, double>)
      return *c.cache64;
    else
      return *c.cache32;
  }();
  const auto key = std::make_tuple(node, y, z);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::vector<T> row(c.d[0]);
  eval_row<T>(c, node, y, z, row.data());
  return cache.emplace(key, std::move(row)).first->second;
}

template <typename T> void eval_row(const RowContext& c, int node, int y, int z, T* out) {
  const Node& n = c.p->nodes[node];
  const int nx = c.d[0];
  std::vector<std::vector<T>> v(n.expr.size());
  for (std::size_t k = 0; k < n.expr.size(); ++k) {
    const Expr& e = n.expr[k];
    std::vector<T>& r = v[k];
    r.resize(nx);
    switch (e.op) {
    case Op::Number: std::fill(r.begin(), r.end(), static_cast<T>(e.value)); break;
    case Op::Read: {
      const int yy = wrap(y + e.off[1], c.d[1]), zz = wrap(z + e.off[2], c.d[2]);
      const T* src;
      if (c.materialised == nullptr || (*c.materialised)[e.grid])
        src = field_vec<T>(c.s->fields[e.grid]).data() + (static_cast<std::size_t>(zz) * c.d[1] + yy) * nx;
      else
        src = recomputed_row<T>(c, e.grid, yy, zz).data();
      const int dx = e.off[0];
      for (int x = 0; x < nx; ++x) r[x] = src[wrap(x + dx, nx)];
      break;
    }
    case Op::Neg:
      for (int x = 0; x < nx; ++x) r[x] = -v[e.a][x];
      break;
    case Op::Add:
      for (int x = 0; x < nx; ++x) r[x] = v[e.a][x] + v[e.b][x];
      break;
    case Op::Sub:
      for (int x = 0; x < nx; ++x) r[x] = v[e.a][x] - v[e.b][x];
      break;
    case Op::Mul:
      for (int x = 0; x < nx; ++x) r[x] = v[e.a][x] * v[e.b][x];
      break;
    case Op::Div:
      for (int x = 0; x < nx; ++x) r[x] = v[e.a][x] / v[e.b][x];
      break;
    case Op::Sqrt:
      for (int x = 0; x < nx; ++x) r[x] = std::sqrt(v[e.a][x]);
      break;
    case Op::Abs:
      for (int x = 0; x < nx; ++x) r[x] = std::abs(v[e.a][x]);
      break;
    case Op::Min:
      for (int x = 0; x < nx; ++x) r[x] = std::min(v[e.a][x], v[e.b][x]);
      break;
    case Op::Max:
      for (int x = 0; x < nx; ++x) r[x] = std::max(v[e.a][x], v[e.b][x]);
      break;
    }
  }
  std::copy(v.back().begin(), v.back().end(), out);
}

void allocate(const Program& p, State& s, int node) {
  Field& f = s.fields[node];
  f.type = p.nodes[node].type;
  if (f.type == Type::F64)
    f.f64.assign(s.points(), 0.0);
  else
    f.f32.assign(s.points(), 0.0f);
}

// One plane z of stencil `node` into its field (with producer-consumer's row caches, inlined values recomputed).
void run_plane(const RowContext& c, State& s, int node, int z) {
  const std::size_t row = static_cast<std::size_t>(c.d[0]);
  for (int y = 0; y < c.d[1]; ++y) {
    const std::size_t at = (static_cast<std::size_t>(z) * c.d[1] + y) * row;
    if (s.fields[node].type == Type::F64)
      eval_row<double>(c, node, y, z, s.fields[node].f64.data() + at);
    else
      eval_row<float>(c, node, y, z, s.fields[node].f32.data() + at);
    // Rows of another y are not needed again after a few rows; keep the cache small.
    if (c.cache64 && c.cache64->size() + c.cache32->size() > 4096) c.cache64->clear(), c.cache32->clear();
  }
}

// Plane z of the fused kernel of plan `f` that writes `node`: its inlined values recomputed row by row (never stored).
void run_fused_plane(const Program& p, const FusionPlan& f, State& s, int node, int z) {
  std::map<std::tuple<int, int, int>, std::vector<double>> c64;
  std::map<std::tuple<int, int, int>, std::vector<float>> c32;
  run_plane(RowContext{&p, s.domain, &s, &f.materialised, &c64, &c32}, s, node, z);
}

void check_state(const Program& p, const State& s) {
  if (s.fields.size() != p.nodes.size()) throw InputError("the state does not match the program (field count)");
  for (int i : p.inputs())
    if (s.fields[i].size() != s.points() || s.fields[i].type != p.nodes[i].type)
      throw InputError(fmt::format("input '{}' is not filled for a {}x{}x{} domain", p.nodes[i].name, s.domain[0],
                                   s.domain[1], s.domain[2]));
}

} // namespace

State make_inputs(const Program& p, std::array<int, 3> domain, std::uint64_t seed) {
  if (domain[0] < 1 || domain[1] < 1 || domain[2] < 1) throw InputError("the domain must be at least 1x1x1");
  State s;
  s.domain = domain;
  s.fields.resize(p.nodes.size());
  for (int i : p.inputs()) {
    allocate(p, s, i);
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(i + 1) * 0xD1B54A32D192ED03ull;
    for (std::size_t k = 0; k < s.points(); ++k) {
      // splitmix64
      x += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      const double v = 0.5 + static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
      if (s.fields[i].type == Type::F64)
        s.fields[i].f64[k] = v;
      else
        s.fields[i].f32[k] = static_cast<float>(v);
    }
  }
  for (int i : p.stencils()) s.fields[i].type = p.nodes[i].type;
  return s;
}

void interpret(const Program& p, State& s, const std::function<void(int, int)>& progress) {
  check_state(p, s);
  const RowContext c{&p, s.domain, &s};
  const std::vector<int> st = p.stencils();
  int done = 0;
  for (int node : st) {
    allocate(p, s, node);
#pragma omp parallel for schedule(static)
    for (int z = 0; z < s.domain[2]; ++z) run_plane(c, s, node, z);
    if (progress) progress(++done, static_cast<int>(st.size()));
  }
}

void run_cpu(const Program& p, Strategy strategy, State& s, int max_recompute) {
  check_state(p, s);
  switch (strategy) {
  case Strategy::Sequential: interpret(p, s); return;
  case Strategy::Graph:
    throw InputError("the graph strategy is a CUDA graph of the sequential kernels: it runs on the GPU only");
  case Strategy::Parallel: {
    // One parallel loop per bucket over (operator, plane) tasks: operators of a bucket run side by side.
    const Analysis a = analyse(p);
    const RowContext c{&p, s.domain, &s};
    for (const auto& bucket : a.buckets) {
      for (int node : bucket) allocate(p, s, node);
      const int nz = s.domain[2], tasks = static_cast<int>(bucket.size()) * nz;
#pragma omp parallel for schedule(dynamic, 1)
      for (int t = 0; t < tasks; ++t) run_plane(c, s, bucket[t / nz], t % nz);
    }
    return;
  }
  case Strategy::Horizontal: {
    // One parallel loop per bucket over planes: each task computes every operator of the bucket on its plane.
    const Analysis a = analyse(p);
    const RowContext c{&p, s.domain, &s};
    for (const auto& bucket : a.buckets) {
      for (int node : bucket) allocate(p, s, node);
#pragma omp parallel for schedule(static)
      for (int z = 0; z < s.domain[2]; ++z)
        for (int node : bucket) run_plane(c, s, node, z);
    }
    return;
  }
  case Strategy::ProducerConsumer: {
    const FusionPlan f = plan_producer_consumer(p, max_recompute);
    for (int node : p.stencils())
      if (!f.materialised[node]) s.fields[node] = Field{p.nodes[node].type, {}, {}}; // inlined: never stored
    for (int node : f.kernel_node) {
      allocate(p, s, node);
#pragma omp parallel for schedule(static)
      for (int z = 0; z < s.domain[2]; ++z) run_fused_plane(p, f, s, node, z);
    }
    return;
  }
  case Strategy::Hybrid: {
    // Producer-consumer's plan without recomputation, one parallel loop over planes per level of it: each task
    // computes every kernel of the level on its plane.
    const FusionPlan f = plan_producer_consumer(p, kHybridRecomputeLimit);
    for (int node : p.stencils())
      if (!f.materialised[node]) s.fields[node] = Field{p.nodes[node].type, {}, {}}; // inlined: never stored
    for (const auto& level : fusion_levels(p, f)) {
      for (int k : level) allocate(p, s, f.kernel_node[k]);
#pragma omp parallel for schedule(static)
      for (int z = 0; z < s.domain[2]; ++z)
        for (int k : level) run_fused_plane(p, f, s, f.kernel_node[k], z);
    }
    return;
  }
  }
}

Compare compare_outputs(const Program& p, const State& got, const State& want) {
  Compare c;
  double num = 0, den = 0;
  for (int o : p.outputs()) {
    const Field &g = got.fields[o], &w = want.fields[o];
    if (g.size() != w.size() || g.size() == 0)
      throw InputError(fmt::format("output '{}' was not computed", p.nodes[o].name));
    for (std::size_t i = 0; i < g.size(); ++i) {
      const double a = g.at(i), b = w.at(i);
      if (!std::isfinite(a) || !std::isfinite(b)) c.finite = false;
      num += (a - b) * (a - b);
      den += b * b;
      c.max_abs = std::max(c.max_abs, std::abs(a - b));
    }
  }
  c.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!c.finite) c.rel_l2 = std::nan("");
  return c;
}

} // namespace se::dag
