// The Performance view's T-sweep tab (performance_tsweep.hpp): recorded GStencil/s over the fusion depth T, one
// line per method and one plot per stencil, the depth where FFT overtakes LoRAStencil (or that it does not).
#include <algorithm>
#include <cstdlib>
#include <utility>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include "app/sim/benchmark_job.hpp"
#include "app/views/performance_tsweep.hpp"
#include "app/widgets/plot_widgets.hpp"
#include "app/widgets/ui_units.hpp"

namespace se {
namespace {

struct TSweepRow {
  std::string method, stencil, passes;
  int T = 1;
  double gstencils = 0;
};
struct TSweepFile {
  std::string gpu, source;
  std::vector<TSweepRow> rows;
};

struct TSweepMemory {
  bool loaded = false;
  std::vector<TSweepFile> files;
  std::string problem;
  int file = 0;
  std::map<std::string, PlotView> views; // per stencil (addresses stay put in a map)
};

void read_tsweep(const std::filesystem::path& path, std::vector<TSweepFile>& out) {
  try {
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_object() || !j.contains("tsweep") || !j["tsweep"].is_array()) return;
    TSweepFile f;
    f.gpu = j.value("gpu", std::string("unknown GPU"));
    f.source = path.filename().string();
    for (const auto& r : j["tsweep"])
      f.rows.push_back({r.value("method", ""), r.value("stencil", ""), r.value("passes", ""), r.value("T", 1),
                        r.value("gstencils", 0.0)});
    if (!f.rows.empty()) out.push_back(std::move(f));
  } catch (const std::exception&) {
  }
}

std::vector<TSweepFile> load_tsweeps(std::string& problem) {
  std::vector<TSweepFile> out;
  const std::optional<std::filesystem::path> dir = find_results_dir();
  if (!dir) {
    problem = "no assets/results folder found";
    return out;
  }
  std::error_code ec;
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(*dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") paths.push_back(e.path());
  const std::filesystem::path notes = (*dir / ".." / ".." / "notes").lexically_normal(); // a checkout's notes/
  if (std::filesystem::is_directory(notes, ec))
    for (const auto& e : std::filesystem::directory_iterator(notes, ec))
      if (e.is_regular_file() && e.path().extension() == ".json" &&
          e.path().filename().string().find("tsweep") != std::string::npos)
        paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) read_tsweep(p, out);
  if (out.empty()) problem = "no T sweep recorded (run test_gpu \"[.flashfft-tsweep]\" with SE_TSWEEP_JSON set)";
  return out;
}

ImU32 method_line_color(const std::string& id) {
  if (id == "flashfft") return IM_COL32(240, 140, 60, 255);
  if (id == "lorastencil") return IM_COL32(90, 170, 240, 255);
  return IM_COL32(200, 200, 200, 255);
}

// One stencil's plot: a line per method over T, the crossover (linear between the two T that bracket the sign
// change of the difference) as a hollow marker on a dashed vertical line; the title says when there is none.
XYPlot tsweep_plot(const TSweepFile& f, const std::string& stencil) {
  XYPlot p;
  p.x_label = "fused steps T";
  p.y_label = "GStencil/s";
  std::map<std::string, std::map<int, double>> by_method;
  for (const auto& r : f.rows) {
    if (r.stencil != stencil) continue;
    by_method[r.method][r.T] = r.gstencils;
    PlotSeries& s = p.series_for(r.method, PlotSeries{r.method, method_line_color(r.method), PlotSeries::Style::LineAndPoints,
                                                      false, {}, {}, {}});
    (void)s;
  }
  double top = 0;
  int last_T = 1;
  for (auto& s : p.series) {
    for (const auto& [T, g] : by_method[s.name]) {
      s.x.push_back(T);
      s.y.push_back(g);
      s.hover.push_back(fmt::format("{} on {}, T = {}: {:.1f} GStencil/s ({})", s.name, stencil, T, g, f.gpu));
      top = std::max(top, g);
      last_T = std::max(last_T, T);
    }
  }
  p.x_min = 0.5;
  p.x_max = last_T + 0.5;
  p.y_min = 0;
  p.y_max = top * 1.1 + 1e-9;
  std::string verdict;
  if (by_method.count("flashfft") && by_method.count("lorastencil")) {
    const auto& a = by_method["flashfft"];
    const auto& b = by_method["lorastencil"];
    std::vector<int> common;
    for (const auto& [T, g] : a)
      if (b.count(T)) common.push_back(T);
    for (std::size_t i = 0; i + 1 < common.size() && verdict.empty(); ++i) {
      const int t0 = common[i], t1 = common[i + 1];
      const double d0 = a.at(t0) - b.at(t0), d1 = a.at(t1) - b.at(t1);
      if ((d0 < 0) == (d1 < 0) || d0 == d1) continue;
      const double u = d0 / (d0 - d1), tc = t0 + u * (t1 - t0);
      const double yc = a.at(t0) + u * (a.at(t1) - a.at(t0));
      PlotSeries mark{fmt::format("crossover T = {:.2f}", tc), IM_COL32(250, 250, 250, 255), PlotSeries::Style::Points, true,
                      {tc}, {yc}, {fmt::format("flashfft and lorastencil cross at T = {:.2f} ({:.1f} GStencil/s)", tc, yc)}};
      PlotSeries line{"", IM_COL32(250, 250, 250, 160), PlotSeries::Style::DashedLine, false, {tc, tc}, {0, top * 1.05}, {}};
      p.series.push_back(std::move(line));
      p.series.push_back(std::move(mark));
      verdict = fmt::format("crossover at T = {:.2f}", tc);
    }
    if (verdict.empty() && !common.empty()) {
      const bool fft = a.at(common.front()) > b.at(common.front());
      verdict = fmt::format("no crossover at T = {}..{}, {} ahead", common.front(), common.back(),
                            fft ? "flashfft" : "lorastencil");
    }
  }
  p.title = fmt::format("{}: {}", stencil, verdict.empty() ? "one method recorded" : verdict);
  return p;
}

} // namespace

bool performance_tsweep_tab_requested() {
  static bool asked = [] {
    const char* v = std::getenv("SE_PERFORMANCE_TAB");
    return v != nullptr && std::string(v) == "tsweep";
  }();
  return std::exchange(asked, false);
}

void draw_performance_tsweep_tab(ViewContext& ctx) {
  auto& m = ctx.memory.get<TSweepMemory>("performance.tsweep");
  if (!m.loaded) {
    m.loaded = true;
    m.files = load_tsweeps(m.problem);
  }
  if (m.files.empty()) {
    ImGui::TextDisabled("%s", m.problem.c_str());
    return;
  }
  m.file = std::clamp(m.file, 0, static_cast<int>(m.files.size()) - 1);
  if (m.files.size() > 1) {
    ImGui::SetNextItemWidth(ui_px(320.0f));
    if (ImGui::BeginCombo("##tsweep_file", m.files[static_cast<std::size_t>(m.file)].source.c_str())) {
      for (int i = 0; i < static_cast<int>(m.files.size()); ++i)
        if (ImGui::Selectable(m.files[static_cast<std::size_t>(i)].source.c_str(), i == m.file)) m.file = i;
      ImGui::EndCombo();
    }
  }
  const TSweepFile& f = m.files[static_cast<std::size_t>(m.file)];
  std::vector<std::string> stencils;
  for (const auto& r : f.rows)
    if (std::find(stencils.begin(), stencils.end(), r.stencil) == stencils.end()) stencils.push_back(r.stencil);
  ImGui::TextDisabled("%s, Dirichlet, FP64, 4096 x 4096: GStencil/s (compute only) at every depth each method's GPU "
                      "plan accepts; from %s",
                      f.gpu.c_str(), f.source.c_str());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const bool side = avail.x > ui_px(760.0f);
  const int n = std::max<int>(1, static_cast<int>(stencils.size()));
  const ImVec2 cell = side ? ImVec2((avail.x - gap * (n - 1)) / n, avail.y) : ImVec2(avail.x, avail.y / n);
  for (std::size_t i = 0; i < stencils.size(); ++i) {
    if (side && i > 0) ImGui::SameLine();
    const XYPlot plot = tsweep_plot(f, stencils[i]);
    draw_xy_plot(("performance.tsweep." + stencils[i]).c_str(), plot, m.views[stencils[i]], cell);
    publish(ctx, "performance.tsweep." + stencils[i], plot.title);
  }
}

} // namespace se
