// The Performance view: GStencil/s per method for the current stencil, scaling over grid size, a roofline (the
// device's measured bandwidth and compute roofs, each method's cost-model point and measured point), and
// accuracy against speed. Sweeps run in the background (progress bar, cancel); recorded GPU results from
// assets/results/*.json are shown beside this machine's, labelled with their GPU; plots export to PNG, data to
// CSV and JSON.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>
#include <nlohmann/json.hpp>

#include "app/sim/benchmark_job.hpp"
#include "app/widgets/method_picker.hpp"
#include "app/widgets/plot_widgets.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "app/views/performance_tsweep.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace se {
namespace {

constexpr const char* kView = "performance";
constexpr double kErrorFloor = 1e-17; // exact results (error 0) sit on this line of the log axis

struct PlotData {
  std::vector<BenchmarkRecord> here;     // this machine, the current stencil
  std::vector<BenchmarkRecord> recorded; // recorded files, the papers' experiment for this stencil
  std::vector<BenchmarkRecord> recorded_sweep;
};

struct PerformanceMemory {
  int single_plot = 0; // the plot shown where the window is too small for all four (0 bars ... 3 accuracy)
  std::optional<MethodCatalogue> catalogue;
  MethodChoiceCache choices;
  std::vector<char> selected; // per catalogue method
  BenchmarkJob job;
  std::optional<Stencil> measured_for; // the stencil job.records() belong to
  bool auto_started = false;
  std::future<RooflineCeilings> ceilings_future;
  std::optional<RooflineCeilings> local_ceilings;
  std::string ceilings_problem;
  bool results_loaded = false;
  std::optional<std::filesystem::path> results_dir;
  std::vector<RecordedResults> recorded;
  std::vector<std::string> recorded_problems;
  int roofs_choice = 0; // 0: this machine; i + 1: recorded[i]
  bool show_recorded = true;
  PlotView bars, scaling, roofline, accuracy;
  std::string export_dir = "stencil-explorer-export";
  UiMessage message;
  std::vector<std::string> exported_pngs; // requested in the last export, reported once written
  bool show_plots_tab = false;
  // What the plots show, rebuilt only when its inputs change (costs come from core's plans: not per frame).
  struct Derived {
    std::uint64_t records_version = ~std::uint64_t{0};
    Stencil stencil;
    int roofs_choice = -1;
    bool show_recorded = false, have_local_ceilings = false;
    PlotData data;
    std::vector<RooflinePoint> points;
    BarChart bars;
    XYPlot scaling, roofline, accuracy;
  } derived;
};

// The colour of a method, the same in every plot: by its position in the registry.
ImU32 method_color(const MethodCatalogue& c, const std::string& id) {
  std::vector<std::string> ids;
  for (const Method& m : c.methods)
    if (std::find(ids.begin(), ids.end(), m.id) == ids.end()) ids.push_back(m.id);
  const auto it = std::find(ids.begin(), ids.end(), id);
  return series_color(it == ids.end() ? static_cast<int>(std::hash<std::string>{}(id) % 7) : static_cast<int>(it - ids.begin()));
}

ImU32 faded(ImU32 c) { return (c & 0x00FFFFFFu) | (static_cast<ImU32>(150) << IM_COL32_A_SHIFT); }

// "NVIDIA H200" -> "H200"; "AMD EPYC (CPU, 2 threads, AVX-512)" -> "AMD EPYC" (cut at 18 characters, it read
// "AMD EPYC (CPU, 2 t" under its bar and in the legends, issue 17; the tooltips name the whole machine).
std::string short_gpu(const std::string& gpu) {
  std::string s = gpu.substr(0, gpu.find(" ("));
  for (const char* prefix : {"NVIDIA ", "Tesla "})
    if (s.rfind(prefix, 0) == 0) s.erase(0, std::string(prefix).size());
  if (s.size() > 18) s = s.substr(0, s.rfind(' ', 18) == std::string::npos ? 18 : s.rfind(' ', 18));
  return s;
}

// "NVIDIA H200 (recorded, NVIDIA_H200.json)" -> "H200"; a backend other than the GPU is named too.
// The GPU a recorded result was measured on, in short ("H200").
std::string recorded_device(const BenchmarkRecord& r) { return short_gpu(r.source.substr(0, r.source.find(" (recorded"))); }

std::string recorded_label(const BenchmarkRecord& r) {
  const std::string device = recorded_device(r);
  return r.backend == Backend::GPU ? fmt::format("{} {}", r.method, device)
                                   : fmt::format("{} {} {}", r.method, r.backend == Backend::Emulate ? "emu" : "cpu", device);
}

// The check: on the timed run, or on a shorter check run from the same input where the timed run's bound was too
// loose to tell (then both).
std::string check_text(const BenchmarkRecord& r) {
  const char* verdict = r.passed ? "passed" : "FAILED";
  if (r.checked_steps == r.steps) return fmt::format("rel L2 {:.3g} (bound {:.1g}): {}", r.rel_l2, r.bound, verdict);
  return fmt::format("rel L2 {:.3g} (bound {:.1g}, too loose to check)\ncheck run of {} steps: rel L2 {:.3g} "
                     "(bound {:.1g}): {}",
                     r.timed_rel_l2, r.timed_bound, r.checked_steps, r.rel_l2, r.bound, verdict);
}

std::string record_hover(const BenchmarkRecord& r) {
  return fmt::format("{} ({}, {})\n{} on {}, {} steps{}\n{:.4g} GStencil/s\n{}\n{}", r.method, to_string(r.backend),
                     to_string(r.precision), r.stencil, r.extent.to_string(), r.steps,
                     r.fused_steps > 1 ? fmt::format(" ({} per launch)", r.fused_steps) : "", r.gstencils, check_text(r),
                     r.source);
}

// Recorded results are for a preset; they describe the current stencil only if it is that preset, unedited.
std::vector<BenchmarkRecord> recorded_for(const RecordedResults& file, const Stencil& s, const std::string& experiment) {
  std::vector<BenchmarkRecord> out;
  const auto& names = preset_names();
  if (std::find(names.begin(), names.end(), s.name) == names.end() || !(preset(s.name) == s)) return out;
  for (std::size_t i = 0; i < file.records.size(); ++i)
    if (file.records[i].stencil == s.name && file.experiments[i] == experiment) out.push_back(file.records[i]);
  return out;
}

std::vector<MethodKey> selected_methods(const PerformanceMemory& m) {
  std::vector<MethodKey> out;
  for (std::size_t i = 0; i < m.catalogue->methods.size(); ++i)
    if (m.selected[i]) out.push_back(key_of(m.catalogue->methods[i]));
  return out;
}

void start_sweep(ViewContext& ctx, PerformanceMemory& m, bool quick) {
  try {
    SweepRequest q;
    q.stencil = ctx.state.stencil;
    q.methods = selected_methods(m);
    q.sizes = sweep_sizes(q.stencil.dims, quick, m.catalogue->gpu_unavailable.empty());
    q.boundary = ctx.state.grid.boundary;
    q.seconds_per_run = quick ? 0.03 : 0.25;
    q.max_step_seconds = quick ? 0.5 : 2.0;
    // Methods that cannot take this stencil at every size are left out now, not reported as skips later.
    std::erase_if(q.methods, [&](const MethodKey& k) {
      const Method& method = method_for(m.catalogue->methods, k);
      return !method.unavailable_reason().empty() || !method.unsupported_reason(q.stencil, q.sizes.front()).empty();
    });
    auto task = sweep_task(m.catalogue->methods, q);
    if (!m.measured_for || !(*m.measured_for == q.stencil)) m.job.clear_records();
    m.measured_for = q.stencil;
    m.job.start(quick ? "quick sweep" : "sweep", std::move(task));
    m.message.clear();
  } catch (const InputError& e) {
    m.message.set(e.what(), true);
  }
}

void start_ceilings(PerformanceMemory& m) {
  const bool gpu = m.catalogue->gpu_unavailable.empty();
  m.ceilings_future = std::async(std::launch::async, [gpu] { return gpu ? measure_gpu_ceilings() : measure_cpu_ceilings(); });
}

void poll_ceilings(PerformanceMemory& m, bool wait) {
  if (!m.ceilings_future.valid()) return;
  if (!wait && m.ceilings_future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  try {
    m.local_ceilings = m.ceilings_future.get();
  } catch (const std::exception& e) {
    m.ceilings_problem = e.what();
  }
}

const RooflineCeilings* chosen_ceilings(const PerformanceMemory& m) {
  if (m.roofs_choice > 0 && m.roofs_choice <= static_cast<int>(m.recorded.size())) {
    const RooflineCeilings& c = m.recorded[static_cast<std::size_t>(m.roofs_choice - 1)].ceilings;
    return c.empty() ? nullptr : &c;
  }
  return m.local_ceilings ? &*m.local_ceilings : nullptr;
}

void draw_method_selection(ViewContext& ctx, PerformanceMemory& m) {
  const auto& choices = m.choices.get(*m.catalogue, ctx.state.stencil, ctx.state.extent());
  int count = 0;
  for (char s : m.selected) count += s ? 1 : 0;
  if (ImGui::Button(fmt::format("Methods ({})", count).c_str())) ImGui::OpenPopup("performance.methods.popup");
  probe_last_item(ctx.state, "performance.methods");
  if (ImGui::BeginPopup("performance.methods.popup")) {
    for (std::size_t i = 0; i < choices.size(); ++i) {
      const MethodChoice& c = choices[i];
      bool on = m.selected[i] != 0;
      ImGui::BeginDisabled(!c.unavailable.empty());
      if (ImGui::Checkbox(key_of(*c.method).label().c_str(), &on)) m.selected[i] = on ? 1 : 0;
      ImGui::EndDisabled();
      probe_last_item(ctx.state, "performance.method." + key_of(*c.method).probe_name());
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", !c.unavailable.empty() ? c.unavailable.c_str()
                                : !c.unsupported.empty() ? ("cannot take this stencil: " + c.unsupported).c_str()
                                                         : c.method->description.c_str());
    }
    ImGui::EndPopup();
  }
}

void draw_run_row(ViewContext& ctx, PerformanceMemory& m) {
  ExplorerState& st = ctx.state;
  draw_method_selection(ctx, m);
  ImGui::SameLine();
  const bool running = m.job.running();
  ImGui::BeginDisabled(running);
  if (ImGui::Button("Quick sweep")) start_sweep(ctx, m, true);
  probe_last_item(st, "performance.quick_sweep");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("three small grids, a few seconds");
  ImGui::SameLine();
  if (ImGui::Button("Full sweep")) start_sweep(ctx, m, false);
  probe_last_item(st, "performance.full_sweep");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("grids up to 4096^2 on a GPU (1024^2 on a CPU), every run checked against FP64");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!running);
  if (ImGui::Button("Cancel")) m.job.cancel();
  probe_last_item(st, "performance.cancel");
  ImGui::EndDisabled();
  ImGui::SameLine();
  const std::string status = m.job.status();
  ImGui::ProgressBar(static_cast<float>(m.job.progress()), ImVec2(-1, 0), status.empty() ? "no sweep yet" : status.c_str());
  probe_last_item(st, "performance.progress");

  // Roofs: this machine's (measured now) or those recorded with a results file.
  const float combo_w = std::min(ui_px(360.0f), ImGui::GetContentRegionAvail().x * 0.45f);
  std::string roofs_label = "this machine: ";
  roofs_label += m.local_ceilings ? m.local_ceilings->device
                                  : (m.ceilings_problem.empty() ? std::string("measuring...") : m.ceilings_problem);
  std::vector<std::string> options{roofs_label};
  for (const auto& r : m.recorded) options.push_back(fmt::format("{} (recorded, {})", r.gpu, r.path.filename().string()));
  m.roofs_choice = std::clamp(m.roofs_choice, 0, static_cast<int>(options.size()) - 1);
  ImGui::SetNextItemWidth(combo_w);
  if (ImGui::BeginCombo("roofs", options[static_cast<std::size_t>(m.roofs_choice)].c_str())) {
    for (int i = 0; i < static_cast<int>(options.size()); ++i)
      if (ImGui::Selectable(options[static_cast<std::size_t>(i)].c_str(), i == m.roofs_choice)) m.roofs_choice = i;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::Checkbox("recorded GPU results", &m.show_recorded);
  probe_last_item(st, "performance.show_recorded");
  if (ImGui::IsItemHovered()) {
    std::string files = m.results_dir ? "from " + m.results_dir->string() + ":" : std::string("no assets/results folder found");
    for (const auto& r : m.recorded) files += fmt::format("\n  {}: {} ({} results)", r.path.filename().string(), r.gpu, r.records.size());
    for (const auto& p : m.recorded_problems) files += "\n  not read: " + p;
    ImGui::SetTooltip("%s", files.c_str());
  }
  draw_message(m.message);
}

BarChart throughput_bars(const PerformanceMemory& m, const PlotData& d, const Stencil& s) {
  BarChart chart;
  chart.title = fmt::format("GStencil/s per method, {}", s.name);
  chart.value_label = "GStencil/s";
  chart.scale = AxisScale::Log;
  // This machine: each method at the largest grid it was measured on.
  std::map<std::string, const BenchmarkRecord*> best;
  for (const auto& r : d.here) {
    const BenchmarkRecord*& b = best[r.key().label()];
    if (b == nullptr || r.extent.points() > b->extent.points()) b = &r;
  }
  for (const Method& method : m.catalogue->methods) { // registry order, so bars keep their places
    const auto it = best.find(key_of(method).label());
    if (it == best.end()) continue;
    const BenchmarkRecord& r = *it->second;
    // The method's name, and "gpu" where the same method also runs emulated here; the machine is the group's name.
    chart.labels.push_back(r.backend == Backend::GPU ? r.method + " gpu" : r.method);
    chart.groups.push_back("this machine");
    chart.values.push_back(r.gstencils);
    chart.colors.push_back(method_color(*m.catalogue, r.method));
    chart.hover.push_back(record_hover(r));
  }
  for (const auto& r : d.recorded) {
    // "emu" where the GPU method ran emulated on its machine's CPU; a CPU method's group names its CPU already.
    chart.labels.push_back(r.backend == Backend::Emulate ? r.method + " emu" : r.method);
    chart.groups.push_back(recorded_device(r) + ", recorded");
    chart.values.push_back(r.gstencils);
    chart.colors.push_back(faded(method_color(*m.catalogue, r.method)));
    chart.hover.push_back(record_hover(r));
  }
  return chart;
}

XYPlot scaling_plot(const PerformanceMemory& m, const PlotData& d, const Stencil& s) {
  XYPlot p = log_log_plot(fmt::format("Scaling over grid size, {}", s.name), "grid points", "GStencil/s");
  const auto add = [&](const BenchmarkRecord& r, const std::string& name, PlotSeries::Style style, ImU32 color) {
    PlotSeries& series = p.series_for(name, PlotSeries{name, color, style, false, {}, {}, {}});
    series.x.push_back(static_cast<double>(r.extent.points()));
    series.y.push_back(r.gstencils);
    series.hover.push_back(record_hover(r));
  };
  for (const auto& r : d.here) add(r, r.key().label(), PlotSeries::Style::LineAndPoints, method_color(*m.catalogue, r.method));
  for (const auto& r : d.recorded_sweep)
    add(r, recorded_label(r), PlotSeries::Style::DashedLine, faded(method_color(*m.catalogue, r.method)));
  for (auto& series : p.series) { // lines run left to right
    std::vector<std::size_t> order(series.x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return series.x[a] < series.x[b]; });
    PlotSeries sorted = series;
    for (std::size_t i = 0; i < order.size(); ++i)
      sorted.x[i] = series.x[order[i]], sorted.y[i] = series.y[order[i]], sorted.hover[i] = series.hover[order[i]];
    series = std::move(sorted);
  }
  return p;
}

XYPlot roofline_plot(const PerformanceMemory& m, const std::vector<RooflinePoint>& points, const RooflineCeilings* c,
                     const Stencil& s) {
  XYPlot p = log_log_plot(
      fmt::format("Roofline, {}{}", s.name, c != nullptr ? fmt::format(", roofs of {} ({})", c->device, c->source) : ""),
      "FLOP/byte (executed FLOPs per device-memory byte)", "FLOP/s");
  double x0 = 0.05, x1 = 50;
  for (const auto& pt : points) x0 = std::min(x0, pt.intensity / 3), x1 = std::max(x1, pt.intensity * 3);
  if (c != nullptr) {
    double peak = 0;
    for (const auto& r : c->compute) peak = std::max(peak, r.tflops * 1e12);
    const double bw = c->bandwidth_gbs * 1e9;
    if (peak > 0) x1 = std::max(x1, 3 * peak / bw);
    PlotSeries memory;
    memory.name = fmt::format("memory {:.0f} GB/s", c->bandwidth_gbs);
    memory.color = IM_COL32(235, 235, 235, 255);
    memory.style = PlotSeries::Style::Line;
    const double top = peak > 0 ? peak : bw * x1;
    memory.x = {x0, std::min(x1, top / bw)};
    memory.y = {bw * memory.x[0], bw * memory.x[1]};
    p.series.push_back(memory);
    int k = 0;
    for (const auto& r : c->compute) {
      PlotSeries roof;
      roof.name = r.tflops >= 1 ? fmt::format("{} {:.1f} TFLOP/s", r.name, r.tflops)
                                : fmt::format("{} {:.1f} GFLOP/s", r.name, r.tflops * 1e3);
      roof.color = IM_COL32(190 - 25 * (k % 4), 190 - 25 * (k % 4), 200, 255);
      roof.style = PlotSeries::Style::DashedLine;
      const double ridge = r.tflops * 1e12 / bw;
      roof.x = {std::max(ridge, x0), x1};
      roof.y = {r.tflops * 1e12, r.tflops * 1e12};
      p.series.push_back(roof);
      ++k;
    }
  }
  p.x_min = x0;
  p.x_max = x1;
  // What the two marker kinds mean, once for all methods (legend entries without points).
  const ImU32 key_color = IM_COL32(200, 204, 212, 255);
  p.series.push_back(PlotSeries{"cost model (hollow)", key_color, PlotSeries::Style::Points, true, {}, {}, {}});
  p.series.push_back(PlotSeries{"measured (filled)", key_color, PlotSeries::Style::Points, false, {}, {}, {}});
  for (const auto& pt : points) {
    // Model points (hollow) share the legend entry of their method's measurements.
    PlotSeries& series = p.series_for(pt.method.label() + (pt.measured ? "" : " model"),
                                      PlotSeries{pt.measured ? pt.method.label() : "", method_color(*m.catalogue, pt.method.id),
                                                 PlotSeries::Style::Points, !pt.measured, {}, {}, {}});
    series.x.push_back(pt.intensity);
    series.y.push_back(pt.flops);
    series.hover.push_back(fmt::format("{} {}\n{:.3g} FLOP/byte\n{:.4g} GFLOP/s = {:.4g} GStencil/s\n{}\n{}", pt.method.label(),
                                       pt.measured ? "measured" : "cost model (hollow)", pt.intensity, pt.flops / 1e9,
                                       pt.gstencils, pt.note, pt.source));
  }
  return p;
}

XYPlot accuracy_plot(const PerformanceMemory& m, const PlotData& d, const Stencil& s) {
  XYPlot p = log_log_plot(fmt::format("Accuracy against speed, {}", s.name), "GStencil/s", "relative L2 error vs FP64");
  // The timed run's error: the accuracy of the run the speed was measured on (a check run, where there was one,
  // is in the hover).
  const auto add = [&](const BenchmarkRecord& r, bool recorded) {
    if (!std::isfinite(r.timed_rel_l2)) return;
    const std::string name = recorded ? recorded_label(r) : r.key().label();
    const ImU32 color = recorded ? faded(method_color(*m.catalogue, r.method)) : method_color(*m.catalogue, r.method);
    PlotSeries& series = p.series_for(name, PlotSeries{name, color, PlotSeries::Style::Points, recorded, {}, {}, {}});
    series.x.push_back(r.gstencils);
    series.y.push_back(std::max(r.timed_rel_l2, kErrorFloor));
    series.hover.push_back(record_hover(r) +
                           (r.timed_rel_l2 < kErrorFloor ? "\n(error below 1e-17 drawn at 1e-17)" : ""));
  };
  for (const auto& r : d.here) add(r, false);
  for (const auto& r : d.recorded) add(r, true);
  return p;
}

void export_all(PerformanceMemory& m, const PlotData& d, const RooflineCeilings* c, const std::vector<RooflinePoint>& points) {
  namespace fs = std::filesystem;
  try {
    std::error_code ec;
    fs::create_directories(m.export_dir, ec);
    if (!fs::is_directory(m.export_dir))
      throw InputError(fmt::format("cannot create the export folder '{}'{}", m.export_dir, ec ? ": " + ec.message() : ""));
    std::vector<BenchmarkRecord> all = d.here;
    all.insert(all.end(), d.recorded.begin(), d.recorded.end());
    all.insert(all.end(), d.recorded_sweep.begin(), d.recorded_sweep.end());
    const fs::path dir(m.export_dir);
    write_file((dir / "performance.csv").string(), records_csv(all), "performance CSV");
    write_file((dir / "performance.json").string(),
               performance_json(all, c != nullptr ? *c : RooflineCeilings{}, points).dump(2) + "\n", "performance JSON");
    m.exported_pngs.clear();
    for (auto [view, name] : {std::pair{&m.bars, "throughput.png"}, {&m.scaling, "scaling.png"}, {&m.roofline, "roofline.png"},
                              {&m.accuracy, "accuracy.png"}}) {
      request_png(*view, (dir / name).string());
      view->png_written.clear();
      m.exported_pngs.push_back((dir / name).string());
    }
    m.show_plots_tab = true;
    m.message.set(fmt::format("wrote performance.csv and performance.json to {}; the plots follow as PNG", dir.string()), false);
  } catch (const InputError& e) {
    m.message.set(e.what(), true);
  }
}

void report_exports(PerformanceMemory& m) {
  if (m.exported_pngs.empty()) return;
  int written = 0;
  std::string errors;
  for (PlotView* v : {&m.bars, &m.scaling, &m.roofline, &m.accuracy}) {
    if (!v->png_written.empty()) ++written;
    if (!v->png_error.empty()) errors += (errors.empty() ? "" : "; ") + v->png_error;
  }
  if (!errors.empty()) {
    m.message.set("PNG export: " + errors, true);
    m.exported_pngs.clear();
  } else if (written == static_cast<int>(m.exported_pngs.size())) {
    m.message.set(fmt::format("wrote performance.csv, performance.json and {} plots as PNG to {}", written, m.export_dir), false);
    m.exported_pngs.clear();
  }
}

void draw_data_table(const PlotData& d) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("performance.table", 10, flags)) return;
  // "time": the timed run's seconds, so a short run (a fast method in a suite sized by the reference) shows as one.
  for (const char* h : {"method", "backend", "prec", "grid", "steps", "time", "GStencil/s", "rel L2", "check", "source"})
    ImGui::TableSetupColumn(h);
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableHeadersRow();
  const auto row = [](const BenchmarkRecord& r) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.method.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(to_string(r.backend)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(to_string(r.precision)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.extent.to_string().c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d", r.steps);
    ImGui::TableNextColumn();
    ImGui::Text("%.3f s", r.seconds);
    ImGui::TableNextColumn();
    ImGui::Text("%.4g", r.gstencils);
    ImGui::TableNextColumn();
    ImGui::Text("%.2e", r.timed_rel_l2); // the timed run's, as steps and GStencil/s
    ImGui::TableNextColumn();
    const char* passed = r.passed ? "passed" : "FAILED";
    const std::string verdict =
        r.checked_steps == r.steps ? std::string(passed) : fmt::format("{} ({} steps: {:.2e})", passed, r.checked_steps, r.rel_l2);
    ImGui::TextColored(r.passed ? ImVec4(0.55f, 0.85f, 0.55f, 1) : ImVec4(1, 0.42f, 0.38f, 1), "%s", verdict.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.source.c_str());
  };
  for (const auto& r : d.here) row(r);
  for (const auto& r : d.recorded) row(r);
  for (const auto& r : d.recorded_sweep) row(r);
  ImGui::EndTable();
}

} // namespace

void draw_performance_window(ViewContext& ctx) {
  auto& m = ctx.memory.get<PerformanceMemory>(kView);
  const Stencil& s = ctx.state.stencil;
  if (!m.catalogue) {
    m.catalogue = load_method_catalogue();
    const auto choices = method_choices(*m.catalogue, s, ctx.state.extent());
    for (const auto& c : choices) m.selected.push_back(c.selectable() ? 1 : 0);
  }
  if (!m.results_loaded) {
    m.results_loaded = true;
    m.results_dir = find_results_dir();
    if (m.results_dir) m.recorded = load_results_dir(*m.results_dir, m.recorded_problems);
  }
  if (!m.ceilings_future.valid() && !m.local_ceilings && m.ceilings_problem.empty()) start_ceilings(m);
  // A first look without a click: a quick sweep when the view opens. Headless runs wait for it (and for the
  // roofs) so screenshots are reproducible; sweeps started with the buttons always run in the background.
  if (!m.auto_started) {
    m.auto_started = true;
    start_sweep(ctx, m, true);
    if (ctx.finish_background_work) m.job.wait();
  }
  poll_ceilings(m, ctx.finish_background_work);
  if (m.measured_for && !(*m.measured_for == s) && !m.job.running()) {
    // The records describe another stencil: they are not shown for this one (a sweep measures it).
    m.job.clear_records();
    m.measured_for.reset();
  }
  report_exports(m);

  PerformanceMemory::Derived& dv = m.derived;
  if (dv.records_version != m.job.records_version() || !(dv.stencil == s) || dv.roofs_choice != m.roofs_choice ||
      dv.show_recorded != m.show_recorded || dv.have_local_ceilings != m.local_ceilings.has_value()) {
    dv.records_version = m.job.records_version();
    dv.stencil = s;
    dv.roofs_choice = m.roofs_choice;
    dv.show_recorded = m.show_recorded;
    dv.have_local_ceilings = m.local_ceilings.has_value();
    dv.data = PlotData{};
    if (m.measured_for && *m.measured_for == s) dv.data.here = m.job.records();
    if (m.show_recorded)
      for (const auto& file : m.recorded) {
        for (auto& r : recorded_for(file, s, "papers")) dv.data.recorded.push_back(std::move(r));
        for (auto& r : recorded_for(file, s, "sweep")) dv.data.recorded_sweep.push_back(std::move(r));
      }
    const RooflineCeilings* roofs = chosen_ceilings(m);
    // The roofline judges each device by its own roofs: this machine's records, or the chosen file's.
    const std::vector<BenchmarkRecord> roofline_records =
        m.roofs_choice > 0 ? recorded_for(m.recorded[static_cast<std::size_t>(m.roofs_choice - 1)], s, "papers") : dv.data.here;
    dv.points = roofs != nullptr ? roofline_points(roofline_records, s, *roofs) : std::vector<RooflinePoint>{};
    dv.bars = throughput_bars(m, dv.data, s);
    dv.scaling = scaling_plot(m, dv.data, s);
    dv.roofline = roofline_plot(m, dv.points, roofs, s);
    dv.accuracy = accuracy_plot(m, dv.data, s);
  }
  const PlotData& d = dv.data;
  const RooflineCeilings* ceilings = chosen_ceilings(m);
  const std::vector<RooflinePoint>& points = dv.points;

  const bool expanded = begin_view_window(ctx, kView, "Performance");
  if (expanded) {
    // A short window (a lecture's font) keeps its height for the plot: the export's folder and button and the
    // results' counts stand on the Data tab there (the bar chart's labels were cut to "c…e" at 1280x720, issue 17).
    const bool short_window = ImGui::GetContentRegionAvail().y < ui_px(560.0f);
    const auto export_row = [&] {
      ImGui::SetNextItemWidth(ui_px(260.0f));
      ImGui::InputText("##export_dir", &m.export_dir);
      probe_last_item(ctx.state, "performance.export_dir");
      ImGui::SameLine();
      if (ImGui::Button("Export plots (PNG) and data (CSV, JSON)")) export_all(m, d, ceilings, points);
      probe_last_item(ctx.state, "performance.export");
      const std::string counts = fmt::format("{} results here, {} recorded", d.here.size(), d.recorded.size() + d.recorded_sweep.size());
      same_line_if_fits(ImGui::CalcTextSize(counts.c_str()).x);
      ImGui::TextDisabled("%s", counts.c_str());
    };
    draw_run_row(ctx, m);
    if (!short_window) export_row();

    if (ImGui::BeginTabBar("performance.tabs")) {
      if (ImGui::BeginTabItem("Plots", nullptr, std::exchange(m.show_plots_tab, false) ? ImGuiTabItemFlags_SetSelected : 0)) {
        ImVec2 avail = ImGui::GetContentRegionAvail();
        const ImVec2 gap = ImGui::GetStyle().ItemSpacing;
        ImVec2 cell((avail.x - gap.x) * 0.5f, (avail.y - gap.y) * 0.5f);
        // Four plots in a 2x2 grid where each keeps room for its axes and titles; else one at a time, chosen
        // here, at the whole size (a lecture's font at 1280x720, issue 17).
        const bool one = cell.x < ui_px(380.0f) || cell.y < ui_px(230.0f);
        if (one) {
          const char* names[4] = {"per method", "scaling", "roofline", "accuracy"};
          ImGui::AlignTextToFramePadding();
          ImGui::TextUnformatted("Plot");
          for (int i = 0; i < 4; ++i) {
            same_line_if_fits(check_width(names[i]));
            ImGui::RadioButton(names[i], &m.single_plot, i);
            probe_last_item(ctx.state, fmt::format("performance.plot.{}", i));
          }
          avail = ImGui::GetContentRegionAvail();
          cell = avail;
        }
        auto shown = [&](int i) { return !one || m.single_plot == i; };
        auto next = [&](int i) { // the grid's second column
          if (!one && i % 2 == 1) ImGui::SameLine();
        };
        if (shown(0)) {
          publish(ctx, "performance.bars.cut_labels", std::to_string(draw_bar_chart("performance.bars", dv.bars, m.bars, cell)));
          publish(ctx, "performance.bars.count", std::to_string(dv.bars.values.size()));
          probe_last_item(ctx.state, "performance.bars");
        }
        next(1);
        if (shown(1)) {
          draw_xy_plot("performance.scaling", dv.scaling, m.scaling, cell);
          probe_last_item(ctx.state, "performance.scaling");
        }
        if (shown(2)) {
          draw_xy_plot("performance.roofline", dv.roofline, m.roofline, cell);
          probe_last_item(ctx.state, "performance.roofline");
          if (m.roofline.hovered_series >= 0) { // the tooltip's text, for tests
            const PlotSeries& hs = dv.roofline.series[static_cast<std::size_t>(m.roofline.hovered_series)];
            const auto i = static_cast<std::size_t>(m.roofline.hovered_point);
            publish(ctx, "performance.roofline_hover", i < hs.hover.size() ? hs.hover[i] : hs.name);
          }
        }
        next(3);
        if (shown(3)) {
          draw_xy_plot("performance.accuracy", dv.accuracy, m.accuracy, cell);
          probe_last_item(ctx.state, "performance.accuracy");
        }
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Data")) {
        if (short_window) export_row();
        draw_data_table(d);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Fusion depth T", nullptr, performance_tsweep_tab_requested() ? ImGuiTabItemFlags_SetSelected : 0)) {
        draw_performance_tsweep_tab(ctx);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();

  publish(ctx, "performance.records", std::to_string(d.here.size()));
  publish(ctx, "performance.recorded", std::to_string(d.recorded.size() + d.recorded_sweep.size()));
  publish(ctx, "performance.running", m.job.running() ? "yes" : "no");
  publish(ctx, "performance.status", m.job.status());
  publish(ctx, "performance.roofline_points", std::to_string(points.size()));
  publish(ctx, "performance.ceilings",
          ceilings != nullptr ? fmt::format("{} {:.6g} GB/s {} compute roofs", ceilings->device, ceilings->bandwidth_gbs,
                                            ceilings->compute.size())
                              : "");
  publish(ctx, "performance.roofline_zoom", fact_numbers({m.roofline.shown_x0, m.roofline.shown_x1, m.roofline.shown_y0,
                                                          m.roofline.shown_y1}));
  const float* a = m.roofline.data_rect;
  publish(ctx, "performance.roofline_area", fact_numbers({a[0], a[1], a[2], a[3]}));
  publish(ctx, "performance.message", m.message.text);
  publish(ctx, "performance.methods_selected", std::to_string(std::count(m.selected.begin(), m.selected.end(), 1)));
}

} // namespace se
