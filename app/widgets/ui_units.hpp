// Lengths in the UI. Every pixel length in a view is written for the 16-pixel base font and goes through ui_px,
// which scales it with the font in use: the monitor's content scale, the UI-scale setting (View menu) and
// lecture mode's larger font enlarge cells, gaps and widths alike. The font in use is ImGui's own state, so
// nothing here is hidden: a window drawn with a bigger font pushed is drawn bigger.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

namespace se {

constexpr float kBaseFontPixels = 16.0f;

// `at_base` pixels at the 16-pixel base font, in pixels at the current font.
inline float ui_px(float at_base) { return at_base * ImGui::GetFontSize() / kBaseFontPixels; }
inline ImVec2 ui_px(float x, float y) { return ImVec2(ui_px(x), ui_px(y)); }

// SameLine where the next item, `width` pixels wide, still fits left of the window's content edge; else the item
// starts the next line (a lecture's font at a projector's 1280x720 must not cut labels at the right).
inline void same_line_if_fits(float width, float spacing = -1.0f) {
  ImGui::SameLine(0.0f, spacing);
  if (ImGui::GetCursorScreenPos().x + width > ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
    ImGui::NewLine();
}

// The lines of `text` wrapped to `width` pixels at spaces and line breaks only: ImGui's own wrapping also breaks
// after '.', ',' and ';', which split "alpha = 0.1" into "0." and "1" in the Stencil window at a lecture's font
// (issue 17). An "=" stays with the word after it ("alpha" and "= 0.1"); a word wider than the width gets a line of
// its own.
inline std::vector<std::string> wrap_at_spaces(std::string_view text, float width) {
  std::vector<std::string> lines(1);
  while (true) {
    std::size_t end = text.find_first_of(" \n");
    if (end != std::string_view::npos && text[end] == ' ' && text.substr(0, end) == "=") end = text.find_first_of(" \n", end + 1);
    const std::string word(text.substr(0, end));
    std::string& line = lines.back();
    const std::string candidate = line.empty() ? word : line + " " + word;
    if (!line.empty() && ImGui::CalcTextSize(candidate.c_str()).x > width)
      lines.push_back(word);
    else
      line = candidate;
    if (end == std::string_view::npos) break;
    if (text[end] == '\n') lines.emplace_back();
    text.remove_prefix(end + 1);
  }
  return lines;
}
// Those lines drawn, wrapped to the window's content width (or `wrap_width`).
inline void text_wrapped_at_spaces(std::string_view text, float wrap_width = 0.0f) {
  for (const std::string& line : wrap_at_spaces(text, wrap_width > 0.0f ? wrap_width : ImGui::GetContentRegionAvail().x))
    ImGui::TextUnformatted(line.c_str());
}

// The width of a checkbox or radio button with this label.
inline float check_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

// The UI scale a user may choose (View menu, state.json), on top of the monitor's content scale.
constexpr float kMinUiScale = 0.5f, kMaxUiScale = 3.0f;
// The steps Ctrl + and Ctrl - go through (and the View menu offers), as in a web browser.
constexpr float kUiScaleSteps[] = {0.5f, 0.67f, 0.75f, 0.8f, 0.9f, 1.0f, 1.1f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};

// The next step above (direction > 0) or below `scale`; a scale between steps goes to the nearest one that way.
inline float next_ui_scale(float scale, int direction) {
  if (direction > 0) {
    for (float s : kUiScaleSteps)
      if (s > scale + 1e-3f) return s;
    return kMaxUiScale;
  }
  float below = kMinUiScale;
  for (float s : kUiScaleSteps)
    if (s < scale - 1e-3f) below = s;
  return below;
}

} // namespace se
