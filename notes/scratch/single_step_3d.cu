// Scratch benchmark (not built by CMake; issue 14's single-step 3D target): FP64 7-point star and 27-point box at
// 512^3, one step, against a double2 copy in the same run: a per-point kernel (loads straight from global memory),
// z-streamed columns with xy neighbours through L1, z-blocked points (ZP outputs per thread) and a shared tile loaded
// at once. Each variant is checked against a host computation at 20000 points. Build and run:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o exp notes/scratch/single_step_3d.cu && ./exp
// Results (NVIDIA H100 80GB HBM3, 2026-11-26) in notes/cuda-core-tb.md.
#include <cstdio>
#include <vector>
#include <cmath>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
constexpr int N = 512;
__constant__ double cw[27];
__host__ __device__ __forceinline__ size_t idx(int x, int y, int z) { return (size_t(z) * N + y) * N + x; }

__global__ void copy_k(const double2* __restrict__ a, double2* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}

// V3: one point per thread, 7-point star, direct loads (L1/L2 reuse). Boundary points copied.
template <bool BOX>
__global__ void __launch_bounds__(256) point_k(const double* __restrict__ in, double* __restrict__ out) {
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y, z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= N - 1 || y >= N - 1 || z >= N - 1) { if (x < N && y < N && z < N) out[idx(x,y,z)] = in[idx(x,y,z)]; return; }
  double s = 0;
  if (!BOX) {
    s = cw[13] * __ldg(in + idx(x, y, z)) + cw[12] * __ldg(in + idx(x - 1, y, z)) + cw[14] * __ldg(in + idx(x + 1, y, z)) +
        cw[10] * __ldg(in + idx(x, y - 1, z)) + cw[16] * __ldg(in + idx(x, y + 1, z)) + cw[4] * __ldg(in + idx(x, y, z - 1)) +
        cw[22] * __ldg(in + idx(x, y, z + 1));
  } else {
#pragma unroll
    for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
      for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) s += cw[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1] * __ldg(in + idx(x + dx, y + dy, z + dz));
  }
  out[idx(x, y, z)] = s;
}

// V1: z-streaming, (32 x BY) threads, each thread its column over ZC planes; xy neighbours via L1 (__ldg),
// z neighbours in registers (star) / partial-sum queue (box).
template <bool BOX, int BY, int ZC>
__global__ void __launch_bounds__(32 * BY) stream_k(const double* __restrict__ in, double* __restrict__ out) {
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, N);
  if (x >= N || y >= N) return;
  const bool edge = x < 1 || y < 1 || x >= N - 1 || y >= N - 1;
  if (edge) { for (int z = z0; z < z1; ++z) out[idx(x, y, z)] = in[idx(x, y, z)]; return; }
  if (!BOX) {
    double below = z0 > 0 ? __ldg(in + idx(x, y, z0 - 1)) : 0, cur = __ldg(in + idx(x, y, z0));
    for (int z = z0; z < z1; ++z) {
      const double above = z + 1 < N ? __ldg(in + idx(x, y, z + 1)) : 0;
      if (z == 0 || z == N - 1) out[idx(x, y, z)] = cur;
      else
        out[idx(x, y, z)] = cw[13] * cur + cw[12] * __ldg(in + idx(x - 1, y, z)) + cw[14] * __ldg(in + idx(x + 1, y, z)) +
                            cw[10] * __ldg(in + idx(x, y - 1, z)) + cw[16] * __ldg(in + idx(x, y + 1, z)) + cw[4] * below + cw[22] * above;
      below = cur, cur = above;
    }
  } else {
    // acc0: output z-1, acc1: output z (while plane z arrives)
    double acc0 = 0, acc1 = 0;
    for (int p = max(z0 - 1, 0); p <= min(z1, N - 1); ++p) {
      double q[3] = {0, 0, 0}; // contribution of plane p through weight plane dz (output p - dz + ... )
#pragma unroll
      for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
          const double v = __ldg(in + idx(x + dx, y + dy, p));
#pragma unroll
          for (int k = 0; k < 3; ++k) q[k] += cw[k * 9 + (dy + 1) * 3 + dx + 1] * v;
        }
      // plane p feeds output p+1 via weight plane dz=-1 (k=0), output p via k=1, output p-1 via k=2
      const double done = acc0 + q[2];            // output p - 1 complete
      const int zo = p - 1;
      if (zo >= z0 && zo < z1) out[idx(x, y, zo)] = (zo == 0 || zo == N - 1) ? __ldg(in + idx(x, y, zo)) : done;
      acc0 = acc1 + q[1];
      acc1 = q[0];
    }
    if (z1 == N) { /* last plane N-1 is a boundary: copied */ out[idx(x, y, N - 1)] = __ldg(in + idx(x, y, N - 1)); }
  }
}


// box, ZP outputs per thread along z (planes z0-1 .. z0+ZP), all loads independent.
template <int ZP, int BY>
__global__ void __launch_bounds__(32 * BY) boxz_k(const double* __restrict__ in, double* __restrict__ out) {
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * BY + threadIdx.y, z0 = blockIdx.z * ZP;
  if (x >= N || y >= N) return;
  if (x < 1 || y < 1 || x >= N - 1 || y >= N - 1) { for (int k = 0; k < ZP; ++k) out[idx(x, y, z0 + k)] = in[idx(x, y, z0 + k)]; return; }
  double acc[ZP];
#pragma unroll
  for (int k = 0; k < ZP; ++k) acc[k] = 0;
#pragma unroll
  for (int pp = 0; pp < ZP + 2; ++pp) {
    const int p = z0 - 1 + pp;
    if (p < 0 || p >= N) continue;
    double v[9];
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx) v[(dy + 1) * 3 + dx + 1] = __ldg(in + idx(x + dx, y + dy, p));
#pragma unroll
    for (int k = 0; k < ZP; ++k) {
      const int dz = pp - 1 - k; // plane p = (z0 + k) + dz
      if (dz < -1 || dz > 1) continue;
#pragma unroll
      for (int j = 0; j < 9; ++j) acc[k] += cw[(dz + 1) * 9 + j] * v[j];
    }
  }
#pragma unroll
  for (int k = 0; k < ZP; ++k) {
    const int z = z0 + k;
    out[idx(x, y, z)] = (z == 0 || z == N - 1) ? __ldg(in + idx(x, y, z)) : acc[k];
  }
}

// box, shared tile: block 32 x BY threads, ZB output planes, tile (32+2) x (BY+2) x (ZB+2) loaded at once.
template <int BY, int ZB>
__global__ void __launch_bounds__(32 * BY) boxs_k(const double* __restrict__ in, double* __restrict__ out) {
  constexpr int TX = 34, TY = BY + 2, TZ = ZB + 2;
  __shared__ double t[TZ][TY][TX];
  const int bx = blockIdx.x * 32, by = blockIdx.y * BY, bz = blockIdx.z * ZB;
  const int tid = threadIdx.y * 32 + threadIdx.x;
  for (int i = tid; i < TX * TY * TZ; i += 32 * BY) {
    const int lx = i % TX, ly = (i / TX) % TY, lz = i / (TX * TY);
    const int gx = bx + lx - 1, gy = by + ly - 1, gz = bz + lz - 1;
    t[lz][ly][lx] = (gx >= 0 && gx < N && gy >= 0 && gy < N && gz >= 0 && gz < N) ? __ldg(in + idx(gx, gy, gz)) : 0.0;
  }
  __syncthreads();
  const int x = bx + threadIdx.x, y = by + threadIdx.y;
#pragma unroll
  for (int k = 0; k < ZB; ++k) {
    const int z = bz + k;
    double s = 0;
#pragma unroll
    for (int dz = 0; dz < 3; ++dz)
#pragma unroll
      for (int dy = 0; dy < 3; ++dy)
#pragma unroll
        for (int dx = 0; dx < 3; ++dx) s += cw[dz * 9 + dy * 3 + dx] * t[k + dz][threadIdx.y + dy][threadIdx.x + dx];
    const bool edge = x < 1 || y < 1 || z < 1 || x >= N - 1 || y >= N - 1 || z >= N - 1;
    out[idx(x, y, z)] = edge ? t[k + 1][threadIdx.y + 1][threadIdx.x + 1] : s;
  }
}

void ref_point(const std::vector<double>& in, std::vector<double>& out, bool box, int x, int y, int z, double& r) {
  if (x < 1 || y < 1 || z < 1 || x >= N - 1 || y >= N - 1 || z >= N - 1) { r = in[idx(x,y,z)]; return; }
  static double w[27]; static bool got = false; if (!got) { CK(cudaMemcpyFromSymbol(w, cw, sizeof w)); got = true; }
  double s = 0;
  for (int dz = -1; dz <= 1; ++dz) for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {
    const int k = (dz + 1) * 9 + (dy + 1) * 3 + dx + 1;
    if (!box && !(k == 13 || k == 12 || k == 14 || k == 10 || k == 16 || k == 4 || k == 22)) continue;
    s += w[k] * in[idx(x + dx, y + dy, z + dz)];
  }
  r = s;
}

int main() {
  const size_t n = size_t(N) * N * N;
  double *a, *b; CK(cudaMalloc(&a, n * 8)); CK(cudaMalloc(&b, n * 8));
  std::vector<double> h(n); unsigned s = 1; for (auto& v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.0 / 16777216.0); }
  CK(cudaMemcpy(a, h.data(), n * 8, cudaMemcpyHostToDevice));
  double w[27]; for (int k = 0; k < 27; ++k) w[k] = 0.01 * (k + 1); CK(cudaMemcpyToSymbol(cw, w, sizeof w));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto timeit = [&](const char* name, auto launch, double bytes_per_point) {
    for (int i = 0; i < 3; ++i) launch();
    CK(cudaDeviceSynchronize());
    const int reps = 20; cudaEventRecord(e0); for (int i = 0; i < reps; ++i) launch(); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1); const double t = ms / 1e3 / reps;
    printf("%-28s %8.3f ms  %7.1f GStencil/s  %7.0f GB/s\n", name, t * 1e3, n / t / 1e9, n * bytes_per_point / t / 1e9);
    return n / t / 1e9;
  };
  auto check = [&](const char* name, bool box) {
    std::vector<double> o(n); CK(cudaMemcpy(o.data(), b, n * 8, cudaMemcpyDeviceToHost));
    double maxe = 0; unsigned r = 7;
    for (int i = 0; i < 20000; ++i) { r = r * 1664525u + 1013904223u; int x = r % N; r = r * 1664525u + 1013904223u; int y = r % N; r = r * 1664525u + 1013904223u; int z = r % N;
      if (i < 8) { x = (i & 1) ? N - 1 : 0; y = (i & 2) ? N - 2 : 1; z = (i & 4) ? N - 1 : 1; }
      double ref; ref_point(h, o, box, x, y, z, ref); maxe = std::max(maxe, std::fabs(ref - o[idx(x, y, z)])); }
    printf("   %s max error %.3g\n", name, maxe);
  };
  int dev; cudaDeviceProp pr; cudaGetDevice(&dev); cudaGetDeviceProperties(&pr, dev); printf("%s\n", pr.name);
  const double copy = timeit("copy (double2)", [&] { copy_k<<<132 * 16, 256>>>((const double2*)a, (double2*)b, n / 2); }, 16);
  for (int box = 0; box < 2; ++box) {
    const char* sname = box ? "box27" : "star7";
    printf("-- %s\n", sname);
    double g;
    auto pl = [&] { if (box) point_k<true><<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(a, b); else point_k<false><<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(a, b); };
    g = timeit("point 32x8", pl, 16); printf("   %.1f%% of copy\n", 100 * g / copy); check("point", box);
#define SV(BY, ZC) { auto l = [&] { if (box) stream_k<true, BY, ZC><<<dim3(N / 32, N / BY, N / ZC), dim3(32, BY)>>>(a, b); else stream_k<false, BY, ZC><<<dim3(N / 32, N / BY, N / ZC), dim3(32, BY)>>>(a, b); }; \
    g = timeit("stream 32x" #BY " z" #ZC, l, 16); printf("   %.1f%% of copy\n", 100 * g / copy); check("stream", box); }
    SV(8, 16) SV(8, 32) SV(8, 64) SV(4, 32) SV(16, 32) SV(8, 128)
    if (!box) continue;
#define BZ(ZP, BY) { auto l = [&] { boxz_k<ZP, BY><<<dim3(N / 32, N / BY, N / ZP), dim3(32, BY)>>>(a, b); }; \
    g = timeit("boxz zp" #ZP " by" #BY, l, 16); printf("   %.1f%% of copy\n", 100 * g / copy); check("boxz", true); }
    BZ(2, 8) BZ(4, 8) BZ(8, 8) BZ(4, 4) BZ(2, 4)
#define BS(BY, ZB) { auto l = [&] { boxs_k<BY, ZB><<<dim3(N / 32, N / BY, N / ZB), dim3(32, BY)>>>(a, b); }; \
    g = timeit("boxs by" #BY " zb" #ZB, l, 16); printf("   %.1f%% of copy\n", 100 * g / copy); check("boxs", true); }
    BS(8, 4) BS(8, 8) BS(4, 8) BS(8, 16) BS(16, 4)
  }
  return 0;
}
