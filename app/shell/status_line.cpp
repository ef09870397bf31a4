// The status line along the bottom: the compute device (or why there is none), the GL renderer and
// platform, frame rate, and the latest app-level message (e.g. a corrupt state file that was ignored).
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <imgui.h>

#include "app/views/views.hpp"
#include "app/widgets/ui_units.hpp"

namespace se {
namespace {

// `text` in at most `width` pixels: whole where it fits, else cut at a character and ended with "...". True
// when it was cut (the caller offers the whole text in a tooltip).
bool text_elided(const std::string& text, float width, const ImVec4& color) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  const bool cut = ImGui::CalcTextSize(text.c_str()).x > width;
  if (!cut) {
    ImGui::TextUnformatted(text.c_str());
  } else {
    const char* ellipsis = "...";
    const float budget = std::max(width - ImGui::CalcTextSize(ellipsis).x, 0.0f);
    // The longest prefix that fits, at a UTF-8 character boundary.
    std::size_t keep = 0;
    for (std::size_t i = 1; i <= text.size(); ++i) {
      if (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
      if (ImGui::CalcTextSize(text.data(), text.data() + i).x > budget) break;
      keep = i;
    }
    const std::string shown = text.substr(0, keep) + ellipsis;
    ImGui::TextUnformatted(shown.c_str());
  }
  ImGui::PopStyleColor();
  return cut;
}

} // namespace

void draw_status_line(ViewContext& ctx) {
  const ImGuiIO& io = ImGui::GetIO();
  const float height = status_line_height();
  ImGui::SetNextWindowPos(ImVec2(0, io.DisplaySize.y - height));
  ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x, height));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoNav;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
  if (begin_window(ctx, "##status", nullptr, flags)) {
    const EnvironmentInfo& env = ctx.environment;
    const double seconds = ctx.state.frame_seconds;
    const std::string fps = fmt::format("{:5.0f} fps", seconds > 0 ? 1.0 / seconds : 0.0);
    const std::string gl = fmt::format("{}  via {}", env.gl_renderer, env.platform);
    const std::string& message = ctx.state.status_message;
    // The labels and gaps always show; the three texts share what is left of the line in proportion to their
    // length, each elided with "..." where it does not fit (a narrow window, a large UI scale, lecture fonts).
    // Hovering the line shows all of it.
    const float gap = ui_px(24.0f), inner = ImGui::GetStyle().ItemSpacing.x;
    float fixed = ImGui::CalcTextSize(fps.c_str()).x + 2 * gap + ImGui::CalcTextSize("Compute:").x +
                  ImGui::CalcTextSize("GL:").x + 2 * inner;
    const float device_w = ImGui::CalcTextSize(env.compute_device.c_str()).x, gl_w = ImGui::CalcTextSize(gl.c_str()).x;
    const float message_w = message.empty() ? 0.0f : ImGui::CalcTextSize(message.c_str()).x;
    if (!message.empty()) fixed += gap;
    const float room = std::max(ImGui::GetContentRegionAvail().x - fixed, 0.0f);
    const float wanted = device_w + gl_w + message_w;
    const float share = wanted > room ? room / wanted : 1.0f;
    bool elided = false;
    // Frame rate first: it is short and always whole.
    ImGui::TextDisabled("%s", fps.c_str());
    ImGui::SameLine(0, gap);
    ImGui::TextUnformatted("Compute:");
    ImGui::SameLine();
    elided |= text_elided(env.compute_device, std::floor(share * device_w), ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    probe_last_item(ctx.state, "status.compute");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s%s%s", env.compute_device.c_str(), env.compute_detail.empty() ? "" : "\nCUDA: ",
                        env.compute_detail.c_str());
    ImGui::SameLine(0, gap);
    ImGui::TextUnformatted("GL:");
    ImGui::SameLine();
    elided |= text_elided(gl, std::floor(share * gl_w), ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    probe_last_item(ctx.state, "status.gl");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\nOpenGL %s", gl.c_str(), env.gl_version.c_str());
    if (!message.empty()) {
      ImGui::SameLine(0, gap);
      elided |= text_elided(message, std::floor(share * message_w), ImVec4(1.0f, 0.72f, 0.3f, 1.0f));
      probe_last_item(ctx.state, "status.message");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", message.c_str());
    }
    // The whole line, unelided, wherever the pointer is over it and no item above said more.
    if (elided && ImGui::IsWindowHovered() && !ImGui::IsAnyItemHovered())
      ImGui::SetTooltip("Compute: %s\nGL: %s%s%s", env.compute_device.c_str(), gl.c_str(), message.empty() ? "" : "\n",
                        message.c_str());
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

} // namespace se
