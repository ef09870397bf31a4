// The FFT view (FlashFFTStencil): kernel tailoring (split, fuse, stitch) drawn over the grid, the prime-factor
// (CRT) index map with its diagonal walk, the DFT matrices as heat maps, k_f and k_fᵀ for a chosen T, and the
// error of T fused steps against the FP64 reference, measured on a worker thread so frames never wait for it.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <imgui.h>

#include "app/widgets/colormap.hpp"
#include "app/widgets/matrix_widget.hpp"
#include "app/widgets/plot_widgets.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/flashfft/flashfft_emulation.hpp"
#include "core/flashfft/flashfft_plan.hpp"

namespace se {
namespace {

constexpr const char* kView = "fft";
constexpr int kErrorCurveSteps = 24; // T = 1..24: far enough to see the growth, a fraction of a second to measure
constexpr int kMaxShownT = 64;

// One measurement of the error curve on its own thread. The thread owns a copy of the stencil; the view polls
// `done` and joins finished jobs, so the UI never blocks on a running one (except to finish headless frames).
struct ErrorCurveJob {
  Stencil stencil;
  std::vector<FusionErrorSample> curve;
  std::string error;
  std::atomic<bool> done{false};
  std::thread worker;
};

struct FftMemory {
  Stencil stencil;
  int fused_steps = 4;
  bool built = false;
  FlashFftPlan plan;     // T = fused_steps
  FlashFftPlan base;     // T = 1, for k_f
  std::string unsupported;

  int tailoring_part = 0; // the split page's part where the window is too short for all of it: 0 segments, 1 costs, 2 tiles
  int crt_choice = 2;    // 0: the cost model's factors for the (x row as a) 1D stencil; else kCrtFactors[choice - 1]
  int crt_built = -1;
  Stencil crt_stencil;
  FlashFftPlan crt_plan;
  std::string crt_error;

  PlotView spectrum_view, error_view;                 // zoom of the two line plots
  bool kf_values = false;  // k_f and k_fᵀ as pages of numbers where the whole maps are too large for them
  int kf_row0 = 0, kf_col0 = 0; // the page's first cell

  std::shared_ptr<ErrorCurveJob> job;                 // the latest measurement (running or done)
  std::vector<std::shared_ptr<ErrorCurveJob>> retired; // superseded, still running: joined once done
  ~FftMemory() {
    if (job && job->worker.joinable()) job->worker.join();
    for (auto& j : retired)
      if (j->worker.joinable()) j->worker.join();
  }
};

// Small coprime factorisations to read the map by eye, beside the cost model's own choice.
constexpr std::pair<int, int> kCrtFactors[] = {{3, 4}, {4, 5}, {5, 7}, {7, 8}};

std::shared_ptr<ErrorCurveJob> start_error_curve(const Stencil& s) {
  auto job = std::make_shared<ErrorCurveJob>();
  job->stencil = s;
  job->worker = std::thread([j = job.get()] {
    try {
      j->curve = measure_fusion_error_growth(j->stencil, kErrorCurveSteps);
    } catch (const std::exception& e) {
      j->error = e.what();
    }
    j->done = true;
  });
  return job;
}

void refresh(FftMemory& mem, const Stencil& s) {
  for (auto it = mem.retired.begin(); it != mem.retired.end();) {
    if ((*it)->done) {
      if ((*it)->worker.joinable()) (*it)->worker.join();
      it = mem.retired.erase(it);
    } else {
      ++it;
    }
  }
  const bool stencil_changed = !mem.built || !(mem.stencil == s);
  if (stencil_changed || mem.plan.fused_steps != mem.fused_steps) {
    mem.built = true;
    mem.stencil = s;
    mem.unsupported.clear();
    try {
      FlashFftOptions o;
      o.fused_steps = mem.fused_steps;
      mem.plan = make_flashfft_plan(s, o);
      // k_f on the fused plan's own tile, so k_f and k_fᵀ are drawn in the same layout.
      o.fused_steps = 1;
      o.rows = mem.plan.rows.length, o.cols = mem.plan.cols.length, o.depth = mem.plan.depth.length;
      mem.base = make_flashfft_plan(s, o);
    } catch (const InputError& e) {
      mem.unsupported = e.what();
    }
  }
  if (stencil_changed && mem.unsupported.empty()) {
    if (mem.job) mem.retired.push_back(std::move(mem.job));
    mem.job = start_error_curve(s);
  }
}

// The 1D stencil the CRT map is drawn for: the stencil itself in 1D, its x row (dy = dz = 0) otherwise.
Stencil crt_stencil(const Stencil& s) {
  if (s.dims == 1) return s;
  Stencil line = make_stencil(1, s.radius, s.name + " (x row)");
  for (int dx = -s.radius; dx <= s.radius; ++dx) line.at(dx) = s.at(dx, 0, 0);
  return line;
}

void refresh_crt(FftMemory& mem, const Stencil& s) {
  const Stencil line = crt_stencil(s);
  if (mem.crt_built == mem.crt_choice && mem.crt_stencil == line) return;
  mem.crt_built = mem.crt_choice;
  mem.crt_stencil = line;
  mem.crt_error.clear();
  try {
    FlashFftOptions o;
    if (mem.crt_choice > 0) {
      o.rows = kCrtFactors[mem.crt_choice - 1].first;
      o.cols = kCrtFactors[mem.crt_choice - 1].second;
    }
    mem.crt_plan = make_flashfft_plan(line, o);
  } catch (const InputError& e) {
    mem.crt_error = e.what();
  }
}

// Segments of one axis: each reads L inputs (its halo grey), gives back its S central outputs (coloured), and
// the outputs tile the axis with no gap and no overlap. Pairs of segments share one complex tile (re, im).
constexpr int kTailoringSegments = 4;

// The bars of draw_tailoring_axis: a line tall and a little more where `roomy`.
float tailoring_bar(bool roomy) { return ImGui::GetTextLineHeight() + ui_px(roomy ? 6.0f : 2.0f); }

// The height draw_tailoring_axis takes.
float tailoring_axis_height(bool roomy) {
  const float line = ImGui::GetTextLineHeight(), gap = ui_px(4.0f);
  return line + gap + static_cast<float>(kTailoringSegments + 1) * (tailoring_bar(roomy) + gap) + line + ui_px(6.0f);
}

void draw_tailoring_axis(const char* axis, int L, int S, int R, float width, bool roomy) {
  const int segments = kTailoringSegments;
  const float line = ImGui::GetTextLineHeight();
  const float bar = tailoring_bar(roomy), gap = ui_px(4.0f);
  const float text_dy = ui_px(3.0f), rounding = ui_px(3.0f), thick = ui_px(2.0f), inset = ui_px(2.0f);
  const float label_w = ImGui::CalcTextSize("segment 0 (im) ").x;
  const int span = segments * S + 2 * R;
  const float scale = (width - label_w - ui_px(10.0f)) / static_cast<float>(span);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x0 = at.x + label_w;
  auto px = [&](int position) { return x0 + static_cast<float>(position + R) * scale; };
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled), text = ImGui::GetColorU32(ImGuiCol_Text);
  float y = at.y;
  dl->AddText(ImVec2(at.x, y), text, fmt::format("axis {}: L = {}, S = {}, halo R = {}", axis, L, S, R).c_str());
  y += line + gap;
  for (int i = 0; i < segments; ++i) {
    const int begin = i * S - R, out_begin = i * S;
    dl->AddText(ImVec2(at.x, y + text_dy), dim, fmt::format("segment {} ({})", i, i % 2 == 0 ? "re" : "im").c_str());
    dl->AddRectFilled(ImVec2(px(begin), y), ImVec2(px(begin + L), y + bar), IM_COL32(92, 96, 108, 255), rounding);
    dl->AddRectFilled(ImVec2(px(out_begin), y), ImVec2(px(out_begin + S), y + bar), categorical_color(i), rounding);
    if (i % 2 == 1) // the double-layer pair: one complex tile for two real segments
      dl->AddLine(ImVec2(px(begin) - gap, y - bar - gap + inset), ImVec2(px(begin) - gap, y + bar - inset),
                  IM_COL32(255, 220, 120, 255), thick);
    y += bar + gap;
  }
  dl->AddText(ImVec2(at.x, y + text_dy), text, "stitched");
  for (int i = 0; i < segments; ++i)
    dl->AddRectFilled(ImVec2(px(i * S), y), ImVec2(px(i * S + S) - ui_px(1.0f), y + bar), categorical_color(i));
  y += bar + gap;
  for (int i = 0; i <= segments; ++i) {
    const float x = px(i * S);
    const std::string label = std::to_string(i * S);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddLine(ImVec2(x, at.y + line + inset), ImVec2(x, y), IM_COL32(255, 255, 255, 60));
    dl->AddText(ImVec2(std::min(x + inset, at.x + width - w), y), dim, label.c_str());
  }
  y += line + ui_px(6.0f);
  ImGui::Dummy(ImVec2(width, y - at.y));
}

// 2D: the tiles over the grid, 3 x 3 of them. Each reads an L x L window (outline) and keeps its S x S centre
// (filled); consecutive tiles in raster order pair up as the real and imaginary layers of one complex tile.
void draw_tailoring_2d(const FlashFftPlan& p, ImVec2 size) {
  const int tiles = 3, R = p.halo;
  const int Lx = p.tile[0], Ly = p.tile[1], Sx = p.stitched[0], Sy = p.stitched[1];
  const float margin = ui_px(10.0f); // around the tiles
  const float scale = std::min((size.x - 2.0f * margin) / static_cast<float>(tiles * Sx + 2 * R),
                               (size.y - 2.0f * margin) / static_cast<float>(tiles * Sy + 2 * R));
  if (scale <= ui_px(0.5f)) return;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  auto pt = [&](int x, int y) { return ImVec2(at.x + margin + (x + R) * scale, at.y + margin + (y + R) * scale); };
  dl->AddRectFilled(pt(-R, -R), pt(tiles * Sx + R, tiles * Sy + R), IM_COL32(40, 42, 48, 255));
  for (int ty = 0; ty < tiles; ++ty)
    for (int tx = 0; tx < tiles; ++tx) {
      const int index = ty * tiles + tx;
      const ImU32 fill = categorical_color(index / 2);
      dl->AddRectFilled(pt(tx * Sx, ty * Sy), pt(tx * Sx + Sx, ty * Sy + Sy), fill);
      dl->AddRect(pt(tx * Sx, ty * Sy), pt(tx * Sx + Sx, ty * Sy + Sy), IM_COL32(30, 32, 38, 255), 0.0f, 0, ui_px(2.0f));
      const char* layer = index % 2 == 0 ? "re" : "im";
      const ImVec2 ts = ImGui::CalcTextSize(layer);
      const ImVec2 c = pt(tx * Sx + Sx / 2, ty * Sy + Sy / 2);
      dl->AddText(ImVec2(c.x - 0.5f * ts.x, c.y - 0.5f * ts.y), IM_COL32(20, 20, 26, 255), layer);
    }
  // The windows on top, so each tile's halo is seen reaching into its neighbours.
  for (int ty = 0; ty < tiles; ++ty)
    for (int tx = 0; tx < tiles; ++tx)
      dl->AddRect(pt(tx * Sx - R, ty * Sy - R), pt(tx * Sx - R + Lx, ty * Sy - R + Ly), IM_COL32(255, 255, 255, 110), 0.0f,
                  0, ui_px(1.5f));
  ImGui::Dummy(ImVec2(size.x, (tiles * std::max(Sx, Sy) + 2 * R) * scale + 2.0f * margin));
}

// Auxiliary data (Kernel Tailoring): the paper's 2(2N²+N) values for a standard FFT stencil on N points (the FFT
// and iFFT matrices, N² complex each, and k_f) against one set of 2(2L²+L) shared by every L-point segment; in 2D
// and 3D the same count per axis with k_f over the grid. Ours: the values the plan hands the kernel.
struct AuxiliaryData {
  double standard = 0, tailored = 0, ours = 0;
  std::string ns, ls; // "512", "512x512"; "24", "24x24"
};

AuxiliaryData auxiliary_data(const FlashFftPlan& p, const Extent& grid) {
  AuxiliaryData a;
  double grid_points = 1, tile_points = 1;
  for (int axis = 0; axis < p.dims; ++axis) {
    const double n = static_cast<double>(grid.n[static_cast<std::size_t>(axis)]);
    const double l = static_cast<double>(p.tile[static_cast<std::size_t>(axis)]);
    a.standard += 2.0 * 2.0 * n * n, a.tailored += 2.0 * 2.0 * l * l;
    grid_points *= n, tile_points *= l;
    if (axis > 0) a.ns += 'x', a.ls += 'x';
    a.ns += std::to_string(grid.n[static_cast<std::size_t>(axis)]);
    a.ls += std::to_string(p.tile[static_cast<std::size_t>(axis)]);
  }
  a.standard += 2.0 * grid_points, a.tailored += 2.0 * tile_points;
  for (const FftMatrix* m : {&p.forward_rows, &p.forward_cols_swizzled, &p.inverse_cols_swizzled, &p.inverse_rows_swizzled})
    a.ours += static_cast<double>(m->values.size());
  a.ours += 2.0 * static_cast<double>(p.fused_spectrum.size()); // complex: re and im
  return a;
}

void draw_tailoring(ViewContext& ctx, FftMemory& mem) {
  const FlashFftPlan& p = mem.plan;
  const std::string about = fmt::format(
      "The fused kernel is M = {} points wide per axis (T = {} steps of radius {}). Each segment of L points is "
      "transformed, multiplied by k_fᵀ and transformed back; its first and last R = {} outputs are wrong (the circular "
      "convolution wraps) and are dropped, so consecutive segments start S = L − (M − 1) apart. Two real segments ride "
      "in one complex tile (re + i·im, the yellow bar): the real kernel keeps them apart.",
      p.fused_kernel_length, p.fused_steps, p.stencil.radius, p.halo);
  const std::string tile = "Tile: " + p.tile_choice;
  const AuxiliaryData aux = auxiliary_data(p, ctx.state.grid.extent_for(p.dims));
  publish(ctx, "fft.aux.standard", fmt::format("{:.0f}", aux.standard));
  publish(ctx, "fft.aux.tailored", fmt::format("{:.0f}", aux.tailored));
  publish(ctx, "fft.aux.ours", fmt::format("{:.0f}", aux.ours));
  const float width = ImGui::GetContentRegionAvail().x;
  const char* axes[] = {"x", "y", "z"};
  // Axes cut like x are drawn once, named together (a square 2D tile is one picture, not two alike).
  std::vector<std::pair<std::string, std::size_t>> figures;
  for (int a = 0; a < p.dims; ++a) {
    const std::size_t i = static_cast<std::size_t>(a);
    bool drawn_before = false;
    for (int b = 0; b < a; ++b)
      drawn_before = drawn_before || (p.tile[static_cast<std::size_t>(b)] == p.tile[i] && p.stitched[static_cast<std::size_t>(b)] == p.stitched[i]);
    if (drawn_before) continue;
    std::string names = axes[a];
    for (int b = a + 1; b < p.dims; ++b)
      if (p.tile[static_cast<std::size_t>(b)] == p.tile[i] && p.stitched[static_cast<std::size_t>(b)] == p.stitched[i])
        names += std::string(" and ") + axes[b];
    figures.emplace_back(names, i);
  }
  // Where the window is too short for the text, the segments, the pass's costs and the 2D tiles (a lecture's 1280x720:
  // the costs and the paper's auxiliary data lay below the window's edge, 3D's second axis too), they go in parts, a
  // part at a time, the segments first with tighter bars (issue 17).
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float text_h = ImGui::CalcTextSize(about.c_str(), nullptr, false, width).y +
                       ImGui::CalcTextSize(tile.c_str(), nullptr, false, width).y + 2.0f * ImGui::GetStyle().ItemSpacing.y;
  const float table_h = 10.0f * line, tiles_h = p.dims >= 2 ? 2.0f * line + ui_px(140.0f) : 0.0f;
  const float whole_h = text_h + static_cast<float>(figures.size()) * tailoring_axis_height(true) + (p.dims == 3 ? line : 0.0f) +
                        table_h + tiles_h;
  const bool paged = whole_h > ImGui::GetContentRegionAvail().y;
  publish(ctx, "fft.tailoring.paged", paged ? "yes" : "no");
  if (paged) {
    const int parts = p.dims >= 2 ? 3 : 2;
    mem.tailoring_part = std::clamp(mem.tailoring_part, 0, parts - 1);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Show");
    const char* names[] = {"segments", "a pass's cost and auxiliary data", "2D tiles"};
    for (int i = 0; i < parts; ++i) {
      ImGui::SameLine();
      ImGui::RadioButton(names[i], &mem.tailoring_part, i);
      probe_last_item(ctx.state, fmt::format("fft.tailoring.part.{}", i));
    }
  }
  const int part = paged ? mem.tailoring_part : -1; // -1: all of it
  if (part <= 0) {
    ImGui::PushTextWrapPos(0.0f);
    if (paged) // the same, shorter: the segments need the height
      ImGui::TextUnformatted(fmt::format("M = {} points per axis (T = {} steps of radius {}). A segment of L points loses R = {} "
                                         "outputs at each end (the circular convolution wraps), so segments start S = "
                                         "L − (M − 1) apart; two real ones ride in one complex tile (the yellow bar).",
                                         p.fused_kernel_length, p.fused_steps, p.stencil.radius, p.halo)
                                 .c_str());
    else
      ImGui::TextUnformatted(about.c_str());
    ImGui::PopTextWrapPos();
    // The tile's reason in a tooltip where the page is paged: the segments need the height.
    if (paged) {
      ImGui::TextDisabled("Tile: chosen by the cost model (hover)");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tile.c_str());
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", tile.c_str());
      ImGui::PopStyleColor();
    }
    const ImVec2 at = ImGui::GetCursorScreenPos();
    std::string not_drawn; // a later axis where its figure does not fit (3D's z at a lecture's 1280x720): its numbers
    for (const auto& [names, i] : figures) {
      if (paged && i > 0 && ImGui::GetContentRegionAvail().y < tailoring_axis_height(false) + 2.0f * line) {
        not_drawn += fmt::format("axis {}: L = {}, S = {}, halo R = {}, cut the same way. ", names, p.tile[i], p.stitched[i], p.halo);
        continue;
      }
      draw_tailoring_axis(names.c_str(), p.tile[i], p.stitched[i], p.halo, width, !paged);
    }
    probe_rect(ctx.state, "fft.segments", at, ImVec2(at.x + width, ImGui::GetCursorScreenPos().y));
    if (p.dims == 3 || !not_drawn.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s%s", not_drawn.c_str(),
                          p.dims == 3 ? fmt::format("3D: each y×x slice is transformed on tensor cores; the z DFT of depth "
                                                    "{} runs on CUDA cores.", p.depth.length).c_str()
                                      : "");
      ImGui::PopTextWrapPos();
    }
    probe_rect(ctx.state, "fft.segments_text", at, ImVec2(at.x + width, ImGui::GetCursorScreenPos().y));
  }
  if (part == -1 || part == 1) {
    // What one pass over one double-layer tile pair costs, from the plan's geometry (the cost model's counts).
    const FlashFftPassWork work = flashfft_pass_work(p);
    ImGui::Spacing();
    if (ImGui::BeginTable("pass_work", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      // The names' column as wide as the longest name; the values wrap in the rest of the window.
      ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("one tile pair, one pass").x);
      ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
      auto row = [](const char* name, const std::string& value) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", name);
        ImGui::TableNextColumn();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextWrapped("%s", value.c_str());
        ImGui::PopTextWrapPos();
      };
      row("one tile pair, one pass", fmt::format("{} base steps fused", p.fused_steps));
      row("m8n8k4 MMAs", fmt::format("{:.0f} ({:.3g} per output and base step)", work.mma,
                                     work.mma / std::max(work.outputs, 1.0) / p.fused_steps));
      row("CUDA-core FLOPs", fmt::format("{:.0f} (the k_fᵀ product{})", work.cuda_core_flops, p.dims == 3 ? " and z DFTs" : ""));
      row("points read / written", fmt::format("{:.0f} / {:.0f}: the halo costs {:.1f}% extra reads", work.inputs,
                                               work.outputs, 100.0 * (work.inputs / std::max(work.outputs, 1.0) - 1.0)));
      const char* per_axis = p.dims == 1 ? "" : " per axis, k_f over the grid";
      row("auxiliary data, paper", fmt::format("standard FFT on the grid, 2(2N²+N){} at N = {}: {:.0f} values; tailored, "
                                               "2(2L²+L) at L = {}: {:.0f} ({:.0f}× less)",
                                               per_axis, aux.ns, aux.standard, aux.ls, aux.tailored,
                                               aux.standard / std::max(aux.tailored, 1.0)));
      row("auxiliary data, ours", fmt::format("{:.0f} values: the four DFT matrices the kernel loads, each a real block "
                                              "[[Fr, −Fi], [Fi, Fr]] (twice a complex matrix's values) of the {}, padded "
                                              "to the fragment grid, forward and inverse in their swizzled orders; and k_fᵀ",
                                              aux.ours, p.prime_factor ? "prime factors L1 and L2 (not L×L)" : "segment's axes"));
      ImGui::EndTable();
    }
    probe_rect(ctx.state, "fft.costs", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  }
  if (p.dims >= 2 && (part == -1 || part == 2)) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("The same in 2D: 3×3 tiles, each reading its L×L window (white) and keeping its S×S centre; "
                        "tiles pair up in raster order as re and im.");
    ImGui::PopTextWrapPos();
    draw_tailoring_2d(p, ImGui::GetContentRegionAvail());
  }
}

void draw_crt(ViewContext& ctx, FftMemory& mem) {
  const Stencil& s = ctx.state.stencil;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("L1 × L2");
  ImGui::SameLine();
  ImGui::RadioButton("the cost model's choice", &mem.crt_choice, 0);
  probe_last_item(ctx.state, "fft.crt.choice.0");
  for (int i = 0; i < static_cast<int>(std::size(kCrtFactors)); ++i) {
    ImGui::SameLine();
    ImGui::RadioButton(fmt::format("{}×{}", kCrtFactors[i].first, kCrtFactors[i].second).c_str(), &mem.crt_choice, i + 1);
    probe_last_item(ctx.state, fmt::format("fft.crt.choice.{}", i + 1));
  }
  refresh_crt(mem, s);
  if (!mem.crt_error.empty()) {
    draw_unsupported("This factorisation", mem.crt_error);
    return;
  }
  const FlashFftPlan& p = mem.crt_plan;
  const int L1 = p.rows.length, L2 = p.cols.length, L = L1 * L2;
  const int rows = p.rows.padded, cols = p.cols.padded;
  const std::string full = fmt::format(
      "L = {} = {} × {} (coprime). Left: segment position l sits in cell (l mod {}, l mod {}), so l = 0, 1, 2, ... walks "
      "down the diagonal and wraps; threads storing consecutive points hit different banks and no index is ever "
      "reordered. Right: after the two DFTs, cell (k1, k2) holds frequency k = (k1·{} + k2·{}) mod {}. Cells beyond "
      "L1 and L2 pad to the MMA's 8.",
      L, L1, L2, L1, L2, L2, L1, L);
  // The paper writes Eq. 8 for the input index; the plan (and this picture) use it for the output frequency.
  const std::string note = fmt::format(
      "Note on Eq. 8: the paper states n = (n1·N2 + n2·N1) mod N for the input index n. Here it is applied to the "
      "frequency map (right), k = (k1·{} + k2·{}) mod {}, and the input uses the CRT map n1 = l mod {}, n2 = l mod {} "
      "(left). That is the Good-Thomas pairing: one of the two maps must be the Ruritanian one and the other the CRT "
      "one, or the 2D DFT is not the 1D DFT; reading Eq. 8 as the input map with the CRT map on the output is the "
      "same pairing mirrored.",
      L2, L1, L, L1, L2);
  // Where the whole text leaves the maps too little height (a lecture's font at 1280x720, issue 17), it shrinks to
  // one sentence each, the rest in a tooltip: the maps keep legible numbers and the page does not scroll.
  const std::string dims_note =
      s.dims > 1 ? fmt::format("A {}D tile is transformed as a (y, x) matrix directly; the prime-factor map belongs to "
                               "1D segments, drawn here for this stencil's x row as a 1D stencil.",
                               s.dims)
                 : std::string();
  const float width = ImGui::GetContentRegionAvail().x;
  const float text_h = (dims_note.empty() ? 0.0f : ImGui::CalcTextSize(dims_note.c_str(), nullptr, false, width).y) +
                       ImGui::CalcTextSize(full.c_str(), nullptr, false, width).y +
                       ImGui::CalcTextSize(note.c_str(), nullptr, false, width).y + 2.0f * ImGui::GetStyle().ItemSpacing.y;
  const float map_min = (2.0f * ImGui::GetTextLineHeight() + ui_px(8.0f)) + static_cast<float>(rows + 1) * ImGui::GetTextLineHeight();
  const bool whole = ImGui::GetContentRegionAvail().y - text_h >= map_min;
  auto tooltip = [](const std::string& text) {
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ui_px(520.0f));
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  };
  if (whole && !dims_note.empty()) ImGui::TextWrapped("%s", dims_note.c_str());
  if (whole) {
    ImGui::TextWrapped("%s", full.c_str());
  } else {
    ImGui::TextWrapped("L = %d = %d × %d. Left: l sits in cell (l mod %d, l mod %d), a diagonal walk. Right: cell "
                       "(k1, k2) holds k = (k1·%d + k2·%d) mod %d.%s",
                       L, L1, L2, L1, L2, L2, L1, L, dims_note.empty() ? "" : " (Drawn for the x row.)");
    tooltip(dims_note.empty() ? full : dims_note + "\n\n" + full);
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram));
  if (whole) {
    ImGui::TextWrapped("%s", note.c_str());
  } else {
    ImGui::TextWrapped("Eq. 8 is applied to the frequency map here; the paper states it for the input index (hover: "
                       "why both agree).");
    probe_last_item(ctx.state, "fft.crt.eq8_note");
    tooltip(note);
  }
  ImGui::PopStyleColor();
  publish(ctx, "fft.crt.eq8", "applied to the frequency map; the paper states it for the input index");
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float title_h = ImGui::GetTextLineHeight() + ui_px(4.0f);
  const float cell = std::floor(std::min({(avail.x - ui_px(60.0f)) / static_cast<float>(2 * cols + 2),
                                          (avail.y - 2.0f * title_h - ui_px(10.0f)) / static_cast<float>(rows + 1), ui_px(64.0f)}));
  auto map_picture = [&](const char* id, std::string title, const std::vector<int>& map) {
    MatrixPicture m;
    m.id = id;
    m.title = std::move(title);
    m.title_color = kInputTitleColor;
    m.rows = rows, m.cols = cols;
    m.coloring = CellColoring::Custom;
    for (int v : map) {
      m.labels.push_back(v < 0 ? "" : std::to_string(v));
      m.colors.push_back(v < 0 ? zero_cell_color() : diverging_color(2.0 * v / std::max(L - 1, 1) - 1.0));
    }
    for (int c = 0; c < cols; ++c) m.column_labels.push_back(std::to_string(c));
    for (int r = 0; r < rows; ++r) m.row_labels.push_back(std::to_string(r));
    m.cell = cell;
    m.tooltip = [map, L1, L2, cols](int r, int c) {
      const int v = map[static_cast<std::size_t>(r * cols + c)];
      if (v < 0) return std::string("padding: zero");
      return fmt::format("{} mod {} = {}, {} mod {} = {}", v, L1, v % L1, v, L2, v % L2);
    };
    return m;
  };
  const MatrixDrawn d = draw_matrix(map_picture("crt", "input map: cell (n1, n2) holds position l", p.input_map));
  probe_rect(ctx.state, "fft.crt.input", d.min, d.max);
  ImGui::SameLine(0, ui_px(40.0f));
  const MatrixDrawn fd = draw_matrix(map_picture("frequencies", "frequency map: cell (k1, k2) holds k", p.frequency_map));
  probe_rect(ctx.state, "fft.crt.frequencies", fd.min, fd.max);
  // The diagonal walk of l = 0, 1, 2, ...: a stroke across the shared corner of consecutive cells while they stay
  // diagonal neighbours, a frame round the cell where the walk wraps; both keep clear of the cells' numbers (lines
  // through the centres and rings over them hid 8, 4, 10 and 5 at a lecture's cell size, issue 17).
  if (!p.diagonal_order.empty()) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float thick = ui_px(2.0f);
    const int steps = std::min(L, 2 * std::max(L1, L2) + 2);
    for (int l = 0; l + 1 < steps; ++l) {
      const int a = p.diagonal_order[static_cast<std::size_t>(l)], b = p.diagonal_order[static_cast<std::size_t>(l + 1)];
      const int ar = a / cols, ac = a % cols, br = b / cols, bc = b % cols;
      const ImVec2 ca = d.cell_center(ar, ac), cb = d.cell_center(br, bc);
      if (br == ar + 1 && bc == ac + 1) {
        const float ox = 0.3f * d.cell_w, oy = 0.3f * d.cell;
        dl->AddLine(ImVec2(ca.x + ox, ca.y + oy), ImVec2(cb.x - ox, cb.y - oy), IM_COL32(255, 255, 255, 220), thick);
      } else {
        const ImVec2 m = d.cell_min(br, bc);
        dl->AddRect(ImVec2(m.x + 0.5f * thick, m.y + 0.5f * thick),
                    ImVec2(m.x + d.cell_w - 0.5f * thick, m.y + d.cell - 0.5f * thick), IM_COL32(255, 255, 255, 220), 0.0f, 0,
                    thick);
      }
    }
  }
  publish(ctx, "fft.crt.map", fmt::format("{}x{}", L1, L2));
}

MatrixPicture heat_map(const char* id, std::string title, const FftMatrix& matrix, float max_side) {
  MatrixPicture m;
  m.id = id;
  m.title = std::move(title);
  m.title_color = kWeightTitleColor;
  m.rows = matrix.rows, m.cols = matrix.cols;
  m.values = matrix.values;
  m.coloring = CellColoring::Diverging;
  m.diverging_scale = 1.0;
  m.digits = 2;
  m.max_width = max_side;
  m.max_height = max_side + ImGui::GetTextLineHeight() + ui_px(4.0f);
  return m;
}

void draw_dft(const FlashFftPlan& p) {
  ImGui::TextWrapped("F[k][n] = exp(−2πi·kn/N) split into real and imaginary parts (blue −1, red +1, dark zero "
                     "padding). The tensor cores multiply real block matrices; the constant operand of every product "
                     "that reads the previous accumulator is stored with its K index in the swizzled order.");
  const float avail = ImGui::GetContentRegionAvail().x;
  const float small = std::floor((avail - ui_px(40.0f)) / 4.0f);
  draw_matrix(heat_map("rows_re", fmt::format("Re F rows ({})", p.rows.length), p.rows.re, small));
  ImGui::SameLine();
  draw_matrix(heat_map("rows_im", fmt::format("Im F rows ({})", p.rows.length), p.rows.im, small));
  ImGui::SameLine();
  draw_matrix(heat_map("cols_re", fmt::format("Re F cols ({})", p.cols.length), p.cols.re, small));
  ImGui::SameLine();
  draw_matrix(heat_map("cols_im", fmt::format("Im F cols ({})", p.cols.length), p.cols.im, small));
  const float big = std::floor(std::min((avail - ui_px(30.0f)) / 3.0f, ImGui::GetContentRegionAvail().y - ui_px(40.0f)));
  draw_matrix(heat_map("forward_rows", "[[Fr, −Fi], [Fi, Fr]] (step 1's A)", p.forward_rows, big));
  ImGui::SameLine();
  draw_matrix(heat_map("forward_cols", "G, rows swizzled (step 2's B)", p.forward_cols_swizzled, big));
  ImGui::SameLine();
  draw_matrix(heat_map("inverse_cols", "G, columns swizzled (step 4's A)", p.inverse_cols_swizzled, big));
}

// A line of values over x as the project's x-y plot (labelled axes, ticks, legend, hover, zoom, PNG export).
struct LineSeries {
  std::string name;
  std::vector<double> x, y;
  ImU32 color;
};

void draw_plot(const char* id, std::string title, const std::vector<LineSeries>& series, ImVec2 size, bool log_y,
               std::string x_label, std::string y_label, PlotView& view) {
  XYPlot plot;
  plot.title = std::move(title);
  plot.x_label = std::move(x_label);
  plot.y_label = std::move(y_label);
  plot.y_scale = log_y ? AxisScale::Log : AxisScale::Linear;
  for (const LineSeries& s : series) {
    PlotSeries p;
    p.name = s.name;
    p.color = s.color;
    // Markers where they stand apart; in a narrow plot they would hide the legend's text (issue 17).
    const bool apart = !s.x.empty() && size.x / static_cast<float>(s.x.size()) >= ui_px(16.0f);
    p.style = s.x.size() <= 64 && apart ? PlotSeries::Style::LineAndPoints : PlotSeries::Style::Line;
    p.x = s.x;
    p.y = s.y;
    plot.series.push_back(std::move(p));
  }
  draw_xy_plot(id, plot, view, size);
}

std::vector<double> real_parts(const std::vector<std::complex<double>>& v, std::size_t n) {
  std::vector<double> out;
  for (std::size_t i = 0; i < std::min(n, v.size()); ++i) out.push_back(v[i].real());
  return out;
}

void draw_fusion(ViewContext& ctx, FftMemory& mem) {
  ImGui::SetNextItemWidth(ui_px(260.0f));
  ImGui::SliderInt("fused steps T", &mem.fused_steps, 1, kMaxShownT);
  probe_last_item(ctx.state, "fft.T");
  mem.fused_steps = std::clamp(mem.fused_steps, 1, kMaxShownT);
  refresh(mem, ctx.state.stencil);
  if (!mem.unsupported.empty()) {
    draw_unsupported("FlashFFTStencil", mem.unsupported);
    return;
  }
  const FlashFftPlan& base = mem.base;
  const FlashFftPlan& p = mem.plan;
  // A 3D spectrum is depth slices of padded rows x cols: the maps show one, and say which (kz = 0: the slice of the
  // frequencies that do not vary along z).
  const std::string slice_note =
      base.dims == 3 ? fmt::format(", its kz = 0 slice (of {} along z)", base.depth.length) : std::string();
  ImGui::TextWrapped("k_f[k] = Σ_d w[d]·exp(+2πi·k·d/L) is the stencil in frequency space; T steps are one product by "
                     "k_fᵀ (|k_f| ≤ 1 for a stable stencil, so high frequencies fade with T). Shown: the real parts "
                     "in the transform's layout%s (blue negative, red positive).",
                     slice_note.c_str());
  const float avail = ImGui::GetContentRegionAvail().x;
  const float gap = ui_px(20.0f); // between the two maps and the plot
  const std::size_t slice = static_cast<std::size_t>(base.rows.padded) * static_cast<std::size_t>(base.cols.padded);
  auto spectrum_map = [&](const char* id, std::string title, const std::vector<std::complex<double>>& v) {
    MatrixPicture m;
    m.id = id;
    m.title = std::move(title);
    m.title_color = kWeightTitleColor;
    m.rows = base.rows.padded, m.cols = base.cols.padded;
    m.values = real_parts(v, slice);
    m.coloring = CellColoring::Diverging;
    m.diverging_scale = 1.0;
    m.digits = 2;
    m.max_width = std::floor((avail - 2.0f * gap) / 2.0f) * (base.dims == 1 ? 0.5f : 0.62f);
    m.max_height = 0.42f * ImGui::GetContentRegionAvail().y;
    m.tooltip = [freq = base.frequency_map, cols = base.cols.padded, lx = base.cols.length, one_d = base.dims == 1](int r, int c) {
      const int k = freq[static_cast<std::size_t>(r * cols + c)];
      if (k < 0) return std::string("padding: zero");
      return one_d ? fmt::format("frequency k = {}", k) : fmt::format("frequency (ky, kx) = ({}, {})", k / lx, k % lx);
    };
    return m;
  };
  // The slice in the maps' titles where they have the width (a short page's narrow maps: in the text above).
  const bool short_page = ImGui::GetContentRegionAvail().y < ui_px(300.0f);
  const std::string kz = base.dims == 3 && !short_page ? ", kz = 0" : "";
  MatrixPicture kf = spectrum_map("kf", "Re k_f" + kz, base.kernel_spectrum);
  MatrixPicture kft = spectrum_map("kfT", fmt::format("Re k_fᵀ, T = {}{}", p.fused_steps, kz), p.fused_spectrum);
  // Both maps in view, side by side (the tour's step is about k_fᵀ, which lay below the window's edge at every
  // size once k_f took the width, its numbers drawn at half the font). Numbers where they fit the cells at the
  // smallest cell font; else the maps fit the page's height in colours, with the scale beside and the value of a
  // cell in its tooltip, the same values along one line in the plot (issue 17).
  // The measured error (the other half of the tour's step) keeps a part of the page: it lay below the window's edge
  // at 1280x720 and in lecture mode at 1600x1000 once the maps took the page's height. A tall page puts the line
  // plot over k beside the maps and the error plot under both; a short one (a lecture's 1280x720) puts the two plots
  // beside the maps at the page's height (issue 17).
  const ImGuiStyle& style = ImGui::GetStyle();
  const float page_h = ImGui::GetContentRegionAvail().y;
  const float scale_h = ImGui::GetTextLineHeightWithSpacing() + ui_px(4.0f);
  const bool tall = !short_page;
  const float error_h = std::max(ui_px(120.0f), 0.4f * page_h); // tall: under the maps
  const float bar_w = ui_px(tall ? 120.0f : 90.0f), bar_h = ImGui::GetTextLineHeight();
  if (tall) {
    kf.max_width = kft.max_width = std::floor((avail * 2.0f / 3.0f - 2.0f * gap) / 2.0f);
    kf.max_height = kft.max_height = std::max(page_h - error_h - scale_h - 2.0f * style.ItemSpacing.y, ui_px(80.0f));
  } else {
    kf.max_width = kft.max_width = std::floor(0.16f * avail);
    kf.max_height = kft.max_height = std::max(page_h - scale_h - 2.0f * style.ItemSpacing.y, ui_px(60.0f));
  }
  const ImVec2 with_numbers_a = measure_matrix(kf).size, with_numbers_b = measure_matrix(kft).size;
  const bool numbers = (!tall || with_numbers_a.x + gap + with_numbers_b.x <= avail) &&
                       std::max(with_numbers_a.y, with_numbers_b.y) <= kf.max_height;
  // Where the maps are too large for their numbers, a page of them: the largest window of cells whose numbers fit
  // the maps' room, with arrows to move it (every matrix shows its values, issue 17); else the whole maps in colours.
  const bool paged = !numbers && mem.kf_values;
  if (!numbers && !paged) kf.numbers = kft.numbers = false;
  int page_rows = kf.rows, page_cols = kf.cols;
  if (paged) {
    // The page takes the whole page's room (the line plots come back with the colours).
    const float room_h = page_h - ImGui::GetFrameHeightWithSpacing() - style.ItemSpacing.y;
    kf.max_width = kft.max_width = kf.max_height = kft.max_height = 0; // a page is drawn at its numbers' size
    // One cell size for both maps and every page: as wide as the widest number of either, a line tall.
    kf.cell_width = kft.cell_width = std::max(measure_matrix(kf).cell, measure_matrix(kft).cell);
    kf.cell = kft.cell = std::ceil(ImGui::GetTextLineHeight() + ui_px(4.0f));
    auto size = [&](int nr, int nc) {
      const ImVec2 a = measure_matrix(window_of(kf, 0, nr, 0, nc)).size, b = measure_matrix(window_of(kft, 0, nr, 0, nc)).size;
      return ImVec2(a.x + gap + b.x, std::max(a.y, b.y));
    };
    page_rows = std::min(kf.rows, 16), page_cols = std::min(kf.cols, 16);
    while (page_rows > 1 && size(page_rows, 1).y > room_h) --page_rows;
    while (page_cols > 1 && size(page_rows, page_cols).x > avail) --page_cols;
    mem.kf_row0 = std::clamp(mem.kf_row0, 0, std::max(kf.rows - page_rows, 0));
    mem.kf_col0 = std::clamp(mem.kf_col0, 0, std::max(kf.cols - page_cols, 0));
  }
  ImGui::BeginGroup();
  if (paged) {
    // The pager: the page's place in the whole maps, arrows a page at a time, and the way back to the colours.
    auto arrow = [](const char* id, ImGuiDir dir, int& at, int delta, int last) {
      ImGui::BeginDisabled(delta < 0 ? at <= 0 : at >= last);
      if (ImGui::ArrowButton(id, dir)) at = std::clamp(at + delta, 0, last);
      ImGui::EndDisabled();
      ImGui::SameLine();
    };
    const int last_row = std::max(kf.rows - page_rows, 0), last_col = std::max(kf.cols - page_cols, 0);
    arrow("##kf_left", ImGuiDir_Left, mem.kf_col0, -page_cols, last_col);
    arrow("##kf_right", ImGuiDir_Right, mem.kf_col0, page_cols, last_col);
    if (last_col > 0) probe_rect(ctx.state, "fft.kf_next", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    arrow("##kf_up", ImGuiDir_Up, mem.kf_row0, -page_rows, last_row);
    arrow("##kf_down", ImGuiDir_Down, mem.kf_row0, page_rows, last_row);
    if (last_col == 0) probe_rect(ctx.state, "fft.kf_next", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::Text("rows %d-%d of %d, columns %d-%d of %d", mem.kf_row0, mem.kf_row0 + page_rows - 1, kf.rows,
                mem.kf_col0, mem.kf_col0 + page_cols - 1, kf.cols);
    ImGui::SameLine();
    if (ImGui::SmallButton("colours")) mem.kf_values = false;
    probe_last_item(ctx.state, "fft.kf_colours");
    kf = window_of(kf, mem.kf_row0, page_rows, mem.kf_col0, page_cols);
    kft = window_of(kft, mem.kf_row0, page_rows, mem.kf_col0, page_cols);
  }
  const MatrixDrawn kd = draw_matrix(kf);
  ImGui::SameLine(0, gap);
  const MatrixDrawn kdt = draw_matrix(kft);
  publish(ctx, "fft.kf.numbers", kd.text_scale > 0 && kdt.text_scale > 0 ? "yes" : "no");
  publish(ctx, "fft.kf.page", paged ? fmt::format("{},{} {}x{}", mem.kf_row0, mem.kf_col0, page_rows, page_cols) : "whole");
  if (!numbers && !paged) {
    // The colour scale: −1 blue, 0 light, +1 red (diverging_scale = 1), then where to read the numbers.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImGui::TextUnformatted("−1");
    ImGui::SameLine();
    const ImVec2 bar = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 32;
    for (int i = 0; i < kSteps; ++i) {
      const float x0 = bar.x + bar_w * static_cast<float>(i) / kSteps, x1 = bar.x + bar_w * static_cast<float>(i + 1) / kSteps;
      dl->AddRectFilled(ImVec2(x0, bar.y), ImVec2(x1 + 0.5f, bar.y + bar_h),
                        diverging_color(-1.0 + 2.0 * (static_cast<double>(i) + 0.5) / kSteps));
    }
    ImGui::Dummy(ImVec2(bar_w, bar_h));
    ImGui::SameLine();
    ImGui::TextUnformatted("+1");
    ImGui::SameLine();
    if (ImGui::SmallButton(tall ? "values (too many cells for numbers here)" : "values")) mem.kf_values = true;
    probe_last_item(ctx.state, "fft.kf_values");
  }
  ImGui::EndGroup();
  const ImVec2 maps_min = kd.min, maps_max = ImGui::GetItemRectMax();
  probe_rect(ctx.state, "fft.maps", maps_min, maps_max); // the maps and their colour scale
  probe_rect(ctx.state, "fft.kf", kd.min, kd.max);
  probe_rect(ctx.state, "fft.kfT", kdt.min, kdt.max);
  if (paged) return; // a page of numbers has the page to itself
  // The same along one line of frequencies: k in 1D, kx at ky = 0 (and kz = 0) otherwise.
  LineSeries a{"Re k_f", {}, {}, IM_COL32(120, 176, 255, 255)};
  LineSeries b{fmt::format("Re k_fᵀ, T = {}", p.fused_steps), {}, {}, IM_COL32(255, 150, 90, 255)};
  if (base.dims == 1) {
    const auto kf = spectrum_by_frequency(base, base.kernel_spectrum);
    const auto kft = spectrum_by_frequency(p, p.fused_spectrum);
    for (std::size_t k = 0; k < kf.size(); ++k) a.x.push_back(static_cast<double>(k)), a.y.push_back(kf[k].real());
    for (std::size_t k = 0; k < kft.size(); ++k) b.x.push_back(static_cast<double>(k)), b.y.push_back(kft[k].real());
  } else {
    const int lx = base.cols.length;
    for (std::size_t cell = 0; cell < slice; ++cell) {
      const int k = base.frequency_map[cell];
      if (k < 0 || k >= lx) continue; // ky = 0 only
      a.x.push_back(k), a.y.push_back(base.kernel_spectrum[cell].real());
      b.x.push_back(k), b.y.push_back(p.fused_spectrum[cell].real());
    }
    auto sort_by_x = [](LineSeries& series) {
      std::vector<std::size_t> order(series.x.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return series.x[i] < series.x[j]; });
      LineSeries sorted{series.name, {}, {}, series.color};
      for (std::size_t i : order) sorted.x.push_back(series.x[i]), sorted.y.push_back(series.y[i]);
      series = std::move(sorted);
    };
    sort_by_x(a), sort_by_x(b);
  }
  // Tall: beside the maps where a quarter of the width is left, else under them; short: beside the maps, the error
  // plot beside it, both at the page's height.
  const bool plot_beside = !tall || avail - (maps_max.x - maps_min.x) - gap >= avail / 4.0f;
  if (plot_beside) ImGui::SameLine(0, gap);
  const float short_w = std::floor((ImGui::GetContentRegionAvail().x - gap) / 2.0f);
  const ImVec2 spectrum_size = !tall        ? ImVec2(short_w, page_h - ui_px(6.0f))
                               : plot_beside ? ImVec2(ImGui::GetContentRegionAvail().x, maps_max.y - maps_min.y)
                                             : ImVec2(avail, ui_px(220.0f));
  draw_plot("spectrum", base.dims == 1 ? "over k = 0..L−1" : "over kx at ky = 0", {a, b}, spectrum_size, false,
            base.dims == 1 ? "frequency k (of L)" : "frequency kx (of Lx)", tall ? "real part (gain per pass)" : "real part",
            mem.spectrum_view);
  if (tall)
    ImGui::Spacing();
  else
    ImGui::SameLine(0, gap);
  const std::shared_ptr<ErrorCurveJob> job = mem.job;
  // Headless frames must be reproducible: wait for the measurement instead of drawing "measuring...".
  if (job && ctx.finish_background_work && job->worker.joinable()) job->worker.join();
  const float plot_h = tall ? std::max(ui_px(100.0f), ImGui::GetContentRegionAvail().y - ui_px(6.0f)) : page_h - ui_px(6.0f);
  if (!job || !job->done) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Measuring the error of T = 1..%d fused steps against the FP64 reference (on a worker thread)...",
                        kErrorCurveSteps);
    ImGui::PopTextWrapPos();
    return;
  }
  if (!job->error.empty()) {
    draw_unsupported("The error measurement", job->error);
    return;
  }
  LineSeries rel{tall ? "relative L2 error" : "rel. L2", {}, {}, IM_COL32(255, 196, 64, 255)};
  LineSeries abs{"max |error|", {}, {}, IM_COL32(150, 220, 150, 255)};
  for (const FusionErrorSample& e : job->curve) {
    rel.x.push_back(e.fused_steps), rel.y.push_back(e.finite ? e.rel_l2 : NAN);
    abs.x.push_back(e.fused_steps), abs.y.push_back(e.finite ? e.max_abs : NAN);
  }
  const ImVec2 error_at = ImGui::GetCursorScreenPos(), error_size(ImGui::GetContentRegionAvail().x, plot_h);
  draw_plot("error",
            tall ? "measured: one pass with k_fᵀ vs T steps of the FP64 reference (random grid, one periodic tile)"
                 : "measured error",
            {rel, abs}, error_size, true, "fused steps T", tall ? "error vs FP64 (relative L2; max |abs|)" : "error vs FP64",
            mem.error_view);
  probe_rect(ctx.state, "fft.error", error_at, ImVec2(error_at.x + error_size.x, error_at.y + error_size.y));
  publish(ctx, "fft.error_curve", fact_numbers(rel.y));
}

} // namespace

void draw_fft_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, kView, "FFT (FlashFFTStencil)")) {
    ImGui::End();
    return;
  }
  FftMemory& mem = ctx.memory.get<FftMemory>(kView);
  refresh(mem, ctx.state.stencil);
  if (!mem.unsupported.empty()) {
    draw_unsupported("FlashFFTStencil", mem.unsupported);
    publish(ctx, "fft.unsupported", mem.unsupported);
    ImGui::End();
    return;
  }
  publish(ctx, "fft.tile", fmt::format("{}x{}x{}", mem.plan.tile[0], mem.plan.tile[1], mem.plan.tile[2]));
  std::vector<double> spectrum_re;
  for (const auto& k : mem.plan.kernel_spectrum) spectrum_re.push_back(k.real());
  publish(ctx, "fft.kernel_spectrum", fact_numbers(spectrum_re)); // what tests compare with core's plan
  const std::string page = ctx.layout.take_page_request(kView);
  if (ImGui::BeginTabBar("fft_pages")) {
    if (begin_view_page(ctx, kView, "tailoring", "Split, fuse, stitch", page)) {
      draw_tailoring(ctx, mem);
      ImGui::EndTabItem();
    }
    if (begin_view_page(ctx, kView, "crt", "CRT index map", page)) {
      draw_crt(ctx, mem);
      ImGui::EndTabItem();
    }
    if (begin_view_page(ctx, kView, "dft", "DFT matrices", page)) {
      draw_dft(mem.plan);
      ImGui::EndTabItem();
    }
    if (begin_view_page(ctx, kView, "fusion", "k_f, k_fᵀ and the error of fusion", page)) {
      draw_fusion(ctx, mem);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

} // namespace se
