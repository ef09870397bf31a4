# The stencil-explorer GUI: se_gui (everything but main, so tests link it) and the executable.
# GL 3.3 core comes from glad 2, generated into the build tree at build time; shaders are embedded.
find_package(glfw3 3.3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SE_IMGUI REQUIRED IMPORTED_TARGET imgui)
pkg_check_modules(SE_EGL REQUIRED IMPORTED_TARGET egl)
find_program(SE_GLAD glad PATHS /usr/bin REQUIRED)

# glad: the loader is generated, never committed. --reproducible keeps rebuilds byte-identical.
set(SE_GLAD_DIR ${CMAKE_CURRENT_BINARY_DIR}/glad)
add_custom_command(
  OUTPUT ${SE_GLAD_DIR}/src/gl.c ${SE_GLAD_DIR}/include/glad/gl.h ${SE_GLAD_DIR}/include/KHR/khrplatform.h
  COMMAND ${SE_GLAD} --reproducible --quiet --api gl:core=3.3 --extensions= --out-path ${SE_GLAD_DIR} c
  COMMENT "Generating the OpenGL 3.3 core loader with glad"
  VERBATIM)
add_library(se_glad STATIC ${SE_GLAD_DIR}/src/gl.c)
target_include_directories(se_glad PUBLIC ${SE_GLAD_DIR}/include)
set_target_properties(se_glad PROPERTIES POSITION_INDEPENDENT_CODE ON)

# Shaders live as files in shaders/; they are compiled into the binary so it runs from anywhere.
set(SE_SHADER_FILES
  ${PROJECT_SOURCE_DIR}/shaders/heatmap.vert
  ${PROJECT_SOURCE_DIR}/shaders/heatmap.frag)
set(SE_EMBEDDED_SHADERS ${CMAKE_CURRENT_BINARY_DIR}/embedded_shaders.cpp)
add_custom_command(
  OUTPUT ${SE_EMBEDDED_SHADERS}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${SE_EMBEDDED_SHADERS} "-DINPUTS=${SE_SHADER_FILES}"
          -P ${PROJECT_SOURCE_DIR}/shaders/embed_shaders.cmake
  DEPENDS ${SE_SHADER_FILES} ${PROJECT_SOURCE_DIR}/shaders/embed_shaders.cmake
  COMMENT "Embedding GLSL shaders"
  VERBATIM)

# One file per window: window_*.cpp are picked up as they are added.
file(GLOB SE_GUI_WINDOWS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/views/window_*.cpp)
add_library(se_gui STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/widgets/colormap.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/shell/explorer_app.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/shell/explorer_options.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/shell/explorer_state.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/shell/record_video.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/gl_resources.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim/grid_slice.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/heatmap_renderer.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/window_backgrounds.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/widgets/matrix_widget.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/widgets/node_editor.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/platform.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/platform_egl.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/platform_glfw.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/screenshot.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/png_file.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim/simulation.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/shell/status_line.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/platform/synthetic_input.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/views/views.cpp
  ${SE_GUI_WINDOWS}
  ${SE_EMBEDDED_SHADERS})
target_include_directories(se_gui PUBLIC ${PROJECT_SOURCE_DIR})
# libimgui.a already holds the GLFW and OpenGL3 backends; its OpenGL3 backend loads GL itself (dlopen).
target_link_libraries(se_gui
  PUBLIC se_core se_kernels PkgConfig::SE_IMGUI CLI11::CLI11 nlohmann_json::nlohmann_json
  PRIVATE se_glad glfw PkgConfig::SE_EGL fmt::fmt ${CMAKE_DL_LIBS})
target_compile_options(se_gui PRIVATE -Wall -Wextra -Wno-missing-field-initializers)
target_compile_definitions(se_gui PRIVATE GLFW_INCLUDE_NONE)

add_executable(stencil-explorer ${CMAKE_CURRENT_SOURCE_DIR}/shell/gui_main.cpp)
target_link_libraries(stencil-explorer PRIVATE se_gui)

# The plots (one file per plot and their shared frame), the method picker and the background sweeps; methods come
# from kernels/registry.hpp's list, the same as stencil-bench's. CUDA-GL interop for live GPU runs: a small CUDA
# library in CUDA builds (nvcc takes none of se_gui's C++ warning flags), else the stand-in that says the build
# has no CUDA, so the app starts on any machine.
target_sources(se_gui PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/widgets/plot_frame.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/widgets/xy_plot.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/widgets/bar_chart.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/widgets/method_picker.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim/benchmark_job.cpp)
# The Fragments view's "Record the WMMA layout on this GPU" (kernels/fragment_probe; says why not without CUDA).
target_link_libraries(se_gui PRIVATE se_fragment_probe)
if(SE_HAVE_CUDA)
  add_library(se_gui_interop STATIC ${CMAKE_CURRENT_SOURCE_DIR}/platform/cuda_gl_texture.cu)
  target_include_directories(se_gui_interop PRIVATE ${PROJECT_SOURCE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(se_gui_interop PRIVATE se_kernels CUDA::cudart_static)
  set_target_properties(se_gui_interop PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(se_gui PRIVATE se_gui_interop)
else()
  target_sources(se_gui PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/platform/cuda_gl_texture_none.cpp)
endif()
