// The explorer's windows ("views"): what each draw function receives, the list of views, which are open
// and where they go (free layout, one view shown large, the lecture tour). Adding a view is one
// window_<name>.cpp file and one line in explorer_views().
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include <imgui.h>

#include "app/shell/explorer_state.hpp"
#include "app/platform/heatmap_renderer.hpp"
#include "app/platform/window_backgrounds.hpp"
#include "app/sim/simulation.hpp"
#include "core/error.hpp"

namespace se {

// Facts about the machine shown in the status line, gathered once at start.
struct EnvironmentInfo {
  std::string compute_device; // se::query_device().summary()
  std::string compute_detail; // without a device: the precise reason CUDA gave (the status line's tooltip)
  std::string gl_renderer;
  std::string gl_version;
  std::string platform;
  bool cuda_device = false;   // a CUDA device is usable (GPU-only buttons are disabled otherwise)
  float content_scale = 1;    // the monitor's content scale this frame (the UI scale multiplies it)
};

// What a view keeps between frames (plan caches, the user's selections), one object per view name, owned by
// the app so views stay plain functions. get<T>() default-constructs on first use.
class ViewMemory {
public:
  template <typename T> T& get(std::string_view view_name) {
    auto it = slots_.find(view_name);
    if (it == slots_.end()) it = slots_.emplace(std::string(view_name), Slot{typeid(T), std::make_shared<T>()}).first;
    if (it->second.type != std::type_index(typeid(T)))
      throw InputError("view memory '" + std::string(view_name) + "' was created with another type");
    return *static_cast<T*>(it->second.object.get());
  }

private:
  struct Slot {
    std::type_index type;
    std::shared_ptr<void> object;
  };
  std::map<std::string, Slot, std::less<>> slots_;
};

// A plan derived from `Key` (a stencil and the options a view offers), rebuilt only when the key changes. A
// plan the method refuses leaves a default Plan and the InputError's message in `unsupported`.
template <typename Key, typename Plan> struct CachedPlan {
  std::optional<Key> key;
  Plan plan{};
  std::string unsupported;
  template <typename Make> const Plan& get(const Key& k, Make&& make) {
    if (key && *key == k) return plan;
    key = k;
    unsupported.clear();
    try {
      plan = make();
    } catch (const InputError& e) {
      plan = Plan{};
      unsupported = e.what();
    }
    return plan;
  }
};

// Values a view published this frame ("pyramid.rank" -> "3"), cleared every frame: what tests and the
// lecture recorder read to know what a view drew without parsing pixels.
using ViewFacts = std::map<std::string, std::string, std::less<>>;

// Which views are open and how windows are arranged. Lives in the app; set_default_window_rect reads it
// through ImGui's io.UserData so every view (also those that only call set_default_window_rect) follows it.
struct ViewLayout {
  std::map<std::string, bool, std::less<>> open; // by view name; missing: closed
  std::string focus;          // a view shown large (with the Stencil editor beside it when that fits); "" free layout
  float top = 0;              // pixels taken at the top (menu bar, lecture bar)
  float scale = 1;            // the UI scale in effect (monitor content scale x the user's setting): layout lengths
  std::uint64_t generation = 1; // bumped when the arrangement changes: windows are then moved, not just placed once
  std::map<std::string, std::uint64_t, std::less<>> placed; // generation each window was last placed at
  std::map<std::string, std::string, std::less<>> page_request; // a tab a view should switch to (lecture tour)

  bool is_open(std::string_view name) const;
  void set_open(std::string_view name, bool open);
  // Shows `name` large and closes every other view but the Stencil editor; "" returns to the free layout.
  void show_focused(std::string_view name);
  void rearrange() { ++generation; }
  // The page requested for `view` (consumed: returns it once), or "".
  std::string take_page_request(std::string_view view);
};

// Lecture mode: larger fonts, and a guided tour through the views for the stencil being edited.
struct LectureStep {
  std::string view;     // shown large
  std::string page;     // the tab the view switches to ("" keeps its current one)
  std::string title;
  std::string caption;  // what to look at, in two or three sentences
  int captures = 1;     // --record: frames saved for this step (more for animations)
};
// The tour over the views that are registered (steps naming another view are left out) for this stencil: a method's
// step that has nothing to show for its dimensions is left out (a 1D stencil has no butterfly swap, TCStencil takes
// no 1D stencil, SPIDER no 3D one), and a 1D stencil gets the 1D wording where a step has one.
std::vector<LectureStep> lecture_steps(const Stencil& stencil);
struct LectureMode {
  bool large_fonts = false;
  bool touring = false;
  int step = 0;
};
// Shows step `step` (clamped) of the tour: its view large with its page, the lecture bar on top.
void go_to_lecture_step(ViewLayout& layout, LectureMode& lecture, const Stencil& stencil, int step);
void stop_lecture_tour(ViewLayout& layout, LectureMode& lecture);

// Everything a window may read or change, passed explicitly (no globals).
struct ViewContext {
  ExplorerState& state;
  Simulation& simulation;
  HeatmapRenderer& heatmap;
  const EnvironmentInfo& environment;
  ViewMemory& memory;
  ViewFacts& facts;
  ViewLayout& layout;
  LectureMode& lecture;
  bool* open = nullptr;               // the view being drawn: pass to ImGui::Begin so its close button works
  bool finish_background_work = false; // headless: wait for background computations so frames are reproducible
  WindowBackgrounds* backgrounds = nullptr; // software GL: backgrounds from the cleared framebuffer (begin_window)
};

using DrawView = void (*)(ViewContext&);
struct ViewEntry {
  const char* name;  // for --view and tests
  const char* title; // the ImGui window title (also its key in imgui.ini)
  DrawView draw;
};
const std::vector<ViewEntry>& explorer_views();
const ViewEntry* find_view(std::string_view name);
std::string view_names(); // "stencil, simulation, pyramid, ..." for messages

void draw_stencil_window(ViewContext& ctx);
void draw_simulation_window(ViewContext& ctx);
void draw_pyramid_window(ViewContext& ctx);
void draw_sparse24_window(ViewContext& ctx);
void draw_params_window(ViewContext& ctx);
void draw_fft_window(ViewContext& ctx);
void draw_fragments_window(ViewContext& ctx);
void draw_compare_window(ViewContext& ctx);
void draw_performance_window(ViewContext& ctx);
void draw_baselines_window(ViewContext& ctx);
void draw_table2_window(ViewContext& ctx);
void draw_dag_window(ViewContext& ctx);
void draw_status_line(ViewContext& ctx);
// The main menu (open views, show one large, lecture mode) and, while touring, the lecture bar below it;
// both set layout.top before the views are placed.
void draw_menu_bar(ViewContext& ctx);
void draw_lecture_bar(ViewContext& ctx);

// Height the status line takes at the bottom of the display.
float status_line_height();
// Where a view goes: the first time (before imgui.ini knows it) in the free layout, and every time the
// arrangement changes (a view shown large, a lecture step). Fractions of the display, so the layout also
// works on displays other than the default 1600x1000.
void set_default_window_rect(std::string_view view_name);

// ImGui::Begin for a top-level window whose background is the style's WindowBg, through ctx.backgrounds when set.
bool begin_window(ViewContext& ctx, const char* title, bool* open = nullptr, ImGuiWindowFlags flags = 0);

// A teaching view's window: placed by set_default_window_rect, closable through ctx.open, and with the
// probe "<name>.window" for tests. Returns false when collapsed (End() must still be called, as for Begin).
bool begin_view_window(ViewContext& ctx, const char* name, const char* title);

// A page (tab) of a view: selected when the lecture tour asks for it (`requested`, from take_page_request), probed
// as "<view>.tab.<page>" and published as "<view>.page" while shown. Call ImGui::EndTabItem() when it returns true.
bool begin_view_page(ViewContext& ctx, const char* view, const char* page, const char* label, std::string_view requested);

// A window's message line: red for errors, green for confirmations; nothing when empty.
void draw_message(const UiMessage& message);
// Why a method cannot take the stencil, as a framed note a view shows instead of its drawing.
void draw_unsupported(const char* method, const std::string& reason);

// Records the last submitted item's rectangle under `name` (see WidgetProbes).
void probe_last_item(ExplorerState& state, std::string name);
void probe_rect(ExplorerState& state, std::string name, ImVec2 min, ImVec2 max);
void publish(ViewContext& ctx, std::string key, std::string value);
// Values for a fact: "%.17g" each, space-separated, so a test can compare them exactly.
std::string fact_numbers(const std::vector<double>& values);

// Title colours of the papers' figures: red for weight matrices and residuals, green for rank-1 parts,
// blue for input data.
constexpr ImU32 kWeightTitleColor = IM_COL32(255, 128, 112, 255);
constexpr ImU32 kRankOneTitleColor = IM_COL32(126, 220, 134, 255);
constexpr ImU32 kInputTitleColor = IM_COL32(120, 176, 255, 255);

} // namespace se
