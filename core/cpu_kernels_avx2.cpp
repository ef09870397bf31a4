// The kernels of cpu_kernels_isa.inc built for AVX2 with FMA under a target pragma (see cpu_kernels.cpp, which picks
// them at run time when cpu_features.cpp says this CPU runs them). Empty off x86-64.
#include "core/cpu_kernels_common.hpp"

#if SE_CPU_KERNELS_X86
namespace se::cpu_kernels {

SE_AVX2_BEGIN
#define SE_ISA_NS isa_avx2
#define SE_ISA CpuIsa::Avx2
#define SE_W 4
#define SE_STREAM(p, v) _mm256_stream_pd((p), (v))
#define SE_MADD(x, a, b) _mm256_fmadd_pd((x), (a), (b))
#include "core/cpu_kernels_isa.inc"
SE_TARGET_END

} // namespace se::cpu_kernels
#endif
