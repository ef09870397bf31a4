# Complex-stencil programs on the GPU (core/dag's generated code, compiled at run time with NVRTC). Part of
# se_kernels: plain C++ against the CUDA runtime; NVRTC is opened with dlopen.
if(SE_HAVE_CUDA)
  target_sources(se_kernels PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dag_gpu.cpp ${CMAKE_CURRENT_LIST_DIR}/dag_label.cpp)
else()
  target_sources(se_kernels PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dag_gpu_none.cpp ${CMAKE_CURRENT_LIST_DIR}/dag_label_none.cpp)
endif()
target_sources(se_kernels PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dag_ptxas.cpp) # plain C++ (the tests run it anywhere)
