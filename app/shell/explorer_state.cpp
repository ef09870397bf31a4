// Persistence of the explorer state. Parsing is strict and all-or-nothing: a file that fails any check
// is reported and ignored as a whole, so a half-applied state can never surprise the user.
#include "app/shell/explorer_state.hpp"

#include <cmath>
#include <cstdlib>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/widgets/ui_units.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace se {

constexpr int kStateVersion = 1;
constexpr int kMaxStepsPerFrame = 10000;
constexpr std::size_t kMaxPersistedPath = 4096;         // characters of a remembered file path
constexpr std::uint64_t kMaxStateBytes = 1 << 20;       // a state file or window layout far larger is not ours

std::string_view to_string(ValueRangeMode m) {
  switch (m) {
  case ValueRangeMode::Initial: return "initial";
  case ValueRangeMode::Live: return "live";
  case ValueRangeMode::Manual: return "manual";
  }
  return "?";
}

ValueRangeMode parse_value_range_mode(std::string_view s) {
  for (auto m : {ValueRangeMode::Initial, ValueRangeMode::Live, ValueRangeMode::Manual})
    if (s == to_string(m)) return m;
  throw InputError(fmt::format("unknown value range mode '{}' (initial, live or manual)", s));
}

nlohmann::json state_to_json(const ExplorerState& s) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const Extent& e : s.grid.extent_by_dims) sizes.push_back(e.to_string());
  return {
      {"version", kStateVersion},
      {"stencil", to_json(s.stencil)},
      {"grid",
       {{"sizes", sizes},
        {"initial", to_string(s.grid.initial)},
        {"seed", s.grid.seed},
        {"boundary", to_string(s.grid.boundary.kind)},
        {"boundary_value", s.grid.boundary.value},
        {"storage", to_string(s.grid.storage)},
        {"steps_per_frame", s.grid.steps_per_frame},
        {"image", s.grid.image_path}}},
      {"view",
       {{"z_slice", s.view.z_slice},
        {"colormap", to_string(s.view.colormap)},
        {"range", to_string(s.view.range_mode)},
        {"manual_min", s.view.manual_min},
        {"manual_max", s.view.manual_max},
        {"ui_scale", s.view.ui_scale}}},
      {"playing", s.playing},
      {"symmetry_lock", s.symmetry_lock},
      {"stencil_file", s.stencil_ui.file_path},
      {"brush", {{"radius", s.brush.radius}, {"value", s.brush.value}, {"mode", to_string(s.brush.mode)}}},
  };
}

namespace {

const nlohmann::json& member(const nlohmann::json& j, const char* key, const char* where) {
  if (!j.is_object() || !j.contains(key)) throw InputError(fmt::format("{} has no '{}'", where, key));
  return j.at(key);
}

std::string string_member(const nlohmann::json& j, const char* key, const char* where) {
  const auto& v = member(j, key, where);
  if (!v.is_string()) throw InputError(fmt::format("{}.{} must be a string", where, key));
  return v.get<std::string>();
}

double number_member(const nlohmann::json& j, const char* key, const char* where) {
  const auto& v = member(j, key, where);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw InputError(fmt::format("{}.{} must be a finite number", where, key));
  return v.get<double>();
}

std::int64_t integer_member(const nlohmann::json& j, const char* key, const char* where, std::int64_t lo,
                            std::int64_t hi) {
  const auto& v = member(j, key, where);
  if (!v.is_number_integer()) throw InputError(fmt::format("{}.{} must be an integer", where, key));
  const auto x = v.get<std::int64_t>();
  if (x < lo || x > hi) throw InputError(fmt::format("{}.{} must be between {} and {}; got {}", where, key, lo, hi, x));
  return x;
}

bool bool_member(const nlohmann::json& j, const char* key, const char* where) {
  const auto& v = member(j, key, where);
  if (!v.is_boolean()) throw InputError(fmt::format("{}.{} must be true or false", where, key));
  return v.get<bool>();
}

GridSettings grid_from_json(const nlohmann::json& g) {
  GridSettings out;
  const auto& sizes = member(g, "sizes", "grid");
  if (!sizes.is_array() || sizes.size() != 3) throw InputError("grid.sizes must list the 1D, 2D and 3D grid sizes");
  for (int d = 1; d <= 3; ++d) {
    const auto& text = sizes[static_cast<std::size_t>(d - 1)];
    if (!text.is_string()) throw InputError("grid.sizes entries must be strings like \"512x512\"");
    const Extent e = parse_extent(text.get<std::string>());
    if (e.dims != d) throw InputError(fmt::format("grid.sizes[{}] must be a {}D size; got '{}'", d - 1, d, e.to_string()));
    out.extent_for(d) = e;
  }
  out.initial = parse_initial_condition(string_member(g, "initial", "grid"));
  const auto& seed = member(g, "seed", "grid");
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
    throw InputError("grid.seed must be a non-negative integer");
  out.seed = seed.get<std::uint64_t>();
  out.boundary.kind = parse_boundary(string_member(g, "boundary", "grid"));
  out.boundary.value = number_member(g, "boundary_value", "grid");
  out.storage = parse_precision(string_member(g, "storage", "grid"));
  out.steps_per_frame = static_cast<int>(integer_member(g, "steps_per_frame", "grid", 1, kMaxStepsPerFrame));
  if (g.contains("image")) { // absent in states saved before pictures could be loaded
    out.image_path = string_member(g, "image", "grid");
    if (out.image_path.size() > kMaxPersistedPath)
      throw InputError(fmt::format("grid.image has {} characters; at most {} are kept", out.image_path.size(),
                                   kMaxPersistedPath));
  }
  return out;
}

ViewSettings view_from_json(const nlohmann::json& v) {
  ViewSettings out;
  out.z_slice = static_cast<int>(integer_member(v, "z_slice", "view", -1, 1 << 30));
  out.colormap = parse_colormap(string_member(v, "colormap", "view"));
  out.range_mode = parse_value_range_mode(string_member(v, "range", "view"));
  out.manual_min = number_member(v, "manual_min", "view");
  out.manual_max = number_member(v, "manual_max", "view");
  if (v.contains("ui_scale")) { // absent in states saved before the setting existed
    const double scale = number_member(v, "ui_scale", "view");
    if (scale < kMinUiScale || scale > kMaxUiScale)
      throw InputError(fmt::format("view.ui_scale must be between {} and {}; got {}", kMinUiScale, kMaxUiScale, scale));
    out.ui_scale = static_cast<float>(scale);
  }
  return out;
}

Brush brush_from_json(const nlohmann::json& b) {
  Brush out;
  out.radius = number_member(b, "radius", "brush");
  if (out.radius < kMinBrushRadius || out.radius > kMaxBrushRadius)
    throw InputError(fmt::format("brush.radius must be between {} and {}; got {}", kMinBrushRadius, kMaxBrushRadius,
                                 out.radius));
  out.value = number_member(b, "value", "brush");
  if (std::abs(out.value) > kMaxBrushValue)
    throw InputError(fmt::format("brush.value must be within ±{}; got {}", kMaxBrushValue, out.value));
  out.mode = parse_brush_mode(string_member(b, "mode", "brush"));
  return out;
}

} // namespace

void apply_state_json(ExplorerState& s, const nlohmann::json& j) {
  ExplorerState next = s;
  try {
    if (!j.is_object()) throw InputError("the state must be a JSON object");
    const auto version = integer_member(j, "version", "state", 0, 1 << 30);
    if (version != kStateVersion)
      throw InputError(fmt::format("state version {} is not supported (expected {})", version, kStateVersion));
    next.stencil = stencil_from_json(member(j, "stencil", "state"));
    next.grid = grid_from_json(member(j, "grid", "state"));
    next.view = view_from_json(member(j, "view", "state"));
    next.playing = bool_member(j, "playing", "state");
    next.symmetry_lock = bool_member(j, "symmetry_lock", "state");
    next.stencil_ui.file_path = string_member(j, "stencil_file", "state");
    if (j.contains("brush")) next.brush = brush_from_json(j.at("brush"));
    if (next.stencil_ui.file_path.size() > kMaxPersistedPath)
      throw InputError(fmt::format("state.stencil_file has {} characters; at most {} are kept",
                                   next.stencil_ui.file_path.size(), kMaxPersistedPath));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("malformed state: {}", e.what()));
  }
  s = std::move(next);
}

std::optional<std::filesystem::path> resolve_state_dir(const std::optional<std::string>& explicit_dir) {
  auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
  if (explicit_dir && !explicit_dir->empty()) return std::filesystem::path(*explicit_dir);
  if (auto d = env("SE_STATE_DIR")) return std::filesystem::path(*d);
  if (auto d = env("XDG_CONFIG_HOME")) return std::filesystem::path(*d) / "stencil-explorer";
  if (auto d = env("HOME")) return std::filesystem::path(*d) / ".config" / "stencil-explorer";
  return std::nullopt;
}

std::filesystem::path state_file(const std::filesystem::path& dir) { return dir / "state.json"; }
std::filesystem::path imgui_ini_file(const std::filesystem::path& dir) { return dir / "imgui.ini"; }

namespace {

// Moves an unusable settings file (or whatever stands in its place) aside as <name>.bad, so that neither this start
// nor the next one reads it again; says what happened.
std::string set_aside(const std::filesystem::path& path, const char* what, const std::string& problem) {
  auto kept = path;
  kept += ".bad";
  std::error_code ec;
  std::filesystem::remove_all(kept, ec);
  std::filesystem::rename(path, kept, ec);
  return fmt::format("ignored the saved {} {}: {}{}; starting with defaults", what, path.string(), problem,
                     ec ? fmt::format(" (could not move it aside: {})", ec.message())
                        : fmt::format(" (kept as {})", kept.filename().string()));
}

} // namespace

std::optional<std::string> load_state(const std::filesystem::path& dir, ExplorerState& s) {
  const auto path = state_file(dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    const nlohmann::json j = parse_json_text(read_text_file(path.string(), "the file", kMaxStateBytes), "the file");
    apply_state_json(s, j);
    return std::nullopt;
  } catch (const InputError& e) {
    return set_aside(path, "state", e.what()); // kept for inspection, never read again
  }
}

std::optional<std::string> check_imgui_ini(const std::filesystem::path& dir) {
  const auto path = imgui_ini_file(dir);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return std::nullopt;
  if (!std::filesystem::is_regular_file(status)) return set_aside(path, "window layout", "it is not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxStateBytes)
    return set_aside(path, "window layout", fmt::format("{} bytes, more than a window layout can be", size));
  return std::nullopt;
}

void save_state(const std::filesystem::path& dir, const ExplorerState& s) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("cannot create the state directory {}: {}", dir.string(), ec.message()));
  const auto path = state_file(dir);
  auto temp = path;
  temp += ".tmp";
  write_file(temp.string(), state_to_json(s).dump(2) + "\n", "the state");
  std::filesystem::rename(temp, path, ec);
  if (ec) throw InputError(fmt::format("cannot replace {}: {}", path.string(), ec.message()));
}

} // namespace se
