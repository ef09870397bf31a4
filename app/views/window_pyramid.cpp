// The rank-1 pyramid view (LoRAStencil, paper Fig. 5): W peeled into rank-1 terms C = u·vᵀ with the residual
// after each, the rank, the SVD alternative and its extra cost for weights the pyramid cannot take, and the
// banded U and V of one residual-dimension-gathering step on an 8x8 tile.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <imgui.h>

#include "app/widgets/matrix_widget.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/convstencil/convstencil_method.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "kernels/registry.hpp"

namespace se {
namespace {

constexpr const char* kView = "pyramid";

// Everything the view draws, derived from one stencil (and plane) and rebuilt only when they change.
struct PyramidFigure {
  Stencil stencil;
  int plane = 0;
  bool built = false;
  std::string unsupported;       // why LoRAStencil cannot take the stencil at all
  PlaneKind plane_kind = PlaneKind::TensorCores;
  bool mirror_folds = false; // 3D: plane -dz has the same weights; the GPU kernels run both as one (mirror folding)
  WeightMatrix weights;
  WeightDecomposition decomposition; // the pyramid, or the SVD where the pyramid cannot be built
  std::string pyramid_obstacle;      // empty when the pyramid exists
  WeightDecomposition svd;           // always, to price the alternative
  GatherTile tile;
  ButterflySwap swap;
  std::vector<BandedPair> bands;     // per tensor-core term of `decomposition`
  LineGather line;                   // 1D
  // Every count printed comes from the plans (LoRAStencil's descriptor, one base step per pass): the plan's
  // tile, each term trimmed to its non-zeros (decomposition_tile_mma, what the decomposition rule compares).
  DecompositionKind planned_kind = DecompositionKind::Pyramid; // what the plan runs on this plane
  int plan_tile_mma = 0;             // the plan's own decomposition, per warp tile
  int drawn_tile_mma = 0;            // the decomposition drawn (the pyramid where W has one)
  std::vector<int> drawn_term_mma;   // per tensor-core term of the decomposition drawn
  int svd_tile_mma = 0;              // the SVD on the same tile
  int tile_points = 64;              // outputs per warp tile
  double mma_per_point = 0;          // the plan's cost model (one base step per pass)
  double svd_mma_per_point = 0;      // the SVD forced, its cost model
  std::string fusion_rule;
  int fused_steps = 1;
  // The GPU kernel's own plan at one base step (its MMA shape and warp tile differ from the emulation's, which the
  // figures above count): what the Baselines view prints for LoRAStencil, per point and base step. Empty shape: no
  // GPU kernel in this build's list, or it cannot take the stencil.
  std::string gpu_shape;
  double gpu_mma_per_point = 0;
  // The small numbers the paper argues with (Sec. III-B, III-D, IV-A), for this stencil from the plans: LoRAStencil's
  // and ConvStencil's cost models at one base step (input loads and MMAs per point), and the X operand against
  // the window it holds at T = 1 and at the fused depth.
  bool conv_known = false;
  double lora_input = 0, conv_input = 0, lora_mma = 0, conv_mma = 0;
  int x1_values = 0, window1_values = 0, xt_values = 0, windowt_values = 0; // per fragment tile, T = 1 and fused
};

struct PyramidMemory {
  PyramidFigure figure;
  int plane = 0;
  int term = 0;
  int level = 1; // the pyramid level shown (1 = C1); 0: all levels
  int part = 0;  // where a level is shown a part at a time (LevelParts): 0 R_{i-1} (W), 1 u·vᵀ = C_i, 2 R_i
  int row_page = 0; // ... and a part of its rows at a time: the part shown
  // A short window folds the reason and the counts into a tooltip where a whole level's legend would not fit under
  // them (box-2d25p's fourteen letters ran past the window's bottom at a lecture's 1280x720): decided from the last
  // frame's legend and the texts' height when they were last shown.
  bool fold = false;
  bool by_parts = false; // ... and where the legend does not fit with the texts folded either, the level goes by parts
  std::pair<std::vector<double>, int> fold_for; // the weights and level `fold` and `by_parts` were decided for
  int rdg_part = 0; // the RDG page's part: 0 U·X·V, 1 V and V', 2 the plan's and the paper's numbers
};

LoraStencilOptions one_step(DecompositionChoice choice) {
  LoraStencilOptions o;
  o.fused_steps = 1;
  o.decomposition = choice;
  return o;
}

// LoRAStencil's plan as its descriptor builds it (the plan the CPU run, `stencil-bench plan` and the cost model
// use), at `fused_steps` (0: the cost model's choice).
LoraStencilPlan descriptor_plan(const Stencil& s, int fused_steps) {
  for (const DescriptorPtr& d : method_list())
    if (d->id == "lorastencil") return plan_value<LoraStencilPlan>(*d->plan(s, PlanRequest{Backend::Emulate, fused_steps}));
  return make_lorastencil_plan(s, one_step(DecompositionChoice::Auto));
}

PyramidFigure build_figure(const Stencil& s, int plane) {
  PyramidFigure f;
  f.stencil = s;
  f.plane = plane;
  f.built = true;
  try {
    const LoraStencilPlan plan = descriptor_plan(s, 1);
    f.mma_per_point = plan.cost.mma_per_point;
    const LoraStencilPlan fused = descriptor_plan(s, 0); // what the cost model would fuse
    f.fused_steps = fused.fused_steps;
    f.fusion_rule = fused.fusion_rule;
    f.lora_input = plan.cost.input_loads_per_point;
    f.lora_mma = plan.cost.mma_per_point;
    for (const DescriptorPtr& d : method_list())
      if (d->id == "lorastencil" && d->gpu) try {
          const PlanPtr gpu = gpu_variant(d).plan(s, 1);
          f.gpu_shape = gpu->cost.mma_shape;
          f.gpu_mma_per_point = gpu->cost.mma_per_point;
        } catch (const InputError&) { // the kernel cannot take it: no GPU line
        }
    for (const DescriptorPtr& d : method_list())
      if (d->id == "convstencil") try {
          const PlanPtr conv = d->plan(s, PlanRequest{Backend::Emulate, 1});
          f.conv_input = conv->cost.input_loads_per_point;
          f.conv_mma = conv->cost.mma_per_point;
          f.conv_known = f.conv_input > 0 && f.conv_mma > 0;
        } catch (const InputError&) { // ConvStencil cannot take it: no comparison
        }
    if (s.dims >= 2) {
      f.x1_values = plan.tile.x_rows * plan.tile.x_cols;
      f.window1_values = plan.tile.window_rows * plan.tile.window_cols;
      f.xt_values = fused.tile.x_rows * fused.tile.x_cols;
      f.windowt_values = fused.tile.window_rows * fused.tile.window_cols;
    }
    if (s.dims == 1) {
      f.line = plan.line;
      return f;
    }
    const LoraStencilPlan svd_plan = make_lorastencil_plan(s, one_step(DecompositionChoice::Svd));
    f.svd_mma_per_point = svd_plan.cost.mma_per_point;
    const WeightDecomposition* planned = nullptr; // the plan's own split of this plane
    for (const LoraPlane& p : plan.planes)
      if (p.dz == plane) {
        f.plane_kind = p.kind;
        if (p.kind == PlaneKind::TensorCores) planned = &p.decomposition;
      }
    f.weights = weight_matrix(s, plane);
    f.mirror_folds = mirror_planes_fold(s, plane);
    f.pyramid_obstacle = pyramid_obstacle(f.weights);
    f.svd = svd_decomposition(f.weights);
    // The pyramid where W has one (the paper's figure); where it has none, what the plan runs: the cross split of
    // a star (cheaper than the SVD, which is priced beside it) or the SVD.
    if (f.pyramid_obstacle.empty())
      f.decomposition = pyramid_decomposition(f.weights);
    else if (planned != nullptr && planned->kind == DecompositionKind::Cross)
      f.decomposition = *planned;
    else
      f.decomposition = f.svd;
    f.tile = plan.tile;
    f.swap = plan.swap;
    f.tile_points = plan.tile.warp_points();
    for (const LoraPlane& p : plan.planes)
      if (p.dz == plane && p.kind == PlaneKind::TensorCores) {
        f.planned_kind = p.decomposition.kind;
        f.plan_tile_mma = decomposition_tile_mma(p.decomposition, plan.tile);
      }
    f.drawn_tile_mma = decomposition_tile_mma(f.decomposition, plan.tile);
    for (const RankOneTerm& t : f.decomposition.terms)
      if (!t.on_cuda_cores) f.drawn_term_mma.push_back(term_schedule(plan.tile, term_gather(t, plan.tile.radius)).mma);
    f.svd_tile_mma = decomposition_tile_mma(f.svd, plan.tile);
    for (const RankOneTerm& t : f.decomposition.terms)
      if (!t.on_cuda_cores) f.bands.push_back(make_banded_pair(f.tile, f.swap, t));
  } catch (const InputError& e) {
    f.unsupported = e.what();
  }
  return f;
}

MatrixPicture weight_picture(const char* id, std::string title, ImU32 title_color, const WeightMatrix& w,
                             const ValuePalette& palette, float cell, int digits) {
  MatrixPicture m;
  m.id = id;
  m.title = std::move(title);
  m.title_color = title_color;
  m.rows = m.cols = w.side;
  m.values = w.values;
  m.palette = &palette;
  m.cell = cell;
  m.digits = digits;
  m.legend = false; // the figure's legend is drawn once above the levels
  const int h = w.radius();
  m.tooltip = [h](int r, int c) { return fmt::format("offset dx = {:+d}, dy = {:+d}", c - h, r - h); };
  return m;
}

MatrixPicture vector_picture(const char* id, std::string title, const std::vector<double>& v, bool column,
                             const ValuePalette& palette, float cell, int digits) {
  MatrixPicture m;
  m.id = id;
  m.title = std::move(title);
  m.title_color = kRankOneTitleColor;
  m.rows = column ? static_cast<int>(v.size()) : 1;
  m.cols = column ? 1 : static_cast<int>(v.size());
  m.values = v;
  m.palette = &palette;
  m.cell = cell;
  m.digits = digits;
  m.legend = false; // the figure's legend is drawn once above the levels
  return m;
}

// The largest cell width any number of the figure needs at `digits` significant digits.
float widest_number(const std::vector<const std::vector<double>*>& all, int digits) {
  float widest = 0;
  for (const auto* values : all)
    for (double v : *values) widest = std::max(widest, ImGui::CalcTextSize(compact_number(v, digits).c_str()).x);
  return widest + ui_px(8.0f);
}

// One level of the pyramid: R_{i-1} = u_i·v_iᵀ + R_i, with u down the left of C_i and vᵀ above it, every part
// centred in the level's band.
void draw_level(const WeightDecomposition& d, std::size_t i, const ValuePalette& palette, float cell, int digits) {
  const RankOneTerm& t = d.terms[i];
  const WeightMatrix& before = i == 0 ? d.weights : d.terms[i - 1].residual;
  const bool svd = d.kind == DecompositionKind::Svd;
  const std::string before_name = i == 0 ? "W" : fmt::format("R{}", i);
  ImGui::PushID(static_cast<int>(i));
  const float title_h = ImGui::GetTextLineHeight() + ui_px(4.0f);
  const float full_h = title_h + cell * static_cast<float>(d.weights.side);
  const float stack_h = t.on_cuda_cores ? title_h + cell : 2.0f * title_h + cell * static_cast<float>(t.size + 1);
  const float block_h = std::max(full_h, stack_h);
  const float top = ImGui::GetCursorPosY();
  const float full_dy = 0.5f * (block_h - full_h), stack_dy = 0.5f * (block_h - stack_h); // below the level's top
  // Each part is a column that starts at the level's top and moves its contents down inside it: ImGui 1.86 gives an
  // item placed lower on a line SameLine continued the line's whole height from its own top, so u (under the "=")
  // pushed the level's box 69 px past its cells and the box scrolled (heat-2d at a lecture's 1280x720, issue 17).
  const auto column = [](float dy, const auto& draw) {
    ImGui::BeginGroup();
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + dy);
    draw();
    ImGui::EndGroup();
  };

  column(full_dy, [&] { draw_matrix(weight_picture("before", before_name, kWeightTitleColor, before, palette, cell, digits)); });
  ImGui::SameLine();
  draw_operator("=", block_h);
  if (t.on_cuda_cores) {
    MatrixPicture apex;
    apex.id = "apex";
    apex.title = fmt::format("C{} (apex)", i + 1);
    apex.title_color = kRankOneTitleColor;
    apex.rows = apex.cols = 1;
    apex.values = {t.weight()};
    apex.palette = &palette;
    apex.cell = cell;
    apex.digits = digits;
    apex.legend = false;
    apex.tooltip = [](int, int) { return std::string("the 1x1 apex: weight times the centre point, on CUDA cores"); };
    column(stack_dy, [&] {
      draw_matrix(apex);
      ImGui::TextDisabled("CUDA cores");
    });
  } else {
    // u is a column to the left of C, vᵀ a row above it, each cell in line with the C cells it scales.
    ImGui::BeginGroup();
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + stack_dy);
    column(2.0f * title_h + cell, [&] { draw_matrix(vector_picture("u", "", t.u, true, palette, cell, digits)); });
    ImGui::SameLine(0, ui_px(3.0f));
    ImGui::BeginGroup();
    draw_matrix(vector_picture("v", "vᵀ", t.v, false, palette, cell, digits));
    MatrixPicture c;
    c.id = "C";
    c.title = fmt::format("C{} = u·vᵀ ({}×{}{})", i + 1, t.size, t.size, svd ? fmt::format(", σ{} in u", i + 1) : "");
    c.title_color = kRankOneTitleColor;
    c.rows = c.cols = t.size;
    // Only the term's own size x size block: the pyramid shrinks by a ring per level.
    for (int r = 0; r < t.size; ++r)
      for (int col = 0; col < t.size; ++col)
        c.values.push_back(t.u[static_cast<std::size_t>(r)] * t.v[static_cast<std::size_t>(col)]);
    c.palette = &palette;
    c.cell = cell;
    c.digits = digits;
    c.legend = false;
    c.tooltip = [u = t.u, v = t.v](int r, int col) {
      return fmt::format("u[{}] · v[{}] = {:.6g} · {:.6g}", r, col, u[static_cast<std::size_t>(r)],
                         v[static_cast<std::size_t>(col)]);
    };
    draw_matrix(c);
    ImGui::EndGroup();
    ImGui::EndGroup();
  }
  ImGui::SameLine();
  draw_operator("+", block_h);
  column(full_dy, [&] {
    draw_matrix(weight_picture("after", fmt::format("R{} = {} − C{}", i + 1, before_name, i + 1), kWeightTitleColor,
                               t.residual, palette, cell, digits));
  });
  ImGui::SetCursorPosY(top + block_h + 1.5f * ImGui::GetStyle().ItemSpacing.y);
  ImGui::Dummy(ImVec2(0, 0));
  ImGui::PopID();
}

// "12 + 12 + 8": the trimmed terms' MMAs per warp tile.
std::string term_sum(const std::vector<int>& mma) {
  std::string out;
  for (int m : mma) out += (out.empty() ? "" : " + ") + std::to_string(m);
  return out.empty() ? "0" : out;
}

// The short window's markers on the rank's line, their texts in tooltips.
constexpr const char* kPlanNoteMarker = "· counts: the emulation's plan (hover)";
constexpr const char* kFoldMarker = "· why, and the MMA counts (hover)";

// Which plan the counts above are for, and the GPU kernel's own count beside them (issue 17: the Baselines view
// prints the GPU plan's MMAs per point, this view the emulation's; two figures for one stencil, each named).
void draw_plan_note(const PyramidFigure& f, bool short_window) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  const std::string note =
      f.gpu_shape.empty()
          ? std::string("Counted on the CPU emulation's plan (the paper's tile, mma.m8n8k4).")
          : fmt::format("Counted on the CPU emulation's plan (the paper's tile, mma.m8n8k4). The GPU kernel's plan "
                        "(its own tile, {}) runs {:.4g} MMAs per point and base step, the figure Baselines prints.",
                        f.gpu_shape, f.gpu_mma_per_point);
  if (short_window) { // on the rank's line: the levels need the height
    ImGui::SameLine();
    ImGui::TextUnformatted(kPlanNoteMarker);
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ui_px(520.0f));
      ImGui::TextUnformatted(note.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  } else {
    ImGui::TextWrapped("%s", note.c_str());
  }
  ImGui::PopStyleColor();
}

void draw_cost_lines(const PyramidFigure& f) {
  const WeightDecomposition& d = f.decomposition;
  const std::string tile = fmt::format("{}×{}", f.tile.tile_rows, f.tile.warp_cols());
  const double ratio = f.drawn_tile_mma > 0 ? static_cast<double>(f.svd_tile_mma) / f.drawn_tile_mma : 0.0;
  if (f.pyramid_obstacle.empty()) {
    ImGui::TextWrapped("Pyramid: %d rank-1 term(s) on tensor cores, each trimmed to its own non-zeros: %s = %d MMAs "
                       "per %s warp tile (%.4g per point, one base step). The SVD needs %d full-size term(s): %d MMAs, "
                       "%.3g× the pyramid.",
                       d.tensor_core_terms(), term_sum(f.drawn_term_mma).c_str(), f.drawn_tile_mma, tile.c_str(),
                       static_cast<double>(f.drawn_tile_mma) / f.tile_points, f.svd.tensor_core_terms(),
                       f.svd_tile_mma, ratio);
    if (f.planned_kind != DecompositionKind::Pyramid)
      ImGui::TextWrapped("LoRAStencil's plan runs the %s split instead: %d MMAs per %s warp tile (%.4g per point).",
                         std::string(to_string(f.planned_kind)).c_str(), f.plan_tile_mma, tile.c_str(), f.mma_per_point);
  } else {
    // Where the window is short (a lecture's font at 1280x720: star-2d13p's C1 and R1 ran past the window's bottom),
    // the obstacle goes to a tooltip and the cross split's sentence takes its short form (issue 17).
    const bool short_window = ImGui::GetContentRegionAvail().y < ui_px(520.0f);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.72f, 0.4f, 1.0f));
    if (short_window) {
      ImGui::TextUnformatted("No pyramid (hover: why).");
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ui_px(520.0f));
        ImGui::Text("No pyramid: %s.", f.pyramid_obstacle.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    } else {
      ImGui::TextWrapped("No pyramid: %s.", f.pyramid_obstacle.c_str());
    }
    ImGui::PopStyleColor();
    if (f.decomposition.kind == DecompositionKind::Cross && short_window) {
      ImGui::TextWrapped("Cross split: %d term(s) on tensor cores, %s = %d MMAs per %s warp tile (%.4g per point) "
                         "against the SVD's %d (%.4g per point).",
                         f.decomposition.tensor_core_terms(), term_sum(f.drawn_term_mma).c_str(), f.drawn_tile_mma,
                         tile.c_str(), f.mma_per_point, f.svd_tile_mma, f.svd_mma_per_point);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("each term gathered by a single product where u or v is one weight");
    } else if (f.decomposition.kind == DecompositionKind::Cross)
      ImGui::TextWrapped("LoRAStencil's plan takes the cross split below: %d term(s) on tensor cores, each gathered by a "
                         "single product where u or v is one weight: %s = %d MMAs per %s warp tile (%.4g per point) "
                         "against the SVD's %d (%.4g per point).",
                         f.decomposition.tensor_core_terms(), term_sum(f.drawn_term_mma).c_str(), f.drawn_tile_mma,
                         tile.c_str(), f.mma_per_point, f.svd_tile_mma, f.svd_mma_per_point);
    else
      ImGui::TextWrapped("The SVD (Eq. 8) splits W into rank(W) = %d full-size terms, all on tensor cores: %s = %d MMAs "
                         "per %s warp tile (%.4g per point).",
                         f.svd.rank, term_sum(f.drawn_term_mma).c_str(), f.svd_tile_mma, tile.c_str(), f.svd_mma_per_point);
  }
}

void publish_figure(ViewContext& ctx, const PyramidFigure& f) {
  publish(ctx, "pyramid.W", fact_numbers(f.weights.values));
  publish(ctx, "pyramid.kind", std::string(to_string(f.decomposition.kind)));
  publish(ctx, "pyramid.rank", std::to_string(f.decomposition.rank));
  publish(ctx, "pyramid.terms", std::to_string(f.decomposition.terms.size()));
  // The counts the cost lines print (tests compare them with the plan's).
  publish(ctx, "pyramid.tile_mma", std::to_string(f.drawn_tile_mma));
  publish(ctx, "pyramid.plan_tile_mma", std::to_string(f.plan_tile_mma));
  publish(ctx, "pyramid.planned_kind", std::string(to_string(f.planned_kind)));
  publish(ctx, "pyramid.svd_tile_mma", std::to_string(f.svd_tile_mma));
  publish(ctx, "pyramid.mma_per_point", fmt::format("{:.4g}", f.mma_per_point));
  publish(ctx, "pyramid.gpu_mma_per_point", f.gpu_shape.empty() ? std::string() : fmt::format("{:.4g}", f.gpu_mma_per_point));
  publish(ctx, "pyramid.svd_ratio",
           fmt::format("{:.3g}", f.drawn_tile_mma > 0 ? static_cast<double>(f.svd_tile_mma) / f.drawn_tile_mma : 0.0));
  for (std::size_t i = 0; i < f.decomposition.terms.size(); ++i) {
    publish(ctx, fmt::format("pyramid.u{}", i + 1), fact_numbers(f.decomposition.terms[i].u));
    publish(ctx, fmt::format("pyramid.v{}", i + 1), fact_numbers(f.decomposition.terms[i].v));
  }
}

// The values of level i (R_{i-1} = u_i·v_iᵀ + R_i) as drawn: before, u, v, the C block and the residual.
void add_level_values(const WeightDecomposition& d, std::size_t i, ValuePalette& palette,
                      std::vector<std::vector<double>>& shown) {
  const RankOneTerm& t = d.terms[i];
  shown.push_back(i == 0 ? d.weights.values : d.terms[i - 1].residual.values);
  shown.push_back(t.u), shown.push_back(t.v), shown.push_back(t.residual.values);
  shown.emplace_back();
  for (double a : t.u)
    for (double b : t.v) shown.back().push_back(a * b);
  if (t.on_cuda_cores) shown.back() = {t.weight()};
  for (std::size_t k = shown.size() - 5; k < shown.size(); ++k) palette.add(shown[k]);
}

// A level too large for the window at the smallest legible cell (box-2d225p's 15x15: W, C1 and R1 side by side need
// more than the width at every size, and 33 to 50 distinct values per matrix make a legend taller than the window)
// is shown a part at a time: W, then u·vᵀ = C, then R, each as numbers in a unit (a power of ten, named in its title)
// in cells as wide as the numbers need, and where its rows are too tall, a part of its rows at a time (issue 17).
struct LevelParts {
  bool on = false;
  int row_pages = 1;
  float cell_h = 0; // row height of every part
};

std::vector<double> scaled(const std::vector<double>& values, double unit) {
  std::vector<double> out;
  for (double v : values) out.push_back(v / unit);
  return out;
}

// " (in units of 1e-04)" after a matrix's title; " ×1e-04" after a vector's (a column's title is narrow).
std::string unit_note(double unit, bool vector) {
  if (unit == 1) return {};
  return vector ? fmt::format(" ×{:.0e}", unit) : fmt::format(" (in units of {:.0e})", unit);
}

// A matrix of a level part: its numbers in `unit`, its own colours (equal colours, equal values within it), cells
// `cell_w` wide and `cell_h` tall.
MatrixPicture part_picture(const char* id, std::string title, ImU32 title_color, const std::vector<double>& values, int rows,
                           int cols, double unit, float cell_w, float cell_h) {
  MatrixPicture m;
  m.id = id;
  m.title = std::move(title) + unit_note(unit, rows == 1 || cols == 1);
  m.title_color = title_color;
  m.rows = rows, m.cols = cols;
  m.values = scaled(values, unit);
  m.cell = cell_h;
  m.cell_width = cell_w;
  m.legend = true; // where numbers cannot be told apart within six digits, letters and their legend
  m.tooltip = [values, cols, unit](int r, int c) {
    return fmt::format("{:.10g}{}", values[static_cast<std::size_t>(r * cols + c)], unit == 1 ? "" : " (true value)");
  };
  return m;
}

// The width a part's numbers need: at the digits that tell its values apart, the widest at full size.
float part_number_width(const std::vector<double>& values) {
  ValuePalette distinct;
  distinct.add(values);
  const int digits = distinguishing_digits(distinct.values(), 3);
  float widest = ImGui::CalcTextSize("0").x;
  for (double v : values) widest = std::max(widest, ImGui::CalcTextSize(compact_number(v, digits).c_str()).x);
  return widest;
}

// The power of ten (1e-12 to 1) in which `values` print narrowest (box-2d225p's W: 745 and 5.18 in units of 1e-4,
// where 0.0745 and 0.000518 take twice the width); 1 where that is as narrow as any.
double display_unit(const std::vector<double>& values) {
  double best = 1;
  float narrowest = part_number_width(values);
  for (int k = -1; k >= -12; --k) {
    const double unit = std::pow(10.0, k);
    const float w = part_number_width(scaled(values, unit));
    if (w < narrowest - 0.5f) narrowest = w, best = unit;
  }
  return best;
}

// Level i's parts: R_{i-1} (W for i = 0), u and v, C_i = u·vᵀ, R_i; each in its own unit.
struct PartValues {
  std::vector<double> before, u, v, c, after;
  double before_unit = 1, u_unit = 1, v_unit = 1, c_unit = 1, after_unit = 1;
};

PartValues part_values(const WeightDecomposition& d, std::size_t i) {
  const RankOneTerm& t = d.terms[i];
  PartValues p;
  p.before = i == 0 ? d.weights.values : d.terms[i - 1].residual.values;
  p.after = t.residual.values;
  p.u = t.u, p.v = t.v;
  for (double a : t.u)
    for (double b : t.v) p.c.push_back(a * b);
  if (t.on_cuda_cores) p.c = {t.weight()};
  p.before_unit = display_unit(p.before), p.after_unit = display_unit(p.after), p.c_unit = display_unit(p.c);
  p.u_unit = display_unit(p.u), p.v_unit = display_unit(p.v);
  return p;
}

// Whether level `first` needs LevelParts in a window `avail` wide and tall, and the row height and row pages then.
// `forced`: the whole level's legend did not fit beside or under it (box-2d49p's twenty-odd letters at a lecture's
// 1280x720), so it goes by parts though its cells would.
LevelParts level_parts(const WeightDecomposition& d, std::size_t first, const ValuePalette& palette, ImVec2 avail,
                       bool forced = false) {
  LevelParts l;
  const int side = d.weights.side;
  const float least = measure_matrix(weight_picture("probe", "W", kWeightTitleColor, d.weights, palette, 1.0f, 3)).cell;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float operators = 2.0f * (ImGui::CalcTextSize("=").x + 2.0f * style.ItemSpacing.x) + ui_px(12.0f);
  const float title_h = ImGui::GetTextLineHeight() + ui_px(4.0f);
  const float full_w = least * static_cast<float>(3 * side + 1) + operators + style.ScrollbarSize;
  const float full_h = 2.0f * title_h + least * static_cast<float>(side + 1) + 3.0f * style.ItemSpacing.y;
  if (!forced && full_w <= avail.x && full_h <= avail.y) return l;
  l.on = true;
  // Rows: the tallest part is u·vᵀ = C (vᵀ and C's titles, vᵀ above C's rows), under the line of choices.
  const float choices = ImGui::GetFrameHeightWithSpacing();
  const float floor_h = std::ceil((kMinCellTextScale + 0.08f) * ImGui::GetTextLineHeight());
  const int n = d.terms[first].size;
  for (int pages = 1; pages <= 4; ++pages) {
    l.row_pages = pages;
    const int rows = (std::max(side, n) + pages - 1) / pages;
    l.cell_h = std::floor(std::min((avail.y - choices - 2.0f * title_h - 2.0f * style.ItemSpacing.y) / static_cast<float>(rows + 1),
                                   ImGui::GetTextLineHeight() + ui_px(6.0f)));
    if (l.cell_h >= floor_h) return l;
  }
  l.cell_h = floor_h;
  return l;
}

// One part of level i (LevelParts): part 0 R_{i-1} (or W), 1 vᵀ above u and C_i, 2 R_i; rows [first, first + count).
void draw_level_part(ViewContext& ctx, const WeightDecomposition& d, std::size_t i, int part, int first, int count, float cell_h) {
  const PartValues p = part_values(d, i);
  const RankOneTerm& t = d.terms[i];
  const int side = d.weights.side;
  const std::string before_name = i == 0 ? "W" : fmt::format("R{}", i);
  const float avail_w = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  const float labels = ImGui::CalcTextSize("00").x + ui_px(8.0f);
  const float pad = ui_px(8.0f);
  auto cell_w = [&](const std::vector<double>& values, double unit, int cols) {
    return std::floor(std::min(part_number_width(scaled(values, unit)) + pad, (avail_w - labels) / static_cast<float>(cols)));
  };
  MatrixDrawn drawn;
  if (part == 0 || part == 2) {
    const std::vector<double>& values = part == 0 ? p.before : p.after;
    const double unit = part == 0 ? p.before_unit : p.after_unit;
    const std::string title = part == 0 ? before_name : fmt::format("R{} = {} − C{}", i + 1, before_name, i + 1);
    MatrixPicture m = part_picture(part == 0 ? "before" : "after", title, kWeightTitleColor, values, side, side, unit,
                                   cell_w(values, unit, side), cell_h);
    const int h = d.weights.radius();
    m.tooltip = [tip = m.tooltip, h](int r, int c) { return fmt::format("offset dx = {:+d}, dy = {:+d}: ", c - h, r - h) + tip(r, c); };
    drawn = draw_matrix(rows_of(m, first, count));
  } else if (t.on_cuda_cores) {
    drawn = draw_matrix(part_picture("apex", fmt::format("C{} (apex, on CUDA cores)", i + 1), kRankOneTitleColor, p.c, 1, 1,
                                     p.c_unit, cell_w(p.c, p.c_unit, 1), cell_h));
  } else {
    // vᵀ over C's columns, u at the left of C's rows, the cells of all three as wide as the widest needs.
    const int n = t.size;
    const float w = std::min(std::max({part_number_width(scaled(p.u, p.u_unit)), part_number_width(scaled(p.v, p.v_unit)),
                                       part_number_width(scaled(p.c, p.c_unit))}) + pad,
                             std::floor((avail_w - labels) / static_cast<float>(n + 1)));
    MatrixPicture u = rows_of(part_picture("u", "u", kRankOneTitleColor, p.u, n, 1, p.u_unit, w, cell_h), first, count);
    MatrixPicture c = rows_of(part_picture("C", fmt::format("C{} = u·vᵀ ({}×{})", i + 1, n, n), kRankOneTitleColor, p.c, n, n,
                                           p.c_unit, w, cell_h),
                              first, count);
    c.row_labels.clear(); // u's row numbers stand at its left
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const MatrixMeasure um = measure_matrix(u);
    ImGui::SetCursorScreenPos(ImVec2(top.x + um.size.x + ui_px(3.0f), top.y));
    draw_matrix(part_picture("v", "vᵀ", kRankOneTitleColor, p.v, 1, n, p.v_unit, w, cell_h));
    draw_matrix(u);
    ImGui::SameLine(0, ui_px(3.0f));
    drawn = draw_matrix(c);
  }
  probe_rect(ctx.state, "pyramid.part", drawn.min, drawn.max);
}

// The choice of part and of rows, then the part (LevelParts).
void draw_parts(ViewContext& ctx, PyramidMemory& mem, const WeightDecomposition& d, std::size_t i, const ValuePalette& palette) {
  const LevelParts l = level_parts(d, i, palette, ImVec2(ImGui::GetContentRegionAvail().x,
                                                          ImGui::GetContentRegionAvail().y), mem.by_parts);
  const std::string before_name = i == 0 ? "W" : fmt::format("R{}", i);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Show");
  const std::string names[3] = {before_name, fmt::format("C{} = u·vᵀ", i + 1), fmt::format("R{}", i + 1)};
  for (int p = 0; p < 3; ++p) {
    ImGui::SameLine();
    ImGui::RadioButton(fmt::format("{}##part", names[p]).c_str(), &mem.part, p);
    probe_last_item(ctx.state, fmt::format("pyramid.part.{}", p));
  }
  const int side = std::max(d.weights.side, d.terms[i].size);
  const int per_page = (side + l.row_pages - 1) / l.row_pages;
  mem.row_page = std::clamp(mem.row_page, 0, l.row_pages - 1);
  if (l.row_pages > 1) {
    ImGui::SameLine(0, ui_px(24.0f));
    ImGui::TextUnformatted("Rows");
    for (int r = 0; r < l.row_pages; ++r) {
      ImGui::SameLine();
      ImGui::RadioButton(fmt::format("{}-{}##rows", r * per_page, std::min(side, (r + 1) * per_page) - 1).c_str(), &mem.row_page, r);
      probe_last_item(ctx.state, fmt::format("pyramid.rows.{}", r));
    }
  }
  publish(ctx, "pyramid.row_pages", std::to_string(l.row_pages));
  // C's rows are its own (a smaller term); W's and R's the whole side.
  const int n = mem.part == 1 ? d.terms[i].size : d.weights.side;
  const int first = std::min(mem.row_page * per_page, std::max(n - 1, 0));
  draw_level_part(ctx, d, i, mem.part, first, l.row_pages == 1 ? n : per_page, l.cell_h);
}

void draw_decomposition_page(ViewContext& ctx, PyramidMemory& mem) {
  const PyramidFigure& f = mem.figure;
  const WeightDecomposition& d = f.decomposition;
  const int levels = static_cast<int>(d.terms.size());
  mem.level = std::clamp(mem.level, 0, levels);
  const std::size_t first = mem.level == 0 ? 0 : static_cast<std::size_t>(mem.level - 1);
  const std::size_t last = mem.level == 0 ? d.terms.size() : std::min(first + 1, d.terms.size());
  // Equal colours are equal values among the matrices shown together.
  ValuePalette palette;
  std::vector<std::vector<double>> shown;
  for (std::size_t i = first; i < last; ++i) add_level_values(d, i, palette, shown);
  // A level that does not fit even with the texts above it folded into a tooltip is shown a part at a time; in a
  // short window those texts then fold (the parts need the height).
  const ImVec2 page = ImGui::GetContentRegionAvail();
  const bool parts = mem.level != 0 && levels > 0 &&
                     (mem.by_parts ||
                      level_parts(d, first, palette, ImVec2(page.x, page.y - 2.0f * ImGui::GetFrameHeightWithSpacing())).on);
  if (mem.fold_for != std::make_pair(f.weights.values, mem.level))
    mem.fold = mem.by_parts = false, mem.fold_for = {f.weights.values, mem.level};
  const bool fold_texts = page.y < ui_px(520.0f) && (parts || (mem.level != 0 && mem.fold));
  std::string sigmas;
  for (double s : d.singular_values) sigmas += (sigmas.empty() ? "" : ", ") + compact_number(s, 3);
  ImGui::Text("rank(W) = %d", d.rank);
  ImGui::SameLine();
  const std::string singular = "singular values " + sigmas;
  // In a tooltip where they would wrap in a short window (issue 17): the level below needs the height.
  // The plan's note (or the folded texts' marker) follows on this line in a short window: the values fold first.
  const float after = ImGui::GetContentRegionAvail().y < ui_px(520.0f)
                          ? ImGui::CalcTextSize(fold_texts ? kFoldMarker : kPlanNoteMarker).x +
                                ImGui::GetStyle().ItemSpacing.x
                          : 0.0f;
  if (ImGui::GetContentRegionAvail().y < ui_px(520.0f) &&
      ImGui::CalcTextSize(singular.c_str()).x + after > ImGui::GetContentRegionAvail().x) {
    ImGui::TextDisabled("singular values (hover)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", singular.c_str());
  } else {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", singular.c_str());
    ImGui::PopTextWrapPos();
  }
  const bool short_window = ImGui::GetContentRegionAvail().y < ui_px(520.0f);
  if (short_window && !fold_texts) draw_plan_note(f, true);
  if (fold_texts) { // the reason, the counts and their plan, on the rank's line
    ImGui::SameLine();
    ImGui::TextDisabled("%s", kFoldMarker);
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ui_px(640.0f));
      ImGui::TextUnformatted(d.reason.c_str());
      draw_cost_lines(f);
      draw_plan_note(f, false);
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  // Where the pyramid stands in its way, the orange line below says why in short: the plan's long reason then goes
  // to a tooltip, leaving the window's height to the levels.
  if (fold_texts) {
  } else if (f.pyramid_obstacle.empty()) {
    ImGui::TextWrapped("%s", d.reason.c_str());
  } else {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ui_px(520.0f));
      ImGui::TextUnformatted(d.reason.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  if (!fold_texts) draw_cost_lines(f);
  if (!short_window && !fold_texts) draw_plan_note(f, false);
  ImGui::Separator();
  if (d.terms.empty()) {
    ImGui::TextDisabled("W is all zeros on this plane: nothing to decompose.");
    return;
  }

  // Levels one at a time (cells sized to fit the window), or all of them in a scrolling column.
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Level");
  ImGui::SameLine();
  ImGui::BeginDisabled(mem.level <= 1);
  if (ImGui::ArrowButton("##prev_level", ImGuiDir_Left)) --mem.level;
  ImGui::EndDisabled();
  probe_last_item(ctx.state, "pyramid.level.prev");
  for (int i = 1; i <= levels; ++i) {
    ImGui::SameLine();
    ImGui::RadioButton(fmt::format("C{}##level", i).c_str(), &mem.level, i);
    probe_last_item(ctx.state, fmt::format("pyramid.level.{}", i));
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(mem.level == 0 || mem.level >= levels);
  if (ImGui::ArrowButton("##next_level", ImGuiDir_Right)) ++mem.level;
  ImGui::EndDisabled();
  probe_last_item(ctx.state, "pyramid.level.next");
  ImGui::SameLine();
  ImGui::RadioButton("all levels", &mem.level, 0);
  probe_last_item(ctx.state, "pyramid.level.all");
  publish(ctx, "pyramid.level", std::to_string(mem.level));
  publish(ctx, "pyramid.parts", parts ? "parts" : "whole");
  if (parts) { // a level changed by the buttons above draws from the next frame on (its palette was built before them)
    draw_parts(ctx, mem, d, first, palette);
    return;
  }
  std::vector<const std::vector<double>*> all;
  for (const auto& v : shown) all.push_back(&v);

  // One cell size for what is shown, so a level's matrices line up: as wide as the numbers need, narrower to fit
  // the window's width and (one level) its height; the widget keeps cells large enough for a letter. Where the
  // cells show letters, their legend stands beside the levels, in the width the levels leave.
  const int side = d.weights.side;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float title_h = ImGui::GetTextLineHeight() + ui_px(4.0f);
  const float operators = 2.0f * (ImGui::CalcTextSize("=").x + 2.0f * style.ItemSpacing.x) + ui_px(12.0f);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  float cells_tall = 0;
  for (std::size_t i = first; i < last; ++i)
    cells_tall += static_cast<float>(std::max(side, d.terms[i].size + 1));
  // A level is its two titles, its cells and the 2.5 lines' spacing draw_level leaves under it.
  const float fit_h = std::floor((avail.y - static_cast<float>(last - first) * (2.0f * title_h + 2.5f * style.ItemSpacing.y)) /
                                 std::max(cells_tall, 1.0f));
  const float three = widest_number(all, 3);
  const int digits = 3;
  auto cell_for = [&](float width) {
    const float fit_w = std::floor((width - operators - style.ScrollbarSize) / static_cast<float>(3 * side + 1));
    const float c = std::floor(std::clamp(std::min({three, fit_w, mem.level == 0 ? three : fit_h}), ui_px(6.0f), ui_px(90.0f)));
    return measure_matrix(weight_picture("probe", "W", kWeightTitleColor, d.weights, palette, c, digits));
  };
  MatrixMeasure probe = cell_for(avail.x);
  float levels_w = avail.x;
  if (probe.letters) {
    // The legend beside the levels gets the width its chips need to stand in the height there is (box-2d25p's
    // fourteen letters one per line ran past the window's bottom), the levels the rest (down to 40%).
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float per_column = std::max(1.0f, std::floor((avail.y - ImGui::GetFrameHeightWithSpacing() - line) / line));
    const float columns = std::ceil(static_cast<float>(palette.size()) / per_column);
    const float legend_w = columns * (palette_legend_width(palette, kLegendDigits) + ui_px(14.0f)) + style.ScrollbarSize;
    probe = cell_for(std::max(avail.x - legend_w, 0.4f * avail.x));
    // The level's five parts as the widget draws them at this cell (titles included: heat-3d's 3x3 plane is narrower
    // than "C1 = u·vᵀ (3×3)"), the operators and the gaps between them; the legend takes the rest of the width (a
    // wider estimate left box-2d25p's legend a column too narrow, its chips one per line past the window's bottom).
    float level_w = 0;
    for (std::size_t i = first; i < last; ++i) {
      const RankOneTerm& t = d.terms[i];
      const WeightMatrix& before = i == 0 ? d.weights : d.terms[i - 1].residual;
      const float c_title = ImGui::CalcTextSize(fmt::format("C{} = u·vᵀ ({}×{}{})", i + 1, t.size, t.size,
                                                            d.kind == DecompositionKind::Svd ? fmt::format(", σ{} in u", i + 1) : "")
                                                    .c_str())
                                .x;
      const float w = measure_matrix(weight_picture("probe", "W", kWeightTitleColor, before, palette, probe.cell, digits)).size.x +
                      probe.cell + ui_px(3.0f) + std::max(probe.cell * static_cast<float>(t.size), c_title) +
                      measure_matrix(weight_picture("probe", fmt::format("R{} = R{} − C{}", i + 1, i, i + 1), kWeightTitleColor,
                                                    t.residual, palette, probe.cell, digits))
                          .size.x;
      level_w = std::max(level_w, w);
    }
    levels_w = std::min(avail.x, std::ceil(level_w + ImGui::CalcTextSize("=").x + ImGui::CalcTextSize("+").x +
                                           6.0f * style.ItemSpacing.x + style.ScrollbarSize + ui_px(8.0f)));
  }
  const float cell = probe.cell; // what the widget draws: u, v and C line up with it
  // One level always gets the height it needs: where the window has less left, the window scrolls instead of the
  // level hiding in a sliver. The levels' box is as wide as their cells need (no horizontal scroll bar to make room
  // for: it pushed the window past its bottom by its own height at a lecture's 1280x720, issue 17).
  const float level_h = 2.0f * title_h + cell * static_cast<float>(std::max(side, d.terms[first].size + 1)) +
                        2.5f * style.ItemSpacing.y;
  // The legend stands beside the level where its chips fit the column there, else under one level where they fit the
  // width under it (box-2d25p's fourteen letters: a column too narrow beside its wide titles).
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float chip_column = palette_legend_width(palette, kLegendDigits) + ui_px(14.0f);
  const auto legend_h = [&](float width) {
    const float per_line = std::max(1.0f, std::floor((width - style.ScrollbarSize + ui_px(14.0f)) / chip_column));
    return line * (1.0f + std::ceil(static_cast<float>(palette.size()) / per_line));
  };
  const float room_h = ImGui::GetContentRegionAvail().y;
  const bool legend_under = probe.letters && mem.level != 0 && legend_h(avail.x - levels_w) > room_h &&
                            level_h + legend_h(avail.x) <= room_h;
  const float levels_h = mem.level == 0 ? 0.0f : legend_under ? level_h : std::max(room_h, level_h);
  ImGui::BeginChild("levels", ImVec2(legend_under ? avail.x : levels_w, levels_h), false, ImGuiWindowFlags_HorizontalScrollbar);
  for (std::size_t i = first; i < last; ++i) draw_level(d, i, palette, cell, digits);
  // The levels' last cells: the cursor less the spacing draw_level leaves under a level (1.5 + the Dummy's 1).
  probe_rect(ctx.state, "pyramid.levels", ImGui::GetWindowPos(),
             ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                    ImGui::GetCursorScreenPos().y - 2.5f * ImGui::GetStyle().ItemSpacing.y));
  ImGui::EndChild();
  if (probe.letters) {
    if (!legend_under) ImGui::SameLine();
    ImGui::BeginChild("legend", ImVec2(0, legend_under ? 0.0f : levels_h));
    const char* heading = "Letters (equal letter, equal value):";
    ImGui::TextDisabled("%s", ImGui::CalcTextSize(heading).x <= ImGui::GetContentRegionAvail().x ? heading : "Letters:");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The cells are too small for numbers: letters name the values.");
    LegendStyle in_columns;
    in_columns.columns = true;
    if (claim_legend(palette)) draw_legend_chips(palette, kLegendDigits, ImGui::GetContentRegionAvail().x, in_columns);
    probe_rect(ctx.state, "pyramid.legend", ImGui::GetWindowPos(), ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                                                                          ImGui::GetCursorScreenPos().y));
    // Fold where the legend runs past its room, then go by parts (from then on, for these weights and this level).
    if (mem.level != 0 && ImGui::GetCursorPosY() > ImGui::GetWindowSize().y) {
      if (mem.fold || room_h >= ui_px(520.0f)) mem.by_parts = true;
      mem.fold = true;
    }
    ImGui::EndChild();
  }
}

// The paper's small numbers beside ours, for this stencil: the loads RDG eliminates against ConvStencil (Eq. 14:
// 69.23% at h = 3, 76.19% at h = 4), the MMAs it pays for them (Eq. 16 / Eq. 13: 36/26 at h = 3) and the fragment
// waste temporal fusion removes (Fig. 7: 96/156 = 61.54% fusing Box-2D9P three times).
void draw_paper_numbers(ViewContext& ctx, const PyramidFigure& f) {
  const int h = f.stencil.radius;
  if (!ImGui::BeginTable("paper_numbers", 4, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::TableSetupColumn("per point, base step", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn("ours (the plans)", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn(fmt::format("paper, h = {}", h).c_str(), ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("paper quotes", ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableHeadersRow();
  // One line per cell where the window is wide enough; the why in the row's tooltip.
  auto cell = [](const std::string& text, bool dim = false) {
    ImGui::TableNextColumn();
    ImGui::PushTextWrapPos(0.0f);
    if (dim)
      ImGui::TextDisabled("%s", text.c_str());
    else
      ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopTextWrapPos();
  };
  auto why = [](const char* text) { // on the row's name, the item just drawn
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ui_px(480.0f));
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  };
  if (f.conv_known && h >= 1) {
    const double eliminated = 1.0 - f.lora_input / f.conv_input;
    const double paper_ratio = lorastencil_eq14_ratio(h);
    const LoraPaperCounts paper = lorastencil_paper_counts(h, 16 * (h + 1) * 8, 8); // a, b: whole ConvStencil tiles
    const double mma_ratio = f.lora_mma / f.conv_mma, paper_mma_ratio = paper.lorastencil_mma / paper.convstencil_mma;
    ImGui::TableNextRow();
    cell("loads cut vs ConvStencil");
    why("RDG reads the window X once per tile and every rank-1 term reuses it; ConvStencil loads an input fragment "
          "per MMA. Ours: input values each method's cost model loads per point (the plans' real windows, padded to "
          "the fragment grid, and the apex's CUDA-core read); the paper: 1 - 1/(ceil((2h+1)^2/4)/(h+1)).");
    cell(fmt::format("{:.2f}% ({:.4g} vs {:.4g} loads)", 100.0 * eliminated, f.lora_input, f.conv_input));
    cell(fmt::format("{:.2f}% (Eq. 14)", 100.0 * (1.0 - 1.0 / paper_ratio)));
    cell("69.23% (h=3), 76.19% (h=4)", true);
    ImGui::TableNextRow();
    cell("MMAs vs ConvStencil");
    why("The MMAs LoRAStencil pays for its reuse. Ours trims each rank-1 term to its own non-zeros and counts the "
          "terms this W needs; Eq. 16 assumes h full-size terms.");
    cell(fmt::format("{:.3g}× ({:.4g} vs {:.4g})", mma_ratio, f.lora_mma, f.conv_mma));
    cell(fmt::format("{:.4g}× (Eq. 16 / 13)", paper_mma_ratio));
    cell("36/26 ≈ 1.38 (h = 3)", true);
    publish(ctx, "pyramid.loads_eliminated", fmt::format("{:.2f}", 100.0 * eliminated));
    publish(ctx, "pyramid.loads_eliminated.paper", fmt::format("{:.2f}", 100.0 * (1.0 - 1.0 / paper_ratio)));
    publish(ctx, "pyramid.mma_ratio", fmt::format("{:.3g}", mma_ratio));
    publish(ctx, "pyramid.mma_ratio.paper", fmt::format("{:.4g}", paper_mma_ratio));
  }
  const int waste1 = f.x1_values - f.window1_values, waste_t = f.xt_values - f.windowt_values;
  ImGui::TableNextRow();
  cell("X waste cut by fusion");
  why("The X operand is the window padded to the fragment grid; a wider fused kernel fills more of it. Ours: the "
        "padding of the plans' X at T = 1 and at the cost model's depth (X padded only as far as the fragments need); "
        "the paper: Box-2D9P's 10x10 window in a 16x16 X, fused three times into Box-2D49P's 14x14.");
  if (f.fused_steps > 1 && waste1 > 0) {
    const double saved = static_cast<double>(waste1 - waste_t) / waste1;
    cell(fmt::format("{:.2f}% ({} → {}, T = {})", 100.0 * saved, waste1, waste_t, f.fused_steps));
    publish(ctx, "pyramid.fusion_waste_saved", fmt::format("{:.2f}", 100.0 * saved));
  } else {
    cell(fmt::format("none (unfused, T = {})", f.fused_steps));
    publish(ctx, "pyramid.fusion_waste_saved", "unfused");
  }
  cell("X 16×16", true);
  cell("Fig. 7: 96/156 = 61.54%", true);
  ImGui::EndTable();
}

// Y = U·X·V for one tensor-core term on the 8x8 output tile: the bands, the input window and V's butterfly rows.
void draw_gather_page(ViewContext& ctx, PyramidMemory& mem) {
  const PyramidFigure& f = mem.figure;
  const WeightDecomposition& d = f.decomposition;
  std::vector<const RankOneTerm*> terms;
  for (const RankOneTerm& t : d.terms)
    if (!t.on_cuda_cores) terms.push_back(&t);
  if (terms.empty()) {
    ImGui::TextDisabled("No term on tensor cores: the stencil is a single weight.");
    return;
  }
  mem.term = std::clamp(mem.term, 0, static_cast<int>(terms.size()) - 1);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Term");
  // A part selector (issue 17): at a lecture's font the 16-row V, V' and the numbers do not fit one window. The
  // terms' radio buttons and the parts' share a line; where they do not fit (box-2d225p's seven terms pushed "the
  // numbers" past the window's right edge at a lecture's 1280x720), the term is chosen in a combo.
  const char* parts[3] = {"U·X·V", "V and V'", "the numbers"};
  const ImGuiStyle& style = ImGui::GetStyle();
  float parts_w = ImGui::CalcTextSize("Show").x + ui_px(24.0f), terms_w = 0;
  for (const char* part : parts) parts_w += style.ItemSpacing.x + check_width(part);
  for (int i = 0; i < static_cast<int>(terms.size()); ++i)
    terms_w += style.ItemSpacing.x + check_width(fmt::format("C{}", i + 1).c_str());
  const bool combo = ImGui::CalcTextSize("Term").x + terms_w + parts_w > ImGui::GetContentRegionAvail().x;
  if (combo) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("C00").x + ImGui::GetFrameHeight() + 2.0f * style.FramePadding.x);
    if (ImGui::BeginCombo("##term", fmt::format("C{}", mem.term + 1).c_str())) {
      for (int i = 0; i < static_cast<int>(terms.size()); ++i)
        if (ImGui::Selectable(fmt::format("C{}", i + 1).c_str(), mem.term == i)) mem.term = i;
      ImGui::EndCombo();
    }
    probe_last_item(ctx.state, "pyramid.term.combo");
  }
  for (int i = 0; i < static_cast<int>(terms.size()) && !combo; ++i) {
    ImGui::SameLine();
    ImGui::RadioButton(fmt::format("C{}##term", i + 1).c_str(), &mem.term, i);
    probe_last_item(ctx.state, fmt::format("pyramid.term.{}", i + 1));
  }
  ImGui::SameLine(0, ui_px(24.0f));
  ImGui::TextUnformatted("Show");
  for (int i = 0; i < 3; ++i) {
    ImGui::SameLine();
    ImGui::RadioButton(parts[i], &mem.rdg_part, i);
    probe_last_item(ctx.state, fmt::format("pyramid.rdg.part.{}", i));
  }
  const RankOneTerm& t = *terms[static_cast<std::size_t>(mem.term)];
  const BandedPair& band = f.bands[static_cast<std::size_t>(mem.term)];
  const GatherTile& g = f.tile;
  publish(ctx, "pyramid.U", fact_numbers(band.u_band));
  if (mem.rdg_part == 2) {
    ImGui::TextWrapped("Y (%d×%d) += U (%d×%d) · X (%d×%d) · V (%d×%d) on %s: U·X gathers down the columns "
                     "(%d MMAs), T·V along the rows (%d MMAs). C%d sits at offset %d of the %d×%d window, so its "
                     "bands are shifted by %d.",
                     g.tile_rows, g.tile_cols, g.tile_rows, g.x_rows, g.x_rows, g.x_cols, g.x_cols, g.tile_cols,
                     std::string(to_string(g.shape)).c_str(), g.step1_mma(), g.step2_mma(), mem.term + 1, t.offset,
                     g.window_rows, g.window_cols, t.offset);
    ImGui::Separator();
    draw_paper_numbers(ctx, f);
    return;
  }
  ValuePalette palette;
  palette.add(t.u), palette.add(t.v);
  // U, X at half size, V and V' side by side; V is the tallest (x_cols rows).
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The legend (where cells show letters) goes right of the figures: the cells get the page's whole height.
  // Part 1's legend lists V's values only (U's, not on that part, took a third line of box-2d225p's legend and pushed
  // the caption under the window's edge at a lecture's 1280x720, issue 17).
  const LegendStyle v_values = legend_of(palette, band.v_band);
  const float legend_w = palette_legend_width(palette, kLegendDigits, v_values) + ui_px(24.0f);
  // V (and V') is the tallest (x_cols rows): where even its least legible cells are taller than the page (a 3D
  // stencil's plane slider takes a line of a lecture's 1280x720), it stands in two blocks of whole row groups side
  // by side (issue 17).
  const float lines_h = (mem.rdg_part == 0 ? 2.5f : 4.5f) * ImGui::GetTextLineHeightWithSpacing();
  MatrixPicture least_v;
  least_v.title = "V";
  least_v.rows = g.x_cols, least_v.cols = g.tile_cols;
  least_v.values = band.v_band;
  least_v.palette = &palette;
  least_v.max_height = 1.0f;
  const int v_blocks = measure_matrix(least_v).size.y > avail.y ? 2 : 1;
  const int v_rows = block_rows(g.x_cols, v_blocks, g.k);
  const float fit_w = mem.rdg_part == 0
                          ? std::floor((avail.x - ui_px(120.0f) - ui_px(16.0f) * (v_blocks - 1)) /
                                       (static_cast<float>(g.x_rows + v_blocks * g.tile_cols) + 0.35f * g.x_cols))
                          : std::floor((avail.x - ui_px(120.0f) - ui_px(32.0f) * (v_blocks - 1) - (v_blocks > 1 ? 0.0f : legend_w)) /
                                       static_cast<float>(v_blocks * (2 * g.tile_cols + 2)));
  const float fit_h = std::floor((avail.y - lines_h) / static_cast<float>(v_rows + 1));
  const float fit = std::min(fit_w, fit_h);
  std::vector<const std::vector<double>*> all{&band.u_band, &band.v_band};
  const float three = widest_number(all, 3);
  const int digits = fit >= kMinCellTextScale * three ? 3 : 2;
  const float cell = std::clamp(std::min(three, fit), ui_px(6.0f), ui_px(70.0f));
  const bool legend = cell < kMinCellTextScale * widest_number(all, 2);
  auto draw_legend_beside = [&] {
    if (!legend) return;
    if (v_blocks == 1) ImGui::SameLine(0, ui_px(24.0f)); // else under the blocks, which leave the height
    ImGui::BeginGroup();
    draw_legend_chips(palette, kLegendDigits, ImGui::GetContentRegionAvail().x, v_values);
    ImGui::EndGroup();
  };

  MatrixPicture v;
  v.id = "V";
  v.title = v_blocks > 1 ? fmt::format("V (v of C{})", mem.term + 1) // short beside its second block
                         : fmt::format("V (v of C{} on each column)", mem.term + 1);
  v.title_color = kRankOneTitleColor;
  v.rows = g.x_cols, v.cols = g.tile_cols;
  v.values = band.v_band;
  v.palette = &palette, v.cell = cell, v.digits = digits;
  v.legend = false;
  v.row_group = g.k;
  const float v_w = static_cast<float>(v_blocks) * measure_matrix(v_blocks > 1 ? rows_of(v, 0, v_rows) : v).size.x +
                    ui_px(16.0f) * static_cast<float>(v_blocks - 1);

  if (mem.rdg_part == 0) {
  MatrixPicture u;
  u.id = "U";
  u.title = fmt::format("U (u of C{} on each row)", mem.term + 1);
  u.title_color = kRankOneTitleColor;
  u.rows = g.tile_rows, u.cols = g.x_rows;
  u.values = band.u_band;
  u.palette = &palette, u.cell = cell, u.digits = digits;
  u.legend = false; // under U (part 0) or beside V' (part 1)
  u.column_group = g.k;
  u.tooltip = [](int r, int c) { return fmt::format("output row {} reads window row {}", r, c); };
  MatrixPicture x;
  x.id = "X";
  x.title = "X (input window)";
  x.title_color = kInputTitleColor;
  x.rows = g.x_rows, x.cols = g.x_cols;
  x.coloring = CellColoring::Custom;
  x.numbers = false;
  x.column_group = g.n;
  for (int r = 0; r < g.x_rows; ++r)
    for (int c = 0; c < g.x_cols; ++c)
      x.colors.push_back(r < g.window_rows && c < g.window_cols ? IM_COL32(70, 110, 170, 255) : zero_cell_color());
  x.cell = std::max(ui_px(4.0f), cell * (legend ? 0.35f : 0.5f)); // smaller where the legend needs the width
  x.tooltip = [g](int r, int c) {
    return r < g.window_rows && c < g.window_cols ? fmt::format("input at tile offset ({:+d}, {:+d})", c - g.radius, r - g.radius)
                                                  : std::string("padding to the MMA's k / n: zero");
  };
  // X's cells are where the inputs lie, not values: a key under it says what its two colours are (the tooltip alone
  // left the back row guessing, issue 17).
  const std::string inputs = fmt::format("inputs ({}×{})", g.window_rows, g.window_cols);
  const float key_w = std::floor(0.8f * ImGui::GetTextLineHeight()) + style.ItemSpacing.x +
                      std::max(ImGui::CalcTextSize(inputs.c_str()).x, ImGui::CalcTextSize("0 (padding)").x);
  const float op_w = ImGui::CalcTextSize("·").x + 2.0f * style.ItemSpacing.x;
  // U, X and V at the cells that keep their letters: where they are wider than the page (box-2d225p's 24-row V in
  // two blocks at a lecture's 1280x720 put its second block past the window's right edge), V stands on the
  // "V and V'" part and a button here shows it (issue 17).
  const bool v_here = measure_matrix(u).size.x + std::max(measure_matrix(x).size.x, key_w) + v_w + 2.0f * op_w <=
                      ImGui::GetContentRegionAvail().x;
  publish(ctx, "pyramid.V_on_part_0", v_here ? "yes" : "no");
  // The legend under U (which is short: tile_rows rows), in U's width: the row of U, X and V keeps the page's width.
  ImGui::BeginGroup();
  const MatrixDrawn ud = draw_matrix(u);
  probe_rect(ctx.state, "pyramid.U", ud.min, ud.max);
  if (legend) draw_palette_legend(palette, kLegendDigits, ud.max.x - ud.min.x);
  ImGui::EndGroup();
  ImGui::SameLine();
  draw_operator("·", ud.max.y - ud.min.y);
  ImGui::BeginGroup();
  const MatrixDrawn xd = draw_matrix(x);
  probe_rect(ctx.state, "pyramid.X", xd.min, xd.max);
  ImGui::BeginGroup();
  draw_key_chip(x.colors.front(), kChipEdge, inputs.c_str());
  draw_key_chip(zero_cell_color(), kChipEdge, "0 (padding)");
  ImGui::EndGroup();
  probe_rect(ctx.state, "pyramid.X.key", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::EndGroup();
  ImGui::SameLine();
  draw_operator("·", ud.max.y - ud.min.y);
  if (!v_here) {
    ImGui::BeginGroup();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kRankOneTitleColor), "V (v of C%d)", mem.term + 1);
    ImGui::TextDisabled("%d×%d", g.x_cols, g.tile_cols);
    if (ImGui::Button("show V")) mem.rdg_part = 1;
    ImGui::EndGroup();
    probe_rect(ctx.state, "pyramid.V", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    return;
  }
  }

  const RowBlocks vd = draw_row_blocks(v, v_blocks, "V_more");
  probe_rect(ctx.state, "pyramid.V", vd.min, vd.max);
  if (mem.rdg_part == 0) return;

  MatrixPicture vs = v;
  vs.id = "Vswapped";
  vs.title = "V' (rows in butterfly order)";
  vs.values = band.v_swapped;
  const std::vector<int> perm = f.swap.permutation;
  vs.row_labels.clear();
  for (int k : perm) vs.row_labels.push_back(std::to_string(k));
  vs.tooltip = [perm](int r, int) {
    return fmt::format("row {} of V': row {} of V (T's column {} arrives here from the C registers)", r,
                       perm[static_cast<std::size_t>(r)], perm[static_cast<std::size_t>(r)]);
  };
  vs.title = v_blocks > 1 ? "V' (butterfly)" : vs.title;
  ImGui::SameLine(0, ui_px(24.0f));
  const RowBlocks vsd = draw_row_blocks(vs, v_blocks, "Vswapped_more");
  probe_rect(ctx.state, "pyramid.Vswapped", vsd.min, vsd.max);
  draw_legend_beside();
  ImGui::TextWrapped("V' = V in the order T's columns reach the C registers (Eq. 17): T'·V' = T·V, no shuffle.");
}

// A 1D stencil's W is one row: W = u·vᵀ with u = [1], v = w, drawn as the 2D page draws a level's term.
void draw_line_rank_one(ViewContext& ctx, const PyramidFigure& f) {
  const LineGather& l = f.line;
  const std::vector<double>& w = f.stencil.weights;
  const int n = static_cast<int>(w.size());
  ImGui::TextWrapped("A 1D stencil's W is a single row (1×%d): it is rank 1 as it stands, W = u·vᵀ with u = [1] and "
                     "v = w. LoRAStencil needs no pyramid and leaves no 1×1 apex to CUDA cores: the whole row runs on "
                     "tensor cores as one gather, %d MMAs of %s per %d outputs (%.3g per point; the RDG page shows it).",
                     n, l.mma_per_tile(), std::string(to_string(l.shape)).c_str(), l.points(),
                     static_cast<double>(l.mma_per_tile()) / l.points());
  ValuePalette palette; // w's values only: the same colours and letters as the RDG page's V (u's 1 is drawn apart)
  palette.add(w);
  // W, "=", u and vᵀ in a row across the page, cells as wide as the page allows (up to a generous size); where that
  // leaves them narrow (1d15p), W on a line and "= u · vᵀ" under it, each as wide as the page.
  const float ops = 2.0f * (ImGui::CalcTextSize("=").x + ui_px(24.0f)), avail = ImGui::GetContentRegionAvail().x - ui_px(40.0f);
  const bool two_lines = (avail - ops) / (2.0f * n + 1.0f) < ui_px(32.0f);
  const float cell = std::floor(std::min(ui_px(70.0f), two_lines ? (avail - ops) / (n + 1.0f) : (avail - ops) / (2.0f * n + 1.0f)));
  auto row = [&](const char* id, std::string title, ImU32 color, std::vector<double> values, int rows, int cols) {
    MatrixPicture m;
    m.id = id;
    m.title = std::move(title);
    m.title_color = color;
    m.rows = rows, m.cols = cols;
    m.values = std::move(values);
    m.palette = &palette;
    m.cell = cell;
    m.legend = false;
    m.tooltip = [cols](int, int c) { return cols > 1 ? fmt::format("offset dx = {:+d}", c - cols / 2) : std::string("u"); };
    return m;
  };
  ImGui::Spacing();
  ImGui::BeginGroup();
  const MatrixDrawn wd = draw_matrix(row("W", fmt::format("W (1×{})", n), kWeightTitleColor, w, 1, n));
  if (!two_lines) ImGui::SameLine();
  draw_operator("=", wd.max.y - wd.min.y);
  MatrixPicture u = row("u", "u", kRankOneTitleColor, {}, 1, 1);
  u.coloring = CellColoring::Custom;
  u.colors = {IM_COL32(210, 212, 220, 255)};
  u.labels = {"1"};
  const MatrixDrawn ud = draw_matrix(u);
  ImGui::SameLine();
  draw_operator("·", ud.max.y - ud.min.y);
  const MatrixDrawn vd = draw_matrix(row("vT", "vᵀ", kRankOneTitleColor, w, 1, n));
  ImGui::EndGroup();
  probe_rect(ctx.state, "pyramid.line_rank_one", wd.min, ImGui::GetItemRectMax());
  if (wd.letters || vd.letters) draw_legend_chips(palette, kLegendDigits, ImGui::GetContentRegionAvail().x);
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("In 2D, W has rows and columns: its outer ring is one rank-1 term u·vᵀ, and W − u·vᵀ a smaller "
                     "matrix, peeled the same way (a 2D stencil's pyramid page).");
  ImGui::PopStyleColor();
}

void draw_line_gather(ViewContext& ctx, const PyramidFigure& f) {
  const LineGather& l = f.line;
  ImGui::TextWrapped("A 1D stencil is already a single rank-1 gather: no pyramid is needed. Each row of X holds the "
                     "%d inputs of %d consecutive outputs, and Y = X·V with the banded V below (%d MMAs of %s per %d "
                     "outputs).",
                     l.window, l.n, l.mma_per_tile(), std::string(to_string(l.shape)).c_str(), l.points());
  ValuePalette palette;
  palette.add(l.v_band);
  MatrixPicture v;
  v.id = "Vline";
  v.title = fmt::format("V ({}×{})", l.inner, l.n);
  v.title_color = kWeightTitleColor;
  v.rows = l.inner, v.cols = l.n;
  v.values = l.v_band;
  v.palette = &palette;
  v.row_group = l.k;
  // All 12 rows in the window (the widget keeps cells readable); where the cells show letters, their legend
  // stands beside V, not under it, so it takes none of the height.
  v.legend = false;
  v.max_height = ImGui::GetContentRegionAvail().y;
  // Where V's rows are too many for the window's height at a legible cell (1d15p's 24 at a lecture's 1280x720), it
  // stands in blocks of whole row groups side by side, each with its row numbers (issue 17).
  int blocks = 1;
  for (; blocks < 4; ++blocks) {
    MatrixPicture t = rows_of(v, 0, block_rows(l.inner, blocks, l.k));
    t.max_width = 0.6f * ImGui::GetContentRegionAvail().x / static_cast<float>(blocks);
    if (measure_matrix(t).size.y <= v.max_height) break;
  }
  v.max_width = 0.6f * ImGui::GetContentRegionAvail().x / static_cast<float>(blocks);
  const RowBlocks drawn = draw_row_blocks(v, blocks, "Vline_more");
  const MatrixDrawn& d = drawn.first;
  const ImVec2 lo = drawn.min, hi = drawn.max;
  probe_rect(ctx.state, "pyramid.Vline", lo, hi);
  if (d.letters) {
    ImGui::SameLine(0, ui_px(24.0f));
    ImGui::BeginGroup();
    ImGui::Dummy(ImVec2(0, d.origin.y - d.min.y)); // level with the first row of cells
    draw_legend_chips(palette, kLegendDigits, ImGui::GetContentRegionAvail().x);
    ImGui::EndGroup();
  }
}

} // namespace

void draw_pyramid_window(ViewContext& ctx) {
  const bool expanded = begin_view_window(ctx, kView, "Rank-1 pyramid (LoRAStencil)");
  if (!expanded) {
    ImGui::End();
    return;
  }
  PyramidMemory& mem = ctx.memory.get<PyramidMemory>(kView);
  const Stencil& s = ctx.state.stencil;
  if (s.dims == 3) {
    ImGui::SetNextItemWidth(ui_px(220.0f));
    ImGui::SliderInt("Plane dz", &mem.plane, -s.radius, s.radius);
    probe_last_item(ctx.state, "pyramid.plane");
  }
  mem.plane = s.dims == 3 ? std::clamp(mem.plane, -s.radius, s.radius) : 0;
  if (!mem.figure.built || !(mem.figure.stencil == s) || mem.figure.plane != mem.plane)
    mem.figure = build_figure(s, mem.plane);
  const PyramidFigure& f = mem.figure;
  if (!f.unsupported.empty()) {
    draw_unsupported("LoRAStencil", f.unsupported);
    publish(ctx, "pyramid.unsupported", f.unsupported);
    ImGui::End();
    return;
  }
  if (s.dims == 1) {
    // Two pages as in 2D, so the tour's two LoRAStencil steps show two things (they showed the same V twice): W as
    // the rank-1 term it already is, then the gather that applies it.
    publish(ctx, "pyramid.kind", "line");
    const std::string page = ctx.layout.take_page_request(kView);
    if (ImGui::BeginTabBar("pyramid_pages")) {
      if (begin_view_page(ctx, kView, "pyramid", "Rank 1 (no pyramid)", page)) {
        draw_line_rank_one(ctx, f);
        ImGui::EndTabItem();
      }
      if (begin_view_page(ctx, kView, "rdg", "RDG step: the V band", page)) {
        draw_line_gather(ctx, f);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
    ImGui::End();
    return;
  }
  if (s.dims == 3) {
    ImGui::SameLine();
    ImGui::TextDisabled(f.plane_kind == PlaneKind::CudaCores ? "this plane is a single weight: CUDA cores"
                        : f.plane_kind == PlaneKind::Empty   ? "this plane is empty"
                                                             : "a 2D LoRAStencil on tensor cores");
    if (f.mirror_folds) {
      ImGui::TextDisabled("plane dz = %+d has the same weights: the GPU kernels run this plane once on "
                          "x[z-%d] + x[z+%d] (mirror folding, notes/lorastencil-gpu.md)",
                          -f.plane, std::abs(f.plane), std::abs(f.plane));
    }
  }
  publish_figure(ctx, f);
  // On the pyramid page only: the RDG page's 16-row V needs the height at a lecture's font (issue 17).
  // Short where the window is short (a lecture's font at 1280x720): the level below needs the height.
  auto fusion_note = [&] {
    if (f.fused_steps <= 1) return;
    ImGui::PushTextWrapPos(0.0f);
    if (ImGui::GetContentRegionAvail().y < ui_px(520.0f))
      ImGui::TextDisabled("(the plan fuses %d steps; shown: W)", f.fused_steps);
    else
      ImGui::TextDisabled("(the cost model would fuse %d steps and decompose W^%d; shown: the base stencil's W)",
                          f.fused_steps, f.fused_steps);
    ImGui::PopTextWrapPos();
  };

  const std::string page = ctx.layout.take_page_request(kView);
  if (ImGui::BeginTabBar("pyramid_pages")) {
    const char* first = f.decomposition.kind == DecompositionKind::Pyramid ? "Pyramid"
                        : f.decomposition.kind == DecompositionKind::Cross ? "Cross split (no pyramid)"
                                                                           : "SVD (no pyramid)";
    if (begin_view_page(ctx, kView, "pyramid", first, page)) {
      fusion_note();
      draw_decomposition_page(ctx, mem);
      ImGui::EndTabItem();
    }
    if (begin_view_page(ctx, kView, "rdg", "RDG step: U and V bands", page)) {
      draw_gather_page(ctx, mem);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

} // namespace se
