# ConvStencil on the GPU (included by kernels/CMakeLists.txt after lorastencil.cmake, whose Dirichlet band fix
# it reuses). The plan-to-fragments code is plain C++; the kernels need CUDA.
set(SE_CONV_DIR ${CMAKE_CURRENT_LIST_DIR})
add_library(se_conv_gpu_plan STATIC ${SE_CONV_DIR}/cs_gpu_plan.cpp)
target_include_directories(se_conv_gpu_plan PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(se_conv_gpu_plan PUBLIC se_core)
target_compile_options(se_conv_gpu_plan PRIVATE -Wall -Wextra -Wno-missing-field-initializers)

if(SE_HAVE_CUDA)
  # One .cu per dimension keeps each compile small.
  add_library(se_conv_gpu STATIC ${SE_CONV_DIR}/cs_kernel_1d.cu ${SE_CONV_DIR}/cs_kernel_2d.cu ${SE_CONV_DIR}/cs_kernel_3d.cu)
  target_link_libraries(se_conv_gpu PUBLIC se_conv_gpu_plan PRIVATE CUDA::cudart_static)
  set_target_properties(se_conv_gpu PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  target_compile_options(se_conv_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr>)
  if(EXISTS ${PROJECT_SOURCE_DIR}/kernels/registry.hpp)
    target_sources(se_kernels PRIVATE ${SE_CONV_DIR}/cs_gpu_method.cpp)
    target_link_libraries(se_kernels PUBLIC se_conv_gpu se_lora_gpu)
  endif()
elseif(EXISTS ${PROJECT_SOURCE_DIR}/kernels/registry.hpp)
  target_sources(se_kernels PRIVATE ${SE_CONV_DIR}/cs_gpu_method.cpp)
  target_link_libraries(se_kernels PUBLIC se_conv_gpu_plan)
endif()
