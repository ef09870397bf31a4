// The rank-1 pyramid view (LoRAStencil, paper Fig. 5): W peeled into rank-1 terms C = u·vᵀ with the residual
// after each, the rank, the SVD alternative and its extra cost for weights the pyramid cannot take, and the
// banded U and V of one residual-dimension-gathering step on an 8x8 tile.
#include <algorithm>
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
  const float full_top = top + 0.5f * (block_h - full_h), stack_top = top + 0.5f * (block_h - stack_h);

  ImGui::SetCursorPosY(full_top);
  draw_matrix(weight_picture("before", before_name, kWeightTitleColor, before, palette, cell, digits));
  ImGui::SameLine();
  ImGui::SetCursorPosY(top);
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
    ImGui::SetCursorPosY(stack_top);
    ImGui::BeginGroup();
    draw_matrix(apex);
    ImGui::TextDisabled("CUDA cores");
    ImGui::EndGroup();
  } else {
    // u is a column to the left of C, vᵀ a row above it, each cell in line with the C cells it scales.
    ImGui::SetCursorPosY(stack_top + 2.0f * title_h + cell);
    draw_matrix(vector_picture("u", "", t.u, true, palette, cell, digits));
    ImGui::SameLine(0, ui_px(3.0f));
    ImGui::SetCursorPosY(stack_top);
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
  }
  ImGui::SameLine();
  ImGui::SetCursorPosY(top);
  draw_operator("+", block_h);
  ImGui::SetCursorPosY(full_top);
  draw_matrix(weight_picture("after", fmt::format("R{} = {} − C{}", i + 1, before_name, i + 1), kWeightTitleColor,
                             t.residual, palette, cell, digits));
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

void draw_decomposition_page(ViewContext& ctx, PyramidMemory& mem) {
  const PyramidFigure& f = mem.figure;
  const WeightDecomposition& d = f.decomposition;
  std::string sigmas;
  for (double s : d.singular_values) sigmas += (sigmas.empty() ? "" : ", ") + compact_number(s, 3);
  ImGui::Text("rank(W) = %d", d.rank);
  ImGui::SameLine();
  const std::string singular = "singular values " + sigmas;
  // In a tooltip where they would wrap in a short window (issue 17): the level below needs the height.
  if (ImGui::GetContentRegionAvail().y < ui_px(520.0f) &&
      ImGui::CalcTextSize(singular.c_str()).x > ImGui::GetContentRegionAvail().x) {
    ImGui::TextDisabled("singular values (hover)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", singular.c_str());
  } else {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", singular.c_str());
    ImGui::PopTextWrapPos();
  }
  // Where the pyramid stands in its way, the orange line below says why in short: the plan's long reason then goes
  // to a tooltip, leaving the window's height to the levels.
  if (f.pyramid_obstacle.empty()) {
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
  draw_cost_lines(f);
  ImGui::Separator();
  if (d.terms.empty()) {
    ImGui::TextDisabled("W is all zeros on this plane: nothing to decompose.");
    return;
  }

  // Levels one at a time (cells sized to fit the window), or all of them in a scrolling column.
  const int levels = static_cast<int>(d.terms.size());
  mem.level = std::clamp(mem.level, 0, levels);
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
  mem.level = std::clamp(mem.level, 0, levels);
  publish(ctx, "pyramid.level", std::to_string(mem.level));

  const std::size_t first = mem.level == 0 ? 0 : static_cast<std::size_t>(mem.level - 1);
  const std::size_t last = mem.level == 0 ? d.terms.size() : first + 1;
  // Equal colours are equal values among the matrices shown together.
  ValuePalette palette;
  std::vector<std::vector<double>> shown;
  for (std::size_t i = first; i < last; ++i) add_level_values(d, i, palette, shown);
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
  const float fit_h = std::floor((avail.y - static_cast<float>(last - first) * (2.0f * title_h + 2.0f * style.ItemSpacing.y)) /
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
    probe = cell_for(0.6f * avail.x);
    // The cells, the operators and the gaps between the five parts of a level (u sits a few pixels off C).
    float cells_w = probe.cell * static_cast<float>(3 * side + 1);
    // A small W (heat-3d's 3x3 plane) is narrower than its titles ("C1 = u·vᵀ (3×3)", "R1 = W − C1"): the level
    // takes the titles' width where that is more, so the legend does not cut them.
    for (std::size_t i = first; i < last; ++i) {
      const std::string before_name = i == 0 ? "W" : fmt::format("R{}", i);
      const RankOneTerm& t = d.terms[i];
      const float titles = ImGui::CalcTextSize(before_name.c_str()).x +
                           ImGui::CalcTextSize(fmt::format("C{} = u·vᵀ ({}×{}, σ{} in u)", i + 1, t.size, t.size, i + 1).c_str()).x +
                           ImGui::CalcTextSize(fmt::format("R{} = {} − C{}", i + 1, before_name, i + 1).c_str()).x;
      cells_w = std::max(cells_w, titles);
    }
    levels_w = std::min(avail.x, std::ceil(cells_w + operators + style.ScrollbarSize + 6.0f * style.ItemSpacing.x +
                                           2.0f * probe.cell + ui_px(16.0f)));
  }
  const float cell = probe.cell; // what the widget draws: u, v and C line up with it
  // One level always gets the height it needs: where the window has less left, the window scrolls instead of the
  // level hiding in a sliver.
  const float level_h = 2.0f * title_h + cell * static_cast<float>(std::max(side, d.terms[first].size + 1)) +
                        3.0f * style.ItemSpacing.y + style.ScrollbarSize;
  const float levels_h = mem.level == 0 ? 0.0f : std::max(ImGui::GetContentRegionAvail().y, level_h);
  ImGui::BeginChild("levels", ImVec2(levels_w, levels_h), false, ImGuiWindowFlags_HorizontalScrollbar);
  for (std::size_t i = first; i < last; ++i) draw_level(d, i, palette, cell, digits);
  // The levels' last cells: the cursor less the spacing draw_level leaves under a level (1.5 + the Dummy's 1).
  probe_rect(ctx.state, "pyramid.levels", ImGui::GetWindowPos(),
             ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                    ImGui::GetCursorScreenPos().y - 2.5f * ImGui::GetStyle().ItemSpacing.y));
  ImGui::EndChild();
  if (probe.letters) {
    ImGui::SameLine();
    ImGui::BeginChild("legend", ImVec2(0, levels_h));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Letters name the values (equal letter, equal value):");
    ImGui::PopTextWrapPos();
    draw_palette_legend(palette, kLegendDigits, ImGui::GetContentRegionAvail().x);
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
  for (int i = 0; i < static_cast<int>(terms.size()); ++i) {
    ImGui::SameLine();
    ImGui::RadioButton(fmt::format("C{}##term", i + 1).c_str(), &mem.term, i);
    probe_last_item(ctx.state, fmt::format("pyramid.term.{}", i + 1));
  }
  // A part selector (issue 17): at a lecture's font the 16-row V, V' and the numbers do not fit one window.
  ImGui::SameLine(0, ui_px(24.0f));
  ImGui::TextUnformatted("Show");
  for (int i = 0; i < 3; ++i) {
    ImGui::SameLine();
    ImGui::RadioButton(i == 0 ? "U·X·V" : i == 1 ? "V and V'" : "the numbers", &mem.rdg_part, i);
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
  const float legend_w = palette_legend_width(palette, 5) + ui_px(24.0f);
  const float fit_w = mem.rdg_part == 0
                          ? std::floor((avail.x - ui_px(120.0f)) /
                                       (static_cast<float>(g.x_rows + g.tile_cols) + 0.35f * g.x_cols))
                          : std::floor((avail.x - ui_px(120.0f) - legend_w) / static_cast<float>(2 * g.tile_cols + 2));
  const float fit_h = std::floor((avail.y - (mem.rdg_part == 0 ? 2.5f : 4.5f) * ImGui::GetTextLineHeightWithSpacing()) /
                                 static_cast<float>(g.x_cols + 1));
  const float fit = std::min(fit_w, fit_h);
  std::vector<const std::vector<double>*> all{&band.u_band, &band.v_band};
  const float three = widest_number(all, 3);
  const int digits = fit >= kMinCellTextScale * three ? 3 : 2;
  const float cell = std::clamp(std::min(three, fit), ui_px(6.0f), ui_px(70.0f));
  const bool legend = cell < kMinCellTextScale * widest_number(all, 2);
  auto draw_legend_beside = [&] {
    if (!legend) return;
    ImGui::SameLine(0, ui_px(24.0f));
    ImGui::BeginGroup();
    draw_palette_legend(palette, 5, ImGui::GetContentRegionAvail().x);
    ImGui::EndGroup();
  };

  const float band_h = ImGui::GetTextLineHeight() + cell * static_cast<float>(g.tile_rows);
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
  // The legend under U (which is short: tile_rows rows), in U's width: the row of U, X and V keeps the page's width.
  ImGui::BeginGroup();
  const MatrixDrawn ud = draw_matrix(u);
  probe_rect(ctx.state, "pyramid.U", ud.min, ud.max);
  if (legend) draw_palette_legend(palette, kLegendDigits, ud.max.x - ud.min.x);
  ImGui::EndGroup();
  ImGui::SameLine();
  draw_operator("·", ud.max.y - ud.min.y);

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
  draw_matrix(x);
  ImGui::SameLine();
  draw_operator("·", ud.max.y - ud.min.y);
  }

  MatrixPicture v;
  v.id = "V";
  v.title = fmt::format("V (v of C{} on each column)", mem.term + 1);
  v.title_color = kRankOneTitleColor;
  v.rows = g.x_cols, v.cols = g.tile_cols;
  v.values = band.v_band;
  v.palette = &palette, v.cell = cell, v.digits = digits;
  v.legend = false;
  v.row_group = g.k;
  const MatrixDrawn vd = draw_matrix(v);
  probe_rect(ctx.state, "pyramid.V", vd.min, vd.max);
  (void)band_h;
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
  ImGui::SameLine(0, ui_px(24.0f));
  const MatrixDrawn vsd = draw_matrix(vs);
  probe_rect(ctx.state, "pyramid.Vswapped", vsd.min, vsd.max);
  draw_legend_beside();
  ImGui::TextWrapped("V' = V in the order T's columns reach the C registers (Eq. 17): T'·V' = T·V, no shuffle.");
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
  v.max_width = 0.6f * ImGui::GetContentRegionAvail().x;
  v.max_height = ImGui::GetContentRegionAvail().y;
  const MatrixDrawn d = draw_matrix(v);
  probe_rect(ctx.state, "pyramid.Vline", d.min, d.max);
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
    draw_line_gather(ctx, f);
    publish(ctx, "pyramid.kind", "line");
    ImGui::End();
    return;
  }
  if (s.dims == 3) {
    ImGui::SameLine();
    ImGui::TextDisabled(f.plane_kind == PlaneKind::CudaCores ? "this plane is a single weight: CUDA cores"
                        : f.plane_kind == PlaneKind::Empty   ? "this plane is empty"
                                                             : "a 2D LoRAStencil on tensor cores");
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
