// The Stencil window: presets, dims and radius, the weight grid (1D a row, 2D a grid, 3D plane by plane)
// with an optional symmetry lock, normalisation, and JSON load/save. A failed action leaves the stencil
// exactly as it was and says why in the window.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/views/views.hpp"
#include "app/widgets/matrix_widget.hpp"
#include "app/widgets/ui_units.hpp"
#include "core/error.hpp"

namespace se {
namespace {

bool is_preset_name(std::string_view name) {
  const auto& names = preset_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// An edited preset is no longer that preset; say so instead of keeping a name that now lies.
void mark_edited(Stencil& s) {
  if (is_preset_name(s.name)) s.name = "custom";
}

void draw_preset_combo(ExplorerState& st) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Preset").x - ImGui::GetStyle().ItemInnerSpacing.x);
  // The combo's frame, measured before BeginCombo opens a popup window that would own "the last item".
  probe_rect(st, "stencil.preset_combo", at, ImVec2(at.x + ImGui::CalcItemWidth(), at.y + ImGui::GetFrameHeight()));
  if (ImGui::BeginCombo("Preset", st.stencil.name.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const std::string& name : preset_names()) {
      if (ImGui::Selectable(name.c_str(), name == st.stencil.name)) {
        st.stencil = preset(name);
        st.stencil_ui.plane = 0;
        st.stencil_ui.message.clear();
      }
      probe_last_item(st, "stencil.preset." + name);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", preset_description(name).c_str());
    }
    ImGui::EndCombo();
  }
}

// The preset's description under the combo, or where the window is too short for it and the whole weight grid (a
// radius-3 grid at a lecture's 1280x720), in the combo's tooltip (the last item drawn).
void draw_description(const std::string& description, bool in_tooltip) {
  if (in_tooltip) {
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", description.c_str());
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped_at_spaces(description); // never "alpha = 0." and "1"
  ImGui::PopStyleColor();
}

// Normalise beside the Symmetry lock checkbox where both fit, under it where they do not (a narrow panel, lecture fonts).
bool normalise_beside_lock() {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float checkbox = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("Symmetry lock").x;
  const float button = ImGui::CalcTextSize("Normalise").x + 2 * style.FramePadding.x;
  return checkbox + style.ItemSpacing.x + button <= ImGui::GetContentRegionAvail().x;
}

// The height draw_shape_controls takes: Dims, Radius, Symmetry lock (and Normalise under it where it does not fit beside).
float shape_controls_height() {
  return static_cast<float>(normalise_beside_lock() ? 3 : 4) * ImGui::GetFrameHeightWithSpacing();
}

void draw_shape_controls(ExplorerState& st) {
  Stencil& s = st.stencil;
  int dims = s.dims;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Dims");
  for (int d = 1; d <= 3; ++d) {
    ImGui::SameLine();
    if (ImGui::RadioButton(fmt::format("{}D", d).c_str(), &dims, d) && dims != s.dims) {
      s = with_dims(s, dims);
      mark_edited(s);
      st.stencil_ui.plane = 0;
    }
    probe_last_item(st, fmt::format("stencil.dims.{}", d));
  }
  int radius = s.radius;
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Radius").x - ImGui::GetStyle().ItemInnerSpacing.x);
  if (ImGui::SliderInt("Radius", &radius, 0, kMaxRadius) && radius != s.radius) {
    s = with_radius(s, radius);
    mark_edited(s);
    st.stencil_ui.plane = std::clamp(st.stencil_ui.plane, -radius, radius);
  }
  probe_last_item(st, "stencil.radius");

  ImGui::Checkbox("Symmetry lock", &st.symmetry_lock);
  probe_last_item(st, "stencil.symmetry_lock");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("An edit is mirrored to every radially equivalent position\n(sign flips and swaps of the axes).");
  if (normalise_beside_lock()) ImGui::SameLine();
  if (ImGui::Button("Normalise")) {
    try {
      s = normalized(s);
      mark_edited(s);
      st.stencil_ui.message.set("weights now sum to 1", false);
    } catch (const InputError& e) {
      st.stencil_ui.message.set(e.what(), true);
    }
  }
  probe_last_item(st, "stencil.normalise");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Scale the weights so they sum to 1 (a conserving stencil).");

}

// What the weights imply, for reading a stencil the way the papers do.
void draw_properties(const Stencil& s) {
  if (!ImGui::BeginTable("properties", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return;
  // Widths known from the first frame (an auto-fitted column would move the wrapped text, and the weights above
  // with it, on the second).
  ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("FLOPs/point").x);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
  auto row = [](const char* name, const std::string& value) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextDisabled("%s", name);
    ImGui::TableSetColumnIndex(1);
    text_wrapped_at_spaces(value); // wraps in a narrow panel or at lecture sizes, never cut, never inside a number
  };
  const int nonzero = s.nonzero_count();
  const double sum = s.sum();
  row("Points", fmt::format("{} non-zero of {} ({}D, radius {})", nonzero, s.size(), s.dims, s.radius));
  row("Shape", s.is_star() ? "star: all points on the axes" : "box: off-axis points too");
  row("Symmetry", s.is_radially_symmetric(1e-12) ? "radially symmetric" : "not radially symmetric");
  row("Sum", fmt::format("{:.6g}{}", sum, std::abs(sum - 1.0) < 1e-12 ? " (conserves the total)" : ""));
  // Multiply-adds per point against the bytes one point costs when every neighbour comes from cache.
  const int flops = std::max(2 * nonzero - 1, 0);
  row("FLOPs/point", fmt::format("{}   intensity {:.2f} FLOP/B in FP64", flops, flops / 16.0));
  ImGui::EndTable();
}

// Background of a weight cell: the cool-warm map, centred on zero, scaled by the largest |weight|.
ImU32 weight_color(double w, double largest) {
  const double t = largest > 0 ? 0.5 + 0.5 * w / largest : 0.5;
  const Rgba8 c = colormap_color(Colormap::CoolWarm, t);
  return IM_COL32(c[0], c[1], c[2], w == 0.0 ? 60 : 215);
}

// Dark text on the pale middle of the map, white on its saturated ends, grey for zeros.
ImVec4 weight_text_color(double w, double largest) {
  return w == 0.0 ? ImVec4(0.72f, 0.72f, 0.76f, 1.0f)
                  : std::abs(w) < 0.6 * largest ? ImVec4(0.05f, 0.05f, 0.08f, 1.0f) : ImVec4(1, 1, 1, 1);
}

void edit_weight(ExplorerState& st, int dx, int dy, int dz, double value, double before) {
  Stencil& s = st.stencil;
  if (!std::isfinite(value)) {
    st.stencil_ui.message.set(fmt::format("weights must be finite numbers; ({}, {}, {}) kept at {:.6g}", dx, dy, dz, before),
                              true);
    return;
  }
  if (st.symmetry_lock) {
    for (const auto& p : symmetric_positions(s.dims, dx, dy, dz)) s.at(p[0], p[1], p[2]) = value;
  } else {
    s.at(dx, dy, dz) = value;
  }
  mark_edited(s);
  st.stencil_ui.message.clear();
}

// How the weight grid lays out `available` pixels wide at the window's font, known before anything is drawn (the
// window decides from its height whether the preset's description keeps its lines above it). The cells share the
// width there is, whatever the UI scale or lecture font: no horizontal scrolling. Where the values at "%.4g" do not
// fit, the grid's font shrinks (to kMinScale), then the values print at "%.2g"; the tooltip always has the full value.
struct WeightGridLayout {
  int side = 1;     // cells per line of the grid
  int rows = 1;     // lines of cells
  int lines_1d = 1; // a 1D row wrapped into lines
  const char* format = "%.4g";
  double unit = 1;  // the cells show weight / unit
  float scale = 1;  // the grid's font scale
  bool letters = false;
  ValuePalette palette; // the letters' values (letters only)
  float available = 0; // the width laid out
  float label_width = 1, cell = 0, legend_height = 0;
  float gap_x = 0;      // between cells (narrower than the window's spacing: at a lecture's font it took more of a
                        // radius-7 row than its cells, issue 17)
  float cell_padding = 0;
  // The grid's height with the cells' vertical frame padding `pad_y` and rows `gap_y` apart.
  float height(float pad_y, float gap_y) const {
    return static_cast<float>(rows + lines_1d) * (scale * ImGui::GetFontSize() + 2.0f * pad_y + gap_y) + // + headers
           ImGui::GetStyle().WindowPadding.y + legend_height;
  }
};

WeightGridLayout weight_grid_layout(const Stencil& s, float available) {
  WeightGridLayout g;
  constexpr float kMinScale = 0.6f;
  g.available = available;
  g.gap_x = ui_px(2.0f);
  double largest = 0;
  for (double w : s.weights) largest = std::max(largest, std::abs(w));
  g.side = s.side();
  // Cells use a narrow frame padding so their values keep most of the width.
  g.cell_padding = ui_px(3.0f);
  // The widest row label ("+" is wider than "-") and a gap before the cells.
  float label_text = s.dims >= 2 ? ImGui::CalcTextSize("dy +7").x + ui_px(4.0f) : 0.0f;
  auto widest_value = [&](const char* format, double unit) {
    float widest = 0;
    char text[64];
    for (double w : s.weights) {
      std::snprintf(text, sizeof text, format, w / unit);
      widest = std::max(widest, ImGui::CalcTextSize(text).x);
    }
    return widest;
  };
  // At font scale f: cell(f) = (available - label(f)) / side - spacing must hold the widest value plus padding.
  auto scale_for = [&](float widest) {
    const float fixed = available - (s.dims >= 2 ? g.gap_x : 0.0f) - g.side * (g.gap_x + 2 * g.cell_padding);
    return std::min(1.0f, fixed / std::max(label_text + g.side * widest, 1.0f));
  };
  // A 1D stencil's weights wrap into lines of as many cells as keep the values at the smallest font (a radius-7
  // row of fifteen cut "0.28" to "0." at a lecture's font, issue 17); 2D rows stay whole (their rows are dy).
  // A row that would print its values under 0.9 of the font wraps too (1d7p's seven cells at 1600x1000 printed
  // "0.002778" at 11 pixels): a 1D row's lines mean nothing, its values' size does.
  if (s.dims == 1) {
    while (g.side > 4 && scale_for(widest_value("%.2g", std::pow(10.0, largest > 0 ? std::floor(std::log10(largest)) - 1 : 0))) < kMinScale)
      g.side = (g.side + 1) / 2;
    const auto lines_at = [&](int side) { return (s.side() + side - 1) / side; };
    while (g.side > 3 && lines_at((g.side + 1) / 2) <= 4 && scale_for(widest_value(g.format, g.unit)) < 0.9f)
      g.side = (g.side + 1) / 2; // at most four lines: eight took the window's height at a lecture's font
  }
  g.lines_1d = s.dims == 1 ? (s.side() + g.side - 1) / g.side : 1;
  g.rows = s.dims >= 2 ? s.side() : g.lines_1d;
  g.scale = scale_for(widest_value(g.format, g.unit));
  if (g.scale < kMinScale) {
    // Small weights in narrow cells: in units of a power of ten that prints the largest as 10 to 99 (0.11 as 11
    // in units of 1e-2), two significant digits; a line above says so, and typing takes the value in that unit.
    g.format = "%.2g";
    const int e = largest > 0 ? static_cast<int>(std::floor(std::log10(largest))) - 1 : 0;
    if (e < 0) g.unit = std::pow(10.0, e);
    g.scale = std::max(kMinScale, scale_for(widest_value(g.format, g.unit)));
  }
  // Where even two digits do not fit at the smallest font (box-2d225p's fifteen columns: "0.52" was cut to a
  // misleading "0", issue 17), the cells show letters, as the papers' figures do, with a legend under the grid.
  // The text is centred in the whole cell and clipped at its edges (not at the padding): a value fits where it is no
  // wider than the cell less a pixel each side.
  const auto cell_at = [&](float f) {
    return std::floor((available - (s.dims >= 2 ? f * label_text + g.gap_x : 1.0f)) / g.side - g.gap_x);
  };
  g.letters = widest_value(g.format, g.unit) * g.scale > cell_at(g.scale) - 2.0f;
  if (g.letters) {
    g.palette.add(s.weights);
    float widest = 0;
    for (double w : s.weights) widest = std::max(widest, ImGui::CalcTextSize(g.palette.letter(w).c_str()).x);
    g.unit = 1;
    if (s.dims >= 2) label_text = ImGui::CalcTextSize("+7").x + ui_px(2.0f); // rows named by dy alone: the cells take the width
    g.scale = std::max(kMinScale, scale_for(widest));
    // The legend's lines of chips at the window's font.
    const float chip = palette_legend_width(g.palette, kLegendDigits) + ui_px(14.0f);
    const float per_line = std::max(1.0f, std::floor(available / chip));
    g.legend_height = std::ceil(static_cast<float>(g.palette.size()) / per_line) * ImGui::GetTextLineHeightWithSpacing();
  }
  // Positions are absolute (SameLine(x)); x = 0 would mean "next to the previous item", hence 1 for 1D.
  g.label_width = s.dims >= 2 ? g.scale * label_text + g.gap_x : 1.0f;
  g.cell = std::max(ui_px(4.0f), cell_at(g.scale));
  return g;
}

// The rows' vertical padding and spacing: the style's, or where the grid is then taller than `room`, less (a radius-3
// grid at a lecture's 1280x720 showed four of its seven rows in a scrolled box, issue 17).
ImVec2 tight_row_spacing() {
  const ImGuiStyle& style = ImGui::GetStyle();
  return ImVec2(std::min(style.FramePadding.y, ui_px(1.0f)), std::min(style.ItemSpacing.y, ui_px(2.0f)));
}
ImVec2 weight_grid_row_spacing(const WeightGridLayout& g, float room) {
  const ImGuiStyle& style = ImGui::GetStyle();
  return g.height(style.FramePadding.y, style.ItemSpacing.y) <= room ? ImVec2(style.FramePadding.y, style.ItemSpacing.y)
                                                                     : tight_row_spacing();
}

// The 3D plane's slider, then the grid (laid out by `g`) in a box as tall as the grid where the window has the room,
// else the room left, the rest of the window scrolling under it.
void draw_weight_grid(ViewContext& ctx, const WeightGridLayout& g) {
  ExplorerState& st = ctx.state;
  Stencil& s = st.stencil;
  const int r = s.radius;
  if (s.dims == 3) {
    st.stencil_ui.plane = std::clamp(st.stencil_ui.plane, -r, r);
    ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Plane dz").x - ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::SliderInt("Plane dz", &st.stencil_ui.plane, -r, r);
    probe_last_item(st, "stencil.plane");
  }
  const int dz = s.dims == 3 ? st.stencil_ui.plane : 0;
  double largest = 0;
  for (double w : s.weights) largest = std::max(largest, std::abs(w));
  publish(ctx, "stencil.cells", g.letters ? "letters" : g.format);
  publish(ctx, "stencil.unit", fmt::format("{:.17g}", g.unit));
  publish(ctx, "stencil.font_scale", fmt::format("{:.9g}", g.scale));
  if (g.letters) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("letters: legend below");
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The cells are too narrow for numbers at this size: hover one for its exact value.");
  } else if (g.unit != 1) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("cells in units of %.0e", g.unit);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The cells are narrow at this size: hover one for its exact value.");
  }
  const float room = ImGui::GetContentRegionAvail().y;
  const ImVec2 spacing = weight_grid_row_spacing(g, room); // (frame padding y, row gap)
  const float grid_height = g.height(spacing.x, spacing.y);
  publish(ctx, "stencil.grid_scrolls", grid_height > room ? "yes" : "no");
  ImGui::BeginChild("weights", ImVec2(0, std::min(grid_height, room)), false);
  ImGui::SetWindowFontScale(g.scale);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(g.gap_x, spacing.y));
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(g.cell_padding, spacing.x));
  const float cell = g.cell, label_width = g.label_width, gap_x = g.gap_x;
  // Column header: dx offsets (over each line of a wrapped 1D row). Rows run from dy = +r at the top to -r at the
  // bottom, like the heat map.
  auto header = [&](int dx_begin, int dx_end) {
    ImGui::Dummy(ImVec2(0, 0));
    for (int dx = dx_begin; dx < dx_end; ++dx) {
      std::string label = dx == 0 ? "dx 0" : fmt::format("{:+d}", dx);
      if (ImGui::CalcTextSize(label.c_str()).x > cell) label = fmt::format("{}", dx); // narrow cells: the bare offset
      const float centre = (cell - ImGui::CalcTextSize(label.c_str()).x) * 0.5f;
      ImGui::SameLine(label_width + (dx - dx_begin) * (cell + gap_x) + std::max(centre, 0.0f));
      ImGui::TextDisabled("%s", label.c_str());
    }
  };
  if (s.dims >= 2) header(-r, r + 1);
  for (int row = 0; row < g.rows; ++row) {
    const int dy = s.dims >= 2 ? r - row : 0;
    const int dx_begin = s.dims >= 2 ? -r : -r + row * g.side, dx_end = s.dims >= 2 ? r + 1 : std::min(r + 1, dx_begin + g.side);
    if (s.dims == 1) header(dx_begin, dx_end);
    ImGui::AlignTextToFramePadding();
    if (s.dims >= 2 && g.letters) ImGui::TextDisabled("%s", dy == 0 ? " 0" : fmt::format("{:+d}", dy).c_str());
    else if (s.dims >= 2) ImGui::TextDisabled("%s", dy == 0 ? "dy  0" : fmt::format("dy {:+d}", dy).c_str());
    else ImGui::Dummy(ImVec2(0, ImGui::GetFrameHeight()));
    for (int dx = dx_begin; dx < dx_end; ++dx) {
      ImGui::SameLine(label_width + (dx - dx_begin) * (cell + gap_x));
      ImGui::PushID((dy + r) * 64 + (dx + r));
      const double before = s.at(dx, dy, dz);
      double value = before / g.unit;
      ImGui::PushStyleColor(ImGuiCol_FrameBg, weight_color(before, largest));
      ImGui::PushStyleColor(ImGuiCol_Text, weight_text_color(before, largest));
      ImGui::SetNextItemWidth(cell);
      const double speed = std::max(largest, 1e-3) * 0.002 / g.unit;
      // A letter is a format without a conversion: ImGui prints it as it is (and does not round the value to it).
      const std::string letter = g.letters ? g.palette.letter(before) : std::string();
      if (ImGui::DragScalar("##w", ImGuiDataType_Double, &value, static_cast<float>(speed), nullptr, nullptr,
                            g.letters ? letter.c_str() : g.format, g.letters ? ImGuiSliderFlags_NoRoundToFormat : 0) &&
          value * g.unit != before)
        edit_weight(st, dx, dy, dz, value * g.unit, before);
      ImGui::PopStyleColor(2);
      probe_last_item(st, fmt::format("stencil.weight.{}.{}.{}", dx, dy, dz));
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("offset (%d, %d, %d) = %.17g\ndrag to change, double-click to type", dx, dy, dz, before);
      ImGui::PopID();
    }
  }
  ImGui::PopStyleVar(2);
  if (g.letters) {
    ImGui::SetWindowFontScale(1.0f);
    LegendStyle colors;
    colors.fill = [largest](double w) { return weight_color(w, largest); };
    colors.text = [largest](double w) { return ImGui::ColorConvertFloat4ToU32(weight_text_color(w, largest)); };
    ImGui::BeginGroup();
    draw_legend_chips(g.palette, kLegendDigits, g.available, colors);
    ImGui::EndGroup();
    probe_last_item(st, "stencil.legend");
  }
  ImGui::EndChild();
}

void draw_file_controls(ExplorerState& st) {
  ImGui::TextUnformatted("JSON file");
  const float buttons = ImGui::CalcTextSize("LoadSave").x + 4 * ImGui::GetStyle().FramePadding.x +
                        2 * ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetNextItemWidth(-buttons);
  ImGui::InputText("##path", &st.stencil_ui.file_path);
  probe_last_item(st, "stencil.file_path");
  ImGui::SameLine();
  if (ImGui::Button("Load")) {
    try {
      // Parse fully before touching the stencil, so a bad file never costs the user's edits.
      Stencil loaded = load_stencil_file(st.stencil_ui.file_path);
      st.stencil = std::move(loaded);
      st.stencil_ui.plane = 0;
      st.stencil_ui.message.set("loaded " + st.stencil_ui.file_path, false);
    } catch (const InputError& e) {
      st.stencil_ui.message.set(e.what(), true);
    }
  }
  probe_last_item(st, "stencil.load");
  ImGui::SameLine();
  if (ImGui::Button("Save")) {
    try {
      save_stencil_file(st.stencil, st.stencil_ui.file_path);
      st.stencil_ui.message.set("saved " + st.stencil_ui.file_path, false);
    } catch (const InputError& e) {
      st.stencil_ui.message.set(e.what(), true);
    }
  }
  probe_last_item(st, "stencil.save");
}

} // namespace

void draw_stencil_window(ViewContext& ctx) {
  ExplorerState& st = ctx.state;
  set_default_window_rect("stencil");
  // The scroll bar stays: one that came with a wrapped line would narrow the weights and move them a frame later.
  if (!begin_window(ctx, "Stencil", nullptr, ImGuiWindowFlags_AlwaysVerticalScrollbar)) {
    ImGui::End();
    return;
  }
  probe_rect(st, "stencil.window", ImGui::GetWindowPos(),
             ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
  draw_preset_combo(st);
  // The weight grid is the window's figure: where the window is too short for the preset's description and the whole
  // grid (at its tightest rows), the description goes to the combo's tooltip.
  const WeightGridLayout grid = weight_grid_layout(st.stencil, ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize);
  const std::string description = preset_description(st.stencil.name).empty() ? "custom weights" : preset_description(st.stencil.name);
  const float separator = 1.0f + ImGui::GetStyle().ItemSpacing.y;
  const float below = 2.0f * separator + shape_controls_height() +
                      (st.stencil.dims == 3 ? ImGui::GetFrameHeightWithSpacing() : 0.0f) +
                      (grid.letters || grid.unit != 1 ? ImGui::GetTextLineHeightWithSpacing() : 0.0f) +
                      grid.height(tight_row_spacing().x, tight_row_spacing().y);
  const float description_height =
      static_cast<float>(wrap_at_spaces(description, ImGui::GetContentRegionAvail().x).size()) * ImGui::GetTextLineHeightWithSpacing();
  const bool fold = below + description_height > ImGui::GetContentRegionAvail().y;
  publish(ctx, "stencil.description", fold ? "tooltip" : "shown");
  draw_description(description, fold);
  ImGui::Separator();
  draw_shape_controls(st);
  ImGui::Separator();
  // Laid out again: Dims or Radius may have changed the stencil.
  draw_weight_grid(ctx, weight_grid_layout(st.stencil, grid.available));
  ImGui::Separator();
  draw_file_controls(st);
  draw_message(st.stencil_ui.message);
  ImGui::Spacing();
  ImGui::TextDisabled("PROPERTIES");
  ImGui::Separator();
  draw_properties(st.stencil);
  ImGui::End();
}

} // namespace se
