// The status line along the bottom: the compute device (or why there is none), the GL renderer and
// platform, frame rate, and the latest app-level message (e.g. a corrupt state file that was ignored).
#include <imgui.h>

#include "app/views/views.hpp"

namespace se {

void draw_status_line(ViewContext& ctx) {
  const ImGuiIO& io = ImGui::GetIO();
  const float height = status_line_height();
  ImGui::SetNextWindowPos(ImVec2(0, io.DisplaySize.y - height));
  ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x, height));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoNav;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
  if (ImGui::Begin("##status", nullptr, flags)) {
    const EnvironmentInfo& env = ctx.environment;
    // Frame rate first: it is short, and long device names are then the part a narrow window clips.
    const double seconds = ctx.state.frame_seconds;
    ImGui::TextDisabled("%5.0f fps", seconds > 0 ? 1.0 / seconds : 0.0);
    ImGui::SameLine(0, 24);
    ImGui::TextUnformatted("Compute:");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", env.compute_device.c_str());
    if (!env.compute_detail.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("CUDA: %s", env.compute_detail.c_str());
    ImGui::SameLine(0, 24);
    ImGui::TextUnformatted("GL:");
    ImGui::SameLine();
    ImGui::TextDisabled("%s  via %s", env.gl_renderer.c_str(), env.platform.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("OpenGL %s", env.gl_version.c_str());
    if (!ctx.state.status_message.empty()) {
      ImGui::SameLine(0, 24);
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.72f, 0.3f, 1.0f));
      ImGui::TextUnformatted(ctx.state.status_message.c_str());
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ctx.state.status_message.c_str());
    }
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

} // namespace se
