// Runs side by side: two to four methods advance the same initial grid with the same stencil, in lockstep with
// the FP64 CPU reference. Each panel shows its grid live (GPU methods through CUDA-GL interop, CPU emulations by
// upload), its error against the reference as a log10 map on one shared scale, and its measured GStencil/s.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <imgui.h>

#include "app/shell/explorer_app.hpp"
#include "app/platform/heatmap_renderer.hpp"
#include "app/sim/benchmark_job.hpp"
#include "app/widgets/method_picker.hpp"
#include "app/widgets/plot_widgets.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"

namespace se {
namespace {

constexpr const char* kView = "compare";
constexpr int kMinPanels = 2, kMaxPanels = 4;
// log10 |error| below this is drawn as the bottom of the map (exact agreement included).
constexpr double kErrorFloor = -17.0;

ImTextureID texture_id(unsigned gl_name) { return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(gl_name)); }

struct ComparePanel {
  MethodKey key;
  std::unique_ptr<Simulation> simulation;
  std::unique_ptr<HeatmapRenderer> heatmap, errormap; // made on first draw, when GL is current
  std::string problem;            // why this method is not running (it then waits, the others go on)
  ErrorMetrics error{};
  double log_error_min = 0, log_error_max = 0; // of this panel's finite, non-zero errors
  bool have_error = false;
  std::uint64_t shown_version = ~std::uint64_t{0};
  std::int64_t steps_done = 0;
  // 1D: the values and log10 |error| along x as line plots (a 1D grid as a strip of colour a few pixels tall said
  // little, issue 17), at most kProfilePoints points: every bin's value at its first point, its error at its largest.
  std::vector<double> profile_x, profile_value, profile_log_error;
  PlotView value_view, error_view;
};

constexpr std::size_t kProfilePoints = 1024;
std::size_t profile_bin(std::size_t points) { return std::max<std::size_t>(1, (points + kProfilePoints - 1) / kProfilePoints); }

struct CompareMemory {
  std::optional<MethodCatalogue> catalogue;
  MethodChoiceCache choices;
  std::vector<ComparePanel> panels;
  Simulation reference{make_cpu_reference_backend()};
  std::optional<SimulationSetup> setup; // what every panel and the reference were reset to
  std::array<int, 3> side_choice{3, 1, 1}; // index into kSides per dims
  bool playing = true;
  int steps_per_frame = 1;
  bool restart = false;
  UiMessage message;
  // "Time at paper size": the GPU panels' methods timed on the papers' grid in the background (a sweep of one size).
  std::unique_ptr<BenchmarkJob> paper_job;
  Extent paper_extent;
  std::string paper_stencil;
  UiMessage paper_message;
  int pair = 0; // in a short window: which two panels are shown (0: the first two)
};

// The papers' grid for timing (as `stencil-bench suite`): 10240000 points in 1D, 10240^2 in 2D, 512^3 in 3D.
Extent paper_extent(int dims) {
  Extent e;
  e.dims = dims;
  for (int d = 0; d < dims; ++d) e.n[d] = dims == 3 ? 512 : (dims == 2 ? 10240 : 10240000);
  return e;
}

// A GPU step over this many points moves so few bytes that a kernel launch and its synchronisation (a few µs)
// take longer than the memory traffic: 2^21 FP64 points read and written are 32 MB, ~10 µs at 3.3 TB/s.
constexpr std::int64_t kLaunchBoundPoints = std::int64_t{1} << 21;
constexpr double kAssumedBandwidth = 3.3e12; // bytes/s: an H100/H200-class GPU's copy rate, for the tooltip only

const std::array<std::vector<std::int64_t>, 3> kSides{std::vector<std::int64_t>{1024, 4096, 16384, 65536},
                                                      std::vector<std::int64_t>{64, 128, 256, 512, 1024},
                                                      std::vector<std::int64_t>{16, 32, 48, 64}};

Extent compare_extent(const CompareMemory& m, int dims) {
  const auto& sides = kSides.at(static_cast<std::size_t>(dims - 1));
  const std::int64_t n = sides.at(static_cast<std::size_t>(std::clamp(m.side_choice[static_cast<std::size_t>(dims - 1)], 0,
                                                                       static_cast<int>(sides.size()) - 1)));
  Extent e;
  e.dims = dims;
  for (int d = 0; d < dims; ++d) e.n[d] = n;
  return e;
}

SimulationSetup wanted_setup(const ViewContext& ctx, const CompareMemory& m) {
  SimulationSetup s = simulation_setup(ctx.state);
  s.extent = compare_extent(m, s.stencil.dims);
  s.storage = Precision::FP64; // the reference: exact FP64 steps; each method stores in its own precision
  return s;
}

// The first methods a visitor would want to compare: GPU kernels where there is a device, then the emulations
// of the tensor-core methods, never the reference itself (it is what the errors are measured against). The
// descriptors' compare ranks put families first (low-rank FP64, sparse FP16, dense FP16, FFT), so the default
// panels differ in kind.
std::vector<MethodKey> default_methods(const MethodCatalogue& catalogue, const SimulationSetup& setup, int count) {
  std::vector<const MethodChoice*> order;
  const auto choices = method_choices(catalogue, setup.stencil, setup.extent);
  const auto rank = [](const Method& m) { return m.descriptor->compare_rank; };
  for (const MethodChoice& c : choices) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [&](const MethodChoice* a, const MethodChoice* b) {
    return rank(*a->method) < rank(*b->method);
  });
  // GPU kernels take at most half the panels at first, so the tensor-core emulations are shown beside them.
  std::vector<MethodKey> out;
  const auto take = [&](Backend want, int limit) {
    for (const MethodChoice* c : order) {
      if (static_cast<int>(out.size()) >= limit) return;
      const Method& m = *c->method;
      const bool taken = std::any_of(out.begin(), out.end(), [&](const MethodKey& k) { return k.id == m.id; });
      if (m.backend == want && c->selectable() && !taken && m.id != "cpu-reference") out.push_back(key_of(m));
    }
  };
  take(Backend::GPU, (count + 1) / 2);
  take(Backend::Emulate, count);
  take(Backend::GPU, count);
  return out;
}

// Everything back to step 0 on the same initial grid: the reference and every panel.
void restart_all(CompareMemory& m, const SimulationSetup& setup) {
  m.setup = setup;
  m.message.clear();
  try {
    m.reference.reset(setup);
  } catch (const InputError& e) {
    m.message.set(e.what(), true);
    return;
  }
  for (ComparePanel& p : m.panels) {
    p.problem.clear();
    p.have_error = false;
    p.shown_version = ~std::uint64_t{0};
    try {
      p.simulation.reset(); // frees a GPU panel's device grid before its successor allocates one
      auto sim = std::make_unique<Simulation>(make_method_backend(method_for(m.catalogue->methods, p.key)));
      sim->reset(setup);
      p.simulation = std::move(sim);
    } catch (const InputError& e) {
      p.problem = e.what();
    }
  }
}

void add_panel(CompareMemory& m, const MethodKey& key) {
  ComparePanel p;
  p.key = key;
  m.panels.push_back(std::move(p));
  m.restart = true;
}

// Collects finished background steps of the reference and every panel; true while any still runs.
bool poll_all(CompareMemory& m) {
  m.reference.poll();
  bool busy = m.reference.busy();
  for (ComparePanel& p : m.panels)
    if (p.simulation) {
      p.simulation->poll();
      busy = busy || p.simulation->busy();
    }
  return busy;
}

// Advances every running panel and the reference by the same steps, so each error compares equal step counts.
// A run whose steps went to its worker thread is waited for (frame by frame) before any of them moves on.
void advance_all(CompareMemory& m, int steps) {
  if (!m.message.text.empty() || poll_all(m)) return;
  m.reference.advance(steps);
  for (ComparePanel& p : m.panels)
    if (p.problem.empty() && p.simulation && p.simulation->stopped().empty()) p.simulation->advance(steps);
}

// Refreshes a panel's heat map and error map when its values changed (or the reference moved on).
void refresh_panel(ComparePanel& p, const CompareMemory& m, const ExplorerState& st) {
  if (!p.simulation || !p.problem.empty()) return;
  if (!p.heatmap) p.heatmap = std::make_unique<HeatmapRenderer>();
  if (!p.errormap) p.errormap = std::make_unique<HeatmapRenderer>();
  const Simulation& sim = *p.simulation;
  const Extent& e = sim.setup().extent;
  const std::int64_t z = resolve_z_slice(e, -1);
  const std::uint64_t version = sim.version() * 1000003u + m.reference.version();
  if (version != p.shown_version) {
    p.simulation->show(*p.heatmap, z);
    p.steps_done = sim.steps_done();
    p.profile_x.clear(), p.profile_value.clear();
    if (e.dims == 1) { // the values at every step, the errors where the reference is at the same step
      const auto values = sim.values();
      for (std::size_t i = 0; i < values.size(); i += profile_bin(values.size()))
        p.profile_x.push_back(static_cast<double>(i)), p.profile_value.push_back(values[i]);
    }
    if (sim.steps_done() == m.reference.steps_done()) {
      // The error needs both grids on the host: a GPU panel downloads here (its heat map did not).
      const auto values = sim.values();
      const auto reference = m.reference.values();
      p.error = compare(values, reference);
      std::vector<double> log_error(values.size());
      p.log_error_min = 1e300, p.log_error_max = -1e300;
      for (std::size_t i = 0; i < values.size(); ++i) {
        const double d = std::abs(values[i] - reference[i]);
        if (!std::isfinite(d)) {
          log_error[i] = d; // NaN/Inf: the shader's own colour
          continue;
        }
        log_error[i] = d > 0 ? std::max(std::log10(d), kErrorFloor) : kErrorFloor;
        if (d > 0) p.log_error_min = std::min(p.log_error_min, log_error[i]), p.log_error_max = std::max(p.log_error_max, log_error[i]);
      }
      p.errormap->upload(extract_slice(log_error, e, z, p.errormap->max_side()));
      p.have_error = true;
      p.profile_log_error.clear();
      if (e.dims == 1)
        for (std::size_t i = 0; i < values.size(); i += profile_bin(values.size())) {
          double worst = kErrorFloor;
          for (std::size_t j = i; j < std::min(values.size(), i + profile_bin(values.size())); ++j)
            worst = std::isfinite(log_error[j]) ? std::max(worst, log_error[j]) : log_error[j];
          p.profile_log_error.push_back(worst);
        }
    }
    p.shown_version = version;
  }
  p.heatmap->set_colormap(st.view.colormap);
  p.heatmap->render(static_cast<float>(m.reference.initial_min()), static_cast<float>(m.reference.initial_max()));
}

// One log10 scale for every error map, so equal colours mean equal errors across panels.
std::pair<double, double> shared_error_scale(const CompareMemory& m) {
  double lo = 1e300, hi = -1e300;
  for (const ComparePanel& p : m.panels)
    if (p.have_error && p.log_error_max >= p.log_error_min) lo = std::min(lo, p.log_error_min), hi = std::max(hi, p.log_error_max);
  if (hi < lo) return {kErrorFloor, kErrorFloor + 1};
  lo = std::floor(lo), hi = std::ceil(hi);
  if (hi <= lo) hi = lo + 1;
  return {lo, hi};
}

void draw_colour_bar(ImTextureID lut, ImVec2 at, float width, double lo, double hi, const char* caption) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float h = ui_px(10.0f);
  const float u0 = 0.5f / 256.0f, u1 = 255.5f / 256.0f;
  draw->AddImage(lut, at, ImVec2(at.x + width, at.y + h), ImVec2(u0, 0.5f), ImVec2(u1, 0.5f));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const std::string a = fmt::format("{:.3g}", lo), b = fmt::format("{:.3g}", hi);
  draw->AddText(ImVec2(at.x, at.y + h + 1), text, a.c_str());
  draw->AddText(ImVec2(at.x + width - ImGui::CalcTextSize(b.c_str()).x, at.y + h + 1), text, b.c_str());
  const float cw = ImGui::CalcTextSize(caption).x;
  // The caption between the two numbers where it fits there, else on a line of its own under them (a narrow map at
  // a lecture's font piled "0", "value" and "1" on top of each other, issue 17).
  const float gap = ImGui::CalcTextSize(" ").x;
  const bool between = ImGui::CalcTextSize(a.c_str()).x + cw + ImGui::CalcTextSize(b.c_str()).x + 2.0f * gap <= width;
  const float line = ImGui::GetTextLineHeight();
  draw->AddText(ImVec2(between ? at.x + 0.5f * (width - cw) : at.x, at.y + h + 1 + (between ? 0.0f : line)), text, caption);
  ImGui::Dummy(ImVec2(width, h + (between ? 1.0f : 2.0f) * line + 2));
}

void publish_panel(ViewContext& ctx, const ComparePanel& p, std::size_t index) {
  const Simulation& sim = *p.simulation;
  const std::string key_prefix = fmt::format("compare.panel{}.", index);
  publish(ctx, key_prefix + "method", p.key.label());
  publish(ctx, key_prefix + "gstencils", fmt::format("{:.6g}", sim.gstencils()));
  publish(ctx, key_prefix + "steps", std::to_string(sim.steps_done()));
  publish(ctx, key_prefix + "rel_l2", p.have_error ? fmt::format("{:.6g}", p.error.rel_l2) : "");
  publish(ctx, key_prefix + "frame_path", std::string(to_string(sim.frame_path())));
}

// A 1D panel's values and log10 |error| along x, side by side in the panel's remaining height: the values on the
// reference's initial range, the errors on the scale every panel shares.
void draw_profiles(ExplorerState& st, ComparePanel& p, const CompareMemory& m, std::pair<double, double> scale,
                   const std::string& prefix) {
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size(std::floor((avail.x - gap) / 2.0f), std::max(avail.y - ui_px(2.0f), ui_px(60.0f)));
  auto plot = [&](const char* id, const char* title, const std::vector<double>& y, double lo, double hi, ImU32 color,
                  PlotView& view) {
    XYPlot xy;
    xy.title = title; // and no x label: the title says "along x", the ticks give the points
    xy.x_min = 0, xy.x_max = p.profile_x.empty() ? 1.0 : p.profile_x.back();
    xy.y_min = lo, xy.y_max = hi > lo ? hi : lo + 1;
    PlotSeries line;
    line.color = color;
    line.style = PlotSeries::Style::Line;
    line.x = p.profile_x, line.y = y;
    xy.series.push_back(std::move(line));
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_xy_plot(id, xy, view, size);
    probe_rect(st, prefix + "." + id, at, ImVec2(at.x + size.x, at.y + size.y));
  };
  const double lo = m.reference.initial_min(), hi = m.reference.initial_max();
  plot("heatmap", "value along x", p.profile_value, lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo), IM_COL32(120, 176, 255, 255),
       p.value_view);
  ImGui::SameLine(0, gap);
  // Half a decade under the shared scale's floor: an exact run's line (at kErrorFloor) stays in sight.
  if (p.have_error && p.profile_log_error.size() == p.profile_x.size())
    plot("errormap", p.error.max_abs == 0 ? "error: none" : "log10 |error|", p.profile_log_error,
         scale.first - 0.5, scale.second, IM_COL32(255, 170, 60, 255), p.error_view);
  else
    ImGui::Dummy(size);
}

void draw_panel(ViewContext& ctx, CompareMemory& m, std::size_t index, ImVec2 size, std::pair<double, double> scale,
                std::optional<std::size_t>& remove) {
  ComparePanel& p = m.panels[index];
  ExplorerState& st = ctx.state;
  const std::string prefix = fmt::format("compare.panel{}", index);
  ImGui::BeginChild(prefix.c_str(), size, true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  MethodKey key = p.key;
  const float remove_width = ImGui::CalcTextSize("Remove").x + 2 * ImGui::GetStyle().FramePadding.x;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - remove_width - ImGui::GetStyle().ItemSpacing.x);
  const auto choices = [&]() -> const std::vector<MethodChoice>& {
    return m.choices.get(*m.catalogue, m.setup->stencil, m.setup->extent);
  };
  if (method_combo(st, "##method", prefix + ".method", choices, key)) {
    p.key = key;
    m.restart = true;
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(m.panels.size() <= static_cast<std::size_t>(kMinPanels));
  if (ImGui::Button("Remove")) remove = index;
  ImGui::EndDisabled();
  probe_last_item(st, prefix + ".remove");

  if (!p.problem.empty() || !p.simulation) {
    draw_unsupported(p.key.label().c_str(), p.problem.empty() ? m.message.text : p.problem);
    ImGui::EndChild();
    return;
  }
  const Simulation& sim = *p.simulation;
  ImGui::SetWindowFontScale(1.25f);
  // Three decimals, or two significant digits below 0.01 (box-2d225p's emulations printed "0.000", issue 17).
  const double rate = sim.gstencils();
  ImGui::Text(rate > 0.0 && rate < 0.01 ? "%.2g GStencil/s" : "%.3f GStencil/s", rate);
  ImGui::SetWindowFontScale(1.0f);
  ImGui::SameLine();
  const Extent& grid = sim.setup().extent;
  if (p.key.backend == Backend::GPU && grid.points() < kLaunchBoundPoints && sim.gstencils() > 0) {
    // Honest small-grid numbers: say that this one measures launches, not the method.
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.78f, 0.4f, 1.0f), "launch-bound");
    probe_last_item(st, prefix + ".launch_bound");
    if (ImGui::IsItemHovered()) {
      const double bytes = 2.0 * static_cast<double>(grid.points()) * static_cast<double>(bytes_per_value(method_for(m.catalogue->methods, p.key).precision));
      ImGui::SetTooltip("%s has %lld points: a step reads and writes about %.2f MB, %.2f µs at %.1f TB/s, while it\n"
                        "took %.1f µs here. Launching the kernel and waiting for it cost more than the work, so\n"
                        "this number says little about the method. \"Time at paper size\" above times it on the\n"
                        "papers' grid; the Performance view sweeps sizes.",
                        grid.to_string().c_str(), static_cast<long long>(grid.points()), bytes / 1e6,
                        bytes / kAssumedBandwidth * 1e6, kAssumedBandwidth / 1e12,
                        static_cast<double>(grid.points()) / (sim.gstencils() * 1e9) * 1e6);
    }
  } else if (p.key.backend != Backend::GPU && ImGui::IsItemHovered()) {
    ImGui::SetTooltip(p.key.backend == Backend::Emulate
                          ? "The emulation's speed on this CPU: it follows the tensor-core fragments one by one, so it\n"
                            "says how fast the emulation is, not how fast the method runs on a GPU."
                          : "The CPU's speed on this grid.");
  }
  ImGui::SameLine();
  ImGui::TextDisabled("  %s, step %lld", std::string(to_string(sim.arithmetic())).c_str(),
                      static_cast<long long>(sim.steps_done()));
  if (m.paper_job && m.paper_stencil == m.setup->stencil.name)
    for (const BenchmarkRecord& r : m.paper_job->records())
      if (r.key() == p.key && r.extent == m.paper_extent) {
        ImGui::Text("at %s: %.2f GStencil/s", r.extent.to_string().c_str(), r.gstencils);
        ImGui::SameLine();
        // Where the timed run's bound was too loose, a shorter run from the same input was checked: say so.
        const std::string check_run =
            r.checked_steps == r.steps ? "" : fmt::format(" on a {}-step check run", r.checked_steps);
        if (r.passed)
          ImGui::TextDisabled("%d steps, rel L2 %.1e (checked%s)", r.steps, r.timed_rel_l2, check_run.c_str());
        else
          ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "rel L2 %.1e: FAILED the check%s (bound %.1e)", r.rel_l2,
                             check_run.c_str(), r.bound);
        probe_last_item(st, prefix + ".paper");
        publish(ctx, prefix + ".paper_gstencils", fmt::format("{:.6g}", r.gstencils));
      }
  if (p.have_error)
    ImGui::Text("rel L2 %.2e   max |err| %.2e%s", p.error.rel_l2, p.error.max_abs, p.error.finite ? "" : "   NaN/Inf!");
  else
    ImGui::TextDisabled("error: waiting for the reference");

  // The grid and its error side by side, as large as the panel allows, square points; a 1D grid as two line plots.
  const Extent& e = sim.setup().extent;
  if (e.dims == 1) {
    draw_profiles(st, p, m, scale, prefix);
    if (!sim.stopped().empty()) draw_message(UiMessage{fmt::format("Stopped: {}", sim.stopped()), true});
    ImGui::EndChild();
    publish_panel(ctx, p, index);
    return;
  }
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float avail_w = (ImGui::GetContentRegionAvail().x - gap) * 0.5f;
  const float aspect = e.dims == 1 ? 8.0f : static_cast<float>(e.n[0]) / static_cast<float>(e.n[1]);
  // The colour bars with their numbers, and a line more for the caption where a bar is too narrow to hold it
  // between its numbers (draw_colour_bar).
  const float wide_bar = ImGui::CalcTextSize("-17 log10 |error| -3").x + 2.0f * ImGui::CalcTextSize(" ").x;
  float w = 0, h = 0;
  // The "texture:" line only where the maps keep 6 lines of height without it (else its words go to the maps'
  // tooltips): a short panel's maps need that line more (issue 17).
  const float texture_line = ImGui::GetTextLineHeightWithSpacing();
  const bool texture_shown = ImGui::GetContentRegionAvail().y - 2.0f * texture_line - ui_px(18.0f) - texture_line >=
                             6.0f * texture_line;
  for (const float lines : {1.0f, 2.0f}) {
    const float bar = ui_px(10.0f) + lines * ImGui::GetTextLineHeight() + ui_px(8.0f);
    const float avail_h = ImGui::GetContentRegionAvail().y - bar - (texture_shown ? texture_line : 0.0f);
    w = avail_w, h = w / aspect;
    // A thin strip rather than colour bars pushed out of the panel where the height is short (issue 17).
    if (h > avail_h) h = std::max(avail_h, ui_px(6.0f)), w = h * aspect;
    if (w >= wide_bar) break;
  }
  const ImVec2 at = ImGui::GetCursorScreenPos();
  if (p.heatmap) {
    ImGui::Image(texture_id(p.heatmap->image_texture()), ImVec2(w, h), ImVec2(0, 1), ImVec2(1, 0));
    probe_last_item(st, prefix + ".heatmap");
    if (!texture_shown && ImGui::IsItemHovered())
      ImGui::SetTooltip("texture: %s", std::string(to_string(sim.frame_path())).c_str());
  }
  ImGui::SameLine();
  if (p.errormap && p.have_error) {
    ImGui::Image(texture_id(p.errormap->image_texture()), ImVec2(w, h), ImVec2(0, 1), ImVec2(1, 0));
    probe_last_item(st, prefix + ".errormap");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("log10 |%s - FP64 reference| per point", p.key.id.c_str());
  } else {
    ImGui::Dummy(ImVec2(w, h));
  }
  if (p.heatmap) {
    ImGui::SetCursorScreenPos(ImVec2(at.x, at.y + h + 4));
    draw_colour_bar(texture_id(p.heatmap->colormap_texture()), ImGui::GetCursorScreenPos(), w, m.reference.initial_min(),
                    m.reference.initial_max(), "value");
    ImGui::SetCursorScreenPos(ImVec2(at.x + w + gap, at.y + h + 4));
    if (p.errormap) draw_colour_bar(texture_id(p.errormap->colormap_texture()), ImGui::GetCursorScreenPos(), w, scale.first,
                                    scale.second, "log10 |error|");
  }
  if (texture_shown) ImGui::TextDisabled("texture: %s", std::string(to_string(sim.frame_path())).c_str());
  if (!sim.stopped().empty()) draw_message(UiMessage{fmt::format("Stopped: {}", sim.stopped()), true});
  ImGui::EndChild();
  publish_panel(ctx, p, index);
}

// "Time at paper size": the GPU panels' methods on the papers' grid, each timed for about a second and checked
// against the FP64 reference, in the background; the results appear in their panels.
void draw_paper_timing(ViewContext& ctx, CompareMemory& m) {
  ExplorerState& st = ctx.state;
  std::vector<MethodKey> gpu;
  for (const ComparePanel& p : m.panels)
    if (p.key.backend == Backend::GPU && p.problem.empty()) gpu.push_back(p.key);
  const bool running = m.paper_job && m.paper_job->running();
  const Extent paper = paper_extent(m.setup->stencil.dims);
  if (running) {
    if (ImGui::Button("Cancel timing")) m.paper_job->cancel();
    probe_last_item(st, "compare.paper_time");
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(m.paper_job->progress()), ImVec2(ui_px(160.0f), 0));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m.paper_job->status().c_str());
  } else {
    ImGui::BeginDisabled(gpu.empty());
    const bool start = ImGui::Button("Time at paper size");
    ImGui::EndDisabled();
    probe_last_item(st, "compare.paper_time");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(gpu.empty() ? "Only GPU panels are timed at the papers' size: an emulation follows every fragment\n"
                                      "on the CPU and would take minutes there."
                                    : "Times the %zu GPU panel(s) on %s (the papers' grid) for about a second each, checks\n"
                                      "them against the FP64 reference, and shows the GStencil/s in the panels. The\n"
                                      "panels keep drawing their small grid.",
                        gpu.size(), paper.to_string().c_str());
    if (start) {
      m.paper_message.clear();
      try {
        SweepRequest q;
        q.stencil = m.setup->stencil;
        q.methods = gpu;
        q.sizes = {paper};
        q.boundary = m.setup->boundary;
        q.seconds_per_run = 1.0;
        q.max_step_seconds = 5.0;
        auto job = std::make_unique<BenchmarkJob>();
        job->start(fmt::format("timing {} method(s) at {}", gpu.size(), paper.to_string()), sweep_task(m.catalogue->methods, q));
        m.paper_job = std::move(job);
        m.paper_extent = paper;
        m.paper_stencil = q.stencil.name;
      } catch (const InputError& e) {
        m.paper_message.set(e.what(), true);
      }
    }
    if (m.paper_job && !m.paper_job->status().empty() && m.paper_job->record_count() == 0) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", m.paper_job->status().c_str());
    }
  }
  draw_message(m.paper_message);
}

void draw_controls(ViewContext& ctx, CompareMemory& m) {
  ExplorerState& st = ctx.state;
  if (ImGui::Button(m.playing ? "Pause" : "Play")) m.playing = !m.playing;
  probe_last_item(st, "compare.play");
  ImGui::SameLine();
  if (ImGui::Button("Step")) advance_all(m, 1);
  probe_last_item(st, "compare.step");
  ImGui::SameLine();
  if (ImGui::Button("Restart")) m.restart = true;
  probe_last_item(st, "compare.restart");
  ImGui::SameLine();
  ImGui::BeginDisabled(m.panels.size() >= static_cast<std::size_t>(kMaxPanels));
  if (ImGui::Button("Add method")) {
    // The next method of the default order that is not shown yet.
    for (const MethodKey& k : default_methods(*m.catalogue, *m.setup, 64))
      if (std::none_of(m.panels.begin(), m.panels.end(), [&](const ComparePanel& p) { return p.key.id == k.id; })) {
        add_panel(m, k);
        break;
      }
  }
  ImGui::EndDisabled();
  probe_last_item(st, "compare.add");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ui_px(110.0f));
  ImGui::SliderInt("steps/frame", &m.steps_per_frame, 1, 64, "%d", ImGuiSliderFlags_Logarithmic);
  m.steps_per_frame = std::clamp(m.steps_per_frame, 1, 64);
  const int dims = m.setup->stencil.dims;
  int& choice = m.side_choice[static_cast<std::size_t>(dims - 1)];
  const std::string preview = compare_extent(m, dims).to_string();
  const float size_width = ImGui::CalcTextSize("65536x65536").x + ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().FramePadding.x;
  same_line_if_fits(size_width + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("grid").x);
  ImGui::SetNextItemWidth(size_width);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  probe_rect(st, "compare.size", at, ImVec2(at.x + size_width, at.y + ImGui::GetFrameHeight()));
  if (ImGui::BeginCombo("grid", preview.c_str())) {
    const auto& sides = kSides.at(static_cast<std::size_t>(dims - 1));
    for (int i = 0; i < static_cast<int>(sides.size()); ++i) {
      Extent e = compare_extent(m, dims);
      for (int d = 0; d < dims; ++d) e.n[d] = sides[static_cast<std::size_t>(i)];
      if (ImGui::Selectable(e.to_string().c_str(), i == choice) && i != choice) {
        choice = i;
        m.restart = true;
      }
      probe_last_item(st, "compare.size." + e.to_string());
    }
    ImGui::EndCombo();
  }
  // On the next line where the row has no room left (a lecture's font at 1280x720, issue 17).
  same_line_if_fits(ImGui::CalcTextSize("Time at paper size").x + 2.0f * ImGui::GetStyle().FramePadding.x);
  draw_paper_timing(ctx, m);
  // Wrapped, not cut, where the window is narrow (a lecture's font at 1280x720, issue 17).
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  // A 3D grid's maps show one plane: which (the panels' maps said nothing of the other 31, issue 17).
  const Extent& e = m.setup->extent;
  const std::string plane =
      e.dims == 3 ? fmt::format("; maps: plane z = {} of {}", resolve_z_slice(e, -1), e.n[2]) : std::string();
  // "FP64 reference on the CPU", not "FP64 reference CPU reference (FP64 arithmetic)" (the backend's own name).
  const std::string backend = m.reference.backend_name();
  const std::string ref_where = backend.rfind("CPU reference", 0) == 0 ? "on the CPU" : "by " + backend;
  ImGui::TextWrapped("%s from the %s initial grid, FP64 reference %s, step %lld%s", m.setup->stencil.name.c_str(),
                     std::string(to_string(m.setup->initial)).c_str(), ref_where.c_str(),
                     static_cast<long long>(m.reference.steps_done()), plane.c_str());
  ImGui::PopStyleColor();
  probe_last_item(ctx.state, "compare.header");
  publish(ctx, "compare.maps", e.dims == 1 ? "profiles along x" : e.dims == 3 ? plane.substr(std::string("; maps: ").size()) : "the grid");
  draw_message(m.message);
}

} // namespace

void draw_compare_window(ViewContext& ctx) {
  auto& m = ctx.memory.get<CompareMemory>(kView);
  if (!m.catalogue) m.catalogue = load_method_catalogue();
  const SimulationSetup want = wanted_setup(ctx, m);
  if (m.panels.empty())
    for (const MethodKey& k : default_methods(*m.catalogue, want, kMaxPanels)) add_panel(m, k);
  // A changed stencil, grid or method restarts everything: the comparison is of equal steps from one grid.
  if (!m.setup || !(*m.setup == want) || m.restart) {
    m.restart = false;
    restart_all(m, want);
  }
  if (m.playing) advance_all(m, m.steps_per_frame);
  else poll_all(m); // a Step that went to a worker thread lands here
  // Headless frames are reproducible: every panel at the reference's step (a recorded tour showed flashfft a step
  // behind, 'waiting for the reference', its error plot missing, issue 17).
  if (ctx.finish_background_work) {
    m.reference.finish();
    for (ComparePanel& p : m.panels)
      if (p.simulation) p.simulation->finish();
  }
  for (ComparePanel& p : m.panels) refresh_panel(p, m, ctx.state);
  const auto scale = shared_error_scale(m);
  for (ComparePanel& p : m.panels)
    if (p.errormap && p.have_error) {
      p.errormap->set_colormap(Colormap::Inferno);
      p.errormap->render(static_cast<float>(scale.first), static_cast<float>(scale.second));
    }

  const bool expanded = begin_view_window(ctx, kView, "Runs side by side");
  if (expanded) {
    draw_controls(ctx, m);
    const std::size_t n = m.panels.size();
    const ImVec2 spacing = ImGui::GetStyle().ItemSpacing;
    // Where two rows of panels would leave each map a sliver (a lecture's font at 1280x720: maps a few pixels tall
    // under colour bars whose labels piled up), one row of two panels at a time, the pair chosen above (issue 17).
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const bool paged = n > 2 && (ImGui::GetContentRegionAvail().y - spacing.y) / 2.0f < 9.0f * line;
    std::size_t first = 0, last = n;
    if (paged) {
      const int pairs = static_cast<int>((n + 1) / 2);
      m.pair = std::clamp(m.pair, 0, pairs - 1);
      ImGui::AlignTextToFramePadding();
      ImGui::TextDisabled("Panels");
      for (int q = 0; q < pairs; ++q) {
        ImGui::SameLine();
        const std::size_t a = static_cast<std::size_t>(2 * q), b = std::min(n, a + 2);
        std::string label;
        for (std::size_t i = a; i < b; ++i) label += (i == a ? "" : " + ") + m.panels[i].key.id;
        ImGui::RadioButton(fmt::format("{}##pair{}", label, q).c_str(), &m.pair, q);
        probe_last_item(ctx.state, fmt::format("compare.pair.{}", q));
      }
      first = static_cast<std::size_t>(2 * m.pair);
      last = std::min(n, first + 2);
    }
    const std::size_t shown = last - first;
    const int columns = shown <= 2 ? static_cast<int>(shown) : 2, rows = shown <= 2 ? 1 : 2;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 size((avail.x - spacing.x * (columns - 1)) / columns, (avail.y - spacing.y * (rows - 1)) / rows);
    std::optional<std::size_t> remove;
    for (std::size_t i = first; i < last; ++i) {
      if ((i - first) % static_cast<std::size_t>(columns) != 0) ImGui::SameLine();
      draw_panel(ctx, m, i, size, scale, remove);
    }
    if (remove) {
      m.panels.erase(m.panels.begin() + static_cast<std::ptrdiff_t>(*remove));
      m.restart = true;
    }
  }
  ImGui::End();
  publish(ctx, "compare.panels", std::to_string(m.panels.size()));
  publish(ctx, "compare.reference_steps", std::to_string(m.reference.steps_done()));
}

} // namespace se
