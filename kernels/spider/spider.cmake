# SPIDER on the GPU (included by kernels/CMakeLists.txt): the plan-to-fragments tables and the registry entry are
# plain C++ and always build; the kernels and the stepper need CUDA. 1D and 2D kernels are separate files so the
# two cores compile them in parallel.
set(SE_SPIDER_DIR ${CMAKE_CURRENT_LIST_DIR})
target_sources(se_kernels PRIVATE ${SE_SPIDER_DIR}/spider_gpu_tables.cpp ${SE_SPIDER_DIR}/spider_gpu_method.cpp)
if(SE_HAVE_CUDA)
  target_sources(se_kernels PRIVATE ${SE_SPIDER_DIR}/spider_stepper.cu ${SE_SPIDER_DIR}/spider_kernels_1d.cu
                                    ${SE_SPIDER_DIR}/spider_kernels_2d.cu)
endif()
