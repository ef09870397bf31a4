// The explorer's plain state: what the windows edit (stencil, grid settings, view settings), the
// per-frame UI bits (messages, widget probes), and its JSON persistence in the state directory.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/widgets/colormap.hpp"
#include "core/brush.hpp"
#include "core/grid.hpp"
#include "core/image_field.hpp"
#include "core/stencil.hpp"

namespace se {

// How the heat map's colour range is chosen.
enum class ValueRangeMode {
  Initial, // min/max of the initial condition: decay and growth stay visible
  Live,    // min/max of the values shown now: always full contrast
  Manual,
};
std::string_view to_string(ValueRangeMode m);
ValueRangeMode parse_value_range_mode(std::string_view s);

struct GridSettings {
  // The grid used for each stencil dimensionality, so switching 2D -> 3D -> 2D restores the 2D grid.
  std::array<Extent, 3> extent_by_dims{Extent{1, {4096, 1, 1}}, Extent{2, {512, 512, 1}}, Extent{3, {128, 128, 128}}};
  InitialCondition initial = InitialCondition::HotSpot;
  std::uint64_t seed = 1;
  Boundary boundary{};
  Precision storage = Precision::FP64;
  int steps_per_frame = 4;
  std::string image_path;                 // the picture of the image initial condition (persisted)
  std::shared_ptr<const GrayImage> image; // it, loaded (not persisted: read again at start)

  const Extent& extent_for(int dims) const { return extent_by_dims.at(static_cast<std::size_t>(dims - 1)); }
  Extent& extent_for(int dims) { return extent_by_dims.at(static_cast<std::size_t>(dims - 1)); }
};

struct ViewSettings {
  int z_slice = -1; // -1: the middle plane of a 3D grid
  Colormap colormap = Colormap::Viridis;
  ValueRangeMode range_mode = ValueRangeMode::Initial;
  double manual_min = 0.0, manual_max = 1.0;
  float ui_scale = 1.0f; // the user's UI scale (View menu, Ctrl +/-), on top of the monitor's content scale
  bool operator==(const ViewSettings&) const = default;
};

// Screen rectangle of a widget, recorded while drawing so headless tests can click it by name.
struct WidgetRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float center_x() const { return 0.5f * (x0 + x1); }
  float center_y() const { return 0.5f * (y0 + y1); }
};
using WidgetProbes = std::map<std::string, WidgetRect, std::less<>>;

// A line in a window: what went wrong (error) or what just happened (not error).
struct UiMessage {
  std::string text;
  bool error = false;
  void clear() { text.clear(), error = false; }
  void set(std::string t, bool is_error) { text = std::move(t), error = is_error; }
};

struct StencilEditorUi {
  int plane = 0;                 // dz shown by the 3D editor
  std::string file_path = "stencil.json";
  UiMessage message;
};

struct SimulationUi {
  std::string size_text;         // the size field being edited; applied with Enter or the Apply button
  int size_text_dims = 0;        // dims the text was filled for (refilled when the stencil's dims change)
  UiMessage message;             // problems applying settings
  std::string blocked;           // why the current settings cannot run (the simulation waits meanwhile)
  std::string picture_path;      // the picture field being edited; loaded with Enter or Load
};

// What the heat map shows this frame; filled by the app before the windows draw.
struct HeatmapShown {
  int width = 0, height = 0, stride = 1; // texels, and grid points per texel
  std::int64_t z = 0;                    // the plane of a 3D grid
  double range_min = 0, range_max = 1;   // the values at the two ends of the colormap
  std::int64_t not_finite = 0;           // NaN/Inf points in the whole grid
  std::vector<float> profile;            // a 1D grid's values (sampled), for its line plot
};

struct ExplorerState {
  // Persisted.
  Stencil stencil = preset("heat-2d");
  GridSettings grid{};
  ViewSettings view{};
  Brush brush{};
  bool playing = true;
  bool symmetry_lock = true;

  // Per session, not persisted.
  StencilEditorUi stencil_ui{};
  SimulationUi simulation_ui{};
  HeatmapShown heatmap_shown{};
  std::string status_message; // shown in the status line (e.g. a corrupt state file)
  WidgetProbes probes;        // cleared and refilled every frame
  std::int64_t frame = 0;
  double frame_seconds = 0;   // wall time between frames, smoothed (headless clocks are fixed, this is not)
  bool step_requested = false;
  bool reset_requested = false;

  const Extent& extent() const { return grid.extent_for(stencil.dims); }
};

// JSON of the persisted part: {"version": 1, "stencil": {...}, "grid": {...}, "view": {...}, ...}.
nlohmann::json state_to_json(const ExplorerState& s);
// Applies a state JSON onto `s`; throws InputError naming the first problem and leaves `s` unchanged then.
void apply_state_json(ExplorerState& s, const nlohmann::json& j);

// Where state.json and imgui.ini live: `explicit_dir` if given, else $SE_STATE_DIR, else
// $XDG_CONFIG_HOME/stencil-explorer, else ~/.config/stencil-explorer; nullopt when none can be found.
std::optional<std::filesystem::path> resolve_state_dir(const std::optional<std::string>& explicit_dir);
std::filesystem::path state_file(const std::filesystem::path& dir);
std::filesystem::path imgui_ini_file(const std::filesystem::path& dir);

// Loads dir/state.json into `s`. A missing file is not a problem (returns nullopt); an unreadable, corrupt or
// absurd one (not a regular file, larger than a state can be, a name or path beyond what is kept) leaves `s`
// unchanged, is moved aside to state.json.bad so that no later start reads it, and a message says so.
std::optional<std::string> load_state(const std::filesystem::path& dir, ExplorerState& s);
// The window layout Dear ImGui reads: when something other than a regular file of a sane size stands at
// dir/imgui.ini it is moved aside (imgui.ini.bad) before ImGui could trip over it, and a message says so.
std::optional<std::string> check_imgui_ini(const std::filesystem::path& dir);
// Writes dir/state.json atomically (temp file + rename), creating dir; throws InputError on failure.
void save_state(const std::filesystem::path& dir, const ExplorerState& s);

} // namespace se
