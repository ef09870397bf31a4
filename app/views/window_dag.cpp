// Complex stencils (Plasticine, issue 15): a program of const grids and stencil operators edited as a node graph
// (app/widgets/node_editor), its text in the format of core/dag (round-trips), its S-DAG buckets coloured, the
// producer-consumer and parallelism fusions explained on the program, and the strategies run live on the CPU (and,
// where the GPU backend can run, on the GPU) off the UI thread, each checked against the interpreter, with the
// generated CUDA source of each strategy.
//
// The document the editor changes is a list of statements (one per line of the program's text): a change composes
// the text, which core/dag parses; a problem is shown on the node of the line it names (line and column) and the
// text the user typed is kept. Every change is one undo step (Ctrl+Z / Ctrl+Y, or the buttons).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/sim/benchmark_job.hpp"
#include "app/views/views.hpp"
#include "app/widgets/node_editor.hpp"
#include "app/widgets/ui_units.hpp"
#include "core/dag/dag.hpp"
#include "core/dag/dag_generate.hpp"
#include "core/files.hpp"
#include "core/dag/dag_model.hpp"
#include "kernels/dag/dag_gpu.hpp"

namespace se {
namespace {

constexpr const char* kView = "dag";
constexpr const char* kTitle = "Complex stencils (Plasticine): DAG editor";

// ---- The document ---------------------------------------------------------------------------------------------

struct Statement {
  bool input = true;
  std::string name;
  std::string type = "f64";
  bool type_given = false;   // a stencil written with ': type'
  std::string domain;        // an input's own domain ("128x128x64"), "" for none
  std::string expr;          // a stencil's expression, as typed
  ImVec2 pos{0, 0};          // where its node is on the canvas
};

struct Document {
  std::string name = "program";
  std::array<int, 3> domain{128, 128, 128};
  std::vector<Statement> items;
};
// Lines before the first statement: "program", "domain".
constexpr int kHeaderLines = 2;

std::string statement_line(const Statement& s) {
  if (s.input) return "input " + s.name + " " + s.type + (s.domain.empty() ? "" : " " + s.domain);
  return s.name + (s.type_given ? " : " + s.type : "") + " = " + s.expr;
}

std::string compose(const Document& d) {
  std::string t = "program " + d.name + "\n" + fmt::format("domain {} {} {}\n", d.domain[0], d.domain[1], d.domain[2]);
  for (const Statement& s : d.items) t += statement_line(s) + "\n";
  return t;
}

// An operator node's width at zoom 1 (at the base font): its title and its expression field.
constexpr float kNodeWidth = 190.0f;

std::string input_title(const Statement& s) { return s.name + "  " + s.type + (s.domain.empty() ? "" : " " + s.domain); }

// An input node holds its title only: as wide as the widest input title and its pin, at most an operator's width.
float input_node_width(const Document& d) {
  float w = ui_px(60.0f);
  for (const Statement& s : d.items)
    if (s.input) w = std::max(w, ImGui::CalcTextSize(input_title(s).c_str()).x + ui_px(22.0f));
  return std::min(w, ui_px(kNodeWidth));
}

// Node positions: the inputs in the first column, bucket b's operators in column b + 1. Inputs (title only) are
// narrower than operators (title and expression field) and stack close, like a list: p_grad_c's seven inputs at
// operators' spacing made the editor's fit draw every node at two thirds of the font at a lecture's 1280x720, and
// a second column of inputs put the first column's links behind its nodes, as if input fed input (issue 17).
void auto_layout(Document& d, const dag::Program& p, const dag::Analysis& a) {
  const float gap = ui_px(40.0f), input_w = input_node_width(d), node_w = ui_px(kNodeWidth);
  const float input_step = ImGui::GetTextLineHeight() + ui_px(16.0f), operator_step = ui_px(92.0f); // title + 4
  std::map<int, float> next_y;
  for (std::size_t i = 0; i < d.items.size() && i < p.nodes.size(); ++i) {
    const bool input = p.nodes[i].is_input;
    const int col = input ? 0 : a.bucket_of[i] + 1;
    const float x = input ? 0.0f : input_w + gap + static_cast<float>(a.bucket_of[i]) * (node_w + gap);
    float& y = next_y.try_emplace(col, ui_px(12.0f)).first->second;
    d.items[i].pos = ImVec2(ui_px(16.0f) + x, y);
    y += input ? input_step : operator_step;
  }
}

// The document of a valid program; positions of statements that keep their name are kept.
Document from_program(const dag::Program& p, const Document* old) {
  Document d;
  d.name = p.name;
  d.domain = p.domain;
  for (const dag::Node& n : p.nodes) {
    Statement s;
    s.input = n.is_input;
    s.name = n.name;
    s.type = dag::to_string(n.type);
    s.type_given = n.type_given;
    if (n.is_input && n.domain_given) s.domain = fmt::format("{}x{}x{}", p.domain[0], p.domain[1], p.domain[2]);
    if (!n.is_input) s.expr = dag::print_expression(p, n);
    d.items.push_back(std::move(s));
  }
  if (old != nullptr)
    for (Statement& s : d.items)
      for (const Statement& o : old->items)
        if (o.name == s.name) s.pos = o.pos;
  return d;
}

// ---- Runs ------------------------------------------------------------------------------------------------------

struct RunRow {
  std::string label;       // "interpreter", "CPU sequential", "GPU graph"
  std::string strategy;    // "interpreter" or to_string(Strategy)
  bool gpu = false;
  double seconds = 0;
  double rel_l2 = 0, max_abs = 0;
  bool checked = false, passed = false;
  std::string detail;      // GPU: launches, compile time, schedule; or why the run failed
};

struct RunResults {
  std::mutex mutex;
  std::vector<RunRow> rows;
  std::array<int, 3> domain{0, 0, 0};
  std::string program;
};

// ---- The view's memory -----------------------------------------------------------------------------------------

struct DagView {
  bool started = false;
  Document doc;
  std::vector<Document> undo, redo;
  // Derived from doc.
  std::string text;                    // compose(doc)
  bool valid = false;
  dag::Program program;
  dag::Analysis analysis;
  dag::FusionPlan fusion;               // producer-consumer's plan at the limit below
  std::string hybrid_levels;           // hybrid fusion's launches: "a + b | c" (its plan's kernels by level)
  int limit_index = 4;                 // into dag::kRecomputeLimitSteps: producer-consumer's recomputation limit (8)
  std::vector<dag::Diagnostic> diagnostics;
  std::vector<std::string> item_errors; // per statement: its diagnostics, "" for none
  std::string header_errors;           // diagnostics on the header lines or unplaced
  std::string canonical;               // print_program(program) when valid
  std::map<std::string, int> last_bucket; // the last valid program's buckets and reads, by name (kept through errors)
  std::vector<std::pair<std::string, std::string>> last_links;
  bool roundtrip = false;
  std::map<std::string, std::string> sources; // strategy -> generated CUDA source (lazily)
  std::string source_strategy = "sequential";
  // Editing.
  std::vector<std::string> expr_buffers; // per statement, what its field holds while edited
  NodeEditor editor;
  int selected = -1;
  bool moving = false;                 // a node drag in progress (one undo step)
  std::string text_pane;               // the text pane's buffer
  bool text_pane_edited = false;
  bool show_text = true;               // the text pane beside the canvas
  bool layout_pending = false;         // arrange the nodes by bucket once the canvas's size is known
  std::vector<dag::Diagnostic> text_pane_errors;
  std::string path;
  UiMessage message;
  std::vector<std::string> examples;   // assets/dags/*.dag
  std::filesystem::path examples_dir;
  // The learned fusion choice (assets/models), loaded once; its prediction cached per program text and grid.
  bool model_tried = false;
  std::optional<dag::FusionModel> model;
  std::string model_error;
  std::string predicted_for;           // canonical text + grid the prediction below belongs to
  dag::FusionPrediction predicted;
  // Runs.
  int run_size = 1;                    // index into kRunSizes
  BenchmarkJob job;
  std::shared_ptr<RunResults> results = std::make_shared<RunResults>();
  std::string gpu_reason;
  bool gpu_checked = false;
};

constexpr int kRunSizes[] = {32, 64, 128, 0}; // 0: the program's own domain
// Producer-consumer fusion's recomputation limits offered (`stencil-bench dag --recompute-limit`): 0 inlines nothing,
// the last every intermediate.
int recompute_limit(const DagView& v) { return dag::kRecomputeLimitSteps[v.limit_index]; }
std::string recompute_limit_label(int limit) {
  const std::string name = dag::recompute_limit_name(limit);
  if (limit == 0) return name + " (inline nothing)";
  if (limit == dag::kNoRecomputeLimit) return name + " (inline everything)";
  return limit == dag::FusionPlan{}.max_recompute ? name + " (default)" : name;
}

std::optional<std::filesystem::path> find_dags_dir() { return se::find_data_dir("dags"); }

ImU32 bucket_color(int b) {
  static const ImU32 colors[] = {IM_COL32(126, 200, 255, 255), IM_COL32(255, 176, 96, 255), IM_COL32(140, 220, 140, 255),
                                 IM_COL32(230, 140, 220, 255), IM_COL32(250, 226, 110, 255), IM_COL32(120, 220, 210, 255),
                                 IM_COL32(255, 130, 130, 255), IM_COL32(180, 170, 255, 255)};
  return colors[static_cast<std::size_t>(b) % (sizeof colors / sizeof colors[0])];
}
constexpr ImU32 kInputColor = IM_COL32(170, 172, 182, 255);

std::string hex_color(ImU32 c) {
  return fmt::format("#{:02x}{:02x}{:02x}", c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff);
}

// Recomputes everything derived from the document.
void refresh(DagView& v) {
  v.text = compose(v.doc);
  v.diagnostics.clear();
  v.program = dag::parse_program(v.text, v.diagnostics, v.doc.name);
  v.valid = v.diagnostics.empty();
  v.item_errors.assign(v.doc.items.size(), "");
  v.header_errors.clear();
  for (const dag::Diagnostic& d : v.diagnostics) {
    const int item = d.pos.line - kHeaderLines - 1;
    std::string& to = item >= 0 && item < static_cast<int>(v.doc.items.size()) ? v.item_errors[item] : v.header_errors;
    to += (to.empty() ? "" : "\n") + d.to_string();
  }
  v.sources.clear();
  v.analysis = {};
  v.fusion = {};
  v.hybrid_levels.clear();
  v.canonical.clear();
  v.roundtrip = false;
  if (v.valid) {
    v.analysis = dag::analyse(v.program);
    v.fusion = dag::plan_producer_consumer(v.program, recompute_limit(v));
    v.hybrid_levels = dag::format_levels(v.program, dag::plan_producer_consumer(v.program, dag::kHybridRecomputeLimit));
    v.last_bucket.clear();
    v.last_links.clear();
    for (int j : v.program.stencils()) {
      v.last_bucket[v.program.nodes[j].name] = v.analysis.bucket_of[j];
      for (int g : v.analysis.info(j).reads) v.last_links.emplace_back(v.program.nodes[g].name, v.program.nodes[j].name);
    }
    v.canonical = dag::print_program(v.program);
    std::vector<dag::Diagnostic> again;
    const dag::Program reparsed = dag::parse_program(v.canonical, again, v.doc.name);
    v.roundtrip = again.empty() && dag::print_program(reparsed) == v.canonical;
  }
  v.expr_buffers.resize(v.doc.items.size());
  for (std::size_t i = 0; i < v.doc.items.size(); ++i) v.expr_buffers[i] = v.doc.items[i].expr;
  if (!v.text_pane_edited) v.text_pane = v.valid ? v.canonical : v.text;
}

// One undo step: the document before `change`.
template <typename Change> void edit(DagView& v, Change&& change) {
  v.undo.push_back(v.doc);
  if (v.undo.size() > 200) v.undo.erase(v.undo.begin());
  v.redo.clear();
  change(v.doc);
  refresh(v);
}

void undo(DagView& v) {
  if (v.undo.empty()) return;
  v.redo.push_back(v.doc);
  v.doc = v.undo.back();
  v.undo.pop_back();
  v.text_pane_edited = false;
  refresh(v);
}

void redo(DagView& v) {
  if (v.redo.empty()) return;
  v.undo.push_back(v.doc);
  v.doc = v.redo.back();
  v.redo.pop_back();
  v.text_pane_edited = false;
  refresh(v);
}

// Replaces the document by a program's text; false (and the diagnostics) when the text is refused.
bool apply_text(DagView& v, const std::string& text, const std::string& default_name, bool layout) {
  std::vector<dag::Diagnostic> diags;
  const dag::Program p = dag::parse_program(text, diags, default_name);
  v.text_pane_errors = diags;
  if (!diags.empty()) return false;
  const Document old = v.doc;
  edit(v, [&](Document& d) { d = from_program(p, &old); });
  // Arranged (where the canvas's size is known) on a load, or when the text named a grid the graph did not have.
  bool new_names = false;
  for (const Statement& st : v.doc.items)
    new_names = new_names || std::none_of(old.items.begin(), old.items.end(), [&](const Statement& o) { return o.name == st.name; });
  if (layout || new_names) v.layout_pending = true;
  v.text_pane_edited = false;
  refresh(v);
  return true;
}

bool load_file(DagView& v, const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    v.message.set("cannot read " + path, true);
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string stem = std::filesystem::path(path).stem().string();
  if (!apply_text(v, ss.str(), stem, true)) {
    v.text_pane = ss.str(); // kept, with the errors under it
    v.text_pane_edited = true;
    v.message.set(path + ": refused (see the errors under the text)", true);
    return false;
  }
  v.path = path;
  v.message.set("loaded " + path, false);
  return true;
}

void save_file(DagView& v) {
  if (!v.valid) {
    v.message.set("not saved: the program has errors (shown on its nodes)", true);
    return;
  }
  std::ofstream out(v.path);
  out << v.canonical;
  if (!out) {
    v.message.set("cannot write " + v.path, true);
    return;
  }
  v.message.set("saved " + v.path, false);
}

std::string fresh_name(const Document& d, const std::string& stem) {
  for (int i = 1;; ++i) {
    const std::string name = stem + std::to_string(i);
    if (std::none_of(d.items.begin(), d.items.end(), [&](const Statement& s) { return s.name == name; })) return name;
  }
}

void start(DagView& v) {
  v.started = true;
  if (const auto dir = find_dags_dir()) {
    v.examples_dir = *dir;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(*dir, ec))
      if (e.path().extension() == ".dag") v.examples.push_back(e.path().filename().string());
    std::sort(v.examples.begin(), v.examples.end());
    std::error_code ec2;
    const std::filesystem::path shown = std::filesystem::proximate(*dir / "p_grad_c.dag", ec2); // short where it can be
    if (load_file(v, (ec2 ? *dir / "p_grad_c.dag" : shown).string())) {
      v.undo.clear(); // the default scene is where undo starts
      v.message.clear();
    }
  } else {
    v.message.set("assets/dags not found above the program or the working directory: load a .dag file by its path", true);
    refresh(v);
  }
}

// ---- Runs off the UI thread ----------------------------------------------------------------------------------

void start_runs(DagView& v) {
  if (!v.valid || v.job.running()) return;
  const int n = kRunSizes[v.run_size];
  const std::array<int, 3> domain = n > 0 ? std::array<int, 3>{n, n, n} : v.program.domain;
  auto results = std::make_shared<RunResults>();
  results->domain = domain;
  results->program = v.program.name;
  v.results = results;
  const dag::Program p = v.program;
  const bool gpu = v.gpu_reason.empty();
  const int limit = recompute_limit(v);
  v.job.start("runs of " + p.name, [p, domain, gpu, results, limit](BenchmarkJob::Control& c) {
    using clock = std::chrono::steady_clock;
    std::vector<dag::Strategy> cpu_strategies;
    for (dag::Strategy s : dag::kStrategies)
      if (dag::runs_on_cpu(s)) cpu_strategies.push_back(s);
    const auto& gpu_strategies = dag::kStrategies;
    const int total = 1 + static_cast<int>(cpu_strategies.size()) + (gpu ? static_cast<int>(std::size(gpu_strategies)) : 0);
    int done = 0;
    c.progress(done, total, "interpreter");
    const dag::State inputs = dag::make_inputs(p, domain, 7);
    dag::State reference = inputs;
    const auto t0 = clock::now();
    dag::interpret(p, reference);
    RunRow ref;
    ref.label = "interpreter (reference)";
    ref.strategy = "interpreter";
    ref.seconds = std::chrono::duration<double>(clock::now() - t0).count();
    {
      std::lock_guard lock(results->mutex);
      results->rows.push_back(ref);
    }
    bool f32 = false;
    for (const dag::Node& node : p.nodes) f32 = f32 || node.type == dag::Type::F32;
    const double bound = f32 ? 1e-5 : 1e-12;
    auto record = [&](RunRow row, const dag::State& got) {
      const dag::Compare cmp = dag::compare_outputs(p, got, reference);
      row.rel_l2 = cmp.rel_l2, row.max_abs = cmp.max_abs;
      row.checked = true;
      row.passed = cmp.finite && cmp.rel_l2 < bound;
      std::lock_guard lock(results->mutex);
      results->rows.push_back(std::move(row));
    };
    for (dag::Strategy s : cpu_strategies) {
      if (c.stop.stop_requested()) return;
      c.progress(++done, total, std::string("CPU ") + dag::to_string(s));
      dag::State state = inputs;
      const auto t = clock::now();
      dag::run_cpu(p, s, state, limit);
      RunRow row;
      row.label = std::string("CPU ") + dag::to_string(s);
      row.strategy = dag::to_string(s);
      row.seconds = std::chrono::duration<double>(clock::now() - t).count();
      record(row, state);
    }
    if (gpu)
      for (dag::Strategy s : gpu_strategies) {
        if (c.stop.stop_requested()) return;
        c.progress(++done, total, std::string("GPU ") + dag::to_string(s));
        RunRow row;
        row.label = std::string("GPU ") + dag::to_string(s);
        row.strategy = dag::to_string(s);
        row.gpu = true;
        try {
          dag::State state = inputs;
          const dag::GpuTiming t = dag::run_gpu(p, s, inputs, state, 0.3, limit);
          row.seconds = t.seconds;
          row.detail = fmt::format("{} launches, NVRTC {:.2f} s, {} registers{}{}", t.launches, t.compile_seconds,
                                   t.registers, t.schedule.empty() ? "" : ", ", t.schedule);
          record(row, state);
        } catch (const std::exception& e) {
          row.detail = e.what();
          std::lock_guard lock(results->mutex);
          results->rows.push_back(row);
        }
      }
    c.progress(total, total, "done");
  });
}

// ---- Pages -----------------------------------------------------------------------------------------------------

void draw_toolbar(ViewContext& ctx, DagView& v) {
  ImGui::BeginDisabled(v.undo.empty());
  if (ImGui::Button("Undo")) undo(v);
  probe_last_item(ctx.state, "dag.undo");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(v.redo.empty());
  if (ImGui::Button("Redo")) redo(v);
  probe_last_item(ctx.state, "dag.redo");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("+ input")) {
    const std::string name = fresh_name(v.doc, "in");
    const ImVec2 at((ui_px(16.0f) - v.editor.scroll.x) / v.editor.zoom, (ui_px(16.0f) - v.editor.scroll.y) / v.editor.zoom);
    edit(v, [&](Document& d) {
      Statement s;
      s.input = true, s.name = name, s.pos = at;
      // Inputs come before the operators (a grid is defined before it is read).
      const auto first_stencil = std::find_if(d.items.begin(), d.items.end(), [](const Statement& x) { return !x.input; });
      d.items.insert(first_stencil, s);
    });
  }
  probe_last_item(ctx.state, "dag.add_input");
  ImGui::SameLine();
  if (ImGui::Button("+ operator")) {
    const std::string name = fresh_name(v.doc, "s");
    std::string reads = "0";
    for (const Statement& s : v.doc.items)
      if (s.input) {
        reads = s.name;
        break;
      }
    const ImVec2 at((ui_px(300.0f) - v.editor.scroll.x) / v.editor.zoom, (ui_px(16.0f) - v.editor.scroll.y) / v.editor.zoom);
    edit(v, [&](Document& d) {
      Statement s;
      s.input = false, s.name = name, s.expr = reads, s.pos = at;
      d.items.push_back(s);
    });
    v.selected = static_cast<int>(v.doc.items.size()) - 1;
  }
  probe_last_item(ctx.state, "dag.add_operator");
  ImGui::SameLine();
  const bool can_delete = v.selected >= 0 && v.selected < static_cast<int>(v.doc.items.size());
  ImGui::BeginDisabled(!can_delete);
  if (ImGui::Button("Delete node") && can_delete) {
    const int i = v.selected;
    edit(v, [&](Document& d) { d.items.erase(d.items.begin() + i); });
    v.selected = -1;
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Deletes the selected node (click a node's title to select it); its readers then show the error.");
  same_line_if_fits(ImGui::CalcTextSize("Arrange by bucket").x + 2.0f * ImGui::GetStyle().FramePadding.x);
  ImGui::BeginDisabled(!v.valid);
  if (ImGui::Button("Arrange by bucket") && v.valid) {
    edit(v, [&](Document& d) { auto_layout(d, v.program, v.analysis); });
    v.editor.fit_pending = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Inputs in the first column, bucket b's operators in column b + 1; fits the view");
  ImGui::EndDisabled();
  if (ImGui::Checkbox("text", &v.show_text)) v.editor.fit_pending = true;
  probe_last_item(ctx.state, "dag.show_text");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The program's text beside the graph (editable; Apply parses it into the graph)");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ui_px(130.0f));
  if (ImGui::BeginCombo("##example", "Examples")) {
    for (const std::string& e : v.examples)
      if (ImGui::Selectable(e.c_str())) load_file(v, (v.examples_dir / e).string());
    ImGui::EndCombo();
  }
  probe_last_item(ctx.state, "dag.examples");
  ImGui::SameLine();
  // The path field, as the other views' JSON fields.
  ImGui::SetNextItemWidth(std::max(ui_px(160.0f), ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("LoadSave").x -
                                                      4.0f * ImGui::GetStyle().FramePadding.x - 2.0f * ImGui::GetStyle().ItemSpacing.x));
  ImGui::InputTextWithHint("##path", "program file (.dag)", &v.path);
  probe_last_item(ctx.state, "dag.path");
  ImGui::SameLine();
  if (ImGui::Button("Load")) load_file(v, v.path);
  probe_last_item(ctx.state, "dag.load");
  ImGui::SameLine();
  if (ImGui::Button("Save")) save_file(v);
  probe_last_item(ctx.state, "dag.save");
  draw_message(v.message);
}

std::string bucket_label(const DagView& v, std::size_t b) {
  std::string names;
  for (int n : v.analysis.buckets[b]) names += (names.empty() ? "" : ", ") + v.program.nodes[n].name;
  return fmt::format("bucket {}: {}", b, names);
}

// The lines draw_legend takes in a width of `width` (its chips go on while they fit a line).
int legend_lines(const DagView& v, float width) {
  if (!v.valid) return 0;
  const float sw = ImGui::GetTextLineHeight(), space = ImGui::GetStyle().ItemSpacing.x;
  int lines = 1;
  float x = sw + space + ImGui::CalcTextSize("inputs").x;
  for (std::size_t b = 0; b < v.analysis.buckets.size(); ++b) {
    const float item = sw + space + ImGui::CalcTextSize(bucket_label(v, b).c_str()).x;
    if (x + space + item > width) ++lines, x = item;
    else x += space + item;
  }
  return lines;
}

void draw_legend(ViewContext& ctx, DagView& v) {
  if (!v.valid) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sw = ImGui::GetTextLineHeight();
  auto swatch = [&](ImU32 c) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, ImVec2(p.x + sw, p.y + sw), c, ui_px(2.0f));
    ImGui::Dummy(ImVec2(sw, sw));
    ImGui::SameLine();
  };
  swatch(kInputColor);
  ImGui::TextUnformatted("inputs");
  for (std::size_t b = 0; b < v.analysis.buckets.size(); ++b) {
    const std::string label = bucket_label(v, b);
    same_line_if_fits(sw + ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().ItemSpacing.x * 2);
    swatch(bucket_color(static_cast<int>(b)));
    ImGui::TextUnformatted(label.c_str());
    publish(ctx, fmt::format("dag.bucket_color.{}", b), hex_color(bucket_color(static_cast<int>(b))));
  }
}

void draw_editor_page(ViewContext& ctx, DagView& v) {
  draw_toolbar(ctx, v);
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float text_w = std::clamp(avail_w * 0.34f, ui_px(240.0f), ui_px(460.0f));
  const float canvas_w = v.show_text ? avail_w - text_w - ImGui::GetStyle().ItemSpacing.x : avail_w;
  // The legend's lines under the canvas (one where it fits: the canvas's height sets the nodes' zoom, issue 17).
  const float legend_h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(std::max(1, legend_lines(v, avail_w)));
  const float h = std::max(ui_px(160.0f), ImGui::GetContentRegionAvail().y - legend_h);

  // The canvas.
  if (v.layout_pending && v.valid) {
    v.layout_pending = false;
    auto_layout(v.doc, v.program, v.analysis);
    v.editor.fit_pending = true;
  }
  const float node_w = ui_px(kNodeWidth), input_w = input_node_width(v.doc);
  std::vector<NodeEditorNode> nodes(v.doc.items.size());
  const float line = ImGui::GetTextLineHeight();
  for (std::size_t i = 0; i < v.doc.items.size(); ++i) {
    const Statement& s = v.doc.items[i];
    NodeEditorNode& n = nodes[i];
    n.pos = s.pos;
    n.input_pin = !s.input;
    n.error = !v.item_errors[i].empty();
    n.selected = static_cast<int>(i) == v.selected;
    if (s.input) {
      n.title = input_title(s);
      n.width = input_w;
      n.header = kInputColor;
    } else {
      n.title = s.name;
      const bool known = v.valid && i < v.program.nodes.size();
      // While the program has errors, the buckets of the last valid program (by name) keep their colours.
      const auto last = v.last_bucket.find(s.name);
      const int b = known ? v.analysis.bucket_of[i] : last != v.last_bucket.end() ? last->second : -1;
      n.detail = known ? fmt::format("bucket {}, {}{}", b, dag::to_string(v.program.nodes[i].type),
                                     v.analysis.info(static_cast<int>(i)).radius > 0
                                         ? fmt::format(", radius {}", v.analysis.info(static_cast<int>(i)).radius) : "")
                       : b >= 0 ? fmt::format("bucket {} before the edit", b) : "operator";
      n.header = b >= 0 ? bucket_color(b) : IM_COL32(150, 150, 150, 255);
      // The expression field, and under it the errors wrapped to the body's width (at zoom 1).
      n.body_height = ImGui::GetFrameHeight() +
                      (n.error ? ImGui::CalcTextSize(v.item_errors[i].c_str(), nullptr, false, node_w - ui_px(12.0f)).y + ui_px(2.0f) : 0.0f);
    }
  }
  // Links: the reads of the program, or while it has errors those of the last valid one (by name, dimmed).
  std::vector<NodeEditorLink> links;
  auto index_of = [&](const std::string& name) {
    for (std::size_t k = 0; k < v.doc.items.size(); ++k)
      if (v.doc.items[k].name == name) return static_cast<int>(k);
    return -1;
  };
  for (const auto& [from_name, to_name] : v.last_links) {
    NodeEditorLink l;
    l.from = index_of(from_name), l.to = index_of(to_name);
    if (l.from < 0 || l.to < 0 || v.doc.items[l.to].input) continue;
    const auto b = v.last_bucket.find(from_name);
    l.color = b == v.last_bucket.end() ? IM_COL32(190, 192, 200, 170) : (bucket_color(b->second) & 0x00ffffff) | 0xd0000000;
    if (!v.valid) l.color = (l.color & 0x00ffffff) | 0x60000000;
    links.push_back(l);
  }
  NodeEditor::Frame f = v.editor.begin("##canvas", ImVec2(canvas_w, h), nodes, links, node_w);
  probe_rect(ctx.state, "dag.canvas", f.canvas_min, f.canvas_max);
  bool commit_expr = false;
  int commit_index = -1;
  for (std::size_t i = 0; i < v.doc.items.size(); ++i) {
    const std::string& name = v.doc.items[i].name;
    probe_rect(ctx.state, "dag.node." + name, f.node_min[i], ImVec2(f.node_max[i].x, f.node_min[i].y + f.title_height[i]));
    probe_rect(ctx.state, "dag.pin.out." + name, ImVec2(f.out_pin[i].x - 1, f.out_pin[i].y - 1),
               ImVec2(f.out_pin[i].x + 1, f.out_pin[i].y + 1));
    if (v.doc.items[i].input) continue;
    probe_rect(ctx.state, "dag.pin.in." + name, ImVec2(f.in_pin[i].x - 1, f.in_pin[i].y - 1),
               ImVec2(f.in_pin[i].x + 1, f.in_pin[i].y + 1));
    ImGui::PushID(static_cast<int>(i));
    f.enter(static_cast<int>(i));
    ImGui::SetCursorScreenPos(f.body_min(static_cast<int>(i)));
    ImGui::SetNextItemWidth(f.body_width);
    ImGui::InputText("##expr", &v.expr_buffers[i]);
    probe_last_item(ctx.state, "dag.expr." + name);
    if (ImGui::IsItemHovered() && !ImGui::IsItemActive()) ImGui::SetTooltip("%s = %s", name.c_str(), v.expr_buffers[i].c_str());
    if (ImGui::IsItemDeactivatedAfterEdit()) commit_expr = true, commit_index = static_cast<int>(i);
    if (!v.item_errors[i].empty()) {
      ImGui::SetCursorScreenPos(ImVec2(f.body_min(static_cast<int>(i)).x, ImGui::GetCursorScreenPos().y + ui_px(2.0f)));
      ImGui::PushTextWrapPos(f.body_min(static_cast<int>(i)).x + f.body_width - ImGui::GetWindowPos().x);
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.5f, 0.45f, 1.0f));
      ImGui::TextUnformatted(v.item_errors[i].c_str());
      ImGui::PopStyleColor();
      ImGui::PopTextWrapPos();
      probe_last_item(ctx.state, "dag.error." + name);
    }
    ImGui::PopID();
  }
  v.editor.end(f);
  publish(ctx, "dag.zoom", fmt::format("{:.3f}", v.editor.zoom));
  // Events, after the frame.
  if (commit_expr && commit_index >= 0 && v.expr_buffers[commit_index] != v.doc.items[commit_index].expr) {
    const std::string typed = v.expr_buffers[commit_index];
    edit(v, [&](Document& d) { d.items[commit_index].expr = typed; });
  }
  if (f.clicked >= 0) v.selected = f.clicked;
  // A node drag is one undo step: the document before its first moved frame.
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].pos.x != v.doc.items[i].pos.x || nodes[i].pos.y != v.doc.items[i].pos.y) {
      if (!v.moving) {
        v.undo.push_back(v.doc);
        v.redo.clear();
        v.moving = true;
      }
      v.doc.items[i].pos = nodes[i].pos;
    }
  if (f.moving < 0) v.moving = false;
  if (f.link_from >= 0 && f.link_to >= 0) {
    const int from = f.link_from, to = f.link_to;
    const std::string grid = v.doc.items[from].name, op = v.doc.items[to].name;
    bool reads = false;
    if (v.valid)
      for (int g : v.analysis.info(to).reads) reads = reads || g == from;
    if (reads) {
      v.message.set(op + " already reads " + grid, false);
    } else if (from == to) {
      v.message.set("an operator cannot read its own output", true);
    } else {
      edit(v, [&](Document& d) {
        Statement& target = d.items[to];
        target.expr = "(" + target.expr + ") + " + grid;
        // A grid is defined before it is read: an operator connected to a later grid moves below it.
        if (from > to) {
          Statement moved = target;
          d.items.erase(d.items.begin() + to);
          d.items.insert(d.items.begin() + from, moved);
        }
      });
      v.message.set(fmt::format("{} now reads {}: '+ {}' added to its expression (edit it to weight the term)", op, grid, grid),
                    false);
    }
  }

  if (!v.show_text) {
    draw_legend(ctx, v);
    return;
  }
  ImGui::SameLine();
  // The text pane: the program's text, editable; Apply parses it into the graph.
  ImGui::BeginGroup();
  ImGui::TextDisabled(v.valid ? (v.roundtrip ? "Program text (round-trips)" : "Program text") : "Program text (with errors)");
  const float buttons_h = ImGui::GetFrameHeightWithSpacing();
  const float errors_h = v.text_pane_errors.empty() && v.header_errors.empty() ? 0.0f : line * 3.0f;
  ImGui::InputTextMultiline("##text", &v.text_pane,
                            ImVec2(text_w, std::max(ui_px(80.0f), h - buttons_h - errors_h - ImGui::GetTextLineHeightWithSpacing())));
  probe_last_item(ctx.state, "dag.text");
  if (ImGui::IsItemEdited()) v.text_pane_edited = true;
  ImGui::BeginDisabled(!v.text_pane_edited);
  if (ImGui::Button("Apply text")) {
    const std::string text = v.text_pane;
    if (!apply_text(v, text, v.doc.name, false)) v.text_pane = text;
  }
  probe_last_item(ctx.state, "dag.apply_text");
  ImGui::SameLine();
  if (ImGui::Button("Revert")) {
    v.text_pane_edited = false;
    v.text_pane_errors.clear();
    refresh(v);
  }
  ImGui::EndDisabled();
  if (!v.text_pane_errors.empty() || !v.header_errors.empty()) {
    ImGui::BeginChild("##text_errors", ImVec2(text_w, errors_h), false);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.5f, 0.45f, 1.0f));
    ImGui::PushTextWrapPos(0.0f);
    for (const dag::Diagnostic& d : v.text_pane_errors) ImGui::TextUnformatted(d.to_string().c_str());
    if (!v.header_errors.empty()) ImGui::TextUnformatted(v.header_errors.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::EndChild();
    if (!v.text_pane_errors.empty()) publish(ctx, "dag.text_error", v.text_pane_errors.front().to_string());
  }
  ImGui::EndGroup();
  draw_legend(ctx, v);
}

void draw_text_block(const char* id, const std::string& text, ImVec2 size) {
  std::string copy = text; // read-only: ImGui wants a mutable buffer
  ImGui::InputTextMultiline(id, &copy, size, ImGuiInputTextFlags_ReadOnly);
}

void draw_buckets_page(ViewContext& ctx, DagView& v) {
  if (!v.valid) {
    ImGui::TextWrapped("The program has errors (see the Editor page): no buckets.");
    return;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("The S-DAG keeps the stencil operators and the edges between them (inputs are const). Buckets are "
                     "found by repeatedly removing every operator whose in-degree is zero: those read only inputs and "
                     "operators already removed, so they can run side by side. Bucket b runs after bucket b-1.");
  ImGui::PopTextWrapPos();
  // The adjacency matrix on the right (its own width), the bucket steps and the tensors on the left.
  const std::size_t n = v.program.nodes.size();
  // The cells fit the page's height under the matrix's two header lines (at a lecture's 1280x720 the last rows ran
  // under the window's edge, issue 17), down to a cell that still holds its 0 or 1.
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float fit = (ImGui::GetContentRegionAvail().y - 2.0f * ImGui::GetStyle().WindowPadding.y - 2.0f * line_h) /
                    static_cast<float>(std::max<std::size_t>(n, 1));
  const float cell = std::floor(std::max(std::min(std::max(ui_px(14.0f), ImGui::CalcTextSize("00").x + ui_px(3.0f)), fit),
                                         ImGui::GetTextLineHeight() * 0.8f));
  float label_w = 0;
  for (std::size_t i = 0; i < n; ++i)
    label_w = std::max(label_w, ImGui::CalcTextSize(fmt::format("{} {}", i, v.program.nodes[i].name).c_str()).x);
  label_w += ui_px(6.0f);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float matrix_w = std::max(label_w + static_cast<float>(n) * cell,
                                  ImGui::CalcTextSize("row i feeds column j").x) + 2.0f * style.WindowPadding.x + style.ScrollbarSize;
  const float left_w = std::max(ui_px(240.0f), ImGui::GetContentRegionAvail().x - matrix_w - style.ItemSpacing.x);
  ImGui::BeginChild("##bucket_steps", ImVec2(left_w, 0), false);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sw = ImGui::GetTextLineHeight();
  for (std::size_t b = 0; b < v.analysis.buckets.size(); ++b) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, ImVec2(p.x + sw, p.y + sw), bucket_color(static_cast<int>(b)), ui_px(2.0f));
    ImGui::Dummy(ImVec2(sw, sw));
    ImGui::SameLine();
    std::string names;
    for (int node : v.analysis.buckets[b]) names += (names.empty() ? "" : ", ") + v.program.nodes[node].name;
    ImGui::Text("Step %zu: bucket %zu = {%s}", b + 1, b, names.c_str());
    publish(ctx, fmt::format("dag.bucket.{}", b), names);
    // Why: each one's producers are inputs or removed already.
    ImGui::Indent(sw + style.ItemSpacing.x);
    ImGui::PushStyleColor(ImGuiCol_Text, style.Colors[ImGuiCol_TextDisabled]);
    ImGui::PushTextWrapPos(0.0f);
    for (int node : v.analysis.buckets[b]) {
      std::string producers;
      for (int g : v.analysis.info(node).stencil_producers) producers += (producers.empty() ? "" : ", ") + v.program.nodes[g].name;
      ImGui::TextWrapped("%s: %s", v.program.nodes[node].name.c_str(),
                         producers.empty() ? "reads inputs only" : ("in-degree 0 once {" + producers + "} removed").c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::Unindent(sw + style.ItemSpacing.x);
  }
  ImGui::Spacing();
  ImGui::Text("%s: %zu operators, %zu inputs, %d edges", v.analysis.benchmark_name().c_str(), v.program.stencils().size(),
              v.program.inputs().size(), v.analysis.edges);
  ImGui::PushStyleColor(ImGuiCol_Text, style.Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("Right: 1 where row i feeds column j, in the colour of row i's bucket (grey: an input).");
  // The tensors as text where four lines of them fit; else a line that says where they are, where it fits (a text
  // block cut at the window's edge, half a line of it showing, was all a lecture's 1280x720 had room for).
  const bool tensors_fit = ImGui::GetContentRegionAvail().y >= 6.0f * line_h;
  const char* elsewhere = "The neighbour-access and multi-grid tensors: stencil-bench dag --print tensors";
  if (tensors_fit)
    ImGui::TextWrapped("Neighbour-access and multi-grid computation tensors:");
  else if (ImGui::CalcTextSize(elsewhere, nullptr, false, ImGui::GetContentRegionAvail().x).y <= ImGui::GetContentRegionAvail().y)
    ImGui::TextWrapped("%s", elsewhere);
  ImGui::PopStyleColor();
  if (tensors_fit)
    draw_text_block("##tensors", dag::format_tensors(v.program, v.analysis), ImVec2(-1, ImGui::GetContentRegionAvail().y));
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##adjacency", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::TextDisabled("row i feeds column j");
  ImDrawList* gdl = ImGui::GetWindowDrawList();
  ImVec2 o = ImGui::GetCursorScreenPos();
  for (std::size_t j = 0; j < n; ++j) {
    const std::string idx = std::to_string(j);
    gdl->AddText(ImVec2(o.x + label_w + static_cast<float>(j) * cell + (cell - ImGui::CalcTextSize(idx.c_str()).x) * 0.5f, o.y),
                 ImGui::GetColorU32(ImGuiCol_TextDisabled), idx.c_str());
  }
  o.y += ImGui::GetTextLineHeightWithSpacing();
  // Every cell shows its value: 1 where row i feeds column j (in the colour of row i's bucket, grey for an input),
  // 0 where it does not.
  const ImVec2 one = ImGui::CalcTextSize("1");
  const float text_y = 0.5f * (cell - 2.0f - one.y);
  for (std::size_t i = 0; i < n; ++i) {
    const ImU32 c = v.program.nodes[i].is_input ? kInputColor : bucket_color(v.analysis.bucket_of[i]);
    gdl->AddText(ImVec2(o.x, o.y + static_cast<float>(i) * cell + text_y), c, fmt::format("{} {}", i, v.program.nodes[i].name).c_str());
    for (std::size_t j = 0; j < n; ++j) {
      const ImVec2 q(o.x + label_w + static_cast<float>(j) * cell, o.y + static_cast<float>(i) * cell);
      const bool on = v.analysis.adjacency[i][j] != 0;
      gdl->AddRectFilled(q, ImVec2(q.x + cell - 2, q.y + cell - 2), on ? c : IM_COL32(50, 52, 60, 255));
      gdl->AddText(ImVec2(q.x + 0.5f * (cell - 2.0f - one.x), q.y + text_y), on ? IM_COL32(20, 20, 26, 255) : IM_COL32(118, 120, 128, 255),
                   on ? "1" : "0");
    }
  }
  ImGui::Dummy(ImVec2(label_w + static_cast<float>(n) * cell, ImGui::GetTextLineHeightWithSpacing() + static_cast<float>(n) * cell));
  probe_rect(ctx.state, "dag.adjacency", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::EndChild();
}

dag::Cost strategy_cost(const DagView& v, dag::Strategy s) {
  return dag::strategy_cost(v.program, v.analysis, s, v.program.domain, recompute_limit(v));
}

std::string cost_line(const DagView& v, dag::Strategy s) {
  const dag::Cost c = strategy_cost(v, s);
  const double points = static_cast<double>(v.program.domain[0]) * v.program.domain[1] * v.program.domain[2];
  return fmt::format("{}: {} launch{}, {:.1f} bytes and {:.1f} FLOPs per point", dag::to_string(s), c.launches,
                     c.launches == 1 ? "" : "es", c.bytes / points, c.flops / points);
}

void draw_pc_page(ViewContext& ctx, DagView& v) {
  if (!v.valid) {
    ImGui::TextWrapped("The program has errors (see the Editor page).");
    return;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Producer-consumer fusion (as OpenEarth does): a producer read only by later operators is inlined "
                     "into its consumers and never written to memory; each consumer recomputes it at every offset it "
                     "reads (the halo), so the fusion trades re-reading an intermediate grid for recomputing it. Outputs "
                     "are always written; an intermediate stays materialised where recomputing would cost more than the "
                     "limit below times its own work.");
  ImGui::PopTextWrapPos();
  ImGui::SetNextItemWidth(ui_px(220.0f));
  const bool open = ImGui::BeginCombo("recomputation limit", recompute_limit_label(recompute_limit(v)).c_str());
  probe_last_item(ctx.state, "dag.pc.limit");
  if (open) {
    for (int i = 0; i < static_cast<int>(std::size(dag::kRecomputeLimitSteps)); ++i) {
      if (ImGui::Selectable(recompute_limit_label(dag::kRecomputeLimitSteps[i]).c_str(), i == v.limit_index) &&
          i != v.limit_index) {
        v.limit_index = i;
        refresh(v);
      }
      probe_last_item(ctx.state, "dag.pc.limit." + std::to_string(i));
    }
    ImGui::EndCombo();
  }
  publish(ctx, "dag.pc.limit", std::to_string(recompute_limit(v)));
  ImGui::SameLine();
  ImGui::TextDisabled("(the runs and the generated source follow it)");
  ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1.0f), "%s", cost_line(v, dag::Strategy::Sequential).c_str());
  ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.45f, 1.0f), "%s", cost_line(v, dag::Strategy::ProducerConsumer).c_str());
  int inlined = 0;
  std::string inlined_names;
  for (int s : v.program.stencils())
    if (!v.fusion.materialised[s]) ++inlined, inlined_names += (inlined_names.empty() ? "" : ", ") + v.program.nodes[s].name;
  // The trade in this program's numbers: p_grad_c inlines wk = delpc, a copy, so its FLOPs stay equal while the tour's
  // caption says "more FLOPs" (issue 17).
  const double seq_flops = strategy_cost(v, dag::Strategy::Sequential).flops;
  const double pc_flops = strategy_cost(v, dag::Strategy::ProducerConsumer).flops;
  if (inlined > 0) {
    ImGui::PushTextWrapPos(0.0f);
    if (pc_flops <= seq_flops)
      ImGui::TextDisabled("Here recomputing %s costs no FLOPs (a copy): fewer bytes for free.", inlined_names.c_str());
    else
      ImGui::TextDisabled("Here recomputing %s costs %.0f%% more FLOPs for the bytes it saves.", inlined_names.c_str(),
                          100.0 * (pc_flops / std::max(seq_flops, 1.0) - 1.0));
    ImGui::PopTextWrapPos();
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Hybrid fusion takes both fusions without recomputing anything: producer-consumer's plan at limit 1 (an "
                     "intermediate is inlined only where one kernel reads it at one offset), then its kernels of one "
                     "dependency level fused horizontally, one launch per level that loads each (grid, offset) once.");
  ImGui::PopTextWrapPos();
  const std::string hybrid = cost_line(v, dag::Strategy::Hybrid);
  ImGui::TextColored(ImVec4(0.85f, 0.6f, 1.0f, 1.0f), "%s", hybrid.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("launches: %s", v.hybrid_levels.c_str());
  publish(ctx, "dag.pc.hybrid_cost", hybrid);
  publish(ctx, "dag.pc.hybrid_levels", v.hybrid_levels);
  publish(ctx, "dag.pc.kernels", std::to_string(v.fusion.kernels.size()));
  publish(ctx, "dag.pc.inlined", std::to_string(inlined));
  ImGui::BeginChild("##pc_kernels", ImVec2(0, 0), true);
  ImGui::PushTextWrapPos(0.0f);
  for (std::size_t k = 0; k < v.fusion.kernels.size(); ++k) {
    const int out = v.fusion.kernel_node[k];
    std::map<int, int> recomputed; // inlined node -> offsets it is computed at
    for (const dag::FusionPlan::Value& val : v.fusion.kernels[k])
      if (val.node != out) ++recomputed[val.node];
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(bucket_color(v.analysis.bucket_of[out])), "kernel %zu writes %s", k,
                       v.program.nodes[out].name.c_str());
    ImGui::Indent();
    if (recomputed.empty()) ImGui::TextDisabled("fuses nothing: reads its grids from memory");
    for (const auto& [node, count] : recomputed)
      ImGui::TextWrapped("inlines %s: recomputed at %d offset%s per point, never written", v.program.nodes[node].name.c_str(),
                         count, count == 1 ? "" : "s");
    std::string loads;
    for (int g : v.analysis.info(out).reads)
      if (v.fusion.materialised[g]) loads += (loads.empty() ? "" : ", ") + v.program.nodes[g].name;
    std::vector<int> seen;
    for (const dag::FusionPlan::Value& val : v.fusion.kernels[k])
      if (val.node != out)
        for (int g : v.analysis.info(val.node).reads)
          if (v.fusion.materialised[g] && std::find(seen.begin(), seen.end(), g) == seen.end()) seen.push_back(g);
    for (int g : seen)
      if (loads.find(v.program.nodes[g].name) == std::string::npos) loads += (loads.empty() ? "" : ", ") + v.program.nodes[g].name;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("reads from memory: %s", loads.empty() ? "-" : loads.c_str());
    ImGui::PopStyleColor();
    ImGui::Unindent();
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

void draw_parallel_page(ViewContext& ctx, DagView& v) {
  if (!v.valid) {
    ImGui::TextWrapped("The program has errors (see the Editor page).");
    return;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Parallelism fusion (Plasticine): the operators of one bucket are independent, so one launch runs "
                     "them all: its thread blocks are mTasks (a tile of %dx%d points on one plane) of different "
                     "operators, placed on virtual execution units by a resource-aware schedule. Nothing is recomputed: "
                     "every operator still writes its grid, and a later bucket re-reads it from memory. What it saves "
                     "is launches and the idle tail of small kernels.",
                     dag::kTileX, dag::kTileY);
  ImGui::PopTextWrapPos();
  ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1.0f), "%s", cost_line(v, dag::Strategy::Sequential).c_str());
  ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.45f, 1.0f), "%s", cost_line(v, dag::Strategy::Parallel).c_str());
  ImGui::TextColored(ImVec4(0.6f, 0.75f, 1.0f, 1.0f), "%s", cost_line(v, dag::Strategy::Graph).c_str());
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Horizontal fusion goes one step further with the same buckets: one launch per bucket in which every "
                     "thread computes all the bucket's operators at its point and loads each (grid, offset) they read "
                     "once, so a grid several operators of a bucket read crosses memory once (below, per launch: the grids "
                     "read by more than one of its operators).");
  ImGui::PopTextWrapPos();
  const std::string horizontal = cost_line(v, dag::Strategy::Horizontal);
  ImGui::TextColored(ImVec4(0.85f, 0.6f, 1.0f, 1.0f), "%s", horizontal.c_str());
  publish(ctx, "dag.parallel.horizontal_cost", horizontal);
  publish(ctx, "dag.parallel.launches", std::to_string(v.analysis.buckets.size()));
  ImGui::BeginChild("##par", ImVec2(0, 0), true);
  const float sw = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (std::size_t b = 0; b < v.analysis.buckets.size(); ++b) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, ImVec2(p.x + sw, p.y + sw), bucket_color(static_cast<int>(b)), ui_px(2.0f));
    ImGui::Dummy(ImVec2(sw, sw));
    ImGui::SameLine();
    std::string names;
    for (int n : v.analysis.buckets[b]) names += (names.empty() ? "" : " + ") + v.program.nodes[n].name;
    const std::size_t ops = v.analysis.buckets[b].size();
    ImGui::Text("launch %zu fuses %s", b, names.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled(ops > 1 ? "(%zu operators in one launch)" : "(one operator: nothing to fuse)", ops);
    std::string rereads;
    for (int n : v.analysis.buckets[b])
      for (int g : v.analysis.info(n).stencil_producers)
        if (rereads.find(v.program.nodes[g].name) == std::string::npos)
          rereads += (rereads.empty() ? "" : ", ") + v.program.nodes[g].name;
    if (!rereads.empty()) {
      ImGui::Indent(sw + ImGui::GetStyle().ItemSpacing.x);
      ImGui::TextDisabled("re-reads from memory what earlier launches wrote: %s", rereads.c_str());
      ImGui::Unindent(sw + ImGui::GetStyle().ItemSpacing.x);
    }
    std::map<int, int> readers; // grid -> operators of the bucket reading it
    for (int n : v.analysis.buckets[b])
      for (int g : v.analysis.info(n).reads) ++readers[g];
    std::string shared;
    for (const auto& [g, count] : readers)
      if (count > 1) shared += fmt::format("{}{} ({}x)", shared.empty() ? "" : ", ", v.program.nodes[g].name, count);
    if (!shared.empty()) {
      ImGui::Indent(sw + ImGui::GetStyle().ItemSpacing.x);
      ImGui::TextColored(ImVec4(0.85f, 0.6f, 1.0f, 1.0f), "horizontal fusion loads once: %s", shared.c_str());
      ImGui::Unindent(sw + ImGui::GetStyle().ItemSpacing.x);
    }
    publish(ctx, fmt::format("dag.parallel.shared.{}", b), shared.empty() ? "-" : shared);
  }
  ImGui::EndChild();
}

// The learned choice between producer-consumer and parallelism fusion (CNN+GCN, issue 16) for the chosen grid,
// beside the best of the two measured in the last run (GPU rows where there are, else CPU rows).
void draw_prediction(ViewContext& ctx, DagView& v, const std::vector<RunRow>& rows, std::array<int, 3> run_domain) {
  if (!v.model_tried) {
    v.model_tried = true;
    const std::string path = dag::default_fusion_model_path();
    if (path.empty()) {
      v.model_error = "no fusion model (assets/models/fusion_cnn_gcn.weights.json not found)";
    } else {
      try {
        v.model = dag::load_fusion_model(path);
      } catch (const std::exception& e) {
        v.model_error = e.what();
      }
    }
  }
  if (!v.model) {
    ImGui::TextDisabled("Learned fusion choice: %s", v.model_error.c_str());
    publish(ctx, "dag.predicted", "none");
    return;
  }
  if (!v.valid) return;
  const int n = kRunSizes[v.run_size];
  const std::array<int, 3> domain = n > 0 ? std::array<int, 3>{n, n, n} : v.program.domain;
  const std::string key = fmt::format("{}|{}x{}x{}", v.canonical, domain[0], domain[1], domain[2]);
  if (v.predicted_for != key) {
    v.predicted = dag::predict_fusion(*v.model, v.program, domain);
    v.predicted_for = key;
  }
  const char* name = dag::to_string(v.predicted.strategy);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Learned fusion choice (CNN+GCN, trained on GPU timings at 128^3 and 256^3) for %dx%dx%d: %s, "
                     "probability %.3f",
                     domain[0], domain[1], domain[2], name, v.predicted.probability);
  publish(ctx, "dag.predicted", fmt::format("{} {:.3f}", name, v.predicted.probability));
  // The measured best of the two (and of all strategies) in the last run, where it ran on this grid.
  const bool any_gpu = std::any_of(rows.begin(), rows.end(), [](const RunRow& r) { return r.gpu; });
  const RunRow *pc = nullptr, *par = nullptr, *best = nullptr;
  for (const RunRow& r : rows) {
    if (r.gpu != any_gpu || !r.checked || !r.passed || r.seconds <= 0 || r.strategy == "interpreter") continue;
    if (r.strategy == "producer-consumer") pc = &r;
    if (r.strategy == "parallel") par = &r;
    if (!best || r.seconds < best->seconds) best = &r;
  }
  if (pc && par && run_domain == domain) {
    const RunRow* two = pc->seconds <= par->seconds ? pc : par;
    const bool agree = two->strategy == name;
    ImGui::PushStyleColor(ImGuiCol_Text, agree ? ImVec4(0.55f, 0.85f, 0.55f, 1.0f) : ImVec4(1.0f, 0.7f, 0.35f, 1.0f));
    ImGui::TextWrapped("Measured best of the two (%s): %s (producer-consumer %.3f ms, parallel %.3f ms)%s; fastest of "
                       "all: %s",
                       any_gpu ? "GPU" : "CPU", two->strategy.c_str(), pc->seconds * 1e3, par->seconds * 1e3,
                       agree ? ", as predicted" : any_gpu ? ": the model missed" : " (the model predicts the GPU's choice)",
                       best->strategy.c_str());
    ImGui::PopStyleColor();
    publish(ctx, "dag.measured_best", two->strategy);
  } else {
    ImGui::TextDisabled("Run the strategies on this grid to compare with the measured best.");
  }
  ImGui::PopTextWrapPos();
}

void draw_run_page(ViewContext& ctx, DagView& v) {
  if (!v.gpu_checked) {
    v.gpu_reason = dag::gpu_strategies_unavailable_reason();
    v.gpu_checked = true;
  }
  if (v.job.running() && ctx.finish_background_work) v.job.wait();
  ImGui::BeginDisabled(!v.valid || v.job.running());
  const char* size_labels[] = {"32^3", "64^3", "128^3", "the program's domain"};
  ImGui::SetNextItemWidth(ui_px(200.0f));
  ImGui::Combo("grid", &v.run_size, size_labels, 4);
  ImGui::SameLine();
  if (ImGui::Button(v.gpu_reason.empty() ? "Run every strategy (CPU and GPU)" : "Run every strategy on the CPU"))
    start_runs(v);
  probe_last_item(ctx.state, "dag.run");
  ImGui::EndDisabled();
  if (v.job.running()) {
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) v.job.cancel();
    ImGui::ProgressBar(static_cast<float>(v.job.progress()), ImVec2(-1, 0), v.job.status().c_str());
  } else if (!v.job.status().empty()) {
    ImGui::TextDisabled("%s", v.job.status().c_str());
  }
  if (!v.gpu_reason.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("GPU strategies cannot run here: %s", v.gpu_reason.c_str());
    ImGui::PopTextWrapPos();
  }
  publish(ctx, "dag.gpu", v.gpu_reason.empty() ? "yes" : "no");
  std::vector<RunRow> rows;
  std::array<int, 3> domain{};
  {
    std::lock_guard lock(v.results->mutex);
    rows = v.results->rows;
    domain = v.results->domain;
  }
  const float h = ImGui::GetContentRegionAvail().y;
  const float row_h = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y;
  const float table_h = std::min(h * 0.45f, row_h * (static_cast<float>(v.gpu_reason.empty() ? 9 : 5) + 1.0f) + ui_px(4.0f));
  if (!rows.empty()) ImGui::Text("%s on %dx%dx%d, checked against the interpreter (relative L2 of the outputs):",
                                 v.results->program.c_str(), domain[0], domain[1], domain[2]);
  if (ImGui::BeginTable("##runs", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit,
                        ImVec2(0, table_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("strategy");
    ImGui::TableSetupColumn("time");
    ImGui::TableSetupColumn("rel. L2");
    ImGui::TableSetupColumn("check");
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (const RunRow& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.label.c_str());
      ImGui::TableNextColumn();
      if (r.seconds > 0) ImGui::Text("%.3f ms", r.seconds * 1e3);
      ImGui::TableNextColumn();
      if (r.checked) ImGui::Text("%.2e", r.rel_l2);
      ImGui::TableNextColumn();
      if (r.strategy == "interpreter")
        ImGui::TextDisabled("reference");
      else if (r.checked)
        ImGui::TextColored(r.passed ? ImVec4(0.55f, 0.85f, 0.55f, 1.0f) : ImVec4(1.0f, 0.42f, 0.38f, 1.0f), r.passed ? "pass" : "FAIL");
      else
        ImGui::TextColored(ImVec4(1.0f, 0.42f, 0.38f, 1.0f), "failed");
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", r.detail.c_str());
      const std::string key = std::string("dag.run.") + (r.gpu ? "gpu." : "cpu.") + r.strategy;
      publish(ctx, key, r.strategy == "interpreter" ? "reference" : r.checked ? (r.passed ? "pass" : "fail") : "failed");
    }
    ImGui::EndTable();
  }
  draw_prediction(ctx, v, rows, domain);
  // The generated source of a strategy (read-only).
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Generated CUDA:");
  for (const dag::Strategy strategy : dag::kStrategies) {
    const char* s = dag::to_string(strategy);
    same_line_if_fits(check_width(s));
    if (ImGui::RadioButton(s, v.source_strategy == s)) v.source_strategy = s;
    probe_last_item(ctx.state, std::string("dag.source.") + s);
  }
  if (v.valid) {
    auto it = v.sources.find(v.source_strategy);
    if (it == v.sources.end()) {
      std::string src;
      try {
        const dag::GeneratedCode code =
            dag::generate_cuda(v.program, dag::parse_strategy(v.source_strategy), v.program.domain, recompute_limit(v));
        src = fmt::format("// {} kernel{} for {} on {}x{}x{}\n", code.kernels.size(), code.kernels.size() == 1 ? "" : "s",
                          v.program.name, v.program.domain[0], v.program.domain[1], v.program.domain[2]) + code.source;
      } catch (const std::exception& e) {
        src = std::string("// cannot generate: ") + e.what();
      }
      it = v.sources.emplace(v.source_strategy, std::move(src)).first;
    }
    publish(ctx, "dag.source_lines", std::to_string(std::count(it->second.begin(), it->second.end(), '\n')));
    draw_text_block("##source", it->second, ImVec2(-1, std::max(ImGui::GetTextLineHeightWithSpacing() * 3.0f, ImGui::GetContentRegionAvail().y)));
  } else {
    ImGui::TextDisabled("The program has errors: no source.");
  }
}

} // namespace

void draw_dag_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, kView, kTitle)) {
    ImGui::End();
    return;
  }
  DagView& v = ctx.memory.get<DagView>(kView);
  if (!v.started) {
    v.show_text = !ctx.lecture.large_fonts; // a lecture's font: the graph takes the width (the switch brings the text)
    start(v);
  }
  // Ctrl+Z / Ctrl+Y while no text field has the keyboard (a text field undoes its own typing).
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && io.KeyCtrl && !io.WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z), false)) undo(v);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Y), false)) redo(v);
  }
  const std::string requested = ctx.layout.take_page_request(kView);
  struct Page {
    const char* page;
    const char* label;
    void (*draw)(ViewContext&, DagView&);
  };
  static const Page pages[] = {{"editor", "Editor", draw_editor_page},
                               {"buckets", "Buckets", draw_buckets_page},
                               {"producer-consumer", "Producer-consumer fusion", draw_pc_page},
                               {"parallel", "Parallelism fusion", draw_parallel_page},
                               {"run", "Strategies", draw_run_page}};
  if (ImGui::BeginTabBar("##dag_pages")) {
    for (const Page& page : pages)
      if (begin_view_page(ctx, kView, page.page, page.label, requested)) {
        page.draw(ctx, v);
        ImGui::EndTabItem();
      }
    ImGui::EndTabBar();
  }
  // Facts for tests and the lecture recorder.
  publish(ctx, "dag.program", v.doc.name);
  publish(ctx, "dag.valid", v.valid ? "yes" : "no");
  publish(ctx, "dag.errors", std::to_string(v.diagnostics.size()));
  if (!v.diagnostics.empty()) publish(ctx, "dag.first_error", v.diagnostics.front().to_string());
  publish(ctx, "dag.roundtrip", v.roundtrip ? "yes" : "no");
  publish(ctx, "dag.undo", std::to_string(v.undo.size()));
  publish(ctx, "dag.buckets", std::to_string(v.analysis.buckets.size()));
  for (std::size_t i = 0; i < v.doc.items.size(); ++i) {
    const Statement& s = v.doc.items[i];
    if (!s.input) publish(ctx, "dag.expr." + s.name, s.expr);
    if (v.valid && i < v.program.nodes.size())
      publish(ctx, "dag.node_color." + s.name,
              hex_color(s.input ? kInputColor : bucket_color(v.analysis.bucket_of[i])));
    if (!v.item_errors[i].empty()) publish(ctx, "dag.error." + s.name, v.item_errors[i]);
  }
  ImGui::End();
}

} // namespace se
