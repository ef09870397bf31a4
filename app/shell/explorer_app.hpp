// The explorer application: start-up (saved state + command-line overrides), the ImGui context and GL
// resources, and one frame (input, simulation, heat map, windows, render). Platform-independent.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/shell/explorer_state.hpp"
#include "app/platform/heatmap_renderer.hpp"
#include "app/platform/platform.hpp"
#include "app/platform/screenshot.hpp"
#include "app/sim/simulation.hpp"
#include "app/views/views.hpp"

struct ImGuiContext;
struct ImFont;

namespace se {

struct ExplorerOptions {
  std::optional<Stencil> stencil; // --stencil, already resolved
  std::optional<Extent> size;     // --size
  std::optional<std::string> state_dir;
  bool use_state = true;          // false: --no-state, nothing is read or written
  std::optional<std::string> view; // --view: show this view large (a name from explorer_views())
  bool lecture = false;            // --lecture: larger fonts and the guided tour
};

struct StartupState {
  ExplorerState state;
  std::optional<std::filesystem::path> state_dir; // where state.json and imgui.ini live; nullopt: nowhere
  std::vector<std::string> messages;               // problems to report (stderr and the status line)
  std::string view;                                // shown large; "" for the free layout
  bool lecture = false;
};

// Loads the saved state and applies the overrides, checking the result can run before anything is
// allocated. Throws InputError for bad overrides (a size of other dims, smaller than the stencil, too
// large for memory, an unknown view); a saved state that cannot run here is reported and replaced by the defaults.
StartupState prepare_startup(const ExplorerOptions& options);

// The simulation the state asks for.
SimulationSetup simulation_setup(const ExplorerState& state);

class ExplorerApp {
public:
  // Needs the platform's GL context current. Throws PlatformError when ImGui's GL backend cannot start
  // and GlError when the shaders do not build.
  ExplorerApp(Platform& platform, StartupState startup);
  ~ExplorerApp(); // saves the state (when there is a state dir) and shuts ImGui down
  ExplorerApp(const ExplorerApp&) = delete;
  ExplorerApp& operator=(const ExplorerApp&) = delete;

  // One frame; with `capture`, the finished frame's pixels are read back before presenting.
  void frame(RgbaImage* capture = nullptr);

  ExplorerState& state() { return state_; }
  const ViewFacts& view_facts() const { return facts_; }
  ViewLayout& layout() { return layout_; }
  LectureMode& lecture() { return lecture_; }
  void start_lecture_tour(bool large_fonts = true); // step 1 of the tour, with the lecture's larger fonts or not
  const Simulation& simulation() const { return simulation_; }
  Platform& platform() { return platform_; }
  const EnvironmentInfo& environment() const { return environment_; }
  const std::optional<std::filesystem::path>& state_dir() const { return state_dir_; }
  void save_state_now() const; // throws InputError
  // The UI scale in effect: the platform's content scale times the user's setting.
  float ui_scale() const;
  // Software GL: window backgrounds come from the cleared framebuffer where nothing overlaps them (enabled
  // there at start; tests compare the frames with it off).
  WindowBackgrounds& window_backgrounds() { return backgrounds_; }

private:
  void handle_shortcuts();
  void run_simulation();
  void update_heatmap();
  void apply_ui_scale(); // fonts rebuilt and style scaled when the UI scale changed
  void use_nearest_atlas(); // software GL: the font atlas sampled nearest (see the .cpp)

  Platform& platform_;
  std::optional<std::filesystem::path> state_dir_;
  std::string ini_path_; // io.IniFilename points into it, so it lives as long as the context
  ExplorerState state_;
  ViewMemory memory_;
  ViewFacts facts_;
  ViewLayout layout_;
  LectureMode lecture_;
  ImGuiContext* imgui_ = nullptr;
  ImFont* font_ = nullptr;         // normal text
  ImFont* lecture_font_ = nullptr; // lecture mode
  float built_scale_ = 0;          // the UI scale the fonts and style were made for; 0: none yet
  bool software_gl_ = false;       // GL renders on the CPU (llvmpipe): the font atlas is sampled nearest
  ImTextureID nearest_atlas_ = nullptr; // the atlas texture set to nearest sampling
  WindowBackgrounds backgrounds_;
  std::unique_ptr<HeatmapRenderer> heatmap_;
  Simulation simulation_;
  EnvironmentInfo environment_;
  std::uint64_t shown_version_ = ~std::uint64_t{0};
  std::optional<std::chrono::steady_clock::time_point> last_frame_;
  ValueRange live_range_{};
};

} // namespace se
