// The method picker of the Simulation, Compare and Performance windows: every variant of the method list with why
// it cannot run here or take the current stencil, and a combo over them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/method.hpp"

namespace se {

struct MethodKey;
struct ExplorerState;

// The registered methods (kernels/registry.hpp's list) with why each cannot run on this machine, gathered once: asking the
// device per method and frame would cost more than the frame.
struct MethodCatalogue {
  std::vector<Method> methods;
  std::vector<std::string> unavailable; // per method; "" when it can run here
  std::string gpu_unavailable;          // "" when a CUDA device is usable
};
MethodCatalogue load_method_catalogue();

// A registered method with what this machine and the current stencil allow, for pickers.
struct MethodChoice {
  const Method* method = nullptr;
  std::string unavailable; // no device, library missing ("" when it can run here)
  std::string unsupported; // cannot take this stencil and grid ("" when it can)
  bool selectable() const { return unavailable.empty() && unsupported.empty(); }
};
std::vector<MethodChoice> method_choices(const MethodCatalogue& catalogue, const Stencil& s, const Extent& e);
// method_choices for the last stencil and grid asked: some methods build a whole plan to say whether they can
// take a stencil, which a picker drawn every frame must not repeat.
class MethodChoiceCache {
public:
  const std::vector<MethodChoice>& get(const MethodCatalogue& catalogue, const Stencil& s, const Extent& e);

private:
  const MethodCatalogue* catalogue_ = nullptr;
  Stencil stencil_;
  Extent extent_;
  std::vector<MethodChoice> choices_;
};
// A combo over the choices; unselectable ones are greyed with their reason as a tooltip. Items get the probes
// "<probe>.<id>.<backend>" and the combo "<probe>". `choices` is asked only while the combo is open: a picker
// drawn every frame while a weight is dragged must not plan every method every frame. Returns true when `key`
// changed.
bool method_combo(ExplorerState& state, const char* label, const std::string& probe,
                  const std::function<const std::vector<MethodChoice>&()>& choices, MethodKey& key);

} // namespace se
