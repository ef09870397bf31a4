# TCStencil on the GPU (included by kernels/CMakeLists.txt): the FP16 and FP64 steps in one .cu each (seven radii
# times star/box apiece), the registry entry in se_kernels.
set(SE_TC_DIR ${CMAKE_CURRENT_LIST_DIR})
if(EXISTS ${PROJECT_SOURCE_DIR}/kernels/registry.hpp)
  target_sources(se_kernels PRIVATE ${SE_TC_DIR}/tc_gpu_method.cpp)
  if(SE_HAVE_CUDA)
    target_sources(se_kernels PRIVATE ${SE_TC_DIR}/tc_step_fp16.cu ${SE_TC_DIR}/tc_step_fp64.cu)
  endif()
endif()
