// The explorer's frame loop. Order within a frame: input shortcuts, then the simulation catches up with
// the settings and advances, then the heat map is refreshed, then the windows draw what is now true.
// Edits made in the windows therefore take effect on the next frame.
#include "app/shell/explorer_app.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <tuple>
#include <utility>

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_opengl3.h>
#include <fmt/format.h>
#include <imgui.h>

#include "app/platform/png_file.hpp"
#include "app/sim/grid_slice.hpp"
#include "app/widgets/ui_units.hpp"
#include "core/error.hpp"
#include "kernels/device.hpp"

namespace se {

SimulationSetup simulation_setup(const ExplorerState& s) {
  SimulationSetup setup;
  setup.stencil = s.stencil;
  setup.extent = s.extent();
  setup.initial = s.grid.initial;
  setup.seed = s.grid.seed;
  setup.image = s.grid.image;
  setup.boundary = s.grid.boundary;
  setup.storage = s.grid.storage;
  return setup;
}

StartupState prepare_startup(const ExplorerOptions& options) {
  StartupState out;
  if (options.use_state) {
    out.state_dir = resolve_state_dir(options.state_dir);
    std::error_code ec;
    if (!out.state_dir) {
      out.messages.push_back("no state directory ($SE_STATE_DIR, $XDG_CONFIG_HOME and $HOME are unset); "
                             "settings will not be remembered");
    } else if (std::filesystem::exists(*out.state_dir, ec) && !std::filesystem::is_directory(*out.state_dir, ec)) {
      out.messages.push_back(fmt::format("the settings folder {} is not a folder; settings will not be remembered",
                                         out.state_dir->string()));
      out.state_dir.reset();
    } else {
      if (auto problem = load_state(*out.state_dir, out.state)) out.messages.push_back(*problem);
      if (auto problem = check_imgui_ini(*out.state_dir)) out.messages.push_back(*problem);
    }
  }
  if (options.stencil) {
    validate(*options.stencil);
    out.state.stencil = *options.stencil;
  }
  if (options.size) {
    if (options.size->dims != out.state.stencil.dims)
      throw InputError(fmt::format("--size {} is {}D but the stencil '{}' is {}D", options.size->to_string(),
                                   options.size->dims, out.state.stencil.name, out.state.stencil.dims));
    out.state.grid.extent_for(options.size->dims) = *options.size;
  }
  if (options.view) {
    if (find_view(*options.view) == nullptr)
      throw InputError(fmt::format("unknown view '{}' (views: {})", *options.view, view_names()));
    out.view = *options.view;
  }
  out.lecture = options.lecture;
  if (!out.state.grid.image_path.empty()) {
    try { // a remembered picture is read again; one that is gone leaves the hot spot
      out.state.grid.image = std::make_shared<const GrayImage>(load_gray_image(out.state.grid.image_path));
    } catch (const InputError& e) {
      if (out.state.grid.initial == InitialCondition::Image) {
        out.messages.push_back(fmt::format("the picture to start from cannot be read ({}); starting from a hot spot", e.what()));
        out.state.grid.initial = InitialCondition::HotSpot;
      }
    }
  }
  if (out.state.grid.initial == InitialCondition::Image && !out.state.grid.image) out.state.grid.initial = InitialCondition::HotSpot;
  try {
    check_simulation_setup(simulation_setup(out.state));
  } catch (const InputError& e) {
    if (options.size) throw;
    if (options.stencil) throw InputError(fmt::format("{}; choose a grid with --size", e.what()));
    out.messages.push_back(fmt::format("the saved settings cannot run here ({}); using the defaults", e.what()));
    out.state = ExplorerState{};
  }
  return out;
}

namespace {

// The style at UI scale `scale`: ImGui's dark colours, rounder frames, and every padding and size scaled.
void apply_style(float scale) {
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark();
  style.WindowRounding = 6.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 4.0f;
  style.PopupRounding = 4.0f;
  style.GrabRounding = 4.0f;
  style.WindowPadding = ImVec2(10, 10);
  style.FramePadding = ImVec2(7, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.ItemInnerSpacing = ImVec2(6, 4);
  style.WindowBorderSize = 1.0f;
  style.Colors[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.115f, 0.13f, 1.0f);
  style.Colors[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.29f, 0.48f, 1.0f);
  style.ScaleAllSizes(scale);
}

// Latin-1 plus what the teaching views write: Greek (sigma), the transpose sign, dashes, super/subscripts,
// arrows, math operators, the circled stage numbers and the triangles of the lecture bar.
constexpr ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x1D00, 0x1DBF, 0x2000, 0x206F, 0x2070, 0x209F,
                                    0x2190, 0x21FF, 0x2200, 0x22FF, 0x2460, 0x24FF, 0x25A0, 0x25FF, 0};

// The normal font and the lecture font, rasterised at their size at UI scale `scale` (never scaled bitmaps).
// DejaVu Sans (fonts-dejavu-core) reads far better than ImGui's 13 px bitmap font; it is optional.
std::pair<ImFont*, ImFont*> load_fonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const float normal_px = std::round(kBaseFontPixels * scale), large_px = std::round(1.5f * kBaseFontPixels * scale);
  const char* path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    ImFont* normal = io.Fonts->AddFontFromFileTTF(path, normal_px, nullptr, kGlyphRanges);
    ImFont* large = io.Fonts->AddFontFromFileTTF(path, large_px, nullptr, kGlyphRanges);
    if (normal != nullptr && large != nullptr) return {normal, large};
    io.Fonts->Clear();
  }
  ImFontConfig normal_config, large_config;
  normal_config.SizePixels = normal_px;
  large_config.SizePixels = large_px;
  ImFont* normal = io.Fonts->AddFontDefault(&normal_config);
  return {normal, io.Fonts->AddFontDefault(&large_config)};
}

} // namespace

ExplorerApp::ExplorerApp(Platform& platform, StartupState startup)
    : platform_(platform), state_dir_(std::move(startup.state_dir)), state_(std::move(startup.state)),
      simulation_(make_cpu_reference_backend()) {
  for (const auto& m : startup.messages) state_.status_message += (state_.status_message.empty() ? "" : "; ") + m;

  IMGUI_CHECKVERSION();
  imgui_ = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  if (state_dir_) {
    std::error_code ec;
    std::filesystem::create_directories(*state_dir_, ec);
    ini_path_ = imgui_ini_file(*state_dir_).string();
    io.IniFilename = ini_path_.c_str();
  } else {
    io.IniFilename = nullptr;
  }
  io.UserData = &layout_; // set_default_window_rect reads the arrangement from here
  apply_ui_scale();
  if (startup.view.empty())
    layout_.show_focused("");
  else
    layout_.show_focused(startup.view);
  if (startup.lecture) start_lecture_tour();
  platform_.attach_imgui();
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
    platform_.detach_imgui();
    ImGui::DestroyContext(imgui_);
    throw PlatformError("Dear ImGui's OpenGL 3 backend cannot load OpenGL (is libGL.so.1 from libgl1 installed?)");
  }
  software_gl_ = software_renderer();
  backgrounds_.set_enabled(software_gl_);
  try {
    heatmap_ = std::make_unique<HeatmapRenderer>();
    simulation_.reset(simulation_setup(state_));
  } catch (...) {
    heatmap_.reset();
    ImGui_ImplOpenGL3_Shutdown();
    platform_.detach_imgui();
    ImGui::DestroyContext(imgui_);
    throw;
  }
  const DeviceInfo device = query_device(0);
  environment_.compute_device = device.summary();
  environment_.compute_detail = device.detail;
  environment_.cuda_device = device.available;
  environment_.gl_renderer = gl_renderer_string();
  environment_.gl_version = gl_version_string();
  environment_.platform = platform_.description();
}

float ExplorerApp::ui_scale() const {
  return std::clamp(platform_.content_scale() * state_.view.ui_scale, 0.25f, 8.0f);
}

void ExplorerApp::apply_ui_scale() {
  const float scale = ui_scale();
  environment_.content_scale = platform_.content_scale();
  if (scale == built_scale_) return;
  std::tie(font_, lecture_font_) = load_fonts(scale);
  if (built_scale_ > 0) {
    // A new atlas for the GL backend, and the windows placed anew for the new sizes.
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    layout_.rearrange();
  }
  apply_style(scale);
  layout_.scale = scale;
  built_scale_ = scale;
}

// Software GL (Mesa's llvmpipe on a machine without a GPU) spends most of a frame shading fragments, each of which
// samples the font atlas (solid shapes sample its white texel). The fonts are rasterised at their size, so glyphs
// map texel for texel onto pixels and nearest sampling draws what bilinear does with one fetch in place of four;
// anti-aliased lines, which rely on bilinear sampling of baked line textures, are built as geometry instead.
void ExplorerApp::use_nearest_atlas() {
  ImGui::GetStyle().AntiAliasedLinesUseTex = false;
  const ImTextureID atlas = ImGui::GetIO().Fonts->TexID;
  if (atlas == nullptr || atlas == nearest_atlas_) return;
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<std::intptr_t>(atlas)));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  nearest_atlas_ = atlas;
}

ExplorerApp::~ExplorerApp() {
  if (state_dir_) {
    try {
      save_state_now();
    } catch (const InputError& e) {
      std::cerr << "stencil-explorer: " << e.what() << "\n";
    }
  }
  ImGui::SetCurrentContext(imgui_);
  heatmap_.reset();
  ImGui_ImplOpenGL3_Shutdown();
  platform_.detach_imgui();
  ImGui::DestroyContext(imgui_); // also writes imgui.ini
}

void ExplorerApp::save_state_now() const {
  if (state_dir_) save_state(*state_dir_, state_);
}

void ExplorerApp::start_lecture_tour(bool large_fonts) {
  lecture_.large_fonts = large_fonts;
  go_to_lecture_step(layout_, lecture_, state_.stencil, 0);
}

void ExplorerApp::handle_shortcuts() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return; // typing a size or a path must not start and stop the run
  if (lecture_.touring) {
    if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN, false)) go_to_lecture_step(layout_, lecture_, state_.stencil, lecture_.step + 1);
    if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP, false)) go_to_lecture_step(layout_, lecture_, state_.stencil, lecture_.step - 1);
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) state_.playing = !state_.playing;
  if (ImGui::IsKeyPressed(GLFW_KEY_S, true) || ImGui::IsKeyPressed(GLFW_KEY_RIGHT, true)) state_.step_requested = true;
  if (ImGui::IsKeyPressed(GLFW_KEY_R, false) && !io.KeyCtrl) state_.reset_requested = true;
  // Ctrl + / Ctrl - / Ctrl 0: the UI scale, as in a browser.
  if (io.KeyCtrl) {
    float& scale = state_.view.ui_scale;
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL, true) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD, true))
      scale = next_ui_scale(scale, +1);
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS, true) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT, true))
      scale = next_ui_scale(scale, -1);
    if (ImGui::IsKeyPressed(GLFW_KEY_0, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_0, false)) scale = 1.0f;
  }
}

void ExplorerApp::run_simulation() {
  SimulationUi& ui = state_.simulation_ui;
  const bool reset = std::exchange(state_.reset_requested, false);
  const bool step = std::exchange(state_.step_requested, false);
  try {
    const SimulationSetup want = simulation_setup(state_);
    if (reset)
      simulation_.reset(want);
    else
      simulation_.apply(want);
    ui.blocked.clear();
  } catch (const InputError& e) {
    // The last good run stays on screen; the window says what to change.
    ui.blocked = e.what();
    return;
  }
  // A closed Simulation window pauses the run: the teaching views then get the whole frame.
  if (state_.playing && layout_.is_open("simulation"))
    simulation_.advance(state_.grid.steps_per_frame);
  else if (step)
    simulation_.advance(1);
}

void ExplorerApp::update_heatmap() {
  if (!simulation_.loaded()) return;
  HeatmapShown& shown = state_.heatmap_shown;
  const Extent& e = simulation_.setup().extent;
  const std::int64_t z = resolve_z_slice(e, state_.view.z_slice);
  if (simulation_.version() != shown_version_ || z != shown.z || shown.width == 0) {
    // GPU runs store the texture on the device (CUDA-GL interop); host runs upload a sampled slice.
    Simulation::Frame f = simulation_.show(*heatmap_, z);
    live_range_ = f.range;
    shown.width = f.width;
    shown.height = f.height;
    shown.stride = f.stride;
    shown.z = z;
    shown.not_finite = live_range_.not_finite;
    shown.profile = std::move(f.profile);
    shown_version_ = simulation_.version();
  }
  double lo = 0, hi = 1;
  switch (state_.view.range_mode) {
  case ValueRangeMode::Initial:
    lo = simulation_.initial_min(), hi = simulation_.initial_max();
    // A flat start (zero, to paint on) has no range: then what is there now decides, as in Live.
    if (hi <= lo && !live_range_.empty() && live_range_.max > live_range_.min) lo = live_range_.min, hi = live_range_.max;
    break;
  case ValueRangeMode::Live:
    if (!live_range_.empty()) lo = live_range_.min, hi = live_range_.max;
    break;
  case ValueRangeMode::Manual: lo = state_.view.manual_min, hi = state_.view.manual_max; break;
  }
  if (hi < lo) std::swap(lo, hi);
  shown.range_min = lo;
  shown.range_max = hi;
  heatmap_->set_colormap(state_.view.colormap);
  heatmap_->render(static_cast<float>(lo), static_cast<float>(hi));
}

void ExplorerApp::frame(RgbaImage* capture) {
  ImGui::SetCurrentContext(imgui_);
  platform_.begin_frame();
  ImGui_ImplOpenGL3_NewFrame();
  apply_ui_scale(); // after the backend's device objects exist, before the atlas is used
  if (software_gl_) use_nearest_atlas();
  ImGui::GetIO().FontDefault = lecture_.large_fonts ? lecture_font_ : font_;
  ImGui::NewFrame();
  state_.probes.clear();
  facts_.clear();
  ++state_.frame;
  const auto now = std::chrono::steady_clock::now();
  if (last_frame_) {
    const double dt = std::chrono::duration<double>(now - *last_frame_).count();
    state_.frame_seconds = state_.frame_seconds == 0 ? dt : 0.9 * state_.frame_seconds + 0.1 * dt;
  }
  last_frame_ = now;

  handle_shortcuts();
  run_simulation();
  update_heatmap();
  ViewContext ctx{state_, simulation_, *heatmap_, environment_, memory_, facts_, layout_, lecture_};
  ctx.finish_background_work = platform_.headless();
  ctx.backgrounds = &backgrounds_;
  draw_menu_bar(ctx);
  if (lecture_.touring) draw_lecture_bar(ctx);
  for (const ViewEntry& view : explorer_views()) {
    if (!layout_.is_open(view.name)) continue;
    bool open = true;
    ctx.open = &open;
    view.draw(ctx);
    if (!open) layout_.set_open(view.name, false);
  }
  ctx.open = nullptr;
  draw_status_line(ctx);

  ImGui::Render();
  // Software GL: the windows' background colour where nothing overlaps them, the gaps filled in the clear colour.
  const ImVec4 clear = backgrounds_.finish(*ImGui::GetDrawData(), ImVec4(0.06f, 0.065f, 0.075f, 1.0f));
  platform_.bind_render_target();
  glDisable(GL_SCISSOR_TEST);
  glClearColor(clear.x, clear.y, clear.z, clear.w);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (capture != nullptr) *capture = read_framebuffer(platform_.width(), platform_.height());
  platform_.end_frame();
}

} // namespace se
