# GUI tests (headless): tests/gui/*.cpp form test_gui. With no display they run on EGL (Mesa's
# surfaceless llvmpipe in CI); the hidden-GLFW path is run again under xvfb-run as its own CTest test.
file(GLOB SE_GUI_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gui/*.cpp)
list(REMOVE_ITEM SE_GUI_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_live_gpu.cpp) # its own binary, below
add_executable(test_gui ${SE_GUI_TESTS})
target_link_libraries(test_gui PRIVATE se_gui se_catch_main fmt::fmt)
target_compile_definitions(test_gui PRIVATE SE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  SE_EXPLORER_EXE="$<TARGET_FILE:stencil-explorer>" GLFW_INCLUDE_NONE)
add_dependencies(test_gui stencil-explorer)
# Tests tagged [glfw] need an X display; they are registered below under xvfb-run instead.
catch_discover_tests(test_gui TEST_SPEC "~[glfw]" TEST_PREFIX "gui.")

find_program(SE_XVFB_RUN xvfb-run)
if(SE_XVFB_RUN)
  add_test(NAME "gui.hidden GLFW window under xvfb-run"
           COMMAND ${SE_XVFB_RUN} -a -s "-screen 0 1920x1200x24" $<TARGET_FILE:test_gui> "[glfw]")
else()
  # Not skipped quietly: the suite fails and says what is missing.
  add_test(NAME "gui.hidden GLFW window under xvfb-run"
           COMMAND sh -c "echo 'xvfb-run not found: install xvfb and xauth to test the GLFW path'; exit 1")
endif()

# The live view on a GPU through CUDA-GL interop: its own binary, which exits 77 (skipped, never passed)
# without a CUDA device. It reads the heat map's texture back with GL, hence glad.
add_executable(test_live_gpu gui/test_live_gpu.cpp)
target_link_libraries(test_live_gpu PRIVATE se_gui se_glad se_catch_impl fmt::fmt)
target_compile_definitions(test_live_gpu PRIVATE SE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" GLFW_INCLUDE_NONE)
add_test(NAME gui.live-gpu COMMAND test_live_gpu)
set_tests_properties(gui.live-gpu PROPERTIES SKIP_RETURN_CODE 77)
