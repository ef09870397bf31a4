// The best CUDA-core method and the best tensor-core method for the stencil being edited, side by side (issue 14):
// which is "best" comes from the recorded GPU results (assets/results/*.json, the Performance view's files), FP64
// first, the highest GStencil/s that passed its check, both sides from one GPU where a GPU has records of both (the
// one with the most GPU records, if several do), so that the ratio compares the methods and not the machines; where
// no record exists for the stencil, from each method's
// cost model under a recorded GPU's roofs ("predicted"). Beside each rate, what the method's plan for this stencil
// counts per point and base step: device-memory bytes, useful and executed FLOPs, the arithmetic intensity and the
// MMAs; a bar pair for GStencil/s and one for bytes per point, and one line on why the winner wins, computed from
// those numbers. The sides come from the descriptors (MethodDescriptor::tensor_cores), never from a list of ids.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <imgui.h>

#include "app/sim/benchmark_job.hpp"
#include "app/views/views.hpp"
#include "app/widgets/ui_units.hpp"
#include "kernels/registry.hpp"

namespace se {
namespace {

constexpr const char* kView = "baselines";

enum Side { kCudaCores = 0, kTensorCores = 1 };
constexpr const char* kSideKey[2] = {"cuda", "tensor"};
constexpr const char* kSideTitle[2] = {"best on CUDA cores", "best on tensor cores"};
constexpr ImU32 kSideColor[2] = {IM_COL32(120, 176, 255, 255), IM_COL32(255, 170, 90, 255)};

// CUDA cores: the project's own GPU kernels whose arithmetic is FMAs (no vendor library, not the CPU reference);
// tensor cores: the papers' methods.
bool on_side(const MethodDescriptor& d, Side side) {
  if (side == kTensorCores) return d.tensor_cores;
  return !d.tensor_cores && d.gpu != nullptr && d.gpu->library.empty();
}

// One side's pick: the method, the plan it runs for this stencil, and its rate with where the rate comes from.
struct Pick {
  DescriptorPtr method;
  PlanPtr plan;
  int plan_request = 0;   // the fusion asked of Method::plan (a record's fused steps; 0: the method's own choice)
  bool recorded = false;  // false: predicted from the cost model under the roofs
  double gstencils = 0;
  std::string gpu;        // the GPU the rate was recorded on, or whose roofs predicted it
  double roof_gbs = 0;    // that GPU's recorded copy roof (0: not recorded)
  std::string file;       // the results file it comes from
  std::string detail;     // the recorded run (precision, grid, steps, fusion), or how the prediction was made
  std::string none;       // why this side has no method for the stencil ("" when it has one)
};

struct Baselines {
  Stencil stencil;
  bool built = false;
  std::array<Pick, 2> side;
  std::string why;        // why the winner wins, from the numbers below
  std::string caveat;     // the two rates come from different GPUs, or are predictions
};

struct BaselinesMemory {
  bool loaded = false;
  std::vector<RecordedResults> files;
  std::string files_note; // where the files were read from, or why there are none
  Baselines table;
};

// Recorded results name a preset; they describe the stencil only when it is that preset, unedited.
bool is_unedited_preset(const Stencil& s) {
  const auto& names = preset_names();
  return std::find(names.begin(), names.end(), s.name) != names.end() && preset(s.name) == s;
}

// An MMA instruction as the table prints it: "mma.m16n8k4.f64" for "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"
// (the long form took a line of its own and pushed the reason under the window's bottom at a lecture's 1280x720).
std::string short_shape(std::string shape) {
  for (const char* drop : {"sync.aligned.", ".row.col"}) {
    const std::size_t at = shape.find(drop);
    if (at != std::string::npos) shape.erase(at, std::string(drop).size());
  }
  for (const char* type : {".f64", ".f32", ".f16", ".bf16"})
    for (std::size_t at; (at = shape.find(std::string(type) + type)) != std::string::npos;) shape.erase(at, std::string(type).size());
  return shape;
}

// The plan the GPU variant runs at `fused` steps (0: its own choice); a method that does not fuse on request
// plans its own depth, as the Performance view's roofline does. Null when it cannot take the stencil.
PlanPtr gpu_plan(const DescriptorPtr& d, const Stencil& s, int& fused, std::string* why = nullptr) {
  const Method m = gpu_variant(d);
  try {
    try {
      return m.plan(s, fused);
    } catch (const InputError&) {
      if (fused == 0) throw;
      fused = 0;
      return m.plan(s, 0);
    }
  } catch (const InputError& e) {
    if (why != nullptr) *why = e.what();
    return nullptr;
  }
}

// The recorded record with the highest GStencil/s that passed, FP64 first, among the side's methods that plan s;
// only from the files of `gpu` when one is named.
std::optional<Pick> best_recorded(const std::vector<RecordedResults>& files, const Stencil& s, Side side,
                                  const std::string* gpu = nullptr) {
  struct Candidate {
    const RecordedResults* file;
    const BenchmarkRecord* record;
    DescriptorPtr method;
  };
  std::vector<Candidate> all;
  if (!is_unedited_preset(s)) return std::nullopt;
  for (const RecordedResults& f : files) {
    if (gpu != nullptr && f.gpu != *gpu) continue;
    for (const BenchmarkRecord& r : f.records) {
      if (r.backend != Backend::GPU || !r.passed || !r.finite || !(r.gstencils > 0) || r.stencil != s.name) continue;
      for (const DescriptorPtr& d : method_list())
        if (d->id == r.method && on_side(*d, side)) all.push_back({&f, &r, d});
    }
  }
  const bool any_fp64 = std::any_of(all.begin(), all.end(), [](const Candidate& c) { return c.record->precision == Precision::FP64; });
  if (any_fp64) std::erase_if(all, [](const Candidate& c) { return c.record->precision != Precision::FP64; });
  std::stable_sort(all.begin(), all.end(),
                   [](const Candidate& a, const Candidate& b) { return a.record->gstencils > b.record->gstencils; });
  for (const Candidate& c : all) {
    Pick p;
    p.method = c.method;
    p.plan_request = std::max(1, c.record->fused_steps);
    p.plan = gpu_plan(c.method, s, p.plan_request);
    if (!p.plan) continue;
    p.recorded = true;
    p.gstencils = c.record->gstencils;
    p.gpu = c.file->gpu;
    p.roof_gbs = c.file->ceilings.bandwidth_gbs;
    p.file = c.file->path.filename().string();
    p.detail = fmt::format("{} on {}, {} steps{}", to_string(c.record->precision), c.record->extent.to_string(),
                           c.record->steps,
                           c.record->fused_steps > 1 ? fmt::format(", {} per launch", c.record->fused_steps) : "");
    return p;
  }
  return std::nullopt;
}

// The roofs predictions are made under: the recorded GPU file with the most GPU results, its copy roof, and the
// MMA rates recorded for the same GPU in any file.
struct PredictionRoofs {
  std::string gpu, file;
  double bandwidth_gbs = 0;
  std::vector<ComputeRoof> compute;
};
PredictionRoofs prediction_roofs(const std::vector<RecordedResults>& files) {
  PredictionRoofs roofs;
  std::size_t most = 0;
  for (const RecordedResults& f : files) {
    const std::size_t gpu_records = static_cast<std::size_t>(std::count_if(
        f.records.begin(), f.records.end(), [](const BenchmarkRecord& r) { return r.backend == Backend::GPU; }));
    if (gpu_records > most && f.ceilings.bandwidth_gbs > 0) {
      most = gpu_records;
      roofs.gpu = f.gpu;
      roofs.file = f.path.filename().string();
      roofs.bandwidth_gbs = f.ceilings.bandwidth_gbs;
    }
  }
  for (const RecordedResults& f : files)
    if (f.gpu == roofs.gpu)
      for (const ComputeRoof& c : f.ceilings.compute) roofs.compute.push_back(c);
  return roofs;
}

// Cost model under the roofs: the copy roof over the bytes per point, capped by the MMA roof of its shape where
// one was recorded. 0 without roofs.
double predicted_gstencils(const CostReport& c, const PredictionRoofs& roofs, std::string& how) {
  if (!(roofs.bandwidth_gbs > 0) || !(c.global_bytes_per_point > 0)) {
    how = "no recorded GPU roofs to predict a rate under";
    return 0;
  }
  double rate = roofs.bandwidth_gbs / c.global_bytes_per_point;
  how = fmt::format("copy roof {:.0f} GB/s / {:.4g} B per point", roofs.bandwidth_gbs, c.global_bytes_per_point);
  for (const ComputeRoof& roof : roofs.compute)
    if (roof.name == c.mma_shape && c.executed_flops_per_point > 0 &&
        roof.tflops * 1e3 / c.executed_flops_per_point < rate) {
      rate = roof.tflops * 1e3 / c.executed_flops_per_point;
      how = fmt::format("{} roof {:.1f} TFLOP/s / {:.4g} FLOPs per point", roof.name, roof.tflops, c.executed_flops_per_point);
    }
  return rate;
}

Pick best_predicted(const std::vector<RecordedResults>& files, const Stencil& s, Side side) {
  const PredictionRoofs roofs = prediction_roofs(files);
  std::vector<Pick> all;
  std::string last_reason;
  for (const DescriptorPtr& d : method_list()) {
    if (!on_side(*d, side) || !d->gpu) continue;
    Pick p;
    p.method = d;
    p.plan = gpu_plan(d, s, p.plan_request, &last_reason);
    if (!p.plan) continue;
    p.gstencils = predicted_gstencils(p.plan->cost, roofs, p.detail);
    p.gpu = roofs.gpu;
    p.roof_gbs = roofs.bandwidth_gbs;
    p.file = roofs.file;
    all.push_back(std::move(p));
  }
  Pick none;
  if (all.empty()) {
    none.none = "no method of this kind can take the stencil" + (last_reason.empty() ? "" : " (last: " + last_reason + ")");
    return none;
  }
  const bool any_fp64 = std::any_of(all.begin(), all.end(), [](const Pick& p) { return p.method->precision == Precision::FP64; });
  if (any_fp64) std::erase_if(all, [](const Pick& p) { return p.method->precision != Precision::FP64; });
  // Without roofs every rate is 0: the fewest bytes per point wins.
  return *std::max_element(all.begin(), all.end(), [](const Pick& a, const Pick& b) {
    if (a.gstencils != b.gstencils) return a.gstencils < b.gstencils;
    return a.plan->cost.global_bytes_per_point > b.plan->cost.global_bytes_per_point;
  });
}

// "1.5x fewer" / "2x more" for a ratio of winner to loser.
std::string fewer_or_more(double ratio, const char* what) {
  if (std::abs(ratio - 1.0) < 0.005) return fmt::format("the same {}", what);
  return ratio < 1.0 ? fmt::format("{:.2f}x fewer {}", 1.0 / ratio, what) : fmt::format("{:.2f}x more {}", ratio, what);
}

std::string why_line(const Pick& cuda, const Pick& tensor) {
  if (!cuda.plan || !tensor.plan) return "Only one kind of method can take this stencil.";
  const CostReport &cc = cuda.plan->cost, &tc = tensor.plan->cost;
  if (!(cuda.gstencils > 0) || !(tensor.gstencils > 0))
    return fmt::format("No rates to compare; per point {} moves {} than {} ({:.4g} vs {:.4g}).", tensor.method->id,
                       fewer_or_more(tc.global_bytes_per_point / cc.global_bytes_per_point, "bytes"), cuda.method->id,
                       tc.global_bytes_per_point, cc.global_bytes_per_point);
  const bool tensor_wins = tensor.gstencils >= cuda.gstencils;
  const Pick& w = tensor_wins ? tensor : cuda;
  const Pick& l = tensor_wins ? cuda : tensor;
  const CostReport &wc = w.plan->cost, &lc = l.plan->cost;
  const double bytes = wc.global_bytes_per_point / lc.global_bytes_per_point; // winner's over loser's
  const double flops = lc.executed_flops_per_point > 0 ? wc.executed_flops_per_point / lc.executed_flops_per_point : 0;
  std::string line = fmt::format("{} is {:.2f}x faster: per point {} ({:.4g} vs {:.4g} B), {} ({:.4g} vs {:.4g}).",
                                 w.method->id, w.gstencils / l.gstencils, fewer_or_more(bytes, "bytes"),
                                 wc.global_bytes_per_point, lc.global_bytes_per_point, fewer_or_more(flops, "FLOPs"),
                                 wc.executed_flops_per_point, lc.executed_flops_per_point);
  // What each rate draws from device memory (GStencil/s x bytes per point), against its own GPU's copy roof: the
  // method far below its roof is held by something other than its bytes.
  if (!(w.roof_gbs > 0) || !(l.roof_gbs > 0)) return line;
  const auto share = [](const Pick& p) { return p.gstencils * p.plan->cost.global_bytes_per_point / p.roof_gbs; };
  line += fmt::format(" Their bytes draw {:.0f}% and {:.0f}% of {} copy roof", 100 * share(w), 100 * share(l),
                      w.gpu == l.gpu ? "the GPU's" : "each GPU's");
  constexpr double kNearRoof = 0.7;
  const Pick& held = share(w) < share(l) ? w : l;
  const CostReport& hc = held.plan->cost;
  if (share(w) >= kNearRoof && share(l) >= kNearRoof)
    line += ": both near it, the bytes decide.";
  else
    line += fmt::format(": {} is held by more than its bytes ({:.3g} FLOP/B on {}).", held.method->id,
                        hc.arithmetic_intensity(), hc.mma_shape.empty() ? "CUDA cores" : short_shape(hc.mma_shape));
  return line;
}

// GPU records per GPU name, over every file of that GPU.
std::size_t gpu_record_count(const std::vector<RecordedResults>& files, const std::string& gpu) {
  std::size_t n = 0;
  for (const RecordedResults& f : files)
    if (f.gpu == gpu)
      n += static_cast<std::size_t>(std::count_if(f.records.begin(), f.records.end(),
                                                  [](const BenchmarkRecord& r) { return r.backend == Backend::GPU; }));
  return n;
}

Baselines build(const BaselinesMemory& m, const Stencil& s) {
  Baselines b;
  b.stencil = s;
  b.built = true;
  // Both sides from the GPU with recorded runs of s on both (the one with the most GPU records if several have);
  // where none has, each side's best on any GPU.
  std::array<std::optional<Pick>, 2> picks;
  bool one_gpu = false;
  std::size_t most = 0;
  std::vector<std::string> seen;
  for (const RecordedResults& f : m.files) {
    if (f.gpu.empty() || std::find(seen.begin(), seen.end(), f.gpu) != seen.end()) continue;
    seen.push_back(f.gpu);
    std::array<std::optional<Pick>, 2> on_gpu{best_recorded(m.files, s, kCudaCores, &f.gpu),
                                              best_recorded(m.files, s, kTensorCores, &f.gpu)};
    if (!on_gpu[kCudaCores] || !on_gpu[kTensorCores]) continue;
    const std::size_t n = gpu_record_count(m.files, f.gpu);
    if (!one_gpu || n > most) picks = std::move(on_gpu), most = n, one_gpu = true;
  }
  if (!one_gpu) picks = {best_recorded(m.files, s, kCudaCores), best_recorded(m.files, s, kTensorCores)};
  for (Side side : {kCudaCores, kTensorCores})
    b.side[side] = picks[side] ? std::move(*picks[side]) : best_predicted(m.files, s, side);
  b.why = why_line(b.side[kCudaCores], b.side[kTensorCores]);
  const Pick &c = b.side[kCudaCores], &t = b.side[kTensorCores];
  if (c.recorded && t.recorded && c.gpu != t.gpu)
    b.caveat = fmt::format("Recorded on different GPUs: the rates' ratio compares the machines too.");
  else if (!c.recorded || !t.recorded)
    b.caveat = is_unedited_preset(s) ? "No recorded GPU run of one side for this stencil: that rate is predicted by "
                                       "its cost model under a recorded GPU's roofs (an upper bound)."
                                     : "No recorded GPU results for an edited stencil: both rates are predicted by the "
                                       "cost models under a recorded GPU's roofs (upper bounds).";
  return b;
}

void load_files(BaselinesMemory& m) {
  m.loaded = true;
  const std::optional<std::filesystem::path> dir = find_results_dir();
  if (!dir) {
    m.files_note = "no recorded results found (assets/results, or $SE_RESULTS_DIR)";
    return;
  }
  std::vector<std::string> problems;
  m.files = load_results_dir(*dir, problems);
  m.files_note = fmt::format("recorded results: {} ({} files{})", dir->string(), m.files.size(),
                             problems.empty() ? "" : fmt::format(", {} not read", problems.size()));
}

// Two horizontal bars, one per side, scaled to the larger value, in a fixed-height strip.
void bar_pair(const char* title, const std::array<double, 2>& values, const std::array<std::string, 2>& labels,
              const char* probe, float width, ViewContext& ctx) {
  ImGui::TextUnformatted(title);
  const float line = ImGui::GetTextLineHeight();
  const float gap = ui_px(3.0f);
  const float label_w =
      std::min(width * 0.6f, std::max(ImGui::CalcTextSize(labels[0].c_str()).x, ImGui::CalcTextSize(labels[1].c_str()).x));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size(width, 2.0f * line + gap);
  ImGui::Dummy(size);
  probe_rect(ctx.state, probe, origin, ImVec2(origin.x + size.x, origin.y + size.y));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const double top = std::max(values[0], values[1]);
  const float bar_x = origin.x + label_w + ui_px(6.0f);
  const float bar_w = std::max(ui_px(20.0f), origin.x + width - bar_x - ui_px(4.0f));
  for (int i = 0; i < 2; ++i) {
    const float y = origin.y + static_cast<float>(i) * (line + gap);
    dl->AddText(ImVec2(origin.x, y), ImGui::GetColorU32(ImGuiCol_Text), labels[static_cast<std::size_t>(i)].c_str());
    const float frac = top > 0 ? static_cast<float>(values[static_cast<std::size_t>(i)] / top) : 0.0f;
    dl->AddRectFilled(ImVec2(bar_x, y + 1.0f), ImVec2(bar_x + bar_w, y + line - 1.0f), IM_COL32(255, 255, 255, 20));
    dl->AddRectFilled(ImVec2(bar_x, y + 1.0f), ImVec2(bar_x + std::max(1.0f, frac * bar_w), y + line - 1.0f), kSideColor[i]);
  }
}

} // namespace

void draw_baselines_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, kView, "Baselines: CUDA cores against tensor cores")) {
    ImGui::End();
    return;
  }
  BaselinesMemory& m = ctx.memory.get<BaselinesMemory>(kView);
  if (!m.loaded) load_files(m);
  const Stencil& s = ctx.state.stencil;
  if (!m.table.built || !(m.table.stencil == s)) m.table = build(m, s);
  const Baselines& b = m.table;

  // Always a vertical scroll bar: the widths are the same in every frame.
  ImGui::BeginChild("baselines.body", ImVec2(0, 0), false, ImGuiWindowFlags_AlwaysVerticalScrollbar);
  if (!ctx.lecture.touring) // the tour's caption says it
    ImGui::TextWrapped("'%s': the fastest of each kind (FP64 first), %s; per point and base step of the plan each one's GPU kernel runs (the teaching views count the CPU emulations' plans, named there).",
                       s.name.c_str(),
                       b.side[0].recorded && b.side[1].recorded ? "by recorded GPU runs" : "by recorded GPU runs, else predicted");

  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = ImGui::CalcTextSize("precision").x + ui_px(8.0f);
  const float side_w = std::max(ui_px(80.0f), (avail - label_w) / 2.0f - ui_px(12.0f));
  std::array<std::string, 2> bar_rate_labels, bar_bytes_labels;
  std::array<double, 2> rates{}, bytes{};
  if (ImGui::BeginTable("baselines.table", 3, flags, ImVec2(avail, 0))) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, label_w);
    for (Side side : {kCudaCores, kTensorCores})
      ImGui::TableSetupColumn(kSideTitle[side], ImGuiTableColumnFlags_WidthFixed, side_w);
    ImGui::TableHeadersRow();
    struct Row {
      const char* label;
      const char* tooltip;
      std::array<std::string, 2> cells;
      std::array<std::string, 2> hover;
    };
    std::vector<Row> rows = {
        {"method", "the descriptor's id and name", {}, {}},
        {"precision", "arithmetic precision; base steps one pass of the plan advances", {}, {}},
        {"GStencil/s", "the highest rate recorded for this stencil that passed its check, or the cost model's "
                       "prediction under a recorded GPU's roofs", {}, {}},
        {"from", "the results file (hover: the run's grid, steps and fusion), or how the rate was predicted", {}, {}},
        {"bytes", "device-memory bytes read + written per point and base step (CostReport::global_bytes_per_point), "
                  "and the arithmetic intensity: executed FLOPs per device-memory byte", {}, {}},
        {"FLOPs", "per point and base step: useful (2 x non-zero weights) and executed (zeros fed to the MMAs "
                  "included, tensor and CUDA cores)", {}, {}},
        {"MMAs", "MMA instructions per point and base step of the GPU kernel's plan, in its own MMA shape and tile (CUDA-core "
                 "methods: FMAs); the pyramid and fragment views count the CPU emulation's plan (the paper's tile) and say so",
         {}, {}}};
    for (Side side : {kCudaCores, kTensorCores}) {
      const Pick& p = b.side[side];
      const std::string key = std::string("baselines.") + kSideKey[side];
      if (!p.plan) {
        rows[0].cells[side] = p.none;
        publish(ctx, key + ".id", "none");
        continue;
      }
      const CostReport& c = p.plan->cost;
      const MethodDescriptor& d = *p.method;
      rows[0].cells[side] = d.name == d.id ? d.id : fmt::format("{} ({})", d.id, d.name);
      rows[0].hover[side] = d.paper.empty() ? d.description : d.paper + ": " + d.description;
      rows[1].cells[side] = fmt::format("{}, {} step{} per pass", to_string(d.precision), p.plan->fused_steps,
                                        p.plan->fused_steps == 1 ? "" : "s");
      rows[1].hover[side] = p.plan->brief;
      std::string gpu = p.gpu;
      if (gpu.rfind("NVIDIA ", 0) == 0) gpu.erase(0, 7);
      rows[2].cells[side] = p.gstencils > 0 ? fmt::format("{:.4g} {} {}", p.gstencils, p.recorded ? "on" : "predicted,", gpu)
                                            : std::string("- (no recorded roofs)");
      rows[3].cells[side] = p.recorded ? p.file : fmt::format("predicted: {}", p.detail);
      rows[3].hover[side] = p.recorded ? fmt::format("{} (recorded, {}): {}", p.gpu, p.file, p.detail)
                                       : fmt::format("predicted by the cost model: {}; roofs of {} ({})", p.detail, p.gpu, p.file);
      rows[4].cells[side] = fmt::format("{:.4g} ({:.4g} FLOP/B)", c.global_bytes_per_point, c.arithmetic_intensity());
      rows[5].cells[side] = fmt::format("{:.4g} useful, {:.4g} executed", c.useful_flops_per_point, c.executed_flops_per_point);
      if (!c.mma_shape.empty() && c.cuda_core_flops_per_point > 0)
        rows[5].hover[side] = fmt::format("{:.4g} of the executed FLOPs on CUDA cores", c.cuda_core_flops_per_point);
      rows[6].cells[side] = c.mma_shape.empty() ? fmt::format("none ({:.4g} FMAs)", c.executed_flops_per_point / 2)
                                                : fmt::format("{:.4g} {}", c.mma_per_point, short_shape(c.mma_shape));
      rates[side] = p.gstencils;
      bytes[side] = c.global_bytes_per_point;
      bar_rate_labels[side] = fmt::format("{} {:.4g}", d.id, p.gstencils);
      bar_bytes_labels[side] = fmt::format("{} {:.4g} B", d.id, c.global_bytes_per_point);
      // What was printed, for the tests: the ids, the rate and where it comes from, the plan's numbers (%.4g).
      publish(ctx, key + ".id", d.id);
      publish(ctx, key + ".plan_request", std::to_string(p.plan_request));
      publish(ctx, key + ".gstencils", fmt::format("{:.4g}", p.gstencils));
      publish(ctx, key + ".rate", p.recorded ? "recorded" : "predicted");
      publish(ctx, key + ".file", p.file);
      publish(ctx, key + ".costs",
              fmt::format("{} {:.4g} {:.4g} {:.4g} {:.4g} {:.4g}", p.plan->fused_steps, c.global_bytes_per_point,
                          c.useful_flops_per_point, c.executed_flops_per_point, c.arithmetic_intensity(), c.mma_per_point));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& row = rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", row.label);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s%s", row.tooltip, i == 3 ? ("\n" + m.files_note).c_str() : "");
      ImGui::PushTextWrapPos(0.0f);
      for (Side side : {kCudaCores, kTensorCores}) {
        ImGui::TableNextColumn();
        if (i == 2 && b.side[side].plan) // the rate in the side's bar colour
          ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kSideColor[side]), "%s", row.cells[side].c_str());
        else { // wrapped at spaces: ImGui broke "3.2 B" into "3." and "2 B" (1d15p's predicted rate, issue 17)
          ImGui::BeginGroup();
          text_wrapped_at_spaces(row.cells[side]);
          ImGui::EndGroup();
        }
        if (!row.hover[side].empty() && ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          ImGui::PushTextWrapPos(ui_px(480.0f));
          ImGui::TextUnformatted(row.hover[side].c_str());
          ImGui::PopTextWrapPos();
          ImGui::EndTooltip();
        }
      }
      ImGui::PopTextWrapPos();
    }
    ImGui::EndTable();
  }
  probe_last_item(ctx.state, "baselines.table");

  if (b.side[kCudaCores].plan && b.side[kTensorCores].plan) {
    ImGui::Spacing();
    const float half = (ImGui::GetContentRegionAvail().x - ui_px(16.0f)) / 2.0f;
    ImGui::BeginGroup();
    bar_pair(b.side[0].recorded && b.side[1].recorded ? "GStencil/s" : "GStencil/s (recorded or predicted)", rates,
             bar_rate_labels, "baselines.bars.rate", half, ctx);
    ImGui::EndGroup();
    ImGui::SameLine(0.0f, ui_px(16.0f));
    ImGui::BeginGroup();
    bar_pair("bytes per point and step", bytes, bar_bytes_labels, "baselines.bars.bytes", half, ctx);
    ImGui::EndGroup();
  }
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.45f, 1.0f));
  ImGui::BeginGroup();
  text_wrapped_at_spaces(b.why); // never "1." and "23x"
  ImGui::EndGroup();
  ImGui::PopStyleColor();
  probe_last_item(ctx.state, "baselines.why");
  // The caveat under the reason where the page has the room, else in the reason's tooltip (the table's rate already
  // says "predicted"): at a lecture's 1280x720 it ran under the window's bottom for the radius-7 presets.
  const bool caveat_fits = ImGui::CalcTextSize(b.caveat.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y <=
                           ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y;
  if (!b.caveat.empty() && !caveat_fits && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", b.caveat.c_str());
  if (!b.caveat.empty() && caveat_fits) {
    ImGui::TextDisabled("%s", b.caveat.c_str());
    probe_last_item(ctx.state, "baselines.caveat");
  }
  ImGui::PopTextWrapPos();
  publish(ctx, "baselines.why", b.why);
  ImGui::EndChild();
  ImGui::End();
}

} // namespace se
