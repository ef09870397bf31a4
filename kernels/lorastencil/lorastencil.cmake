# LoRAStencil on the GPU (included by kernels/CMakeLists.txt). The plan-to-fragments code is plain C++ and
# always builds (its tests run without a GPU); the kernels, the runner and lorastencil-bench need CUDA.
set(SE_LORA_DIR ${CMAKE_CURRENT_LIST_DIR})
add_library(se_lora_gpu_plan STATIC ${SE_LORA_DIR}/lora_gpu_plan.cpp)
target_include_directories(se_lora_gpu_plan PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(se_lora_gpu_plan PUBLIC se_core)
target_compile_options(se_lora_gpu_plan PRIVATE -Wall -Wextra -Wno-missing-field-initializers)

if(SE_HAVE_CUDA)
  # One .cu per kernel keeps each compile small: the 1D, 2D and 3D passes, the band fix.
  add_library(se_lora_gpu STATIC
    ${SE_LORA_DIR}/lora_kernel_1d.cu
    ${SE_LORA_DIR}/lora_kernel_2d.cu
    ${SE_LORA_DIR}/lora_kernel_3d.cu
    ${SE_LORA_DIR}/lora_band_fix.cu
    ${SE_LORA_DIR}/lora_pass_launch.cpp
    ${SE_LORA_DIR}/lora_gpu_runner.cpp
  )
  target_link_libraries(se_lora_gpu PUBLIC se_lora_gpu_plan se_tensor_map PRIVATE CUDA::cudart_static)
  set_target_properties(se_lora_gpu PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  target_compile_options(se_lora_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)

  # The registry entry and its stepper are part of se_kernels, which holds the registry.
  if(EXISTS ${PROJECT_SOURCE_DIR}/kernels/registry.hpp)
    target_sources(se_kernels PRIVATE ${SE_LORA_DIR}/lora_gpu_method.cpp)
    target_link_libraries(se_kernels PUBLIC se_lora_gpu)
  endif()

  add_executable(lorastencil-bench ${SE_LORA_DIR}/lora_bench_main.cpp)
  target_link_libraries(lorastencil-bench PRIVATE se_kernels se_lora_gpu CLI11::CLI11 fmt::fmt
                        nlohmann_json::nlohmann_json CUDA::cudart_static)
elseif(EXISTS ${PROJECT_SOURCE_DIR}/kernels/registry.hpp)
  target_sources(se_kernels PRIVATE ${SE_LORA_DIR}/lora_gpu_method.cpp)
  target_link_libraries(se_kernels PUBLIC se_lora_gpu_plan)
endif()
