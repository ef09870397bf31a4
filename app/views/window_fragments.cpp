// The fragments view: for every MMA shape the A, B and C tiles coloured by the lane (or register) that holds
// each element; and a step-through of an inner loop (LoRAStencil's gather chain, FlashFFTStencil's DFT chain)
// where the accumulator of one MMA becomes an operand of the next, animated so that every element visibly
// stays in its lane: the butterfly swap and the swizzle need no shuffle.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <imgui.h>

#include "app/widgets/matrix_widget.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/flashfft/flashfft_plan.hpp"
#include "core/fragment/fragment_layout.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "kernels/fragment_probe/wmma_recording.hpp"

namespace se {
namespace {

constexpr const char* kView = "fragments";
constexpr float kStepSeconds = 2.5f; // auto-play: time per step
// A feed's animation, after a short pause. --record captures an animated step every 0.4 s from 0.05 s on: the
// fourth capture (1.25 s) shows every register landed on its cell.
constexpr float kMoveSeconds = 1.0f;
constexpr float kMoveDelay = 0.1f;

enum class LoopMethod { LoraStencil, FlashFft };

// One step of an inner loop: what runs, and what to highlight.
struct LoopStep {
  enum class Kind { VerticalMma, Feed, HorizontalMma, FftMma, FftFeed, CudaCores } kind = Kind::VerticalMma;
  int kb = 0, nb = 0;         // LoRAStencil: the K block and N block of the MMA
  Operand feed_target = Operand::A; // FftFeed
  std::string text;
};

struct LoraLoop {
  GatherTile tile;
  ButterflySwap swap;
  BandedPair band;  // the animated term's U and V
  int terms = 0;    // tensor-core terms the loop runs for
  std::string term; // which term is animated, and why that one
  // What the plan runs on this plane, term by term, trimmed to each term's non-zeros (term_schedule, the count the
  // cost model and the GPU kernel use), and the plan's MMAs per warp tile and per point for the whole step.
  std::string schedule_text;
  int plane_mma = 0;          // per warp tile, every tensor-core term of the animated plane
  int animated_mma = 0;       // the animated term as the plan runs it
  double plan_mma_per_point = 0;
  int fused_steps = 1;
};

struct FragmentsMemory {
  int shape = 0;
  bool color_by_register = false;
  LoopMethod method = LoopMethod::LoraStencil;
  int step = 0;
  bool playing = false;
  float step_time = 0; // seconds since the step began
  int lora_fragment = 0; // where T and T' are shown a C fragment at a time: the one shown (follows the MMA steps)
  // Where U, X and V' fit neither beside T and T' nor under them, the page shown: 0 T and T', 1 U, X and V', or where
  // those do not fit one page, 2 U and X, 3 V'.
  int lora_page = 0;
  Stencil built_for;
  bool built = false;
  LoopMethod built_method = LoopMethod::LoraStencil;
  std::string unsupported;
  LoraLoop lora;
  FlashFftPlan fft;
  std::vector<LoopStep> steps;
  // The WMMA layout recorded on this machine's GPU (button on the layouts page), or why it could not be.
  std::optional<WmmaRecordingReport> wmma;
  std::string wmma_error;
  bool draw_recorded = false; // draw the recorded layouts instead of core's
};

// 32 lanes in well-separated hues (golden-ratio steps around the wheel), light enough for dark text.
ImU32 lane_color(int lane) {
  const float hue = std::fmod(static_cast<float>(lane) * 0.6180339f, 1.0f);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(hue, 0.42f, 0.97f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

MatrixPicture layout_picture(const char* id, const FragmentLayout& layout, bool by_register, float cell) {
  MatrixPicture m;
  m.id = id;
  m.title = fmt::format("{} ({}×{}, {} register{} per lane)", to_string(layout.operand), layout.rows, layout.cols,
                        layout.regs_per_lane, layout.regs_per_lane == 1 ? "" : "s");
  m.title_color = layout.operand == Operand::C ? kRankOneTitleColor : kInputTitleColor;
  m.rows = layout.rows, m.cols = layout.cols;
  m.coloring = CellColoring::Custom;
  m.colors.resize(static_cast<std::size_t>(layout.rows * layout.cols));
  m.labels.resize(m.colors.size());
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int reg = 0; reg < layout.regs_per_lane; ++reg) {
      const FragmentCoord c = layout.at(lane, reg);
      const std::size_t i = static_cast<std::size_t>(c.row * layout.cols + c.col);
      m.colors[i] = by_register ? categorical_color(reg) : lane_color(lane);
      m.labels[i] = fmt::format("{}:{}", lane, reg);
    }
  m.cell = cell;
  const char prefix = layout.operand == Operand::A ? 'a' : layout.operand == Operand::B ? 'b' : 'c';
  m.tooltip = [layout, prefix](int r, int c) {
    const FragmentOwner o = layout.owner(r, c);
    return fmt::format("lane {}, register {} (PTX element {}{})", o.lane, o.reg, prefix, o.reg);
  };
  return m;
}

// The recorded check of one operand of `shape`, if the recorder ran and covered it.
const WmmaLayoutCheck* recorded_check(const FragmentsMemory& mem, MmaShape shape, Operand op) {
  if (!mem.wmma) return nullptr;
  for (const WmmaLayoutCheck& c : mem.wmma->checks)
    if (c.recording.shape == shape && c.recording.operand == op) return &c;
  return nullptr;
}

// Cells whose lane or register differ between two layouts of the same tile.
std::vector<char> differing_cells(const FragmentLayout& a, const FragmentLayout& b) {
  std::vector<char> out(static_cast<std::size_t>(a.rows * a.cols), 0);
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) out[static_cast<std::size_t>(r * a.cols + c)] = a.owner(r, c) == b.owner(r, c) ? 0 : 1;
  return out;
}

// The button that records the WMMA layout on this machine's GPU, and what the recording found for `info`.
void draw_wmma_recorder(ViewContext& ctx, FragmentsMemory& mem, const MmaShapeInfo& info) {
  if (info.layout_observed) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.78f, 0.45f, 1.0f));
    ImGui::TextWrapped("NVIDIA does not specify this layout: what is drawn was observed on sm_80 and sm_90 GPUs.");
    ImGui::PopStyleColor();
    const bool can_record = ctx.environment.cuda_device;
    ImGui::BeginDisabled(!can_record);
    if (ImGui::Button("Record the WMMA layout on this GPU")) {
      try {
        mem.wmma = record_wmma_layouts();
        mem.wmma_error.clear();
      } catch (const std::exception& e) { // no device after all, or a failed launch: said, never fatal
        mem.wmma.reset();
        mem.wmma_error = e.what();
      }
    }
    ImGui::EndDisabled();
    probe_last_item(ctx.state, "fragments.record_wmma");
    publish(ctx, "fragments.record_enabled", can_record ? "yes" : "no");
    if (!can_record) {
      ImGui::SameLine();
      ImGui::TextDisabled("(disabled: %s)", ctx.environment.compute_device.c_str());
      publish(ctx, "fragments.record_disabled", ctx.environment.compute_device);
    }
  }
  if (!mem.wmma_error.empty()) {
    draw_message(UiMessage{mem.wmma_error, true});
    publish(ctx, "fragments.record", mem.wmma_error);
  }
  bool any = false, all_match = true, drawable = true;
  for (Operand op : {Operand::A, Operand::B, Operand::C}) {
    const WmmaLayoutCheck* check = recorded_check(mem, info.shape, op);
    if (check == nullptr) continue;
    if (!any) ImGui::Text("Recorded on %s with wmma::load_matrix_sync:", mem.wmma->device.c_str());
    any = true;
    all_match = all_match && check->matches();
    drawable = drawable && check->layout.has_value();
    const std::string head = fmt::format("{}: {}", to_string(op), check->recording.fragment);
    if (check->matches()) {
      ImGui::TextColored(ImVec4(0.55f, 0.9f, 0.55f, 1.0f), "%s matches core's table%s", head.c_str(),
                         info.layout_observed ? "" : " (mma.m8n8k4.f64's documented layout)");
    } else if (ImGui::TreeNode(check->title().c_str(), "%s differs from core's table (%zu line%s)", head.c_str(),
                               check->differences.size(), check->differences.size() == 1 ? "" : "s")) {
      for (const std::string& d : check->differences) ImGui::BulletText("%s", d.c_str());
      ImGui::TreePop();
    }
  }
  if (!any) return;
  publish(ctx, "fragments.record", all_match ? "matches core's table" : "differs from core's table");
  if (!all_match && drawable) {
    ImGui::Checkbox("draw the recorded layout (cells that differ outlined)", &mem.draw_recorded);
    probe_last_item(ctx.state, "fragments.draw_recorded");
  }
}

void draw_layouts(ViewContext& ctx, FragmentsMemory& mem) {
  const auto& shapes = mma_shapes();
  mem.shape = std::clamp(mem.shape, 0, static_cast<int>(shapes.size()) - 1);
  const float gap = ui_px(30.0f); // between the controls, and between the three tiles
  ImGui::SetNextItemWidth(ui_px(220.0f));
  if (ImGui::BeginCombo("Instruction", shapes[static_cast<std::size_t>(mem.shape)].id.c_str())) {
    for (int i = 0; i < static_cast<int>(shapes.size()); ++i) {
      if (ImGui::Selectable(shapes[static_cast<std::size_t>(i)].id.c_str(), i == mem.shape)) mem.shape = i;
      probe_last_item(ctx.state, "fragments.shape." + shapes[static_cast<std::size_t>(i)].id);
    }
    ImGui::EndCombo();
  }
  probe_last_item(ctx.state, "fragments.shape");
  // Beside the combo where it fits, else under it (a lecture's font at 1280x720, issue 17).
  const char* by_register = "colour by register (not lane)";
  same_line_if_fits(check_width(by_register), gap);
  ImGui::Checkbox(by_register, &mem.color_by_register);
  probe_last_item(ctx.state, "fragments.by_register");
  const MmaShapeInfo& info = shapes[static_cast<std::size_t>(mem.shape)];
  ImGui::TextWrapped("%s", info.ptx.c_str());
  // The note goes to the PTX line's tooltip where the tiles would otherwise lose legible labels (a lecture's font
  // at 1280x720, issue 17).
  const float tallest = static_cast<float>(std::max({hardware_fragment_layout(info.shape, Operand::A).rows,
                                                     hardware_fragment_layout(info.shape, Operand::B).rows,
                                                     hardware_fragment_layout(info.shape, Operand::C).rows}));
  const float legible = std::ceil(kMinCellTextScale * (ImGui::CalcTextSize("31:7").x + ui_px(8.0f)));
  const float note_h = ImGui::CalcTextSize(info.note.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
                       ImGui::GetStyle().ItemSpacing.y;
  const bool note_shown =
      ImGui::GetContentRegionAvail().y - note_h >= tallest * legible + 3.0f * ImGui::GetTextLineHeightWithSpacing();
  if (!note_shown && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.note.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (note_shown) ImGui::TextWrapped("%s", info.note.c_str()); // long notes wrap instead of running off the window
  ImGui::PopStyleColor();
  draw_wmma_recorder(ctx, mem, info);
  // Core's tables, or (on request, after a recording that differs) what the GPU did, differences outlined.
  std::vector<const FragmentLayout*> layouts;
  for (Operand op : {Operand::A, Operand::B, Operand::C}) {
    const FragmentLayout& core = hardware_fragment_layout(info.shape, op);
    const WmmaLayoutCheck* check = recorded_check(mem, info.shape, op);
    const bool recorded = mem.draw_recorded && check != nullptr && check->layout && !check->matches();
    layouts.push_back(recorded ? &*check->layout : &core);
  }
  const FragmentLayout &a = *layouts[0], &b = *layouts[1], &c = *layouts[2];
  const char* ids[3] = {"A", "B", "C"};
  std::vector<MatrixPicture> pictures;
  for (int i = 0; i < 3; ++i) {
    MatrixPicture m = layout_picture(ids[i], *layouts[static_cast<std::size_t>(i)], mem.color_by_register, 0.0f);
    const FragmentLayout& core = hardware_fragment_layout(info.shape, layouts[static_cast<std::size_t>(i)]->operand);
    if (layouts[static_cast<std::size_t>(i)] != &core) {
      m.title += " as recorded";
      m.outlined = differing_cells(*layouts[static_cast<std::size_t>(i)], core);
    }
    pictures.push_back(std::move(m));
  }
  const float avail = ImGui::GetContentRegionAvail().x - 2.0f * gap;
  const float wanted = ImGui::CalcTextSize("31:7").x + ui_px(8.0f);
  const float by_width = avail / static_cast<float>(a.cols + b.cols + c.cols);
  const float by_height = (ImGui::GetContentRegionAvail().y - 3.0f * ImGui::GetTextLineHeightWithSpacing()) /
                          static_cast<float>(std::max({a.rows, b.rows, c.rows}));
  float cell = std::floor(std::clamp(std::min({wanted, by_width, by_height}), ui_px(6.0f), ui_px(60.0f)));
  // A tile is as wide as its title where that is wider than its cells (A's is, in lecture mode's larger font):
  // the cells shrink until the three tiles fit side by side.
  const auto tiles_width = [&](float side) {
    float width = 0;
    for (const MatrixPicture& m : pictures)
      width += std::max(side * static_cast<float>(m.cols), ImGui::CalcTextSize(m.title.c_str()).x);
    return width;
  };
  // Where the titles alone leave no room for legible labels, they shorten to "A (8×4)" and the registers per lane
  // are said once under the tiles.
  const bool short_titles = tiles_width(std::ceil(kMinCellTextScale * wanted)) > avail;
  if (short_titles)
    for (std::size_t i = 0; i < pictures.size(); ++i)
      pictures[i].title = fmt::format("{} ({}×{})", ids[i], layouts[i]->rows, layouts[i]->cols);
  while (cell > ui_px(6.0f) && tiles_width(cell) > avail) cell -= 1.0f;
  MatrixDrawn ad, cd;
  for (std::size_t i = 0; i < pictures.size(); ++i) {
    pictures[i].cell = cell;
    if (i > 0) ImGui::SameLine(0, gap);
    const MatrixDrawn drawn = draw_matrix(pictures[i]);
    if (i == 0) ad = drawn;
    if (i == 2) cd = drawn;
  }
  probe_rect(ctx.state, "fragments.A", ad.min, ad.max);
  probe_rect(ctx.state, "fragments.C", cd.min, cd.max);
  // With short titles the registers per lane and the labels' key share a line (two lines under the tiles put the key
  // below the window's edge at a lecture's 1280x720, issue 17).
  if (short_titles) {
    auto regs = [&](std::size_t i) { return layouts[i]->regs_per_lane; };
    ImGui::TextWrapped("Labels lane:register (hover: PTX register); registers per lane: A %d, B %d, C %d.", regs(0), regs(1),
                       regs(2));
  }
  if (info.sparse)
    ImGui::TextWrapped("mma.sp: A is given compressed (%d×%d, two kept values of every group of four) with 2-bit "
                       "metadata per value; one lane in four carries a metadata register, chosen by the selector.",
                       a.rows, a.cols);
  if (!short_titles) ImGui::TextDisabled("Labels are lane:register. Hover a cell for its lane and PTX register.");
  if (ad.hovered()) {
    const FragmentOwner o = a.owner(ad.hover_row, ad.hover_col);
    publish(ctx, "fragments.hover", fmt::format("A lane {} reg {}", o.lane, o.reg));
  }
  publish(ctx, "fragments.shape", info.id);
}

std::vector<LoopStep> lora_steps(const LoraLoop& l) {
  std::vector<LoopStep> steps;
  const GatherTile& g = l.tile;
  for (int kb = 0; kb < g.x_rows / g.k; ++kb)
    for (int nb = 0; nb < g.x_cols / g.n; ++nb)
      steps.push_back({LoopStep::Kind::VerticalMma, kb, nb, Operand::A,
                       fmt::format("T[:, {}..{}] += U[:, {}..{}] · X[{}..{}, {}..{}]: A = a column block of U (registers, "
                                   "loaded once per term), B = input from shared memory; C fragment {} of T accumulates.",
                                   nb * g.n, nb * g.n + g.n - 1, kb * g.k, kb * g.k + g.k - 1, kb * g.k, kb * g.k + g.k - 1,
                                   nb * g.n, nb * g.n + g.n - 1, nb)});
  steps.push_back({LoopStep::Kind::Feed, 0, 0, Operand::A,
                   "Butterfly vector swapping: every A register of T·V is a C register of U·X in the same lane. The "
                   "columns of T arrive permuted; V's rows are stored in the same permuted order (V'), so T'·V' = T·V "
                   "and no value crosses lanes."});
  for (int kb = 0; kb < g.x_cols / g.k; ++kb)
    steps.push_back({LoopStep::Kind::HorizontalMma, kb, 0, Operand::A,
                     fmt::format("Y += T'[:, {}..{}] · V'[{}..{}, :]: A comes straight from the C registers of step 1, "
                                 "B is a row block of V' (registers).",
                                 kb * g.k, kb * g.k + g.k - 1, kb * g.k, kb * g.k + g.k - 1)});
  return steps;
}

std::vector<LoopStep> fft_steps() {
  using K = LoopStep::Kind;
  return {
      {K::FftMma, 0, 0, Operand::A, "Step 1: [Pr; Pi] = [[Fr, −Fi], [Fi, Fr]] · [xr; xi]: A is the row DFT (constant), "
                                    "B the segment pair from shared memory (double-layer: re and im are two segments)."},
      {K::FftFeed, 0, 0, Operand::A, "The accumulator P becomes the A operand of step 2 in place: k-step j reads the C "
                                     "columns in the swizzled order, and the column DFT G is stored with its rows in "
                                     "that order."},
      {K::FftMma, 0, 0, Operand::A, "Step 2: [Qr | Qi] = [Pr | Pi] · G (swizzled rows): the 2D DFT of the segment is done."},
      {K::CudaCores, 0, 0, Operand::A, "Multiply by k_fᵀ / N on CUDA cores, in the accumulator registers: T steps of "
                                       "the stencil in one product per frequency."},
      {K::FftFeed, 0, 0, Operand::B, "The product becomes the B operand of step 4, again without leaving its lane."},
      {K::FftMma, 0, 0, Operand::A, "Step 4: [Rr'; Ri'] = G' · [Qr | Qi]': the inverse column DFT (A swizzled)."},
      {K::FftFeed, 0, 0, Operand::A, "And into A of step 5."},
      {K::FftMma, 0, 0, Operand::A, "Step 5: [yr' | yi'] = [Rr' | Ri'] · [[Fr, −Fi], [Fi, Fr]] (rows swizzled): the "
                                    "inverse row DFT; Re y and Im y are the two segments' outputs, stitched back."},
  };
}

// Where a term of the plan sits, to find it again and to name it as the pyramid view does (C1, C2, ...).
struct TermAt {
  const LoraPlane* plane = nullptr;
  std::size_t band = 0; // index into plane->bands / gathers
  int number = 0;       // 1-based among the plane's decomposition terms (CUDA-core apexes counted)
};

std::optional<TermAt> first_term(const LoraStencilPlan& plan, bool chains_only) {
  for (const LoraPlane& p : plan.planes) {
    if (p.kind != PlaneKind::TensorCores) continue;
    std::size_t band = 0;
    for (std::size_t t = 0; t < p.decomposition.terms.size(); ++t) {
      if (p.decomposition.terms[t].on_cuda_cores) continue;
      if (band < p.gathers.size() && (!chains_only || p.gathers[band].kind == GatherKind::Chain))
        return TermAt{&p, band, static_cast<int>(t) + 1};
      ++band;
    }
  }
  return std::nullopt;
}

std::string decomposition_text(DecompositionKind k) {
  switch (k) {
  case DecompositionKind::Pyramid: return "the pyramid";
  case DecompositionKind::Svd: return "the SVD";
  case DecompositionKind::Cross: return "the cross split";
  }
  return "";
}

std::string gather_kind_text(GatherKind k) {
  switch (k) {
  case GatherKind::Chain: return "a full U·X·V chain";
  case GatherKind::Rows: return "a single product U·X (its v is one weight), which the GPU runs without the feed";
  case GatherKind::Columns: return "a single product X·V (its u is one weight), which the GPU runs without the feed";
  case GatherKind::CudaCores: return "a single weight, which the GPU adds on CUDA cores";
  }
  return "";
}

// The loop of one base step (T = 1) animates its first full U·X·V chain. A plan without one (a star's cross
// split gathers rows and columns alone) is looked at with the fusion depth the cost model picks, whose kernel
// usually has chains; failing that, the first term is animated as if it were one, and the view says so.
LoraLoop lora_loop(const Stencil& s) {
  LoraStencilOptions one_step;
  one_step.fused_steps = 1;
  std::vector<LoraStencilPlan> plans{make_lorastencil_plan(s, one_step)};
  if (!first_term(plans[0], true)) {
    try {
      LoraStencilPlan fused = make_lorastencil_plan(s, LoraStencilOptions{});
      if (fused.fused_steps > 1) plans.push_back(std::move(fused));
    } catch (const InputError&) { // no deeper fusion for this stencil: stay with T = 1
    }
  }
  const LoraStencilPlan* plan = &plans[0];
  std::optional<TermAt> at;
  for (const LoraStencilPlan& p : plans)
    if ((at = first_term(p, true))) {
      plan = &p;
      break;
    }
  const bool chain = at.has_value();
  if (!chain) at = first_term(plans[0], false);
  if (!at) throw InputError("no plane of this stencil goes to the tensor cores");
  const LoraPlane& p = *at->plane;
  const TermGather& g = p.gathers[at->band];
  LoraLoop l;
  l.tile = plan->tile;
  l.swap = plan->swap;
  l.band = p.bands[at->band];
  l.terms = p.decomposition.tensor_core_terms();
  {
    std::string parts;
    for (std::size_t b = 0; b < p.gathers.size(); ++b) {
      const TermSchedule ts = term_schedule(plan->tile, p.gathers[b]);
      if (p.gathers[b].kind == GatherKind::CudaCores) continue;
      l.plane_mma += ts.mma;
      if (b == at->band) l.animated_mma = ts.mma;
      const std::string what = p.gathers[b].kind == GatherKind::Chain
                                   ? fmt::format("chain {} + {}", ts.chunks * ts.t_tiles, ts.v_chunks * plan->tile.warp_fragments)
                                   : fmt::format("{} {}", p.gathers[b].kind == GatherKind::Rows ? "U·X" : "X·V", ts.mma);
      parts += fmt::format("{}{}{}", parts.empty() ? "" : ", ", b == at->band ? "*" : "", what);
    }
    l.plan_mma_per_point = plan->cost.mma_per_point;
    l.fused_steps = plan->fused_steps;
    l.schedule_text = fmt::format(
        "The plan runs each term trimmed to its own non-zeros: {} = {} MMAs per {}x{} warp tile on this plane "
        "(* the animated term: {} MMAs as run; the animation shows it full-size, {} + {}). Cost model: {:.4f} MMA "
        "per point and base step{}.",
        parts, l.plane_mma, plan->tile.tile_rows, plan->tile.warp_cols(), l.animated_mma, plan->tile.step1_mma(),
        plan->tile.step2_mma(), plan->cost.mma_per_point,
        plan->fused_steps > 1 ? fmt::format(" ({} steps fused)", plan->fused_steps) : "");
  }
  const std::string where = fmt::format("{}{}{} of {}", plan->fused_steps > 1 ? fmt::format("the T = {} fused kernel's ", plan->fused_steps) : "",
                                        s.dims == 3 ? fmt::format("plane dz = {}, ", p.dz) : "",
                                        fmt::format("term C{}", at->number), decomposition_text(p.decomposition.kind));
  if (chain && plan == &plans[0])
    l.term = fmt::format("Animated: {}, the first term that is {} (u {} wide, v {} wide).", where, gather_kind_text(g.kind),
                         2 * g.wu + 1, 2 * g.wv + 1);
  else if (chain)
    l.term = fmt::format("One step of '{}' has no U·X·V chain (every term is a single product, no feed). Animated: {}, "
                         "its first full chain (u {} wide, v {} wide).",
                         s.name, where, 2 * g.wu + 1, 2 * g.wv + 1);
  else
    l.term = fmt::format("No term of '{}' is a full U·X·V chain. Animated: {}, {}; shown as the full chain it would be.",
                         s.name, where, gather_kind_text(g.kind));
  return l;
}

void rebuild_loop(FragmentsMemory& mem, const Stencil& s) {
  mem.built = true;
  mem.built_for = s;
  mem.built_method = mem.method;
  mem.unsupported.clear();
  mem.steps.clear();
  try {
    if (mem.method == LoopMethod::LoraStencil) {
      if (s.dims == 1)
        throw InputError("a 1D stencil runs as a single gather Y = X·V: there is no second product to feed, so no "
                         "butterfly swap (choose a 2D stencil)");
      mem.lora = lora_loop(s);
      mem.steps = lora_steps(mem.lora);
    } else {
      mem.fft = make_flashfft_plan(s);
      mem.steps = fft_steps();
    }
  } catch (const InputError& e) {
    mem.unsupported = e.what();
  }
}

float move_progress(float step_time) {
  const float t = std::clamp((step_time - kMoveDelay) / kMoveSeconds, 0.0f, 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

// A register moving from one cell to another, drawn on top: the lane colour it keeps and its label.
// `from` and `to` are cell centres (MatrixDrawn::cell_center), the sizes the cells' as drawn (width, height), so
// the register sits exactly on its cell at both ends.
void draw_moving_cell(ImVec2 from, ImVec2 to, float t, ImVec2 from_size, ImVec2 to_size, ImU32 color,
                      const std::string& label, float text_scale) {
  const ImVec2 c(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t);
  const ImVec2 size(from_size.x + (to_size.x - from_size.x) * t, from_size.y + (to_size.y - from_size.y) * t);
  ImDrawList* dl = ImGui::GetWindowDrawList(); // clipped to the window, drawn over its matrices
  // The widget leaves a one-pixel gap at the right and bottom of each cell: its fill is centred half a pixel up-left.
  const float gap = size.y >= ui_px(8.0f) ? std::max(1.0f, std::round(ui_px(1.0f))) : 0.0f;
  const ImVec2 a(c.x - 0.5f * size.x, c.y - 0.5f * size.y), b(c.x + 0.5f * size.x - gap, c.y + 0.5f * size.y - gap);
  dl->AddRectFilled(a, b, color);
  dl->AddRect(a, b, IM_COL32(20, 20, 26, 255));
  if (label.empty()) return;
  // The label at the scale the matrix widget gives every label of the cells it leaves (`text_scale`: "1" flew at
  // twice the size of the "1" it lands as beside "15", issue 17), else as large as its cell allows, down to the
  // smallest readable scale.
  const ImVec2 full = ImGui::CalcTextSize(label.c_str());
  const float scale = text_scale > 0.0f ? text_scale
                                        : std::min({1.0f, (size.x - ui_px(2.0f)) / std::max(full.x, 1.0f), size.y / std::max(full.y, 1.0f)});
  if (scale < kMinCellTextScale) return;
  const float font = ImGui::GetFontSize() * scale;
  const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(font, FLT_MAX, 0.0f, label.c_str());
  dl->AddText(ImGui::GetFont(), font, ImVec2(0.5f * (a.x + b.x - ts.x), 0.5f * (a.y + b.y - ts.y)), IM_COL32(20, 20, 26, 255),
              label.c_str());
}

std::vector<char> block_outline(int rows, int cols, int r0, int r1, int c0, int c1) {
  std::vector<char> o(static_cast<std::size_t>(rows * cols), 0);
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c)
      if (r >= 0 && r < rows && c >= 0 && c < cols) o[static_cast<std::size_t>(r * cols + c)] = 1;
  return o;
}

// Where the feed's registers fly: T (C fragments) above T' (A fragments), large; U, X and V', the operands from
// memory, small beside them with the current step's blocks outlined.
// What the loop's step does, in the steps' colour, over its scene.
void draw_step_text(const LoopStep& step) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.88f, 0.55f, 1.0f));
  ImGui::TextWrapped("%s", step.text.c_str());
  ImGui::PopStyleColor();
  ImGui::Spacing();
}

void draw_lora_scene(ViewContext& ctx, FragmentsMemory& mem, const LoopStep& step) {
  const LoraLoop& l = mem.lora;
  publish(ctx, "fragments.loop_term", l.term);
  const GatherTile& g = l.tile;
  const FragmentLayout& cl = hardware_fragment_layout(g.shape, Operand::C);
  const FragmentLayout& al = hardware_fragment_layout(g.shape, Operand::A);
  const int inner = g.x_cols;
  const float title_h = ImGui::GetTextLineHeight() + ui_px(4.0f);
  // The step's text over T and T' (drawn below, once the page is known); the operands' page leaves it off for the
  // room (at a lecture's 1280x720 its three lines left U, X and V' 225 px, issue 17).
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float step_text_h = ImGui::CalcTextSize(step.text.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
                            2.0f * ImGui::GetStyle().ItemSpacing.y;
  const ImVec2 avail(ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y - step_text_h);
  // The term's sentence above T, and the schedule's under the figures (both in tooltips in a short window): T above
  // T' takes the height they leave (the schedule ran past the window's bottom at 1600x1000, issue 17).
  const float term_h = ImGui::CalcTextSize(l.term.c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y;
  const std::string schedule =
      fmt::format("{} tensor-core term(s) run this loop, each with its own U and V. {}", l.terms, l.schedule_text);
  const float schedule_h = ImGui::CalcTextSize(schedule.c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y;
  float big = std::floor(std::clamp(std::min(0.6f * avail.x / static_cast<float>(inner),
                                             (avail.y - term_h - schedule_h - 3.0f * title_h - ImGui::GetTextLineHeightWithSpacing()) /
                                                 static_cast<float>(2 * g.tile_rows + 1)),
                                    ui_px(8.0f), ui_px(48.0f)));
  // Where T above T' does not fit the page's height (a lecture's 1280x720: the step's text takes most of it, and
  // T' and the flying registers were below the window's edge), T' goes beside T, their titles short (the term's
  // sentence and what the labels mean go to T's tooltip), and the operands go beside them where they fit, else
  // under them (issue 17).
  // T's cells are never smaller than its widest label ("23") needs at the smallest text: at that height T above T'
  // and the line under them ran 3 px past star-2d13p's window at 1600x1000 in lecture mode (issue 17).
  MatrixPicture t_label;
  t_label.rows = t_label.cols = 1;
  t_label.coloring = CellColoring::Custom;
  t_label.colors = {zero_cell_color()};
  t_label.labels = {std::to_string(inner - 1)};
  t_label.cell = 1.0f;
  const float t_floor = std::max(measure_matrix(t_label).cell, ImGui::GetTextLineHeight() * kMinCellTextScale + ui_px(2.0f));
  const float tile_h = static_cast<float>(g.tile_rows) * std::max(big, t_floor) + title_h;
  const float line_h = ImGui::GetFrameHeightWithSpacing(); // the line under the figures: the schedule or the page choice
  // (T, a gap of one cell and T', each with the spacing ImGui adds after it.)
  const bool compact = term_h + 2.0f * tile_h + std::max(big, t_floor) + 2.0f * ImGui::GetStyle().ItemSpacing.y + line_h > avail.y;
  if (compact)
    big = std::floor(std::clamp(std::min(0.45f * avail.x / static_cast<float>(inner),
                                         (avail.y - title_h - line_h) / static_cast<float>(g.tile_rows)),
                                ui_px(8.0f), ui_px(48.0f)));
  const float small = std::max(ui_px(5.0f), std::floor(big * 0.42f));
  ValuePalette palette;
  palette.add(l.band.u_band), palette.add(l.band.v_swapped);
  const bool vertical = step.kind == LoopStep::Kind::VerticalMma;
  const bool horizontal = step.kind == LoopStep::Kind::HorizontalMma;
  const bool feeding = step.kind == LoopStep::Kind::Feed;
  const float t_move = feeding ? move_progress(mem.step_time) : (horizontal ? 1.0f : 0.0f);
  const int vertical_steps = (g.x_rows / g.k) * (inner / g.n);

  // The operands from memory: U and V' with their values (the palette's letters and its legend: colours alone meant
  // nothing to the back row, issue 17) side by side, X (the input window: where it lies, no fixed values) under them,
  // the current step's blocks outlined. Beside T and T' where they fit the width and the height, else (a lecture's
  // 1280x720, where they ran past the window's bottom) on a page of their own, chosen on a line under the figures.
  MatrixPicture u;
  u.id = "U";
  u.title = "U (registers)";
  u.title_color = kRankOneTitleColor;
  u.rows = g.tile_rows, u.cols = g.x_rows;
  u.values = l.band.u_band;
  u.palette = &palette;
  u.cell = small;
  u.legend = false; // one legend under U and V'
  u.column_group = g.k;
  if (vertical) u.outlined = block_outline(u.rows, u.cols, 0, u.rows, step.kb * g.k, step.kb * g.k + g.k);
  MatrixPicture v;
  v.id = "Vp";
  v.title = "V' (rows permuted)";
  v.title_color = kRankOneTitleColor;
  v.rows = inner, v.cols = g.tile_cols;
  v.values = l.band.v_swapped;
  v.palette = &palette;
  v.cell = small;
  v.legend = false;
  v.row_group = g.k;
  if (horizontal) v.outlined = block_outline(v.rows, v.cols, step.kb * g.k, step.kb * g.k + g.k, 0, v.cols);
  MatrixPicture x;
  x.id = "X";
  x.title = "X (shared memory)";
  x.title_color = kInputTitleColor;
  x.rows = g.x_rows, x.cols = inner;
  x.coloring = CellColoring::Custom;
  x.numbers = false;
  for (int r = 0; r < x.rows; ++r)
    for (int c = 0; c < x.cols; ++c)
      x.colors.push_back(r < g.window_rows && c < g.window_cols ? IM_COL32(70, 110, 170, 255) : zero_cell_color());
  x.cell = std::max(ui_px(4.0f), std::floor(0.6f * small)); // no values: narrower than U's and V''s lettered cells
  x.column_group = g.n, x.row_group = g.k;
  if (vertical) x.outlined = block_outline(x.rows, x.cols, step.kb * g.k, step.kb * g.k + g.k, step.nb * g.n, step.nb * g.n + g.n);
  const ImGuiStyle& style = ImGui::GetStyle();
  const MatrixMeasure um = measure_matrix(u), vm = measure_matrix(v);
  // X's colours are where the inputs lie, not values: a key of its two colours under it (issue 17), in its size.
  MatrixMeasure xm = measure_matrix(x);
  xm.size = ImVec2(std::max(xm.size.x, std::floor(0.8f * ImGui::GetTextLineHeight()) + style.ItemSpacing.x +
                                           std::max(ImGui::CalcTextSize("inputs").x, ImGui::CalcTextSize("0 (padding)").x)),
                   xm.size.y + 2.0f * ImGui::GetTextLineHeightWithSpacing());
  const auto draw_x = [&] {
    ImGui::BeginGroup();
    draw_matrix(x);
    draw_key_chip(x.colors.front(), kChipEdge, "inputs");
    draw_key_chip(zero_cell_color(), kChipEdge, "0 (padding)");
    ImGui::EndGroup();
  };
  const float pair_gap = ui_px(6.0f);
  const float chip_w = palette_legend_width(palette, kLegendDigits) + ui_px(14.0f);
  // In a row (U and X side by side, the legend under them, V' at their right), or stacked (U and V' side by side,
  // the legend, X under them): the width and height each takes.
  const auto legend_h = [&](float w) {
    return std::ceil(static_cast<float>(palette.size()) / std::max(1.0f, std::floor(w / chip_w))) * ImGui::GetFrameHeightWithSpacing();
  };
  const float head_h = ImGui::GetTextLineHeightWithSpacing();
  const auto operands_size = [&](bool row) {
    if (row) {
      const float left_w = um.size.x + pair_gap + xm.size.x;
      return ImVec2(std::max(left_w + pair_gap + vm.size.x, ImGui::CalcTextSize("operands from memory").x),
                    head_h + std::max(std::max(um.size.y, xm.size.y) + style.ItemSpacing.y + legend_h(left_w), vm.size.y));
    }
    const float w = std::max({um.size.x + pair_gap + vm.size.x, xm.size.x, ImGui::CalcTextSize("operands from memory").x});
    return ImVec2(w, head_h + std::max(um.size.y, vm.size.y) + style.ItemSpacing.y + legend_h(w) + xm.size.y);
  };
  // T's columns [c0, c0 + count): all of them, or where T and T' side by side are wider than the page at the cells
  // their two-digit labels need (box-2d225p's 24 columns each at a lecture's 1280x720: T' ran off the window's right
  // edge, over T), one C fragment of T and the A blocks of T' it feeds (the swap permutes within a fragment), the
  // fragment the current MMA works on (issue 17).
  const auto make_t = [&](int c0, int count, bool long_title) {
    MatrixPicture t;
    t.id = "T";
    t.title = count < inner ? fmt::format("T = U·X, C fragment {} of {}", c0 / g.n, inner / g.n)
              : long_title  ? std::string("T = U·X in C fragments (colour: lane; label: T's column)")
                            : std::string("T = U·X in C fragments");
    t.title_color = kRankOneTitleColor;
    t.rows = g.tile_rows, t.cols = count;
    t.coloring = CellColoring::Custom;
    for (int r = 0; r < t.rows; ++r)
      for (int c = c0; c < c0 + count; ++c) {
        // Fragments not yet touched by the first K block are still empty.
        const bool started = !vertical || step.kb > 0 || c / g.n <= step.nb;
        t.colors.push_back(started ? lane_color(cl.owner(r, c % g.n).lane) : zero_cell_color());
        t.labels.push_back(std::to_string(c));
      }
    t.cell = big;
    t.column_group = g.n;
    if (vertical) t.outlined = block_outline(t.rows, t.cols, 0, t.rows, step.nb * g.n - c0, step.nb * g.n + g.n - c0);
    return t;
  };
  const bool paged = compact && 2.0f * measure_matrix(make_t(0, inner, false)).size.x + std::max(big, ui_px(16.0f)) > avail.x &&
                     inner % g.n == 0 && g.n % g.k == 0;
  if (vertical) mem.lora_fragment = step.nb;
  if (horizontal) mem.lora_fragment = step.kb * g.k / g.n;
  mem.lora_fragment = std::clamp(mem.lora_fragment, 0, inner / g.n - 1);
  const int c0 = paged ? mem.lora_fragment * g.n : 0, count = paged ? g.n : inner;
  publish(ctx, "fragments.T_columns", fmt::format("{} {}", c0, count));
  const auto tp_title = [&](bool long_title) {
    return paged        ? std::string("T' in its A fragments")
           : long_title ? std::string("T' in A fragments (label: the column of T each register holds)")
                        : std::string("T' in A fragments");
  };
  // The operands beside T and T' where they fit the width and the height, in a row or stacked; T's and T''s titles
  // short (their keys in the cells' tooltips) where the long ones alone would push the operands off (at 1600x1000 in
  // lecture mode, issue 17); else the operands in the tooltip of a line under T and T'.
  const ImVec2 at(top.x, top.y + step_text_h + (compact ? 0.0f : term_h)); // where T will stand
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowContentRegionMax().y;
  const auto figure_w = [&](bool long_titles) { // T and T' as drawn: side by side (compact) or T above T'
    MatrixPicture probe = make_t(c0, count, long_titles);
    const MatrixMeasure tm = measure_matrix(probe);
    probe.title = tp_title(long_titles);
    const float tp_w = measure_matrix(probe).size.x;
    return compact ? tm.size.x + std::max(tm.cell, ui_px(16.0f)) + tp_w : std::max(tm.size.x, tp_w);
  };
  const auto fits_beside = [&](ImVec2 size, bool long_titles) {
    return right - (at.x + figure_w(long_titles)) - big >= size.x && at.y + size.y <= bottom;
  };
  const auto fits_either = [&](bool long_titles) {
    return fits_beside(operands_size(true), long_titles) || fits_beside(operands_size(false), long_titles);
  };
  const bool long_titles = !compact && (fits_either(true) || !fits_either(false));
  const bool in_row = fits_beside(operands_size(true), long_titles);
  const bool beside = in_row || fits_beside(operands_size(false), long_titles);
  // Where they do not fit beside T and T': U over its legend, X over its key and V' at their right in the number of
  // blocks of whole row groups that lets the cells be largest (star-2d13p's 24 rows), under the figures where that
  // keeps U's and V''s letters, else on a page of their own chosen on a line under the figures (a tooltip showed them
  // to the lecturer alone, issue 17).
  struct Spread {
    int blocks = 1;
    bool with_x = true; // X drawn; else named in the heading (a lecture's 1280x720 leaves it no width)
    MatrixPicture u, x, v;
    ImVec2 size;
  };
  const float key_w = std::floor(0.8f * ImGui::GetTextLineHeight()) + style.ItemSpacing.x +
                      std::max(ImGui::CalcTextSize("inputs").x, ImGui::CalcTextSize("0 (padding)").x);
  constexpr float kSpreadX = 0.35f; // X's cells (no values) to U's and V''s
  const auto spread_for = [&](ImVec2 room) {
    const float lines = ImGui::GetFrameHeightWithSpacing(), top_h = head_h + title_h;
    Spread best;
    float best_cell = 0, best_over = FLT_MAX;
    for (int option = 0; option < 8 && best_over > 0.0f; ++option) {
      const int blocks = option % 4 + 1;
      const bool with_x = option < 4;
      const float rows = static_cast<float>(block_rows(inner, blocks, g.k));
      const float fixed_w = 2.0f * pair_gap + static_cast<float>(blocks) * (ImGui::CalcTextSize("00").x + ui_px(6.0f)) +
                            ui_px(16.0f) * static_cast<float>(blocks - 1);
      const float across = static_cast<float>(g.x_rows + blocks * g.tile_cols);
      const float w_cell = with_x ? std::min((room.x - fixed_w - key_w) / across, (room.x - fixed_w) / (across + kSpreadX * inner))
                                  : (room.x - fixed_w) / across;
      const float h_cell = std::min({(room.y - top_h - 3.0f * lines) / static_cast<float>(g.tile_rows),
                                     (room.y - top_h - 2.0f * lines) / (kSpreadX * g.x_rows), (room.y - top_h) / rows});
      Spread sp;
      sp.blocks = blocks;
      sp.with_x = with_x;
      sp.u = u, sp.v = v, sp.x = x;
      sp.u.cell = sp.v.cell = std::floor(std::clamp(std::min(w_cell, h_cell), small, ui_px(40.0f)));
      sp.x.cell = std::max(ui_px(4.0f), std::floor(kSpreadX * sp.u.cell));
      // As drawn: the widget keeps U's and V''s cells as large as their letters need.
      const MatrixMeasure mu = measure_matrix(sp.u);
      const ImVec2 mx = measure_matrix(sp.x).size, mv = measure_row_blocks(sp.v, blocks);
      const float left_w = mu.size.x + (with_x ? pair_gap + std::max(mx.x, key_w) : 0.0f); // the legend's width
      sp.size = ImVec2(left_w + pair_gap + mv.x,
                       head_h + std::max(std::max(mu.size.y, with_x ? mx.y + 2.0f * lines : 0.0f) + (mu.letters ? legend_h(left_w) : 0.0f), mv.y));
      // The largest cells that fit, else the least overflow.
      const float over = std::max(0.0f, sp.size.x - room.x) + std::max(0.0f, sp.size.y - room.y);
      if (over < best_over - 0.5f || (over <= 0.0f && mu.cell > best_cell)) best = sp, best_over = over, best_cell = mu.cell;
    }
    return best;
  };
  const auto draw_spread = [&](const Spread& sp) {
    ImGui::BeginGroup();
    if (sp.with_x)
      ImGui::TextDisabled("operands from memory");
    else
      ImGui::TextDisabled("operands from memory (and X, the %d×%d input window in shared memory)", g.x_rows, inner);
    ImGui::BeginGroup(); // U and X (with its key), the legend under both
    const MatrixDrawn ud = draw_matrix(sp.u);
    if (sp.with_x) {
      ImGui::SameLine(0, pair_gap);
      ImGui::BeginGroup();
      draw_matrix(sp.x);
      draw_key_chip(sp.x.colors.front(), kChipEdge, "inputs");
      draw_key_chip(zero_cell_color(), kChipEdge, "0 (padding)");
      ImGui::EndGroup();
    }
    const float left_w = ImGui::GetItemRectMax().x - ud.min.x;
    if (ud.letters) draw_legend_chips(palette, kLegendDigits, left_w);
    ImGui::EndGroup();
    ImGui::SameLine(0, pair_gap);
    draw_row_blocks(sp.v, sp.blocks, "Vp_more");
    ImGui::EndGroup();
    publish(ctx, "fragments.operands_blocks", std::to_string(sp.blocks));
  };
  // Side by side, T and T' took the page's height at lecture sizes (heat-2d at 1600x1000) and left U, X and V' a page
  // of their own: where the operands fit under T and T' at the cells T's labels need, T and T' give them that room.
  if (compact && !beside) {
    const float least_top = at.y + title_h + static_cast<float>(g.tile_rows) * t_floor + style.ItemSpacing.y;
    const Spread least = spread_for(ImVec2(right - at.x, bottom - least_top));
    if (least.size.x <= right - at.x && least_top + least.size.y <= bottom)
      big = std::clamp(std::floor((bottom - least.size.y - style.ItemSpacing.y - at.y - title_h) / static_cast<float>(g.tile_rows)),
                       t_floor, std::max(big, t_floor));
  }
  MatrixPicture t = make_t(c0, count, long_titles);
  t.tooltip = [cl, n = g.n, c0, note = !long_titles ? "\ncolour: lane; label: T's column\n" + l.term : std::string()](int r, int local) {
    const int c = local + c0;
    const FragmentOwner o = cl.owner(r, c % n);
    return fmt::format("C fragment {}: lane {}, register {}{}", c / n, o.lane, o.reg, note);
  };
  const MatrixMeasure tm = measure_matrix(t);
  const float figures_h = compact ? tm.size.y : 2.0f * tm.size.y + tm.cell + 2.0f * style.ItemSpacing.y;
  const float below_y = at.y + figures_h + style.ItemSpacing.y;
  const Spread under = beside ? Spread{} : spread_for(ImVec2(right - at.x, bottom - below_y));
  const bool operands_under = !beside && under.size.x <= right - at.x && below_y + under.size.y <= bottom;
  publish(ctx, "fragments.operands", in_row ? "beside, in a row" : beside ? "beside" : operands_under ? "under" : "page");
  // The operands' page where they fit one (under the choice's line), else U and X on one and V' on another (box-2d225p's
  // 24-column U and 24-row V' with their sixteen letters at a lecture's 1280x720).
  const ImVec2 page_room(right - top.x, bottom - top.y - line_h);
  const Spread page = beside || operands_under ? Spread{} : spread_for(page_room);
  const bool one_page = page.size.x <= page_room.x && page.size.y <= page_room.y;
  if (mem.lora_page != 0) mem.lora_page = one_page ? 1 : std::max(mem.lora_page, 2);
  // The choice between T and T' (the swap: the step's subject, shown first) and the operands' page(s).
  const auto draw_page_choice = [&] {
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("Show");
    const auto choice = [&](const char* label, int page_id, const char* probe) {
      ImGui::SameLine();
      if (ImGui::RadioButton(label, mem.lora_page == page_id)) mem.lora_page = page_id;
      probe_last_item(ctx.state, probe);
    };
    choice("T and T'", 0, "fragments.page.T");
    if (one_page) {
      choice("operands from memory: U, X and V'", 1, "fragments.page.operands");
    } else {
      choice("operands from memory: U and X", 2, "fragments.page.operands");
      choice("V'", 3, "fragments.page.operands.V");
    }
  };
  // U and X (page 2) or V' (page 3) alone, each with the letters it shows, as large as the page allows.
  const auto draw_part = [&](bool v_part) {
    const float lines = ImGui::GetFrameHeightWithSpacing(), top_h = head_h + title_h;
    const LegendStyle shown = legend_of(palette, v_part ? l.band.v_swapped : l.band.u_band);
    const float chips_w = palette_legend_width(palette, kLegendDigits, shown) + ui_px(14.0f);
    int chips = 0;
    for (double value : palette.values()) chips += shown.shown(value) ? 1 : 0;
    const auto chip_lines = [&](float w) { return std::ceil(static_cast<float>(chips) / std::max(1.0f, std::floor(w / chips_w))); };
    ImGui::BeginGroup();
    ImGui::TextDisabled("operands from memory");
    if (!v_part) {
      MatrixPicture pu = u, px = x;
      pu.cell = std::floor(std::clamp(std::min((page_room.x - key_w - 2.0f * pair_gap) / (g.x_rows + kSpreadX * inner),
                                               (page_room.y - top_h - chip_lines(page_room.x) * lines) / g.tile_rows),
                                      small, ui_px(40.0f)));
      // X (no values) as small as keeps it and its key's two lines above the legend.
      const float x_room = page_room.y - top_h - chip_lines(page_room.x) * lines - 2.0f * lines;
      px.cell = std::max(ui_px(3.0f), std::floor(std::min(kSpreadX * pu.cell, x_room / static_cast<float>(g.x_rows))));
      const MatrixDrawn ud = draw_matrix(pu);
      ImGui::SameLine(0, pair_gap);
      ImGui::BeginGroup();
      draw_matrix(px);
      draw_key_chip(px.colors.front(), kChipEdge, "inputs");
      draw_key_chip(zero_cell_color(), kChipEdge, "0 (padding)");
      ImGui::EndGroup();
      if (ud.letters) draw_legend_chips(palette, kLegendDigits, page_room.x, shown);
    } else {
      // V' in the blocks of whole row groups that fit the page, its legend beside the blocks.
      int best_blocks = 4;
      MatrixPicture pv = v;
      for (int blocks = 1; blocks <= 4; ++blocks) {
        const float rows = static_cast<float>(block_rows(inner, blocks, g.k));
        pv.cell = std::floor(std::clamp((page_room.y - top_h) / rows, small, ui_px(40.0f)));
        const ImVec2 size = measure_row_blocks(pv, blocks);
        if (size.x + pair_gap + chips_w <= page_room.x && head_h + size.y <= page_room.y) {
          best_blocks = blocks;
          break;
        }
      }
      pv.cell = std::floor(std::clamp((page_room.y - top_h) / static_cast<float>(block_rows(inner, best_blocks, g.k)), small, ui_px(40.0f)));
      const RowBlocks vd = draw_row_blocks(pv, best_blocks, "Vp_more");
      ImGui::SameLine(0, ui_px(24.0f));
      ImGui::BeginGroup();
      if (vd.first.letters) draw_legend_chips(palette, kLegendDigits, page_room.x - (vd.max.x - top.x) - ui_px(24.0f), shown);
      ImGui::EndGroup();
      publish(ctx, "fragments.operands_blocks", std::to_string(best_blocks));
    }
    ImGui::EndGroup();
  };
  const auto publish_loop = [&] {
    publish(ctx, "fragments.loop_plane_mma", std::to_string(l.plane_mma));
    publish(ctx, "fragments.loop_animated_mma", std::to_string(l.animated_mma));
    publish(ctx, "fragments.loop_full_term_mma", fmt::format("{} + {}", vertical_steps, inner / g.k));
    publish(ctx, "fragments.loop_fused_steps", std::to_string(l.fused_steps));
    publish(ctx, "fragments.loop_mma_per_point", fmt::format("{:.6f}", l.plan_mma_per_point));
  };
  if (!beside && !operands_under && mem.lora_page != 0) {
    if (mem.lora_page == 1)
      draw_spread(page);
    else
      draw_part(mem.lora_page == 3);
    probe_last_item(ctx.state, "fragments.operands");
    draw_page_choice();
    probe_last_item(ctx.state, "fragments.schedule");
    publish_loop();
    return;
  }
  draw_step_text(step);
  if (!compact) ImGui::TextWrapped("%s", l.term.c_str());
  ImGui::BeginGroup();
  const MatrixDrawn td = draw_matrix(t);
  probe_rect(ctx.state, "fragments.T", td.min, td.max);
  if (compact)
    ImGui::SameLine(0, std::max(td.cell, ui_px(16.0f)));
  else
    ImGui::Dummy(ImVec2(0, td.cell));
  MatrixPicture tp;
  tp.id = "Tp";
  tp.title = tp_title(long_titles);
  tp.title_color = kRankOneTitleColor;
  tp.rows = g.tile_rows, tp.cols = count;
  tp.coloring = CellColoring::Custom;
  for (int r = 0; r < tp.rows; ++r)
    for (int k = c0; k < c0 + count; ++k) {
      tp.colors.push_back(t_move >= 1.0f ? lane_color(al.owner(r, k % g.k).lane) : zero_cell_color());
      tp.labels.push_back(t_move >= 1.0f ? std::to_string(l.swap.permutation[static_cast<std::size_t>(k)]) : "");
    }
  // T's cells as drawn (the widget widens them for two-digit labels): the registers fly between cells of one size,
  // and T' keeps that size whether its labels are shown yet or not.
  tp.cell = td.cell;
  tp.column_group = g.k;
  if (horizontal) tp.outlined = block_outline(tp.rows, tp.cols, 0, tp.rows, step.kb * g.k - c0, step.kb * g.k + g.k - c0);
  tp.tooltip = [al, k_dim = g.k, perm = l.swap.permutation, c0](int r, int local) {
    const int k = local + c0;
    const FragmentOwner o = al.owner(r, k % k_dim);
    return fmt::format("A block {}: lane {}, register {}; holds T column {} (the label)", k / k_dim, o.lane, o.reg,
                       perm[static_cast<std::size_t>(k)]);
  };
  const MatrixDrawn tpd = draw_matrix(tp);
  probe_rect(ctx.state, "fragments.Tp", tpd.min, tpd.max);
  ImGui::EndGroup();

  const auto draw_operands = [&] {
    const bool letters = um.letters || vm.letters;
    ImGui::BeginGroup();
    ImGui::TextDisabled("operands from memory");
    if (in_row) {
      ImGui::BeginGroup();
      draw_matrix(u);
      ImGui::SameLine(0, pair_gap);
      draw_x();
      if (letters) draw_legend_chips(palette, kLegendDigits, um.size.x + pair_gap + xm.size.x);
      ImGui::EndGroup();
      ImGui::SameLine(0, pair_gap);
      draw_matrix(v);
    } else {
      draw_matrix(u);
      ImGui::SameLine(0, pair_gap);
      draw_matrix(v);
      if (letters) draw_legend_chips(palette, kLegendDigits, operands_size(false).x);
      draw_x();
    }
    ImGui::EndGroup();
  };
  if (beside) {
    ImGui::SameLine(0, big);
    draw_operands();
  } else if (operands_under) {
    draw_spread(under);
  } else {
    draw_page_choice();
  }
  probe_last_item(ctx.state, "fragments.operands");

  // The feed: every A register flies from the C register it is, in the same lane (checked, not assumed).
  bool same_lane = true;
  for (int block = 0; block < inner / g.k; ++block)
    for (int lane = 0; lane < kWarpSize; ++lane)
      for (int reg = 0; reg < l.swap.a_regs; ++reg) {
        const RegisterSource src = l.swap.a_sources[static_cast<std::size_t>(block * l.swap.a_regs + reg)];
        const FragmentCoord a = al.at(lane, reg), c = cl.at(lane, src.c_reg);
        const int t_col = src.c_tile * g.n + c.col, tp_col = block * g.k + a.col;
        if (a.row != c.row || l.swap.permutation[static_cast<std::size_t>(tp_col)] != t_col) same_lane = false;
        const bool shown = t_col >= c0 && t_col < c0 + count && tp_col >= c0 && tp_col < c0 + count;
        if (feeding && t_move > 0.0f && t_move < 1.0f && shown)
          draw_moving_cell(td.cell_center(c.row, t_col - c0), tpd.cell_center(a.row, tp_col - c0), t_move,
                           ImVec2(td.cell_w, td.cell), ImVec2(tpd.cell_w, tpd.cell), lane_color(lane), std::to_string(t_col),
                           td.text_scale);
      }
  publish(ctx, "fragments.feed_in_lane", same_lane ? "yes" : "no");
  // The schedule under the figures where its lines fit above the window's bottom, else one line and a tooltip.
  if ((beside || operands_under) && ImGui::GetCursorScreenPos().y + schedule_h <= bottom) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", schedule.c_str());
    ImGui::PopTextWrapPos();
  } else if ((beside || operands_under) && ImGui::GetCursorScreenPos().y + ImGui::GetTextLineHeight() <= bottom) {
    ImGui::TextDisabled("the plan's MMAs for every term (hover)");
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ui_px(520.0f));
      ImGui::TextUnformatted(schedule.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  probe_last_item(ctx.state, "fragments.schedule");
  publish_loop();
}

// The C fragment of one MMA above the A or B operand it becomes; each register flies to its place in its lane.
void draw_fft_scene(ViewContext& ctx, FragmentsMemory& mem, const LoopStep& step) {
  const FlashFftPlan& p = mem.fft;
  const bool to_b = step.kind == LoopStep::Kind::FftFeed && step.feed_target == Operand::B;
  const RegisterFeed& feed = to_b ? p.feed_to_b : p.feed_to_a;
  const FragmentLayout& cl = hardware_fragment_layout(p.shape, Operand::C);
  const MmaShapeInfo& info = mma_info(p.shape);
  const int k_steps = info.n / info.k; // a C tile's columns feed this many k-steps
  const float title_h = ImGui::GetTextLineHeight() + ui_px(4.0f);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Side by side, a gap between: each register moves along its row, which is what "same lane" looks like here.
  const int target_rows = to_b ? info.k * k_steps : info.m, target_cols = to_b ? info.n : info.k * k_steps;
  const float cell = std::floor(std::clamp(std::min(0.8f * avail.x / static_cast<float>(info.n + target_cols + 3),
                                                    (avail.y - title_h - 3.0f * ImGui::GetTextLineHeightWithSpacing()) /
                                                        static_cast<float>(std::max(info.m, target_rows))),
                                           ui_px(10.0f), ui_px(56.0f)));
  std::string order;
  for (int k : feed.k_order) order += (order.empty() ? "" : " ") + std::to_string(k);
  const std::string note = fmt::format("k-step j, element t reads C column k_order[{} j + t]: [{}]. {}", info.k, order,
                                       feed.shuffle_free ? "Every element stays in its lane: no shuffle." : feed.problem);
  // Where the note under the figures would fall below the window's edge (a lecture's 1280x720), it goes beside
  // them and C's title drops its key (colour: lane; label: column), which its cells' tooltips give (issue 17).
  const float rows_h = static_cast<float>(std::max(info.m, target_rows)) *
                       std::max(cell, ImGui::GetTextLineHeight() * kMinCellTextScale + ui_px(2.0f));
  const bool note_beside =
      title_h + rows_h + ImGui::CalcTextSize(note.c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y > avail.y;
  MatrixPicture c;
  c.id = "C";
  c.title = note_beside ? "C of the previous MMA" : "C of the previous MMA (colour: lane; label: column)";
  c.title_color = kRankOneTitleColor;
  c.rows = info.m, c.cols = info.n;
  c.coloring = CellColoring::Custom;
  for (int r = 0; r < c.rows; ++r)
    for (int col = 0; col < c.cols; ++col) {
      c.colors.push_back(lane_color(cl.owner(r, col).lane));
      c.labels.push_back(std::to_string(col));
    }
  c.cell = cell;
  c.tooltip = [cl](int r, int col) {
    const FragmentOwner o = cl.owner(r, col);
    return fmt::format("lane {} (the colour), register {}; column {} (the label)", o.lane, o.reg, col);
  };
  const MatrixDrawn cd = draw_matrix(c);
  probe_rect(ctx.state, "fragments.fftC", cd.min, cd.max);
  ImGui::SameLine(0, 3.0f * cell);
  const bool feeding = step.kind == LoopStep::Kind::FftFeed;
  const float t_move = feeding ? move_progress(mem.step_time) : 0.0f;
  MatrixPicture target;
  target.id = "target";
  target.title = fmt::format("{} of the next MMA, {} k-steps", to_b ? "B" : "A", k_steps);
  target.title_color = kInputTitleColor;
  target.rows = target_rows;
  target.cols = target_cols;
  target.coloring = CellColoring::Custom;
  target.colors.assign(static_cast<std::size_t>(target.rows * target.cols), zero_cell_color());
  target.labels.assign(target.colors.size(), "");
  if (to_b)
    target.row_group = info.k;
  else
    target.column_group = info.k;
  target.cell = cd.cell; // C's cells as drawn: a register lands on a cell of its own size
  auto target_cell = [&](const RegisterFeedEntry& e) {
    return to_b ? FragmentCoord{e.k_step * info.k + e.target.row, e.target.col}
                : FragmentCoord{e.target.row, e.k_step * info.k + e.target.col};
  };
  bool same_lane = true;
  for (const RegisterFeedEntry& e : feed.entries) {
    const FragmentCoord t = target_cell(e);
    const std::size_t i = static_cast<std::size_t>(t.row * target.cols + t.col);
    if (cl.at(e.lane, e.c_reg) != e.c) same_lane = false;
    if (t_move >= 1.0f || !feeding) {
      target.colors[i] = lane_color(e.lane);
      target.labels[i] = std::to_string(e.c.col);
    }
  }
  const MatrixDrawn dd = draw_matrix(target);
  if (feeding && t_move > 0.0f && t_move < 1.0f)
    for (const RegisterFeedEntry& e : feed.entries) {
      const FragmentCoord t = target_cell(e);
      draw_moving_cell(cd.cell_center(e.c.row, e.c.col), dd.cell_center(t.row, t.col), t_move, ImVec2(cd.cell_w, cd.cell),
                       ImVec2(dd.cell_w, dd.cell), lane_color(e.lane), std::to_string(e.c.col), cd.text_scale);
    }
  probe_rect(ctx.state, "fragments.fftTarget", dd.min, dd.max);
  if (note_beside) {
    ImGui::SameLine(0, ui_px(24.0f));
    ImGui::BeginGroup();
    ImGui::Dummy(ImVec2(0, title_h));
    ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x);
    ImGui::TextUnformatted(note.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
  } else {
    ImGui::TextWrapped("%s", note.c_str());
  }
  probe_last_item(ctx.state, "fragments.fftNote");
  publish(ctx, "fragments.feed_in_lane", same_lane && feed.shuffle_free ? "yes" : "no");
}

void draw_loop(ViewContext& ctx, FragmentsMemory& mem) {
  int method = mem.method == LoopMethod::LoraStencil ? 0 : 1;
  // The two choices on one line: in their short words where the long ones do not fit (a lecture's 1280x720, where
  // the second line cost the butterfly step the height of its last line, issue 17); under each other where neither do.
  const char *lora = "LoRAStencil: U·X·V with butterfly swap", *flash = "FlashFFTStencil: DFT chain with swizzled fragments";
  if (check_width(lora) + ImGui::GetStyle().ItemSpacing.x + check_width(flash) > ImGui::GetContentRegionAvail().x)
    lora = "LoRAStencil: butterfly swap", flash = "FlashFFTStencil: swizzled DFT chain";
  if (ImGui::RadioButton(lora, &method, 0)) mem.method = LoopMethod::LoraStencil;
  probe_last_item(ctx.state, "fragments.loop.lorastencil");
  same_line_if_fits(check_width(flash)); // under LoRAStencil's where both do not fit (issue 17)
  if (ImGui::RadioButton(flash, &method, 1)) mem.method = LoopMethod::FlashFft;
  probe_last_item(ctx.state, "fragments.loop.flashfft");
  if (!mem.built || !(mem.built_for == ctx.state.stencil) || mem.built_method != mem.method) rebuild_loop(mem, ctx.state.stencil);
  if (!mem.unsupported.empty()) {
    draw_unsupported(mem.method == LoopMethod::LoraStencil ? "LoRAStencil" : "FlashFFTStencil", mem.unsupported);
    publish(ctx, "fragments.unsupported", mem.unsupported);
    return;
  }
  const int n = static_cast<int>(mem.steps.size());
  mem.step = std::clamp(mem.step, 0, n - 1);
  const int before = mem.step;
  ImGui::BeginDisabled(mem.step == 0);
  if (ImGui::Button("◀ Prev")) --mem.step;
  ImGui::EndDisabled();
  probe_last_item(ctx.state, "fragments.prev");
  ImGui::SameLine();
  ImGui::BeginDisabled(mem.step + 1 >= n);
  if (ImGui::Button("Next ▶")) ++mem.step;
  ImGui::EndDisabled();
  probe_last_item(ctx.state, "fragments.next");
  ImGui::SameLine();
  if (ImGui::Button(mem.playing ? "Pause" : "Play")) mem.playing = !mem.playing;
  probe_last_item(ctx.state, "fragments.play");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ui_px(200.0f));
  int shown = mem.step + 1;
  if (ImGui::SliderInt("##step", &shown, 1, n, "step %d")) mem.step = shown - 1;
  probe_last_item(ctx.state, "fragments.step");
  mem.step_time += ImGui::GetIO().DeltaTime;
  if (mem.playing && mem.step_time > kStepSeconds) mem.step = (mem.step + 1) % n;
  if (mem.step != before) mem.step_time = 0;
  const LoopStep& step = mem.steps[static_cast<std::size_t>(mem.step)];
  ImGui::SameLine();
  ImGui::TextDisabled("of %d", n);
  if (mem.method == LoopMethod::LoraStencil) {
    draw_lora_scene(ctx, mem, step); // the step's text too: its operands' page leaves it off
  } else {
    draw_step_text(step);
    draw_fft_scene(ctx, mem, step);
  }
  publish(ctx, "fragments.step", std::to_string(mem.step + 1));
  publish(ctx, "fragments.step_text", step.text);
}

// A lecture step names the loop and lands on its feed, where the animation is.
void apply_page_request(FragmentsMemory& mem, const std::string& page, const Stencil& s) {
  if (page.rfind("loop:", 0) != 0) return;
  mem.method = page == "loop:flashfft" ? LoopMethod::FlashFft : LoopMethod::LoraStencil;
  rebuild_loop(mem, s);
  mem.playing = false;
  mem.step_time = 0;
  for (std::size_t i = 0; i < mem.steps.size(); ++i)
    if (mem.steps[i].kind == LoopStep::Kind::Feed || mem.steps[i].kind == LoopStep::Kind::FftFeed) {
      mem.step = static_cast<int>(i);
      break;
    }
}

} // namespace

void draw_fragments_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, kView, "Fragments")) {
    ImGui::End();
    return;
  }
  FragmentsMemory& mem = ctx.memory.get<FragmentsMemory>(kView);
  const std::string page = ctx.layout.take_page_request(kView);
  apply_page_request(mem, page, ctx.state.stencil);
  if (ImGui::BeginTabBar("fragments_pages")) {
    if (begin_view_page(ctx, kView, "layouts", "Layouts", page)) {
      draw_layouts(ctx, mem);
      ImGui::EndTabItem();
    }
    // "loop:<method>" requests pick the loop's method too (apply_page_request above).
    if (begin_view_page(ctx, kView, "loop", "Inner loop, step by step", page.rfind("loop:", 0) == 0 ? "loop" : page)) {
      draw_loop(ctx, mem);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

} // namespace se


