// The Simulation window: the method that runs (CPU reference, a CPU emulation or a GPU kernel), run controls with
// live GStencil/s and the frame's split between stencil steps, texture and drawing, grid settings, and the heat
// map with its colour legend. Settings are edited in the state; the app applies them to the simulation each frame.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/platform/png_file.hpp"
#include "app/widgets/method_picker.hpp"
#include "app/widgets/plot_widgets.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/error.hpp"

namespace se {
namespace {

ImTextureID texture_id(unsigned gl_name) { return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(gl_name)); }

// A combo over an enum's values, shown by name.
template <typename E, typename Values> bool enum_combo(const char* label, E& value, const Values& values) {
  bool changed = false;
  if (ImGui::BeginCombo(label, std::string(to_string(value)).c_str())) {
    for (E v : values)
      if (ImGui::Selectable(std::string(to_string(v)).c_str(), v == value)) {
        changed = v != value;
        value = v;
      }
    ImGui::EndCombo();
  }
  return changed;
}

void section_heading(const char* title) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", title);
  ImGui::Separator();
}

// A text field, a button after it and a label, in a row of `label_width` labels: true when Enter was pressed in the
// field or the button clicked. Probes `probe` (the field) and `probe`_<button in lower case>.
bool field_with_button(ExplorerState& st, const std::string& probe, const char* hint, std::string& text,
                       const char* button, const char* label, float label_width) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float button_width = ImGui::CalcTextSize(button).x + 2 * style.FramePadding.x + style.ItemSpacing.x;
  ImGui::PushID(probe.c_str());
  ImGui::SetNextItemWidth(-label_width - button_width);
  const bool entered = ImGui::InputTextWithHint("##field", hint, &text, ImGuiInputTextFlags_EnterReturnsTrue);
  probe_last_item(st, probe);
  ImGui::SameLine();
  const bool clicked = ImGui::Button(button);
  std::string lower = button;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  probe_last_item(st, probe + "_" + lower);
  ImGui::PopID();
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
  return entered || clicked;
}

void apply_size_text(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  try {
    const Extent e = parse_extent(st.simulation_ui.size_text);
    if (e.dims != st.stencil.dims)
      throw InputError(fmt::format("a {}D stencil needs a {}D size; got {}", st.stencil.dims, st.stencil.dims,
                                   e.to_string()));
    SimulationSetup setup = ctx.simulation.setup();
    setup.stencil = st.stencil;
    setup.extent = e;
    check_simulation_setup(setup); // before anything is allocated
    st.grid.extent_for(e.dims) = e;
    st.simulation_ui.size_text = e.to_string();
    st.simulation_ui.message.clear();
  } catch (const InputError& e) {
    st.simulation_ui.message.set(e.what(), true);
  }
}

// What the window keeps between frames: the method list (gathered once) and the outcome of the last switch.
struct SimulationWindowMemory {
  std::optional<MethodCatalogue> catalogue;
  MethodChoiceCache choices;
  UiMessage method_message;
  std::optional<BrushDab> stroke_last; // where the brush last touched, while a button is held on the grid
  UiMessage paint_message;
};

void draw_method_picker(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  Simulation& sim = ctx.simulation;
  auto& memory = ctx.memory.get<SimulationWindowMemory>("simulation");
  if (!memory.catalogue) memory.catalogue = load_method_catalogue();
  const MethodCatalogue& catalogue = *memory.catalogue;
  MethodKey key = sim.method();
  const float label = ImGui::CalcTextSize("Method").x + ImGui::GetStyle().ItemInnerSpacing.x;
  ImGui::SetNextItemWidth(-label);
  const auto choices = [&]() -> const std::vector<MethodChoice>& {
    return memory.choices.get(catalogue, st.stencil, st.extent());
  };
  if (method_combo(st, "Method", "simulation.method", choices, key)) {
    try {
      sim.use_backend(make_method_backend(method_for(catalogue.methods, key)));
      memory.method_message.set(fmt::format("now running {}", key.label()), false);
    } catch (const InputError& e) {
      memory.method_message.set(fmt::format("{}; still running {}", e.what(), sim.method().label()), true);
    }
  }
  if (!catalogue.gpu_unavailable.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.78f, 0.4f, 1.0f));
    ImGui::TextWrapped("No GPU (%s): methods run on the CPU, the reference or an emulation.",
                       catalogue.gpu_unavailable.c_str());
    ImGui::PopStyleColor();
  }
  draw_message(memory.method_message);
  publish(ctx, "simulation.method", sim.method().label());
  publish(ctx, "simulation.gpu", catalogue.gpu_unavailable.empty() ? "yes" : "no");
}

// Where a frame's time goes: the stencil steps (measured on the device for GPU runs), putting the values into
// the texture, and everything else (colouring, ImGui, presenting) as the rest of the frame.
void draw_frame_split(ViewContext& ctx) {
  const Simulation& sim = ctx.simulation;
  const double frame = ctx.state.frame_seconds;
  const double steps = ctx.state.playing ? sim.last_advance_seconds() : 0.0;
  const double store = sim.last_show_seconds();
  const double rest = std::max(0.0, frame - steps - store);
  ImGui::Text("frame %.2f ms  (%.0f fps)", frame * 1e3, frame > 0 ? 1.0 / frame : 0.0);
  {
    // Drawn empty before the first frame time exists, so the controls below never move.
    const float width = ImGui::GetContentRegionAvail().x, height = ImGui::GetTextLineHeight() * 0.8f;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const double parts[3] = {steps, store, rest};
    const ImU32 colors[3] = {IM_COL32(86, 180, 233, 255), IM_COL32(230, 159, 0, 255), IM_COL32(120, 124, 134, 255)};
    float x = at.x;
    const double total = std::max(frame, steps + store);
    for (int i = 0; i < 3 && total > 0; ++i) {
      const float w = static_cast<float>(parts[i] / total) * width;
      draw->AddRectFilled(ImVec2(x, at.y), ImVec2(x + w, at.y + height), colors[i]);
      x += w;
    }
    ImGui::Dummy(ImVec2(width, height));
    probe_last_item(ctx.state, "simulation.frame_split");
  }
  // A fixed table (names over times) keeps the window's layout steady while the numbers change.
  const char* names[3] = {"steps", "texture", "drawing"};
  const double times[3] = {steps, store, rest};
  const ImVec4 label_colors[3] = {ImVec4(0.34f, 0.71f, 0.91f, 1.0f), ImVec4(0.9f, 0.62f, 0.0f, 1.0f),
                                  ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled)};
  if (ImGui::BeginTable("simulation.frame_times", 3, ImGuiTableFlags_SizingStretchSame)) {
    for (int i = 0; i < 3; ++i) {
      ImGui::TableNextColumn();
      ImGui::TextColored(label_colors[i], "%s", names[i]);
    }
    for (int i = 0; i < 3; ++i) {
      ImGui::TableNextColumn();
      ImGui::Text("%.2f ms", times[i] * 1e3);
    }
    ImGui::EndTable();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Wall time of the last frame's parts. For GPU runs 'steps' is how long the frame waited for\n"
                      "them, the GPU's switch from drawing to computing included; the ms/step above is the\n"
                      "device's own time (CUDA events), which GStencil/s is computed from.");
  ImGui::TextDisabled("%s", std::string(to_string(sim.frame_path())).c_str());
  if (const std::string why = sim.interop_problem(); !why.empty() && ImGui::IsItemHovered())
    ImGui::SetTooltip("CUDA-GL interop is off: %s", why.c_str());
  publish(ctx, "simulation.frame_path", std::string(to_string(sim.frame_path())));
  publish(ctx, "simulation.step_ms", fmt::format("{:.6f}", steps * 1e3));
  publish(ctx, "simulation.texture_ms", fmt::format("{:.6f}", store * 1e3));
}

// Steps too long for a frame run on the simulation's worker thread; the window keeps drawing the grid as it
// was and shows how far they are (always a line, empty when idle, so the controls below never move).
void draw_background_progress(ViewContext& ctx) {
  const Simulation& sim = ctx.simulation;
  const Simulation::Progress p = sim.progress();
  if (sim.busy()) {
    const float fraction = p.total > 0 ? static_cast<float>(p.done) / static_cast<float>(p.total) : 0.0f;
    // The step being computed (the last one while its result is collected: 'step 5 of 4' read at the end), in the
    // longest wording the bar holds: centred and too wide, it was cut at both ends in a lecture's narrow column
    // ('tep 5 of 4 on a worker thread, 0.1 s', issue 17).
    const int step = std::min(p.done + 1, std::max(p.total, 1));
    const float room = ImGui::GetContentRegionAvail().x - 2.0f * ImGui::GetStyle().FramePadding.x;
    std::string text;
    for (const char* form : {"computing step {} of {} on a worker thread, {:.1f} s", "step {} of {} on a worker thread",
                             "step {} of {}, {:.1f} s", "{} of {}"}) {
      text = fmt::format(fmt::runtime(form), step, p.total, p.seconds);
      if (ImGui::CalcTextSize(text.c_str()).x <= room) break;
    }
    ImGui::ProgressBar(fraction, ImVec2(-1, 0), text.c_str());
    publish(ctx, "simulation.progress_text", text);
    publish(ctx, "simulation.progress_text_w", fmt::format("{:.1f}", ImGui::CalcTextSize(text.c_str()).x));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Steps too long for a frame run on a worker thread; the grid shown is the one they started from.");
  } else {
    ImGui::Dummy(ImVec2(1, ImGui::GetFrameHeight()));
  }
  probe_last_item(ctx.state, "simulation.progress");
  publish(ctx, "simulation.busy", sim.busy() ? "yes" : "no");
  publish(ctx, "simulation.progress", fmt::format("{}/{}", p.done, p.total));
}

void draw_run_controls(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  const Simulation& sim = ctx.simulation;
  draw_method_picker(ctx);
  const float third = (ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  if (ImGui::Button(st.playing ? "Pause" : "Play", ImVec2(third, 0))) st.playing = !st.playing;
  probe_last_item(st, "simulation.play");
  ImGui::SameLine();
  if (ImGui::Button("Step", ImVec2(third, 0))) st.step_requested = true;
  probe_last_item(st, "simulation.step");
  ImGui::SameLine();
  if (ImGui::Button("Reset", ImVec2(third, 0))) st.reset_requested = true;
  probe_last_item(st, "simulation.reset");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("Space play/pause   S or Right step   R reset");
  ImGui::PopStyleColor();

  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Steps/frame").x - ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::SliderInt("Steps/frame", &st.grid.steps_per_frame, 1, 1000, "%d", ImGuiSliderFlags_Logarithmic);
  st.grid.steps_per_frame = std::clamp(st.grid.steps_per_frame, 1, 1000);
  probe_last_item(st, "simulation.steps_per_frame");

  ImGui::Spacing();
  ImGui::TextDisabled("%s", sim.backend_name().c_str());
  ImGui::SetWindowFontScale(1.6f);
  ImGui::Text("%.3f GStencil/s", sim.gstencils());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::Text("step %lld   %.3f ms/step", static_cast<long long>(sim.steps_done()), sim.last_step_seconds() * 1e3);
  draw_background_progress(ctx);
  draw_frame_split(ctx);
  if (!st.simulation_ui.blocked.empty()) draw_message(UiMessage{"Waiting: " + st.simulation_ui.blocked, true});
  if (!sim.stopped().empty()) draw_message(UiMessage{fmt::format("Stopped: {} (Reset starts again)", sim.stopped()), true});
  publish(ctx, "simulation.stopped", sim.stopped());
}

// The picture the image initial condition starts from: a path and Load (grayscale; colour is converted).
void draw_picture_row(ViewContext& ctx, float label) {
  ExplorerState& st = ctx.state;
  GridSettings& g = st.grid;
  SimulationUi& ui = st.simulation_ui;
  if (ui.picture_path.empty()) ui.picture_path = g.image_path;
  if (field_with_button(st, "simulation.picture", "picture.png", ui.picture_path, "Load", "Picture", label)) {
    try {
      g.image = std::make_shared<const GrayImage>(load_gray_image(ui.picture_path));
      g.image_path = ui.picture_path;
      ui.message.set(fmt::format("{}x{} picture, resampled to the grid", g.image->width, g.image->height), false);
    } catch (const InputError& e) {
      ui.message.set(e.what(), true);
    }
  }
  if (g.image) ImGui::TextDisabled("%s (%dx%d)", g.image_path.c_str(), g.image->width, g.image->height);
}

void draw_grid_controls(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  GridSettings& g = st.grid;
  SimulationUi& ui = st.simulation_ui;
  if (ui.size_text_dims != st.stencil.dims) {
    ui.size_text = st.extent().to_string();
    ui.size_text_dims = st.stencil.dims;
  }
  const float label = ImGui::CalcTextSize("Boundary").x + ImGui::GetStyle().ItemInnerSpacing.x;
  if (field_with_button(st, "simulation.size", "", ui.size_text, "Apply", "Size", label)) apply_size_text(ctx);

  ImGui::SetNextItemWidth(-label);
  std::vector<InitialCondition> initials = all_initial_conditions();
  initials.push_back(InitialCondition::Image);
  enum_combo("Initial", g.initial, initials);
  probe_last_item(st, "simulation.initial");
  if (g.initial == InitialCondition::Image) draw_picture_row(ctx, label);
  if (g.initial == InitialCondition::Random || g.initial == InitialCondition::HotSpots) {
    int seed = static_cast<int>(std::min<std::uint64_t>(g.seed, 1u << 30));
    ImGui::SetNextItemWidth(-label);
    if (ImGui::InputInt("Seed", &seed) && seed >= 0) g.seed = static_cast<std::uint64_t>(seed);
  }
  ImGui::SetNextItemWidth(-label);
  enum_combo("Boundary", g.boundary.kind, std::initializer_list<BoundaryKind>{BoundaryKind::Dirichlet, BoundaryKind::Periodic});
  probe_last_item(st, "simulation.boundary");
  if (g.boundary.kind == BoundaryKind::Dirichlet) {
    ImGui::SetNextItemWidth(-label);
    double v = g.boundary.value;
    if (ImGui::DragScalar("Outside", ImGuiDataType_Double, &v, 0.01f, nullptr, nullptr, "%.4g") && std::isfinite(v))
      g.boundary.value = v;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The fixed value of the points outside the grid.");
  }
  // Only the CPU reference rounds to a chosen storage; every other method stores in its own precision.
  const bool reference = ctx.simulation.method() == MethodKey{};
  ImGui::SetNextItemWidth(-label);
  ImGui::BeginDisabled(!reference);
  enum_combo("Storage", g.storage, std::initializer_list<Precision>{Precision::FP64, Precision::FP32, Precision::FP16});
  ImGui::EndDisabled();
  probe_last_item(st, "simulation.storage");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    if (reference)
      ImGui::SetTooltip("Values are rounded to this precision after every step;\nthe arithmetic stays FP64.");
    else
      ImGui::SetTooltip("%s stores and computes in its own precision (%s)", ctx.simulation.method().id.c_str(),
                        std::string(to_string(ctx.simulation.arithmetic())).c_str());
  }
  draw_message(ui.message);
}

// The brush: mode, radius and value; the mouse paints on the heat map (draw_heatmap). Clear sets every point to 0.
void draw_paint_controls(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  Brush& b = st.brush;
  auto& memory = ctx.memory.get<SimulationWindowMemory>("simulation");
  int mode = b.mode == BrushMode::Add ? 0 : 1;
  if (ImGui::RadioButton("Add heat", mode == 0)) mode = 0;
  probe_last_item(st, "simulation.brush_add");
  ImGui::SameLine();
  if (ImGui::RadioButton("Set value", mode == 1)) mode = 1;
  probe_last_item(st, "simulation.brush_set");
  b.mode = mode == 0 ? BrushMode::Add : BrushMode::Set;
  const float label = ImGui::CalcTextSize("Radius").x + ImGui::GetStyle().ItemInnerSpacing.x;
  const Extent& e = st.extent();
  const float widest = static_cast<float>(std::max({e.n[0], e.dims >= 2 ? e.n[1] : 1, e.dims >= 3 ? e.n[2] : 1}));
  float radius = static_cast<float>(b.radius);
  ImGui::SetNextItemWidth(-label);
  if (ImGui::SliderFloat("Radius", &radius, 1.0f, std::max(2.0f, 0.5f * widest), "%.1f points",
                         ImGuiSliderFlags_Logarithmic))
    b.radius = std::clamp(static_cast<double>(radius), 1.0, kMaxBrushRadius);
  probe_last_item(st, "simulation.brush_radius");
  double value = b.value;
  ImGui::SetNextItemWidth(-label);
  if (ImGui::DragScalar("Value", ImGuiDataType_Double, &value, 0.01f, nullptr, nullptr, "%.4g") && std::isfinite(value))
    b.value = std::clamp(value, -kMaxBrushValue, kMaxBrushValue);
  probe_last_item(st, "simulation.brush_value");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", b.mode == BrushMode::Add ? "Drag on the grid: left adds heat (a stroke gains +value), right cold (-value)"
                                                     : "Drag on the grid: left sets the value, right sets 0");
  ImGui::PopStyleColor();
  if (ImGui::Button("Clear")) {
    try {
      ctx.simulation.edit(fill_edit(0.0));
      memory.paint_message.clear();
    } catch (const InputError& err) {
      memory.paint_message.set(err.what(), true);
    }
  }
  probe_last_item(st, "simulation.clear");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every point set to 0 (the run goes on; Reset restores the initial condition)");
  draw_message(memory.paint_message);
  publish(ctx, "simulation.edits", std::to_string(ctx.simulation.edits_applied()));
}

void draw_view_controls(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  ViewSettings& v = st.view;
  const float label = ImGui::CalcTextSize("Colormap").x + ImGui::GetStyle().ItemInnerSpacing.x;
  if (st.stencil.dims == 3) {
    const Extent& e = st.extent();
    int z = static_cast<int>(st.heatmap_shown.z);
    ImGui::SetNextItemWidth(-label);
    if (ImGui::SliderInt("z slice", &z, 0, static_cast<int>(e.n[2] - 1))) v.z_slice = z;
    probe_last_item(st, "simulation.z_slice");
  }
  ImGui::SetNextItemWidth(-label);
  enum_combo("Colormap", v.colormap, all_colormaps());
  probe_last_item(st, "simulation.colormap");
  ImGui::SetNextItemWidth(-label);
  enum_combo("Range", v.range_mode,
             std::initializer_list<ValueRangeMode>{ValueRangeMode::Initial, ValueRangeMode::Live, ValueRangeMode::Manual});
  probe_last_item(st, "simulation.range");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("What the colormap's ends mean:\ninitial: the initial values' min..max (decay stays visible;\n  a flat start, such as zero, takes the live range)\n"
                      "live: min..max now\nmanual: your own");
  if (v.range_mode == ValueRangeMode::Manual) {
    double lo = v.manual_min, hi = v.manual_max;
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    ImGui::SetNextItemWidth(half);
    if (ImGui::InputDouble("##min", &lo, 0, 0, "%.4g") && std::isfinite(lo)) v.manual_min = lo;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(half);
    if (ImGui::InputDouble("##max", &hi, 0, 0, "%.4g") && std::isfinite(hi)) v.manual_max = hi;
  }
}

// Vertical colour bar with the values at its ends and middle; max at the top like the heat map's y.
void draw_legend(ViewContext& ctx, ImVec2 top_left, float height) {
  const HeatmapShown& shown = ctx.state.heatmap_shown;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float bar = ui_px(18.0f), tick = ui_px(4.0f), label_gap = ui_px(7.0f);
  const ImVec2 a = top_left, b(top_left.x + bar, top_left.y + height);
  const float u0 = 0.5f / 256.0f, u1 = 255.5f / 256.0f;
  draw->AddImageQuad(texture_id(ctx.heatmap.colormap_texture()), a, ImVec2(b.x, a.y), b, ImVec2(a.x, b.y),
                     ImVec2(u1, 0.5f), ImVec2(u1, 0.5f), ImVec2(u0, 0.5f), ImVec2(u0, 0.5f));
  draw->AddRect(a, b, ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float line = ImGui::GetTextLineHeight();
  for (int i = 0; i <= 4; ++i) {
    const float f = static_cast<float>(i) / 4.0f; // 0 at the top
    const double value = shown.range_max + f * (shown.range_min - shown.range_max);
    const float y = a.y + f * height;
    draw->AddLine(ImVec2(b.x, y), ImVec2(b.x + tick, y), text);
    const std::string label = fmt::format("{:.4g}", value);
    // End labels stay inside the bar's height so the window never clips them.
    draw->AddText(ImVec2(b.x + label_gap, std::clamp(y - line * 0.5f, a.y, b.y - line)), text, label.c_str());
  }
  if (shown.not_finite > 0) {
    const ImVec2 p(a.x, b.y + ui_px(6.0f));
    draw->AddRectFilled(p, ImVec2(p.x + bar, p.y + line), IM_COL32(255 * kNotFiniteColor[0], 255 * kNotFiniteColor[1],
                                                                    255 * kNotFiniteColor[2], 255));
    draw->AddText(ImVec2(p.x + bar + label_gap, p.y), text, "NaN/Inf");
  }
}

void draw_hover_value(ViewContext& ctx, ImVec2 image_min, ImVec2 image_size) {
  if (!ImGui::IsItemHovered() || !ctx.simulation.loaded()) return;
  const Extent& e = ctx.simulation.setup().extent;
  const ImVec2 m = ImGui::GetIO().MousePos;
  const double fx = (m.x - image_min.x) / image_size.x, fy = 1.0 - (m.y - image_min.y) / image_size.y;
  const auto x = std::clamp<std::int64_t>(static_cast<std::int64_t>(fx * e.n[0]), 0, e.n[0] - 1);
  const auto y = e.dims >= 2 ? std::clamp<std::int64_t>(static_cast<std::int64_t>(fy * e.n[1]), 0, e.n[1] - 1) : 0;
  const std::int64_t z = ctx.state.heatmap_shown.z;
  const double v = ctx.simulation.value_at(x, y, z); // one point, not the grid (a GPU run copies 8 bytes)
  if (e.dims == 1)
    ImGui::SetTooltip("x %lld\n%.10g", static_cast<long long>(x), v);
  else if (e.dims == 2)
    ImGui::SetTooltip("(x %lld, y %lld)\n%.10g", static_cast<long long>(x), static_cast<long long>(y), v);
  else
    ImGui::SetTooltip("(x %lld, y %lld, z %lld)\n%.10g", static_cast<long long>(x), static_cast<long long>(y),
                      static_cast<long long>(z), v);
}

// The grid coordinate under screen point m of the heat map drawn at `image_min`, `image_size` (y grows upwards).
BrushDab grid_point_at(const Extent& e, std::int64_t z, ImVec2 image_min, ImVec2 image_size, ImVec2 m) {
  BrushDab d;
  d.x = (m.x - image_min.x) / image_size.x * static_cast<double>(e.n[0]) - 0.5;
  d.y = e.dims >= 2 ? (1.0 - (m.y - image_min.y) / image_size.y) * static_cast<double>(e.n[1]) - 0.5 : 0.0;
  d.z = e.dims >= 3 ? static_cast<double>(z) : 0.0;
  return d;
}

// The brush on the heat map: a press paints a dab, a drag paints dabs along the way (left: +value or the value;
// right: -value or 0), drawn as a circle of the brush's size. Strokes go to the run's grid where it lives.
void paint_with_mouse(ViewContext& ctx, ImVec2 image_min, ImVec2 image_size) {
  if (!ctx.simulation.loaded()) return;
  auto& memory = ctx.memory.get<SimulationWindowMemory>("simulation");
  const Brush& brush = ctx.state.brush;
  const Extent& e = ctx.simulation.setup().extent;
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (ImGui::IsItemHovered()) { // the brush's outline, in screen pixels per grid point
    const float per_point = image_size.x / static_cast<float>(e.n[0]);
    ImGui::GetWindowDrawList()->AddCircle(m, static_cast<float>(brush.radius) * per_point, IM_COL32(255, 255, 255, 170),
                                          0, ui_px(1.5f));
  }
  const bool left = ImGui::IsItemActive() && ImGui::IsMouseDown(ImGuiMouseButton_Left);
  const bool right = ImGui::IsItemActive() && ImGui::IsMouseDown(ImGuiMouseButton_Right);
  if (!left && !right) {
    memory.stroke_last.reset();
    return;
  }
  BrushDab now = grid_point_at(e, ctx.state.heatmap_shown.z, image_min, image_size, m);
  now.amount = brush.mode == BrushMode::Add ? (left ? brush.value : -brush.value) : (left ? brush.value : 0.0);
  std::vector<BrushDab> dabs;
  if (!memory.stroke_last) {
    dabs.push_back(now);
  } else {
    const double dx = now.x - memory.stroke_last->x, dy = now.y - memory.stroke_last->y;
    if (dx * dx + dy * dy < 0.25 * brush.radius * brush.radius / 9.0) return; // has not moved a spacing yet
    dabs = dabs_along(*memory.stroke_last, now, brush.radius);
    if (brush.mode == BrushMode::Add) { // a stroke's middle gains the value once, however many dabs it took
      const double weight = stroke_dab_weight(std::sqrt(dx * dx + dy * dy) / static_cast<double>(dabs.size()), brush.radius);
      for (BrushDab& d : dabs) d.amount *= weight;
    }
  }
  memory.stroke_last = now;
  try {
    ctx.simulation.edit(brush_edit(e, ctx.simulation.setup().boundary.kind, brush, dabs));
    memory.paint_message.clear();
  } catch (const InputError& err) {
    memory.paint_message.set(err.what(), true);
  }
}

void draw_heatmap(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  const HeatmapShown& shown = st.heatmap_shown;
  if (!ctx.simulation.loaded() || shown.width == 0) {
    ImGui::TextDisabled("no grid yet");
    return;
  }
  const Extent& e = ctx.simulation.setup().extent;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float legend = ImGui::CalcTextSize("-0.0000e-00").x + ui_px(30.0f);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float max_w = std::max(avail.x - legend - style.ItemSpacing.x, ui_px(32.0f));
  const float max_h = std::max(avail.y - 2 * line, ui_px(32.0f));

  ImVec2 size;
  if (e.dims == 1) {
    size = ImVec2(max_w, std::min(max_h * 0.3f, ui_px(140.0f)));
  } else {
    // Square grid points: the image has the grid's aspect ratio, as large as fits.
    const float aspect = static_cast<float>(e.n[0]) / static_cast<float>(e.n[1]);
    size = max_w / aspect <= max_h ? ImVec2(max_w, max_w / aspect) : ImVec2(max_h * aspect, max_h);
  }
  const ImVec2 at = ImGui::GetCursorScreenPos();
  // A button under the picture, so the brush gets presses and drags of both mouse buttons.
  ImGui::InvisibleButton("##grid", size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  ImGui::GetWindowDrawList()->AddImage(texture_id(ctx.heatmap.image_texture()), at, ImVec2(at.x + size.x, at.y + size.y),
                                       ImVec2(0, 1), ImVec2(1, 0));
  probe_last_item(st, "simulation.heatmap");
  paint_with_mouse(ctx, at, size);
  draw_hover_value(ctx, at, size);
  draw_legend(ctx, ImVec2(at.x + size.x + style.ItemSpacing.x, at.y), size.y);

  std::string caption = fmt::format("{}  on  {}   step {}", ctx.simulation.setup().stencil.name, e.to_string(),
                                    ctx.simulation.steps_done());
  if (e.dims == 3) caption += fmt::format("   plane z = {} of {}", shown.z, e.n[2]);
  if (shown.stride > 1) caption += fmt::format("   (1 of every {} points per axis shown)", shown.stride);
  // Wrapped (two lines are kept for it under the picture) instead of cut at a lecture's font (issue 17).
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", caption.c_str());
  ImGui::PopStyleColor();
  probe_last_item(st, "simulation.caption");

  if (e.dims == 1 && !shown.profile.empty()) {
    XYPlot plot;
    plot.title = "values along x";
    plot.x_label = "x (grid point)";
    plot.y_label = "value";
    plot.y_min = shown.range_min; // the colour map's range: the line and the strip above read alike
    plot.y_max = shown.range_max;
    PlotSeries line;
    line.style = PlotSeries::Style::Line;
    line.color = IM_COL32(120, 176, 255, 255);
    for (std::size_t i = 0; i < shown.profile.size(); ++i) {
      line.x.push_back(static_cast<double>(i) * shown.stride);
      line.y.push_back(shown.profile[i]);
    }
    plot.series.push_back(std::move(line));
    auto& view = ctx.memory.get<PlotView>("simulation.profile");
    draw_xy_plot("##profile", plot, view, ImVec2(max_w, std::max(ImGui::GetContentRegionAvail().y - style.ItemSpacing.y, ui_px(120.0f))));
    probe_last_item(st, "simulation.profile");
  }
}

} // namespace

void draw_simulation_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, "simulation", "Simulation")) {
    ImGui::End();
    return;
  }
  // The controls take a quarter of the window, within readable bounds, and never more than 45% of it (a narrow
  // window at a large UI scale keeps room for the grid).
  const float avail_x = ImGui::GetContentRegionAvail().x;
  const float controls = std::min(std::clamp(avail_x * 0.27f, ui_px(260.0f), ui_px(320.0f)), 0.45f * avail_x);
  // The scroll bar is always there: one that came and went would re-wrap the text and move every control a line.
  ImGui::BeginChild("controls", ImVec2(controls, 0), false, ImGuiWindowFlags_AlwaysVerticalScrollbar);
  section_heading("RUN");
  draw_run_controls(ctx);
  section_heading("GRID");
  draw_grid_controls(ctx);
  section_heading("PAINT");
  draw_paint_controls(ctx);
  section_heading("VIEW");
  draw_view_controls(ctx);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("heatmap", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_heatmap(ctx);
  ImGui::EndChild();
  ImGui::End();
}

} // namespace se
