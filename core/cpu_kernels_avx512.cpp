// The kernels of cpu_kernels_isa.inc built for AVX-512F under a target pragma (see cpu_kernels.cpp, which picks
// them at run time when cpu_features.cpp says this CPU runs them). Empty off x86-64.
#include "core/cpu_kernels_common.hpp"

#if SE_CPU_KERNELS_X86
namespace se::cpu_kernels {

SE_AVX512_BEGIN
#define SE_ISA_NS isa_avx512
#define SE_ISA CpuIsa::Avx512
#define SE_W 8
#define SE_STREAM(p, v) _mm512_stream_pd((p), (v))
#define SE_MADD(x, a, b) _mm512_fmadd_pd((x), (a), (b))
#include "core/cpu_kernels_isa.inc"
SE_TARGET_END

} // namespace se::cpu_kernels
#endif
