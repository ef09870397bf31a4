// CUDA C++ generated per program, strategy and domain (the domain is baked in as constants). One thread
// computes one point; a block is a tile of kTileX x kTileY points of one plane (an mTask).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/dag/dag.hpp"

namespace se::dag {

namespace {

using Off = std::array<int, 3>;

const char* ctype(Type t) { return t == Type::F64 ? "double" : "float"; }

std::string num_literal(double v, Type t) {
  std::string s = fmt::format("{:.17g}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return t == Type::F32 ? s + "f" : s;
}

// Index expression of (x+o0, y+o1, z+o2) with periodic wrap; `base` names the point's coordinates.
std::string coord(const char* var, int o, int n) {
  if (o == 0) return var;
  if (std::abs(o) < n) return fmt::format("wrapi({} + ({}), {})", var, o, n);
  return fmt::format("wrapm({} + ({}), {})", var, o, n);
}

// The index of the point at offset o from (x, y, z), whose own index is `c`: in a tile whose reach stays inside the
// domain (W false) a constant offset from c, which the compiler folds into the load's address; otherwise each
// coordinate wrapped. `reach` grows to cover o.
std::string index_expr(Off o, std::array<int, 3> d, Off& reach) {
  for (int k = 0; k < 3; ++k) reach[k] = std::max(reach[k], std::abs(o[k]));
  if (o == Off{0, 0, 0}) return "c";
  const long long off = o[0] + static_cast<long long>(d[0]) * (o[1] + static_cast<long long>(d[1]) * o[2]);
  return fmt::format("(W ? idx({}, {}, {}) : c + ({}LL))", coord("x", o[0], d[0]), coord("y", o[1], d[1]),
                     coord("z", o[2], d[2]), off);
}

// The two instantiations of body `fn` (called with `args`), the one the block's tile (x0, y0) of plane z needs:
// unwrapped (W = false) where the tile widened by the body's reach lies inside the domain (inner()).
std::string path_dispatch(const std::string& fn, const char* args, Off reach) {
  return fmt::format("  if (inner(x0, y0, z, {1}, {2}, {3})) {0}<false>({4});\n  else {0}<true>({4});\n", fn, reach[0],
                     reach[1], reach[2], args);
}

std::string vname(int node, Off o) {
  const auto part = [](int v) { return v < 0 ? fmt::format("m{}", -v) : fmt::format("{}", v); };
  return fmt::format("v{}_{}_{}_{}", node, part(o[0]), part(o[1]), part(o[2]));
}

// The statements computing node `node` at offset `at`, into `target`. Reads of grids in `stored` are loads;
// other reads refer to the variables of values computed before (producer-consumer).
std::string emit_value(const Program& p, int node, Off at, const std::string& target, std::array<int, 3> d,
                       const std::vector<bool>* stored, int& counter, Off& reach) {
  const Node& n = p.nodes[node];
  const char* T = ctype(n.type);
  std::vector<std::string> t(n.expr.size());
  std::string out;
  for (std::size_t k = 0; k < n.expr.size(); ++k) {
    const Expr& e = n.expr[k];
    const std::string name = fmt::format("t{}", counter++);
    std::string rhs;
    switch (e.op) {
    case Op::Number: rhs = num_literal(e.value, n.type); break;
    case Op::Read: {
      const Off o{at[0] + e.off[0], at[1] + e.off[1], at[2] + e.off[2]};
      if (stored == nullptr || (*stored)[e.grid])
        rhs = fmt::format("g{}[{}]", e.grid, index_expr(o, d, reach));
      else
        rhs = vname(e.grid, o);
      break;
    }
    case Op::Neg: rhs = "-" + t[e.a]; break;
    case Op::Add: rhs = t[e.a] + " + " + t[e.b]; break;
    case Op::Sub: rhs = t[e.a] + " - " + t[e.b]; break;
    case Op::Mul: rhs = t[e.a] + " * " + t[e.b]; break;
    case Op::Div: rhs = t[e.a] + " / " + t[e.b]; break;
    case Op::Sqrt: rhs = "sqrt(" + t[e.a] + ")"; break;
    case Op::Abs: rhs = "fabs(" + t[e.a] + ")"; break;
    case Op::Min: rhs = "fmin(" + t[e.a] + ", " + t[e.b] + ")"; break;
    case Op::Max: rhs = "fmax(" + t[e.a] + ", " + t[e.b] + ")"; break;
    }
    out += fmt::format("  const {} {} = {};\n", T, name, rhs);
    t[k] = name;
  }
  out += fmt::format("  const {} {} = {};\n", T, target, t.back());
  return out;
}

// `const T* gN` for every grid N read.
std::string grid_decls(const Program& p, const std::set<int>& grids) {
  std::string out;
  for (int g : grids)
    out += fmt::format("  const {}* __restrict__ g{} = (const {}*)P.p[{}];\n", ctype(p.nodes[g].type), g,
                       ctype(p.nodes[g].type), g);
  return out;
}

// `T* name` for the grid `written`.
std::string out_decl(const Program& p, int written, const std::string& name) {
  return fmt::format("  {}* __restrict__ {} = ({}*)P.p[{}];\n", ctype(p.nodes[written].type), name,
                     ctype(p.nodes[written].type), written);
}

std::string pointer_decls(const Program& p, const std::set<int>& grids, int written) {
  return grid_decls(p, grids) + out_decl(p, written, "out");
}

// One part of a fused kernel: the grid it writes and the values it computes, in dependency order, its own last at
// offset 0 (a producer-consumer kernel's values; a single operator's is just its own).
struct FusedPart {
  int writes;
  std::vector<FusionPlan::Value> values;
};

// A kernel in which each thread computes every part at its point (horizontal fusion of a bucket's operators, or of
// a level of producer-consumer kernels): each (grid, offset) of a `loaded` grid the parts read is loaded once,
// before the first value that reads it, and inlined values (grids not `loaded`) are variables named like loads
// (vname), so every expression refers to variables only. `body_kernel(name, reach)` writes the kernel around the
// body `name`_body.
template <typename BodyKernel>
std::string fused_kernel(const Program& p, const std::string& name, const std::string& title, const char* unit,
                         const std::vector<FusedPart>& parts, const std::vector<bool>& loaded_grids,
                         std::array<int, 3> d, const BodyKernel& body_kernel) {
  const std::vector<bool> none_stored(p.nodes.size(), false);
  std::set<std::pair<int, Off>> loaded, computed;
  std::set<int> grids;
  std::string statements;
  Off reach{0, 0, 0};
  int counter = 0;
  for (const FusedPart& part : parts) {
    statements += fmt::format("  // {} = {}\n", p.nodes[part.writes].name, print_expression(p, p.nodes[part.writes]));
    for (const auto& v : part.values) {
      const bool own = v.node == part.writes;
      if (!own && !computed.insert({v.node, v.off}).second) continue; // an inlined value another part computed
      for (const Expr& e : p.nodes[v.node].expr) {
        const Off o{v.off[0] + e.off[0], v.off[1] + e.off[1], v.off[2] + e.off[2]};
        if (e.op == Op::Read && loaded_grids[e.grid] && loaded.insert({e.grid, o}).second) {
          grids.insert(e.grid);
          statements += fmt::format("  const {} {} = g{}[{}];\n", ctype(p.nodes[e.grid].type), vname(e.grid, o), e.grid,
                                    index_expr(o, d, reach));
        }
      }
      if (!own)
        statements += fmt::format("  // {} inlined at ({}, {}, {})\n", p.nodes[v.node].name, v.off[0], v.off[1], v.off[2]);
      const std::string target = own ? fmt::format("r{}", part.writes) : vname(v.node, v.off);
      statements += emit_value(p, v.node, v.off, target, d, &none_stored, counter, reach);
    }
    statements += fmt::format("  o{0}[c] = r{0};\n", part.writes);
  }
  std::string body = "// " + title + ":";
  for (const FusedPart& part : parts) body += " " + p.nodes[part.writes].name;
  body += fmt::format(" ({} {}, {} distinct loads)\n", parts.size(), unit, loaded.size());
  body += fmt::format("template <bool W> __device__ __forceinline__ void {}_body(const Ptrs& P, int x, int y, int z) {{\n",
                      name);
  body += grid_decls(p, grids);
  for (const FusedPart& part : parts) body += out_decl(p, part.writes, fmt::format("o{}", part.writes));
  body += "  const IDX c = idx(x, y, z);\n" + statements + "}\n";
  return body + body_kernel(name, reach);
}

std::set<int> reads_of(const Program& p, int node) {
  std::set<int> s;
  for (const Expr& e : p.nodes[node].expr)
    if (e.op == Op::Read) s.insert(e.grid);
  return s;
}

} // namespace

GeneratedCode generate_cuda(const Program& p, Strategy s, std::array<int, 3> d, int max_recompute) {
  GeneratedCode g;
  g.strategy = s;
  g.pointer_slots = static_cast<int>(p.nodes.size());
  std::string src = fmt::format(
      "// Generated by stencil-explorer for program '{}', strategy {}, domain {}x{}x{} (periodic).\n"
      "struct Ptrs {{ void* p[{}]; }};\n"
      "#define NX {}\n#define NY {}\n#define NZ {}\n"
      "__device__ __forceinline__ int wrapi(int i, int n) {{ return i < 0 ? i + n : (i >= n ? i - n : i); }}\n"
      "__device__ __forceinline__ int wrapm(int i, int n) {{ i %= n; return i < 0 ? i + n : i; }}\n"
      "typedef {} IDX; // 32-bit indices where the domain has fewer than 2^31 points (fewer registers, fewer instructions)\n"
      "__device__ __forceinline__ IDX idx(int x, int y, int z) {{ return ((IDX)z * NY + y) * NX + x; }}\n",
      p.name, to_string(s), d[0], d[1], d[2], p.nodes.size(), d[0], d[1], d[2],
      static_cast<long long>(d[0]) * d[1] * d[2] <= 2147483647LL ? "int" : "unsigned long long");
  const int tiles_x = (d[0] + kTileX - 1) / kTileX, tiles_y = (d[1] + kTileY - 1) / kTileY;
  src += fmt::format("#define TILES_X {}\n#define TILES_Y {}\n#define TILE_X {}\n#define TILE_Y {}\n", tiles_x, tiles_y,
                     kTileX, kTileY);
  // A block's tile (x0, y0) of plane z, widened by the reach (rx, ry, rz) of its loads, inside the domain: every
  // load is the point's index plus a constant (the W = false instantiation), no wrap and no index arithmetic.
  src += "__device__ __forceinline__ bool inner(int x0, int y0, int z, int rx, int ry, int rz) {\n"
         "  return x0 >= rx && x0 + TILE_X + rx <= NX && y0 >= ry && y0 + TILE_Y + ry <= NY && z >= rz && z + rz < NZ;\n"
         "}\n\n";
  const Analysis a = analyse(p);
  const std::vector<int> st = p.stencils();
  std::map<int, int> kernel_of_node;

  // One device function per stencil node: the point (x, y, z) of that operator (sequential, parallel, graph),
  // with and without wrapped indices (W), and op_N_at, which takes the one the point's tile (x0, y0) needs.
  const auto op_function = [&](int node) {
    std::string f = fmt::format("// {} = {}\ntemplate <bool W> __device__ __forceinline__ void op_{}(const Ptrs& P, int x, "
                                "int y, int z) {{\n",
                                p.nodes[node].name, print_expression(p, p.nodes[node]), node);
    f += pointer_decls(p, reads_of(p, node), node);
    f += "  const IDX c = idx(x, y, z);\n";
    int counter = 0;
    Off reach{0, 0, 0};
    f += emit_value(p, node, {0, 0, 0}, "r", d, nullptr, counter, reach);
    f += "  out[c] = r;\n}\n";
    f += fmt::format("__device__ __forceinline__ void op_{}_at(const Ptrs& P, int x0, int y0, int x, int y, int z) {{\n",
                     node) +
         path_dispatch(fmt::format("op_{}", node), "P, x, y, z", reach) + "}\n\n";
    return f;
  };
  const std::string point_of_thread =
      "  const int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TILE_Y, z = blockIdx.z;\n"
      "  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;\n"
      "  if (x >= NX || y >= NY) return;\n";
  // The kernel NAME over the tiles of every plane, one point a thread, calling NAME_body<W> with the index path its
  // tile needs (`reach`: the body's largest offsets).
  const auto body_kernel = [&](const std::string& name, Off reach) {
    return fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(Ptrs P) {{\n{}", kTileX * kTileY, name,
                       point_of_thread) +
           path_dispatch(name + "_body", "P, x, y, z", reach) + "}\n\n";
  };

  if (s == Strategy::Sequential || s == Strategy::Graph || s == Strategy::Parallel) {
    for (int node : st) src += op_function(node);
  }
  if (s == Strategy::Sequential || s == Strategy::Graph) {
    for (int node : st) {
      KernelInfo k;
      k.name = fmt::format("k_{}", p.nodes[node].name);
      k.nodes = {node};
      for (int prod : a.info(node).stencil_producers) k.after.push_back(kernel_of_node.at(prod));
      kernel_of_node[node] = static_cast<int>(g.kernels.size());
      src += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(Ptrs P) {{\n{}  op_{}_at(P, x0, y0, x, y, z);\n}}\n\n",
                         kTileX * kTileY, k.name, point_of_thread, node);
      g.kernels.push_back(std::move(k));
    }
  } else if (s == Strategy::Parallel) {
    // One kernel per bucket. Its blocks are virtual execution units (vEUs, Rammer): each runs the list of
    // mTasks (operator, tile) the host's schedule bound to it; operators of the bucket share the launch.
    for (std::size_t b = 0; b < a.buckets.size(); ++b) {
      KernelInfo k;
      k.name = fmt::format("bucket_{}", b);
      k.nodes = a.buckets[b];
      k.task_table = true;
      if (b > 0) k.after = {static_cast<int>(b) - 1};
      src += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(Ptrs P, const int* __restrict__ "
                         "task_begin, const int2* __restrict__ tasks) {{\n"
                         "  const int end = task_begin[blockIdx.x + 1];\n"
                         "  for (int t = task_begin[blockIdx.x]; t < end; ++t) {{\n"
                         "    const int2 task = tasks[t];\n"
                         "    const int tile = task.y, tx = tile % TILES_X, ty = (tile / TILES_X) % TILES_Y, "
                         "z = tile / (TILES_X * TILES_Y);\n"
                         "    const int x0 = tx * TILE_X, y0 = ty * TILE_Y, x = x0 + threadIdx.x, y = y0 + threadIdx.y;\n"
                         "    if (x >= NX || y >= NY) continue;\n"
                         "    switch (task.x) {{\n",
                         kTileX * kTileY, k.name);
      for (std::size_t i = 0; i < k.nodes.size(); ++i)
        src += fmt::format("    case {}: op_{}_at(P, x0, y0, x, y, z); break; // {}\n", i, k.nodes[i], p.nodes[k.nodes[i]].name);
      src += "    }\n  }\n}\n\n";
      k.direct_name = k.name + "_direct";
      src += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(Ptrs P) {{\n"
                         "  const int op = blockIdx.x % {}, tile = blockIdx.x / {};\n"
                         "  const int tx = tile % TILES_X, ty = (tile / TILES_X) % TILES_Y, z = tile / (TILES_X * TILES_Y);\n"
                         "  const int x0 = tx * TILE_X, y0 = ty * TILE_Y, x = x0 + threadIdx.x, y = y0 + threadIdx.y;\n"
                         "  if (x >= NX || y >= NY) return;\n"
                         "  switch (op) {{\n",
                         kTileX * kTileY, k.direct_name, k.nodes.size(), k.nodes.size());
      for (std::size_t i = 0; i < k.nodes.size(); ++i)
        src += fmt::format("  case {}: op_{}_at(P, x0, y0, x, y, z); break;\n", i, k.nodes[i]);
      src += "  }\n}\n\n";
      g.kernels.push_back(std::move(k));
    }
  } else if (s == Strategy::Horizontal) {
    // One kernel per bucket; each thread computes every operator of the bucket at its point. The bucket's
    // operators do not read each other (a bucket's nodes depend only on earlier buckets), so each distinct
    // (grid, offset) value they read is loaded once, before the first operator that reads it, and every later
    // operator's expression uses the same variable.
    const std::vector<bool> every_grid_loaded(p.nodes.size(), true);
    for (std::size_t b = 0; b < a.buckets.size(); ++b) {
      KernelInfo k;
      k.name = fmt::format("hbucket_{}", b);
      k.nodes = a.buckets[b];
      if (b > 0) k.after = {static_cast<int>(b) - 1};
      std::vector<FusedPart> parts;
      for (int node : k.nodes) parts.push_back({node, {{node, {0, 0, 0}}}});
      src += fused_kernel(p, k.name, fmt::format("bucket {}", b), "operators", parts, every_grid_loaded, d,
                          body_kernel);
      g.kernels.push_back(std::move(k));
    }
  } else if (s == Strategy::Hybrid) {
    // Producer-consumer's plan without recomputation, its kernels of one level fused horizontally: one kernel per
    // level; each thread computes every kernel of the level at its point, inlined values included, each
    // (grid, offset) the level loads loaded once.
    const FusionPlan f = plan_producer_consumer(p, kHybridRecomputeLimit);
    const auto levels = fusion_levels(p, f);
    for (std::size_t l = 0; l < levels.size(); ++l) {
      KernelInfo k;
      k.name = fmt::format("level_{}", l);
      std::vector<FusedPart> parts;
      for (int pk : levels[l]) {
        k.nodes.push_back(f.kernel_node[pk]);
        parts.push_back({f.kernel_node[pk], f.kernels[pk]});
      }
      if (l > 0) k.after = {static_cast<int>(l) - 1};
      src += fused_kernel(p, k.name, fmt::format("level {}", l), "kernels", parts, f.materialised, d, body_kernel);
      g.kernels.push_back(std::move(k));
    }
  } else { // producer-consumer
    const FusionPlan f = plan_producer_consumer(p, max_recompute);
    for (std::size_t k = 0; k < f.kernels.size(); ++k) {
      const int node = f.kernel_node[k];
      KernelInfo ki;
      ki.name = fmt::format("fused_{}", p.nodes[node].name);
      ki.nodes = {node};
      if (k > 0) ki.after = {static_cast<int>(k) - 1};
      std::set<int> loads;
      for (const auto& v : f.kernels[k])
        for (int r : reads_of(p, v.node))
          if (f.materialised[r]) loads.insert(r);
      // The fused body with and without wrapped indices (W); the kernel takes the one its tile needs.
      std::string body = fmt::format("template <bool W> __device__ __forceinline__ void {}_body(const Ptrs& P, int x, int y, "
                                     "int z) {{\n",
                                     ki.name);
      body += pointer_decls(p, loads, node);
      body += "  const IDX c = idx(x, y, z);\n";
      std::map<int, int> count;
      for (const auto& v : f.kernels[k]) ++count[v.node];
      for (const auto& [n, c] : count)
        if (n != node) body += fmt::format("  // {} inlined, recomputed at {} offsets\n", p.nodes[n].name, c);
      int counter = 0;
      Off reach{0, 0, 0};
      for (const auto& v : f.kernels[k]) {
        const bool own = v.node == node;
        body += emit_value(p, v.node, v.off, own ? "r" : vname(v.node, v.off), d, &f.materialised, counter, reach);
      }
      body += "  out[c] = r;\n}\n";
      body += body_kernel(ki.name, reach);
      src += body;
      g.kernels.push_back(std::move(ki));
    }
  }
  g.source = std::move(src);
  return g;
}

} // namespace se::dag
