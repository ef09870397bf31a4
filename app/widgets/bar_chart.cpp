// Bar charts on ImDrawList: one bar per label, linear or log values, labels shortened to fit, hover, zoom, PNG export.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/widgets/matrix_widget.hpp" // kMinCellTextScale: the smallest text the widgets print
#include "app/widgets/plot_frame.hpp"
#include "app/widgets/ui_units.hpp"

namespace se {

using namespace se::plot;

namespace {

// `label` cut in the middle ("tcstencil-fp64 emu" -> "tcst…64 emu") until `width` says it fits `room`, keeping at
// least `min_head` bytes of its start; "" when that is impossible. Cuts never split a UTF-8 sequence.
template <typename Width>
std::string middle_cut(const std::string& label, float room, Width&& width, std::size_t min_head) {
  if (width(label) <= room) return label;
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  std::string head = label.substr(0, label.size() / 2), tail = label.substr(label.size() / 2);
  while (!tail.empty() && continuation(tail.front())) head += tail.front(), tail.erase(0, 1);
  while (head.size() >= min_head && (!head.empty() || !tail.empty())) {
    if (head.size() >= tail.size()) { // drop the last character of the head ...
      while (!head.empty() && continuation(head.back())) head.pop_back();
      if (!head.empty()) head.pop_back();
    } else { // ... or the first of the tail, whichever is longer
      tail.erase(0, 1);
      while (!tail.empty() && continuation(tail.front())) tail.erase(0, 1);
    }
    const std::string cut = head + "\u2026" + tail;
    if (head.size() >= min_head && width(cut) <= room) return cut;
  }
  return "";
}

// A bar's label that fits `room`: whole; cut in the middle while that keeps a readable start of the method; else
// the method cut in its middle before its suffix ("lor…cil emu"); else the method alone ("cuda-core-fp32 H200" ->
// "cuda-core-fp32", the bar's colour and tooltip say the rest), cut in the middle if it must be ("cud…p32": both
// ends tell the variants apart).
template <typename Width> std::string shortened_label(const std::string& label, float room, Width&& width) {
  if (std::string cut = middle_cut(label, room, width, 8); !cut.empty()) return cut;
  const std::size_t space = label.find(' ');
  const std::string method = label.substr(0, space);
  // A suffix that tells two bars of one method apart ("lorastencil emu" beside "lorastencil", issue 17) stays where
  // the method's middle can give it room: "lor…cil emu".
  if (space != std::string::npos) {
    const std::string suffix = label.substr(space);
    if (std::string cut = middle_cut(label, room, width, 3); cut.size() >= suffix.size() &&
                                                               cut.compare(cut.size() - suffix.size(), suffix.size(), suffix) == 0)
      return cut;
    if (std::string cut = middle_cut(method, room - width(suffix), width, 3); !cut.empty() && cut != method) return cut + suffix;
  }
  if (std::string cut = middle_cut(method, room, width, 1); !cut.empty()) return cut;
  return "\u2026";
}

// Text turned a quarter turn to read upwards, its end (the last glyph) at `top` and its start `width` below,
// centred on top.x. The text is laid out first where the window's clip rectangle keeps all of it (ImGui drops
// glyphs outside it before they are turned), at `laid`, then each glyph quad is turned by hand.
void add_text_upwards(ImDrawList* draw, ImFont* font, float size, ImVec2 laid, ImVec2 top, ImU32 color,
                      const std::string& text, float width) {
  const int start = draw->VtxBuffer.Size;
  draw->AddText(font, size, laid, color, text.c_str());
  for (int k = start; k < draw->VtxBuffer.Size; ++k) {
    ImVec2& p = draw->VtxBuffer[k].pos;
    const float dx = p.x - (laid.x + width), dy = p.y - laid.y; // relative to the text's end
    p = ImVec2(top.x + dy - 0.5f * size, top.y - dx);           // rotated by -90 degrees
  }
}

} // namespace

int draw_bar_chart(const char* id, const BarChart& chart, PlotView& view, ImVec2 size) {
  const std::size_t n = chart.values.size();
  double y0 = chart.scale == AxisScale::Log ? std::numeric_limits<double>::infinity() : 0.0, y1 = 0;
  for (double v : chart.values)
    if (plottable(v, chart.scale)) y0 = std::min(y0, v), y1 = std::max(y1, v);
  if (chart.scale == AxisScale::Log) {
    pad_range(y0, y1, chart.scale);
  } else {
    y1 = y1 > 0 ? y1 * 1.12 : 1.0;
  }
  if (view.zoomed) y0 = view.y0, y1 = view.y1;

  // Labels go under the bars, rotated a quarter turn (in a smaller font) when they would collide.
  ImFont* font = ImGui::GetFont();
  const float line = ImGui::GetTextLineHeight();
  float small = 0.85f * ImGui::GetFontSize(); // rotated labels; smaller where they would be cut (below)
  const auto label_width = [&](const std::string& text, bool rotated) {
    return rotated ? font->CalcTextSizeA(small, FLT_MAX, 0, text.c_str()).x : ImGui::CalcTextSize(text.c_str()).x;
  };
  float widest = 0;
  for (const auto& l : chart.labels) widest = std::max(widest, label_width(l, false));
  // The value's unit labels the y axis unless the title names it ("GStencil/s per method"): a line of height for
  // the labels under the bars instead.
  const std::string y_label = chart.title.find(chart.value_label) == std::string::npos ? chart.value_label : std::string();
  PlotFrame f = begin_frame(id, chart.title, size, y_tick_margin(y0, y1, chart.scale), y_label);
  const float slot = n > 0 ? (f.max.x - f.min.x) / static_cast<float>(n) : 1.0f;
  const float pad = ui_px(2.0f), rotated_label_gap = ui_px(4.0f), flat_label_gap = ui_px(6.0f);
  const bool stacked_labels = widest > slot - flat_label_gap;
  if (stacked_labels) {
    widest = 0;
    for (const auto& l : chart.labels) widest = std::max(widest, label_width(l, true));
  }
  // The groups' captions take a line at the bottom, under the labels.
  const bool grouped = std::any_of(chart.groups.begin(), chart.groups.end(), [](const std::string& g) { return !g.empty(); });
  const float group_h = grouped ? line + ui_px(6.0f) : 0.0f;
  if (grouped) f.max.y -= group_h;
  // Rotated labels take 40% of the height, in a smaller font and up to half the height where that keeps them whole;
  // longer ones lose the middle of their name ("tcst…fp64 emu").
  float share = 0.4f;
  if (stacked_labels && widest > share * (f.max.y - f.min.y)) {
    const float smallest = kMinCellTextScale * ImGui::GetFontSize();
    widest *= smallest / small;
    small = smallest;
    share = std::clamp(widest / (f.max.y - f.min.y), share, 0.5f);
  }
  const float label_room = std::min(widest, share * (f.max.y - f.min.y));
  if (stacked_labels) f.max.y -= label_room + flat_label_gap - (f.outer_max.y - group_h - f.max.y - rotated_label_gap);
  double dummy0 = 0, dummy1 = 1;
  handle_zoom(f, view, dummy0, dummy1, y0, y1, AxisScale::Linear, chart.scale, true);
  view.shown_y0 = y0, view.shown_y1 = y1;

  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw_y_ticks(draw, f, y0, y1, chart.scale);
  view.hovered_series = view.hovered_point = -1;
  const double base = chart.scale == AxisScale::Log ? y0 : std::max(0.0, y0);
  int cut = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float xa = f.min.x + slot * static_cast<float>(i) + 0.15f * slot, xb = xa + 0.7f * slot;
    const double v = chart.values[i];
    const ImU32 color = i < chart.colors.size() ? chart.colors[i] : series_color(static_cast<int>(i));
    if (plottable(v, chart.scale)) {
      const float yv = f.to_screen(0, std::clamp(to_unit(v, y0, y1, chart.scale), 0.0, 1.0)).y;
      const float yb = f.to_screen(0, std::clamp(to_unit(base, y0, y1, chart.scale), 0.0, 1.0)).y;
      draw->AddRectFilled(ImVec2(xa, yv), ImVec2(xb, yb), color, ui_px(2.0f));
      // Three decimals, or where they round a bar to 0 (flashfft's emulation at 0.0003 GStencil/s printed "0" on a
      // bar of some height, issue 17), its leading digit and exponent.
      const double rounded = std::round(v * 1000) / 1000;
      const std::string value = tick_label(rounded != 0.0 || v == 0.0 ? rounded : v);
      const float w = ImGui::CalcTextSize(value.c_str()).x;
      if (w < slot) {
        draw->AddText(ImVec2(0.5f * (xa + xb - w), std::max(yv - line - pad, f.min.y)), IM_COL32(230, 232, 236, 255), value.c_str());
      } else if (small < xb - xa + 2 * pad) { // narrow bars: the value turned upwards, above the bar or inside it
        const float wr = label_width(value, true), cx = 0.5f * (xa + xb);
        const ImVec2 laid(f.min.x, f.min.y);
        if (yv - pad - wr >= f.min.y)
          add_text_upwards(draw, font, small, laid, ImVec2(cx, yv - pad - wr), IM_COL32(230, 232, 236, 255), value, wr);
        else if (yb - yv >= wr + 2 * pad)
          add_text_upwards(draw, font, small, laid, ImVec2(cx, yv + pad), IM_COL32(16, 18, 22, 255), value, wr);
      }
    }
    if (f.hovered && f.mouse.x >= xa && f.mouse.x <= xb && f.mouse.y >= f.min.y && f.mouse.y <= f.max.y) {
      view.hovered_series = 0;
      view.hovered_point = static_cast<int>(i);
      draw->AddRect(ImVec2(xa - pad, f.min.y), ImVec2(xb + pad, f.max.y), IM_COL32(255, 255, 255, 120));
    }
    std::string label = i < chart.labels.size() ? chart.labels[i] : std::string();
    if (stacked_labels) {
      const std::string whole = label;
      label = shortened_label(label, label_room, [&](const std::string& t) { return label_width(t, true); });
      cut += label != whole ? 1 : 0;
      // Reading bottom-up, ending under the bar's centre; laid out from the data area's left edge before turning.
      add_text_upwards(draw, font, small, ImVec2(f.min.x, f.max.y + rotated_label_gap),
                       ImVec2(0.5f * (xa + xb), f.max.y + rotated_label_gap), kAxisColor, label, label_width(label, true));
    } else {
      const float w = ImGui::CalcTextSize(label.c_str()).x;
      draw->AddText(ImVec2(0.5f * (xa + xb - w), f.max.y + flat_label_gap), kAxisColor, label.c_str());
    }
  }
  // Each run of bars of one group: a bracket under their labels and the group's name, centred under the run: whole,
  // else the part before ", " ("H100 80GB HBM3"), else its first word ("H100"), whichever first fits the run. Where
  // none does (a lone recorded CPU bar's "AMD EPYC, recorded" was a bare "…" under its one slot at a lecture's font,
  // issue 17), the first word ("AMD") takes the room the neighbours' names leave, its middle cut if it must be.
  struct Run {
    float xa, xb;
    std::string name;
  };
  std::vector<Run> runs;
  for (std::size_t i = 0; grouped && i < n;) {
    std::size_t j = i;
    const std::string group = i < chart.groups.size() ? chart.groups[i] : std::string();
    while (j < n && (j < chart.groups.size() ? chart.groups[j] : std::string()) == group) ++j;
    runs.push_back({f.min.x + slot * static_cast<float>(i) + 0.1f * slot, f.min.x + slot * static_cast<float>(j) - 0.1f * slot, group});
    i = j;
  }
  const auto text_w = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  const auto forms = [](const std::string& name) {
    const std::string head = name.substr(0, name.find(", "));
    return std::vector<std::string>{name, head, head.substr(0, head.find(' '))};
  };
  const auto fitting = [&](const std::string& name, float room) { // the first form that fits `room`, or ""
    for (const std::string& form : forms(name))
      if (text_w(form) <= room) return form;
    return std::string();
  };
  const float caption_gap = 0.75f * ImGui::GetFontSize(), y = f.outer_max.y - group_h; // names apart, not one phrase
  // The names that fit their runs first; a name that does not takes the room from the end of its left neighbour's
  // name to the start of its right one's, each pushed to the far edge of its own run.
  std::vector<std::string> texts(runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k) texts[k] = fitting(runs[k].name, runs[k].xb - runs[k].xa);
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    if (r.name.empty() || !texts[k].empty()) continue;
    const float left = k > 0 ? runs[k - 1].xa + text_w(texts[k - 1]) + caption_gap : f.min.x;
    const float right = k + 1 < runs.size() ? runs[k + 1].xb - text_w(texts[k + 1]) - caption_gap : f.max.x;
    texts[k] = shortened_label(forms(r.name)[2], std::max(right - left, r.xb - r.xa), text_w); // one word: "AMD EPYC H100" read as one name
    cut += texts[k] != forms(r.name)[2] ? 1 : 0;
  }
  // Each name centred under its run, then moved apart: rightwards past its left neighbour, leftwards before its right one.
  std::vector<float> xs(runs.size()), ws(runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k) {
    ws[k] = texts[k].empty() ? 0.0f : text_w(texts[k]);
    xs[k] = std::clamp(0.5f * (runs[k].xa + runs[k].xb - ws[k]), f.min.x, std::max(f.min.x, f.max.x - ws[k]));
  }
  for (std::size_t k = 1; k < runs.size(); ++k)
    if (ws[k] > 0 && ws[k - 1] > 0) xs[k] = std::max(xs[k], xs[k - 1] + ws[k - 1] + caption_gap);
  for (std::size_t k = runs.size(); k-- > 1;)
    if (ws[k] > 0 && ws[k - 1] > 0) xs[k - 1] = std::min(xs[k - 1], xs[k] - caption_gap - ws[k - 1]);
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (runs[k].name.empty()) continue;
    draw->AddLine(ImVec2(runs[k].xa, y), ImVec2(runs[k].xb, y), kAxisColor, ui_px(1.0f));
    draw->AddText(ImVec2(xs[k], y + ui_px(2.0f)), ImGui::GetColorU32(ImGuiCol_Text), texts[k].c_str());
  }
  draw_axis_labels(draw, f, "", y_label);
  finish_frame(f, view);
  if (view.hovered_point >= 0 && !view.box_active) {
    const std::size_t i = static_cast<std::size_t>(view.hovered_point);
    const std::string text = i < chart.hover.size() && !chart.hover[i].empty()
                                 ? chart.hover[i]
                                 : chart.labels[i] + ": " + tick_label(chart.values[i]) + " " + chart.value_label;
    ImGui::SetTooltip("%s", text.c_str());
  }
  return cut;
}

} // namespace se
