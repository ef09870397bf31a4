# The fragment probe (included by kernels/CMakeLists.txt): records what wmma::load_matrix_sync puts in which
# lane and element on the GPU and checks it against core's fragment tables. The check is plain C++ and always
# builds (its tests run without a GPU); the recorder needs CUDA, and without it says why it cannot run.
set(SE_FRAGMENT_PROBE_DIR ${CMAKE_CURRENT_LIST_DIR})
if(SE_HAVE_CUDA)
  add_library(se_fragment_probe STATIC ${SE_FRAGMENT_PROBE_DIR}/wmma_recording.cpp ${SE_FRAGMENT_PROBE_DIR}/wmma_recorder.cu)
  target_link_libraries(se_fragment_probe PUBLIC se_core PRIVATE se_kernels CUDA::cudart_static fmt::fmt)
  set_target_properties(se_fragment_probe PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
else()
  add_library(se_fragment_probe STATIC ${SE_FRAGMENT_PROBE_DIR}/wmma_recording.cpp ${SE_FRAGMENT_PROBE_DIR}/wmma_recorder_none.cpp)
  target_link_libraries(se_fragment_probe PUBLIC se_core PRIVATE se_kernels fmt::fmt)
endif()
target_include_directories(se_fragment_probe PUBLIC ${PROJECT_SOURCE_DIR})
target_compile_options(se_fragment_probe PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>)
