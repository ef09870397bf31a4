// The method picker: the registered methods with why each cannot run here or take the stencil, and the combo.
#include "app/widgets/method_picker.hpp"

#include <imgui.h>

#include "app/shell/explorer_state.hpp"
#include "app/sim/simulation.hpp"
#include "app/views/views.hpp"
#include "kernels/registry.hpp"

namespace se {

MethodCatalogue load_method_catalogue() {
  MethodCatalogue c;
  c.methods = all_methods();
  for (const Method& m : c.methods) c.unavailable.push_back(m.unavailable_reason());
  c.gpu_unavailable = gpu_unavailable_reason();
  return c;
}

std::vector<MethodChoice> method_choices(const MethodCatalogue& catalogue, const Stencil& s, const Extent& e) {
  std::vector<MethodChoice> out;
  for (std::size_t i = 0; i < catalogue.methods.size(); ++i) {
    MethodChoice c;
    c.method = &catalogue.methods[i];
    c.unavailable = catalogue.unavailable[i];
    if (c.unavailable.empty()) {
      try {
        c.unsupported = catalogue.methods[i].unsupported_reason(s, e);
      } catch (const std::exception& err) {
        c.unsupported = err.what();
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

const std::vector<MethodChoice>& MethodChoiceCache::get(const MethodCatalogue& catalogue, const Stencil& s, const Extent& e) {
  if (catalogue_ != &catalogue || !(stencil_ == s) || !(extent_ == e)) {
    choices_ = method_choices(catalogue, s, e);
    catalogue_ = &catalogue;
    stencil_ = s;
    extent_ = e;
  }
  return choices_;
}

bool method_combo(ExplorerState& state, const char* label, const std::string& probe,
                  const std::function<const std::vector<MethodChoice>&()>& get_choices, MethodKey& key) {
  bool changed = false;
  const std::string preview = key.label();
  // The combo's frame, measured before BeginCombo opens a popup window that would own "the last item".
  const ImVec2 at = ImGui::GetCursorScreenPos();
  probe_rect(state, probe, at, ImVec2(at.x + ImGui::CalcItemWidth(), at.y + ImGui::GetFrameHeight()));
  if (ImGui::BeginCombo(label, preview.c_str(), ImGuiComboFlags_HeightLarge)) {
    Backend group = Backend::CPU;
    bool first = true;
    for (const MethodChoice& c : get_choices()) {
      const Method& m = *c.method;
      if (first || m.backend != group) {
        if (!first) ImGui::Separator();
        ImGui::TextDisabled("%s", m.backend == Backend::GPU       ? "GPU kernels"
                                  : m.backend == Backend::Emulate ? "CPU emulations (fragment by fragment)"
                                                                  : "CPU");
        group = m.backend;
        first = false;
      }
      const MethodKey k = key_of(m);
      const std::string text = k.label() + "  " + std::string(to_string(m.precision));
      ImGui::BeginDisabled(!c.selectable());
      if (ImGui::Selectable(text.c_str(), k == key) && !(k == key)) {
        key = k;
        changed = true;
      }
      ImGui::EndDisabled();
      probe_last_item(state, probe + "." + k.probe_name());
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", !c.unavailable.empty() ? ("unavailable here: " + c.unavailable).c_str()
                                : !c.unsupported.empty() ? ("cannot take this stencil: " + c.unsupported).c_str()
                                                         : m.description.c_str());
    }
    ImGui::EndCombo();
  }
  return changed;
}

} // namespace se
