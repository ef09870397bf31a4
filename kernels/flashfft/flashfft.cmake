# FlashFFTStencil on the GPU (included by kernels/CMakeLists.txt). The registry entry (plan and reasons) builds
# everywhere; the kernel and the stepper need CUDA (the Dirichlet band fix is LoRAStencil's kernel).
set(SE_FLASHFFT_DIR ${CMAKE_CURRENT_LIST_DIR})
if(EXISTS ${PROJECT_SOURCE_DIR}/kernels/registry.hpp)
  target_sources(se_kernels PRIVATE ${SE_FLASHFFT_DIR}/flashfft_gpu_method.cpp)
endif()
if(SE_HAVE_CUDA)
  add_library(se_flashfft_gpu STATIC ${SE_FLASHFFT_DIR}/flashfft_kernel_1d.cu ${SE_FLASHFFT_DIR}/flashfft_kernel_3d.cu)
  target_include_directories(se_flashfft_gpu PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(se_flashfft_gpu PUBLIC se_core PRIVATE CUDA::cudart_static)
  set_target_properties(se_flashfft_gpu PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  target_compile_options(se_flashfft_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr>)
  target_link_libraries(se_kernels PUBLIC se_flashfft_gpu se_lora_gpu)
endif()
