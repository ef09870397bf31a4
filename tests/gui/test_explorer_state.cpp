// Persistence of the explorer state: JSON round trip, strict rejection, the state folder's lookup
// order, corrupt files reported and kept aside, and start-up overrides from the command line.
#include <cstdlib>
#include <fstream>
#include <optional>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/shell/explorer_app.hpp"
#include "app/shell/explorer_state.hpp"
#include "core/error.hpp"
#include "gui_test_support.hpp"

using namespace se;
using se::test::TempDir;

namespace {

ExplorerState edited_state() {
  ExplorerState s;
  s.stencil = preset("box-3d27p");
  s.stencil.at(1, 1, 1) = 0.25;
  s.grid.extent_for(3) = Extent{3, {40, 30, 20}};
  s.grid.extent_for(1) = Extent{1, {999, 1, 1}};
  s.grid.initial = InitialCondition::Checkerboard;
  s.grid.seed = 77;
  s.grid.boundary = Boundary{BoundaryKind::Periodic, 0.0};
  s.grid.storage = Precision::FP16;
  s.grid.steps_per_frame = 33;
  s.view.z_slice = 7;
  s.view.colormap = Colormap::Inferno;
  s.view.range_mode = ValueRangeMode::Manual;
  s.view.manual_min = -1.5;
  s.view.manual_max = 2.5;
  s.view.ui_scale = 1.5f;
  s.brush = Brush{12, -0.5, BrushMode::Set};
  s.playing = false;
  s.symmetry_lock = false;
  s.stencil_ui.file_path = "/tmp/mine.json";
  return s;
}

void check_same_persisted(const ExplorerState& a, const ExplorerState& b) {
  CHECK(a.stencil == b.stencil);
  CHECK(a.grid.extent_by_dims == b.grid.extent_by_dims);
  CHECK(a.grid.initial == b.grid.initial);
  CHECK(a.grid.seed == b.grid.seed);
  CHECK(a.grid.boundary.kind == b.grid.boundary.kind);
  CHECK(a.grid.boundary.value == b.grid.boundary.value);
  CHECK(a.grid.storage == b.grid.storage);
  CHECK(a.grid.steps_per_frame == b.grid.steps_per_frame);
  CHECK(a.view == b.view);
  CHECK(a.playing == b.playing);
  CHECK(a.symmetry_lock == b.symmetry_lock);
  CHECK(a.stencil_ui.file_path == b.stencil_ui.file_path);
  CHECK(a.brush.radius == b.brush.radius);
  CHECK(a.brush.value == b.brush.value);
  CHECK(a.brush.mode == b.brush.mode);
}

// Sets an environment variable for the scope, restoring the old value after.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char* name_;
  std::optional<std::string> old_;
};

} // namespace

TEST_CASE("explorer state survives a JSON round trip", "[gui][state]") {
  const ExplorerState saved = edited_state();
  ExplorerState loaded;
  apply_state_json(loaded, state_to_json(saved));
  check_same_persisted(loaded, saved);
}

TEST_CASE("a state JSON with any problem is rejected whole", "[gui][state]") {
  const ExplorerState before = edited_state();
  auto rejects = [&](nlohmann::json j, const char* fragment) {
    ExplorerState s = before;
    CHECK_THROWS_WITH(apply_state_json(s, j), Catch::Contains(fragment));
    check_same_persisted(s, before); // nothing half-applied
  };
  const nlohmann::json good = state_to_json(ExplorerState{});
  auto with = [&](const char* key, nlohmann::json value) {
    nlohmann::json j = good;
    j[key] = std::move(value);
    return j;
  };
  rejects(with("version", 99), "version 99");
  rejects(nlohmann::json::array(), "object");
  auto bad_stencil = good;
  bad_stencil["stencil"]["weights"] = {1, 2};
  rejects(bad_stencil, "odd side");
  auto bad_sizes = good;
  bad_sizes["grid"]["sizes"][1] = "64";
  rejects(bad_sizes, "2D size");
  auto bad_steps = good;
  bad_steps["grid"]["steps_per_frame"] = 0;
  rejects(bad_steps, "steps_per_frame");
  auto bad_map = good;
  bad_map["view"]["colormap"] = "jet";
  rejects(bad_map, "colormap");
  auto missing = good;
  missing.erase("playing");
  rejects(missing, "playing");
}

TEST_CASE("the state folder is the explicit one, then SE_STATE_DIR, XDG_CONFIG_HOME, HOME", "[gui][state]") {
  ScopedEnv se_dir("SE_STATE_DIR", "/tmp/se-state"), xdg("XDG_CONFIG_HOME", "/tmp/xdg"), home("HOME", "/tmp/home");
  CHECK(resolve_state_dir(std::string("/tmp/explicit")) == std::filesystem::path("/tmp/explicit"));
  CHECK(resolve_state_dir(std::nullopt) == std::filesystem::path("/tmp/se-state"));
  {
    ScopedEnv unset("SE_STATE_DIR", nullptr);
    CHECK(resolve_state_dir(std::nullopt) == std::filesystem::path("/tmp/xdg/stencil-explorer"));
    ScopedEnv unset_xdg("XDG_CONFIG_HOME", nullptr);
    CHECK(resolve_state_dir(std::nullopt) == std::filesystem::path("/tmp/home/.config/stencil-explorer"));
    ScopedEnv unset_home("HOME", nullptr);
    CHECK_FALSE(resolve_state_dir(std::nullopt).has_value());
  }
}

TEST_CASE("saved state loads back, and a corrupt file is reported, ignored and kept aside", "[gui][state]") {
  TempDir dir;
  const ExplorerState saved = edited_state();
  save_state(dir.path(), saved);
  ExplorerState loaded;
  CHECK_FALSE(load_state(dir.path(), loaded).has_value());
  check_same_persisted(loaded, saved);

  { std::ofstream(state_file(dir.path())) << "{\"version\": 1, \"stencil\": [tru"; }
  ExplorerState untouched = edited_state();
  const auto message = load_state(dir.path(), untouched);
  REQUIRE(message.has_value());
  CHECK_THAT(*message, Catch::Contains("ignored the saved state") && Catch::Contains("not valid JSON") &&
                           Catch::Contains("state.json.bad"));
  check_same_persisted(untouched, saved);
  CHECK(std::filesystem::exists(dir.path() / "state.json.bad"));
  CHECK_FALSE(std::filesystem::exists(state_file(dir.path())));

  TempDir empty;
  ExplorerState fresh;
  CHECK_FALSE(load_state(empty.path(), fresh).has_value()); // no file is not a problem
}

TEST_CASE("start-up applies --stencil and --size over the saved state and rejects bad ones", "[gui][state]") {
  TempDir dir;
  save_state(dir.path(), edited_state());
  ExplorerOptions o = se::test::options_in(dir);
  o.stencil = preset("box-2d25p");
  o.size = Extent{2, {96, 64, 1}};
  const StartupState s = prepare_startup(o);
  CHECK(s.messages.empty());
  CHECK(s.state.stencil == preset("box-2d25p"));
  CHECK(s.state.extent() == Extent{2, {96, 64, 1}});
  CHECK(s.state.grid.storage == Precision::FP16); // the rest comes from the saved state
  CHECK(s.state_dir == dir.path());

  ExplorerOptions wrong_dims = o;
  wrong_dims.size = Extent{3, {8, 8, 8}};
  CHECK_THROWS_WITH(prepare_startup(wrong_dims), Catch::Contains("is 3D but the stencil 'box-2d25p' is 2D"));
  ExplorerOptions too_small = o;
  too_small.size = Extent{2, {4, 64, 1}};
  CHECK_THROWS_WITH(prepare_startup(too_small), Catch::Contains("smaller than the stencil"));
  ExplorerOptions too_big = o;
  too_big.size = Extent{2, {3000000, 3000000, 1}};
  CHECK_THROWS_WITH(prepare_startup(too_big), Catch::Contains("available"));

  ExplorerOptions no_state;
  no_state.use_state = false;
  const StartupState d = prepare_startup(no_state);
  CHECK_FALSE(d.state_dir.has_value());
  CHECK(d.state.stencil == ExplorerState{}.stencil);
}

TEST_CASE("saved settings that cannot run here fall back to the defaults with a message", "[gui][state]") {
  TempDir dir;
  ExplorerState s;
  s.grid.extent_for(2) = Extent{2, {3000000, 3000000, 1}};
  save_state(dir.path(), s);
  const StartupState out = prepare_startup(se::test::options_in(dir));
  REQUIRE(out.messages.size() == 1);
  CHECK_THAT(out.messages[0], Catch::Contains("cannot run here"));
  CHECK(out.state.extent() == ExplorerState{}.extent());
}

TEST_CASE("settings that are not regular files, or absurd, are set aside and the app starts with defaults",
          "[gui][state][hostile]") {
  // A directory where state.json should be: the start goes on, with a message, and the folder is moved aside.
  TempDir dir;
  std::filesystem::create_directories(state_file(dir.path()) / "inside");
  StartupState s = prepare_startup(se::test::options_in(dir));
  REQUIRE_FALSE(s.messages.empty());
  CHECK_THAT(s.messages[0], Catch::Contains("ignored the saved state") && Catch::Contains("is a directory"));
  CHECK(std::filesystem::is_directory(dir.path() / "state.json.bad"));
  CHECK(s.state.stencil == ExplorerState{}.stencil);

  // A stencil name beyond what is kept: refused and set aside, so that no later start reads it again.
  TempDir named;
  nlohmann::json j = state_to_json(ExplorerState{});
  j["stencil"]["name"] = std::string(100000, 'x');
  std::ofstream(state_file(named.path())) << j.dump();
  ExplorerState loaded;
  const auto message = load_state(named.path(), loaded);
  REQUIRE(message.has_value());
  CHECK_THAT(*message, Catch::Contains("100000 characters"));
  CHECK_FALSE(std::filesystem::exists(state_file(named.path())));
  CHECK_FALSE(load_state(named.path(), loaded).has_value()); // the next start is clean
  CHECK(loaded.stencil == ExplorerState{}.stencil);

  // A remembered path beyond what is kept, and trailing text after the object: both set aside.
  TempDir long_path, trailing;
  nlohmann::json k = state_to_json(ExplorerState{});
  k["stencil_file"] = std::string(10000, 'p');
  std::ofstream(state_file(long_path.path())) << k.dump();
  CHECK_THAT(load_state(long_path.path(), loaded).value_or(""), Catch::Contains("10000 characters"));
  std::ofstream(state_file(trailing.path())) << state_to_json(ExplorerState{}).dump() << " and more";
  CHECK_THAT(load_state(trailing.path(), loaded).value_or(""), Catch::Contains("not valid JSON"));

  // A directory where Dear ImGui's window layout should be is moved aside before ImGui reads it.
  TempDir ini;
  std::filesystem::create_directories(imgui_ini_file(ini.path()));
  StartupState t = prepare_startup(se::test::options_in(ini));
  REQUIRE_FALSE(t.messages.empty());
  CHECK_THAT(t.messages[0], Catch::Contains("window layout") && Catch::Contains("not a regular file"));
  CHECK_FALSE(std::filesystem::exists(imgui_ini_file(ini.path())));

  // A file where the settings folder should be: nothing is remembered, and the start says so.
  TempDir holder;
  const std::filesystem::path not_a_folder = holder.path() / "settings";
  std::ofstream(not_a_folder) << "x";
  ExplorerOptions o;
  o.state_dir = not_a_folder.string();
  StartupState u = prepare_startup(o);
  REQUIRE_FALSE(u.messages.empty());
  CHECK_THAT(u.messages[0], Catch::Contains("is not a folder"));
  CHECK_FALSE(u.state_dir.has_value());
}
