// SPIDER's step kernel: a block stages its input tile (halo included, zeros past the padded grid) in shared memory
// as FP16; each warp keeps every A fragment of the plan (compressed 2:4 values and packed metadata, or the dense
// band) in registers for the whole run and computes two warp tiles at a time: per shift and K chunk one 32-bit
// shared load per B register, at the lane's offset from core's input row map (the strided swap's row swap is only
// a different offset there: no instruction of its own), then mma.sp (spider) or mma (spider-dense).
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/spider/spider_launch.hpp"

namespace se::spider_gpu {

template <bool SPARSE, bool ACC16, int IDX, int AREGS> struct Mma;

template <int IDX> struct Mma<true, false, IDX, 2> {
  __device__ __forceinline__ static void run(float (&acc)[4], const std::uint32_t (&a)[2], const std::uint32_t (&b)[2],
                                             std::uint32_t meta) {
    ptx::mma_sp_m16n8k16_f16_f32_sel<IDX % 4>(acc, a, b, meta);
  }
};
template <int IDX> struct Mma<true, true, IDX, 2> {
  __device__ __forceinline__ static void run(std::uint32_t (&acc)[2], const std::uint32_t (&a)[2],
                                             const std::uint32_t (&b)[2], std::uint32_t meta) {
    ptx::mma_sp_m16n8k16_f16_f16_sel<IDX % 4>(acc, a, b, meta);
  }
};
template <int IDX> struct Mma<false, false, IDX, 4> {
  __device__ __forceinline__ static void run(float (&acc)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                             std::uint32_t) {
    ptx::mma_m16n8k16_f16_f32(acc, a, b);
  }
};
template <int IDX> struct Mma<false, true, IDX, 4> {
  __device__ __forceinline__ static void run(std::uint32_t (&acc)[2], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2], std::uint32_t) {
    ptx::mma_m16n8k16_f16_f16(acc, a, b);
  }
};

template <bool ACC16> struct Acc;
template <> struct Acc<false> {
  float v[4];
  __device__ __forceinline__ void zero() { v[0] = v[1] = v[2] = v[3] = 0.f; }
  __device__ __forceinline__ __half at(int i) const { return __float2half_rn(v[i]); }
  __device__ __forceinline__ auto& regs() { return v; }
};
template <> struct Acc<true> {
  std::uint32_t v[2];
  __device__ __forceinline__ void zero() { v[0] = v[1] = 0u; }
  __device__ __forceinline__ __half at(int i) const {
    const std::uint32_t w = v[i >> 1];
    return __ushort_as_half(static_cast<unsigned short>((i & 1) ? (w >> 16) : (w & 0xffffu)));
  }
  __device__ __forceinline__ auto& regs() { return v; }
};

// The shifts and chunks of one warp tile pair, unrolled at compile time (the selector is an immediate).
template <bool SPARSE, bool ACC16, int AREGS, int KC, int IDX, int END> struct Issue {
  __device__ __forceinline__ static void run(Acc<ACC16> (&acc)[2], const std::uint32_t (&a)[END][AREGS],
                                             const std::uint32_t* meta, const char* row, int row_bytes,
                                             const int (&off)[KC][2], int tile1_bytes) {
    constexpr int q = IDX % KC;
    std::uint32_t b0[2], b1[2];
    b0[0] = *reinterpret_cast<const std::uint32_t*>(row + off[q][0]);
    b0[1] = *reinterpret_cast<const std::uint32_t*>(row + off[q][1]);
    b1[0] = *reinterpret_cast<const std::uint32_t*>(row + tile1_bytes + off[q][0]);
    b1[1] = *reinterpret_cast<const std::uint32_t*>(row + tile1_bytes + off[q][1]);
    const std::uint32_t m = SPARSE ? meta[IDX / 4] : 0u;
    Mma<SPARSE, ACC16, IDX, AREGS>::run(acc[0].regs(), a[IDX], b0, m);
    Mma<SPARSE, ACC16, IDX, AREGS>::run(acc[1].regs(), a[IDX], b1, m);
    Issue<SPARSE, ACC16, AREGS, KC, IDX + 1, END>::run(acc, a, meta, q == KC - 1 ? row + row_bytes : row, row_bytes,
                                                       off, tile1_bytes);
  }
};
template <bool SPARSE, bool ACC16, int AREGS, int KC, int END> struct Issue<SPARSE, ACC16, AREGS, KC, END, END> {
  __device__ __forceinline__ static void run(Acc<ACC16> (&)[2], const std::uint32_t (&)[END][AREGS],
                                             const std::uint32_t*, const char*, int, const int (&)[KC][2], int) {}
};

// The block's input tile in registers: every load of a tile issued before any is waited for (and, where the
// registers allow, the next tile's loads in flight while the warps compute on this one). 2D: warp w takes rows
// w, w + 8, ..., its lanes the 32-bit words along them; 1D: the threads share the one row.
template <int R, int DIMS> struct TileLoader {
  static constexpr Geometry G = geometry(DIMS, R);
  static constexpr int WPR_MAX = G.sw_max / 2;
  static constexpr int RPW = DIMS == 1 ? 1 : (G.sh + kWarps - 1) / kWarps;
  static constexpr int CPL = DIMS == 1 ? (WPR_MAX + kWarps * 32 - 1) / (kWarps * 32) : (WPR_MAX + 31) / 32;
  std::uint32_t v[RPW * CPL];

  __device__ __forceinline__ void load(const KernelArgs& p, std::int64_t bx0, std::int64_t by0) {
    const PaddedLayout& L = p.layout;
    const std::int64_t nx = L.n[0], ny = DIMS == 1 ? 1 : L.n[1];
    const int wpr = p.sw / 2;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int ri = 0; ri < RPW; ++ri) {
      const int row = DIMS == 1 ? 0 : warp + kWarps * ri;
      const std::int64_t gy = DIMS == 1 ? 0 : by0 - R + row;
      const bool row_ok = row < p.sh && (DIMS == 1 || (gy >= -R && gy < ny + R));
      const __half* src = p.in + L.index(bx0 - R, row_ok ? gy : 0, 0);
#pragma unroll
      for (int ci = 0; ci < CPL; ++ci) {
        const int cw = DIMS == 1 ? static_cast<int>(threadIdx.x) + kWarps * 32 * ci : lane + 32 * ci;
        const std::int64_t gx = bx0 - R + 2 * cw;
        unsigned short lo = 0, hi = 0;
        if (row_ok && cw < wpr) {
          if (gx >= -R && gx < nx + R) lo = __half_as_ushort(src[2 * cw]);
          if (gx + 1 >= -R && gx + 1 < nx + R) hi = __half_as_ushort(src[2 * cw + 1]);
        }
        v[ri * CPL + ci] = static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 16);
      }
    }
  }

  __device__ __forceinline__ void store(const KernelArgs& p, std::uint32_t* smem) const {
    const int wpr = p.sw / 2;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int ri = 0; ri < RPW; ++ri) {
      const int row = DIMS == 1 ? 0 : warp + kWarps * ri;
#pragma unroll
      for (int ci = 0; ci < CPL; ++ci) {
        const int cw = DIMS == 1 ? static_cast<int>(threadIdx.x) + kWarps * 32 * ci : lane + 32 * ci;
        if (row < p.sh && cw < wpr) smem[row * wpr + cw] = v[ri * CPL + ci];
      }
    }
  }
};

template <int R, int DIMS, bool SPARSE, bool ACC16>
__global__ void __launch_bounds__(kWarps * 32, 1) spider_step(KernelArgs p) {
  constexpr Geometry G = geometry(DIMS, R);
  constexpr int NM = G.nmma, KC = G.kc;
  constexpr int AREGS = SPARSE ? 2 : 4;
  constexpr int NMETA = SPARSE ? (NM + 3) / 4 : 1;
  extern __shared__ std::uint32_t smem_words[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  std::uint32_t a[NM][AREGS];
#pragma unroll
  for (int i = 0; i < NM; ++i)
#pragma unroll
    for (int j = 0; j < AREGS; ++j) a[i][j] = p.a[(i * AREGS + j) * 32 + lane];
  std::uint32_t meta[NMETA];
#pragma unroll
  for (int i = 0; i < NMETA; ++i) meta[i] = SPARSE ? p.meta[i * 32 + lane] : 0u;
  int off[KC][2]; // bytes
#pragma unroll
  for (int q = 0; q < KC; ++q)
#pragma unroll
    for (int h = 0; h < 2; ++h) off[q][h] = 2 * p.boff[(q * 2 + h) * 32 + lane];

  const PaddedLayout& L = p.layout;
  const std::int64_t nx = L.n[0], ny = DIMS == 1 ? 1 : L.n[1];
  const std::int64_t tiles = p.tiles_x * p.tiles_y;
  const char* sbytes = reinterpret_cast<const char*>(smem_words);
  const int row_bytes = 2 * p.sw;
  const int g = lane >> 2, t = lane & 3;

  // Prefetch the next tile during this one's MMAs where the A fragments leave the registers for it.
  constexpr bool PREFETCH = NM * AREGS <= 80;
  TileLoader<R, DIMS> loader;
  const auto corner = [&](std::int64_t tile, std::int64_t& bx0, std::int64_t& by0) {
    bx0 = (tile % p.tiles_x) * G.block_x;
    by0 = (tile / p.tiles_x) * G.block_y;
  };
  if (blockIdx.x < tiles) {
    std::int64_t bx0, by0;
    corner(blockIdx.x, bx0, by0);
    loader.load(p, bx0, by0);
  }
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    std::int64_t bx0, by0;
    corner(tile, bx0, by0);
    __syncthreads(); // the previous tile's reads are done
    loader.store(p, smem_words);
    __syncthreads();
    const std::int64_t next = tile + gridDim.x;
    if (PREFETCH && next < tiles) {
      std::int64_t nx0, ny0;
      corner(next, nx0, ny0);
      loader.load(p, nx0, ny0);
    }

    for (int j = 2 * warp; j < G.warp_tiles; j += 2 * kWarps) {
      // warp tiles j and j + 1 (adjacent along x)
      int x_local, y_local;
      if (DIMS == 1) {
        x_local = j * G.tile_x;
        y_local = 0;
      } else {
        x_local = (j % 8) * G.tile_x;
        y_local = (j / 8) * G.tile_y;
      }
      Acc<ACC16> acc[2];
      acc[0].zero();
      acc[1].zero();
      const char* row = sbytes + 2 * ((DIMS == 1 ? 0 : (y_local + G.shift0 + R) * p.sw) + x_local);
      Issue<SPARSE, ACC16, AREGS, KC, 0, NM>::run(acc, a, meta, row, row_bytes, off, 2 * G.tile_x);

#pragma unroll
      for (int u = 0; u < 2; ++u)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int m = g + 8 * (i >> 1), n = 2 * t + (i & 1);
          std::int64_t x, y;
          if (DIMS == 1) {
            if (m >= G.rpp) continue;
            x = bx0 + x_local + u * G.tile_x + n * G.rpp + m;
            y = 0;
          } else {
            const int part = m / G.rpp, within = m - part * G.rpp;
            if (part >= G.py) continue;
            x = bx0 + x_local + u * G.tile_x + within;
            y = by0 + y_local + G.py * n + part;
          }
          if (x < nx && y < ny) store_with_images(p.out, L, p.periodic != 0, x, y, std::int64_t{0}, acc[u].at(i));
        }
    }
    if (!PREFETCH && next < tiles) {
      std::int64_t nx0, ny0;
      corner(next, nx0, ny0);
      loader.load(p, nx0, ny0);
    }
  }
}

template <int DIMS, int R, bool SPARSE, bool ACC16>
void launch_one(const Tables& t, const KernelArgs& args, cudaStream_t stream) {
  auto kernel = spider_step<R, DIMS, SPARSE, ACC16>;
  const int smem = static_cast<int>(t.shared_bytes());
  static int configured = -1;
  if (configured != smem && smem > 48 * 1024) {
    SE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    configured = smem;
  }
  int device = 0, sms = 0, per_sm = 0;
  SE_CUDA_CHECK(cudaGetDevice(&device));
  SE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * 32, smem));
  const std::int64_t tiles = args.tiles_x * args.tiles_y;
  const std::int64_t resident = static_cast<std::int64_t>(sms) * (per_sm > 0 ? per_sm : 1);
  const unsigned blocks = static_cast<unsigned>(tiles < resident ? tiles : resident);
  kernel<<<blocks, kWarps * 32, smem, stream>>>(args);
  SE_CUDA_CHECK_LAUNCH("spider_step");
}

template <int DIMS, int R> void launch_radius(const Tables& t, const KernelArgs& args, cudaStream_t stream) {
  if (t.sparse) {
    if (t.acc16) launch_one<DIMS, R, true, true>(t, args, stream);
    else launch_one<DIMS, R, true, false>(t, args, stream);
  } else {
    if (t.acc16) launch_one<DIMS, R, false, true>(t, args, stream);
    else launch_one<DIMS, R, false, false>(t, args, stream);
  }
}

template <int DIMS> void launch_dims(const Tables& t, const KernelArgs& args, cudaStream_t stream) {
  switch (t.g.radius) {
  case 1: return launch_radius<DIMS, 1>(t, args, stream);
  case 2: return launch_radius<DIMS, 2>(t, args, stream);
  case 3: return launch_radius<DIMS, 3>(t, args, stream);
  case 4: return launch_radius<DIMS, 4>(t, args, stream);
  case 5: return launch_radius<DIMS, 5>(t, args, stream);
  case 6: return launch_radius<DIMS, 6>(t, args, stream);
  case 7: return launch_radius<DIMS, 7>(t, args, stream);
  default: break;
  }
}

} // namespace se::spider_gpu
