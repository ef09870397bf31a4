// Printing and serialising LoRAStencil plans: aligned matrices for people, full JSON for the views and tools.
#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/lorastencil/lorastencil_method.hpp"

namespace se {
namespace {

std::string number(double v) { return v == 0.0 ? "0" : fmt::format("{:.6g}", v); }

// Right-aligned columns of equal width, each row on its own line after `indent`.
std::string format_matrix(const std::vector<double>& m, int rows, int cols, const std::string& indent) {
  std::vector<std::string> cells(m.size());
  std::size_t width = 1;
  for (std::size_t i = 0; i < m.size(); ++i) {
    cells[i] = number(m[i]);
    width = std::max(width, cells[i].size());
  }
  std::string out;
  for (int r = 0; r < rows; ++r) {
    out += indent;
    for (int c = 0; c < cols; ++c)
      out += fmt::format("{}{:>{}}", c ? " " : "", cells[static_cast<std::size_t>(r * cols + c)], width);
    out += "\n";
  }
  return out;
}

std::string format_vector(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + number(v[i]);
  return s + "]";
}

std::string format_decomposition(const WeightDecomposition& d, const std::string& indent) {
  const int side = d.weights.side;
  std::string s = fmt::format("{}{} ({})\n", indent, to_string(d.kind), d.reason);
  s += fmt::format("{}W ({}x{}):\n", indent, side, side) + format_matrix(d.weights.values, side, side, indent + "  ");
  s += fmt::format("{}singular values {}, rank {}\n", indent, format_vector(d.singular_values), d.rank);
  for (std::size_t i = 0; i < d.terms.size(); ++i) {
    const RankOneTerm& t = d.terms[i];
    if (t.on_cuda_cores) {
      s += fmt::format("{}C{}: 1x1 apex {} on CUDA cores (centre point times the weight)\n", indent, i + 1,
                       number(t.weight()));
    } else {
      s += fmt::format("{}C{}: side {} at offset {}, on tensor cores\n{}  u = {}\n{}  v = {}\n", indent, i + 1, t.size,
                       t.offset, indent, format_vector(t.u), indent, format_vector(t.v));
    }
    const std::string subtracted = i == 0 ? "C1" : i == 1 ? "C1 - C2" : fmt::format("C1 - ... - C{}", i + 1);
    s += fmt::format("{}  residual W - {}:\n", indent, subtracted) +
         format_matrix(t.residual.values, side, side, indent + "    ");
  }
  return s;
}

nlohmann::json matrix_json(const std::vector<double>& m, int rows, int cols) {
  nlohmann::json j = nlohmann::json::array();
  for (int r = 0; r < rows; ++r)
    j.push_back(std::vector<double>(m.begin() + r * cols, m.begin() + (r + 1) * cols));
  return j;
}

nlohmann::json decomposition_json(const WeightDecomposition& d) {
  const int side = d.weights.side;
  nlohmann::json terms = nlohmann::json::array();
  for (const RankOneTerm& t : d.terms)
    terms.push_back({{"size", t.size},
                     {"offset", t.offset},
                     {"u", t.u},
                     {"v", t.v},
                     {"on_cuda_cores", t.on_cuda_cores},
                     {"residual", matrix_json(t.residual.values, side, side)}});
  return {{"kind", to_string(d.kind)},
          {"reason", d.reason},
          {"weights", matrix_json(d.weights.values, side, side)},
          {"rank", d.rank},
          {"singular_values", d.singular_values},
          {"terms", terms}};
}

std::string layout_line(MmaShape shape) {
  const MmaShapeInfo& info = mma_info(shape);
  return fmt::format("{} (A {}x{}, B {}x{}, C {}x{}; {})", info.ptx, info.m, info.k, info.k, info.n, info.m, info.n,
                     info.note);
}

std::string format_swap(const ButterflySwap& swap) {
  std::string perm;
  for (std::size_t i = 0; i < swap.permutation.size(); ++i) perm += fmt::format("{}{}", i ? " " : "", swap.permutation[i]);
  std::string s = fmt::format("butterfly vector swapping: T' column k' = T column [{}]; V' rows in the same order\n",
                              perm);
  s += "  each A register of T'·V' is a C register of U·X in the same lane (no shuffle):\n";
  for (std::size_t i = 0; i < swap.a_sources.size(); ++i)
    s += fmt::format("    A block {} reg {} <- C fragment {} reg {}\n", static_cast<int>(i) / swap.a_regs,
                     static_cast<int>(i) % swap.a_regs, swap.a_sources[i].c_tile, swap.a_sources[i].c_reg);
  return s;
}

std::string format_fusion(const LoraStencilPlan& plan) {
  std::string s = fmt::format("temporal fusion: {} base step(s) per pass; {}\n", plan.fused_steps, plan.fusion_rule);
  s += "   T  radius  TC terms  MMA/point  global B/point  est. ps/point  bound\n";
  for (const FusionCandidate& c : plan.fusion_candidates)
    s += fmt::format("  {:>2}  {:>6}  {:>8}  {:>9.4f}  {:>14.3f}  {:>13.3f}  {}\n", c.steps, c.radius,
                     c.tensor_core_terms, c.mma_per_point, c.global_bytes_per_point, c.estimated_ps_per_point, c.bound);
  return s;
}

} // namespace

std::string to_string(const LoraStencilPlan& plan) {
  const Stencil& s = plan.stencil;
  std::string out = fmt::format("LoRAStencil plan for '{}' ({}D, radius {}, {} non-zero weights)\n", s.name, s.dims,
                                s.radius, s.nonzero_count());
  out += "instruction: " + layout_line(plan.options.shape) + "\n";
  out += format_fusion(plan);
  if (plan.fused_steps > 1)
    out += fmt::format("fused kernel {} (radius {}, {} non-zero weights)\n", plan.kernel.name, plan.kernel.radius,
                       plan.kernel.nonzero_count());
  if (s.dims == 1) {
    const LineGather& g = plan.line;
    out += fmt::format("1D: one gather Y = X·V per tile of {} segments x {} outputs; row p of X holds segment p's {} "
                       "inputs (padded to {}); {} MMAs per tile\n",
                       g.m, g.n, g.window, g.inner, g.mma_per_tile());
    out += fmt::format("weights {}\nV ({}x{}):\n", format_vector(plan.kernel.weights), g.inner, g.n) +
           format_matrix(g.v_band, g.inner, g.n, "  ");
  } else {
    const GatherTile& t = plan.tile;
    out += fmt::format("residual dimension gathering: {}x{} outputs per tile from a {}x{} window read as X {}x{}; per "
                       "term T = U·X ({} MMAs) then Y += T'·V' ({} MMAs)\n",
                       t.tile_rows, t.tile_cols, t.window_rows, t.window_cols, t.x_rows, t.x_cols, t.step1_mma(),
                       t.step2_mma());
    out += format_swap(plan.swap);
    bool bands_shown = false;
    for (const LoraPlane& p : plan.planes) {
      out += fmt::format("plane dz = {}: {}", p.dz, to_string(p.kind));
      if (p.folds_mirror) out += fmt::format(", folding its mirror: runs once on x[z{:+d}] + x[z{:+d}]", p.dz, -p.dz);
      if (p.mirrored) {
        out += fmt::format(", the same weights as plane dz = {}, which runs them on both planes' sum\n", -p.dz);
        continue;
      }
      if (p.kind == PlaneKind::CudaCores)
        out += fmt::format(", single weight {} at (dx {}, dy {})\n", number(p.weight), p.dx, p.dy);
      if (p.kind != PlaneKind::TensorCores) {
        out += p.kind == PlaneKind::Empty ? "\n" : "";
        continue;
      }
      out += "\n" + format_decomposition(p.decomposition, "  ");
      if (!bands_shown && !p.bands.empty()) {
        const BandedPair& b = p.bands.front();
        out += fmt::format("  U of C1 ({}x{}):\n", t.tile_rows, t.x_rows) + format_matrix(b.u_band, t.tile_rows, t.x_rows, "    ");
        out += fmt::format("  V of C1 ({}x{}):\n", t.x_cols, t.tile_cols) + format_matrix(b.v_band, t.x_cols, t.tile_cols, "    ");
        out += fmt::format("  V' of C1, rows butterfly-swapped ({}x{}):\n", t.x_cols, t.tile_cols) +
               format_matrix(b.v_swapped, t.x_cols, t.tile_cols, "    ");
        bands_shown = true;
      }
    }
  }
  out += to_string(plan.cost);
  return out;
}

nlohmann::json to_json(const LoraStencilPlan& plan) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const FusionCandidate& c : plan.fusion_candidates)
    candidates.push_back({{"steps", c.steps},
                          {"radius", c.radius},
                          {"tensor_core_terms", c.tensor_core_terms},
                          {"mma_per_point", c.mma_per_point},
                          {"global_bytes_per_point", c.global_bytes_per_point},
                          {"estimated_ps_per_point", c.estimated_ps_per_point},
                          {"bound", c.bound}});
  nlohmann::json j = {{"method", "lorastencil"},
                      {"stencil", to_json(plan.stencil)},
                      {"kernel", to_json(plan.kernel)},
                      {"fused_steps", plan.fused_steps},
                      {"fusion_rule", plan.fusion_rule},
                      {"fusion_candidates", candidates},
                      {"options",
                       {{"shape", mma_info(plan.options.shape).id},
                        {"decomposition", to_string(plan.options.decomposition)},
                        {"device", plan.options.device.name},
                        {"memory_gbs", plan.options.device.memory_gbs},
                        {"tensor_fp64_tflops", plan.options.device.tensor_fp64_tflops}}},
                      {"cost", to_json(plan.cost)}};
  if (plan.stencil.dims == 1) {
    const LineGather& g = plan.line;
    j["line"] = {{"shape", mma_info(g.shape).id}, {"segments", g.m},      {"segment_length", g.n},
                 {"window", g.window},            {"inner", g.inner},     {"mma_per_tile", g.mma_per_tile()},
                 {"v_band", matrix_json(g.v_band, g.inner, g.n)}};
    return j;
  }
  const GatherTile& t = plan.tile;
  j["tile"] = {{"shape", mma_info(t.shape).id}, {"tile_rows", t.tile_rows},     {"tile_cols", t.tile_cols},
               {"window_rows", t.window_rows},  {"window_cols", t.window_cols}, {"x_rows", t.x_rows},
               {"x_cols", t.x_cols},            {"step1_mma", t.step1_mma()},   {"step2_mma", t.step2_mma()}};
  nlohmann::json sources = nlohmann::json::array();
  for (const RegisterSource& src : plan.swap.a_sources) sources.push_back({{"c_fragment", src.c_tile}, {"c_reg", src.c_reg}});
  j["butterfly_swap"] = {{"permutation", plan.swap.permutation}, {"a_sources", sources}};
  nlohmann::json planes = nlohmann::json::array();
  for (const LoraPlane& p : plan.planes) {
    nlohmann::json pj = {{"dz", p.dz}, {"kind", to_string(p.kind)}};
    if (p.folds_mirror) pj["folds_mirror"] = true;
    if (p.mirrored) pj["mirrored"] = true;
    if (p.kind == PlaneKind::CudaCores) pj.update({{"dx", p.dx}, {"dy", p.dy}, {"weight", p.weight}});
    if (p.kind == PlaneKind::TensorCores) {
      pj["decomposition"] = decomposition_json(p.decomposition);
      pj["apex"] = p.apex;
      nlohmann::json bands = nlohmann::json::array();
      for (const BandedPair& b : p.bands)
        bands.push_back({{"U", matrix_json(b.u_band, t.tile_rows, t.x_rows)},
                         {"V", matrix_json(b.v_band, t.x_cols, t.tile_cols)},
                         {"V_swapped", matrix_json(b.v_swapped, t.x_cols, t.tile_cols)}});
      pj["bands"] = bands;
    }
    planes.push_back(pj);
  }
  j["planes"] = planes;
  return j;
}

PlanSummary lorastencil_summary(const LoraStencilPlan& plan, const Extent& extent) {
  const Stencil& s = plan.stencil;
  check_extent_fits_stencil(extent, s);
  PlanSummary summary;
  summary.method = "lorastencil";
  summary.cost = plan.cost;
  summary.json = to_json(plan);
  summary.text = to_string(plan);
  // Tiles of this extent, partial ones included, and what one pass executes on them.
  std::int64_t tiles = 1, tile_points = 1;
  if (s.dims == 1) {
    tile_points = plan.line.points();
    tiles = (extent.n[0] + tile_points - 1) / tile_points;
  } else {
    tile_points = plan.tile.points();
    tiles = (extent.n[0] + plan.tile.tile_cols - 1) / plan.tile.tile_cols *
            ((extent.n[1] + plan.tile.tile_rows - 1) / plan.tile.tile_rows) * extent.n[2];
  }
  const double mma_per_tile = plan.cost.mma_per_point * plan.fused_steps * static_cast<double>(tile_points);
  const std::string on_grid = fmt::format("{} tiles, {:.0f} MMAs per pass of {} step(s) ({} points)", tiles,
                                          mma_per_tile * static_cast<double>(tiles), plan.fused_steps, extent.points());
  summary.cost.notes.push_back({"this grid", on_grid});
  summary.text += fmt::format("on {}: {}\n", extent.to_string(), on_grid);
  summary.json["on_grid"] = {{"extent", extent.to_string()}, {"tiles", tiles}, {"mma_per_pass", mma_per_tile * static_cast<double>(tiles)}};
  if (plan.fused_steps > 1) {
    LoraStencilOptions base = plan.options;
    base.fused_steps = 1;
    const LoraStencilPlan unfused = make_lorastencil_plan(s, base);
    summary.text += fmt::format("\nfor comparison, not what this plan runs: the base stencil on its own (T = 1), "
                                "as the plan would be without fusion:\n");
    for (const LoraPlane& p : unfused.planes)
      if (p.kind == PlaneKind::TensorCores)
        summary.text += fmt::format("plane dz = {}:\n", p.dz) + format_decomposition(p.decomposition, "  ");
    // Its own heading: the plan's cost block above is the one `plan` reports (and writes to the JSON's "cost").
    std::string block = to_string(unfused.cost);
    block.replace(0, block.find('\n'), "cost without fusion (T = 1, comparison only), per updated point and step");
    summary.text += block;
    summary.json["unfused"] = to_json(unfused);
  }
  if (s.dims >= 2) {
    std::string split; // the structured splits the plan took instead of the SVD
    for (const LoraPlane& p : plan.planes)
      if (p.kind == PlaneKind::TensorCores && p.decomposition.kind != DecompositionKind::Svd &&
          split.find(to_string(p.decomposition.kind)) == std::string::npos)
        split += (split.empty() ? "" : " and ") + std::string(to_string(p.decomposition.kind));
    if (!split.empty()) {
      LoraStencilOptions svd = plan.options;
      svd.fused_steps = plan.fused_steps;
      svd.decomposition = DecompositionChoice::Svd;
      const LoraStencilPlan alt = make_lorastencil_plan(s, svd);
      summary.text += fmt::format("\nthe SVD alternative (same T): {} full-size rank-1 term(s) on tensor cores where "
                                  "the {} split needs {} (apexes add on CUDA cores): {:.4f} MMA per point instead "
                                  "of {:.4f}\n",
                                  alt.tensor_core_terms(), split, plan.tensor_core_terms(), alt.cost.mma_per_point,
                                  plan.cost.mma_per_point);
      summary.json["svd_alternative"] = {{"tensor_core_terms", alt.tensor_core_terms()}, {"cost", to_json(alt.cost)}};
    }
  }
  return summary;
}

} // namespace se
