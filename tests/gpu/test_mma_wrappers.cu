// The inline-PTX MMA wrappers (kernels/common/mma_ptx.cuh) against core's instruction-exact emulation:
// operands are scattered into registers by core's fragment layouts, one warp issues the instruction, and
// the result registers must equal what the emulation computes from the same fragments.
#include <catch2/catch.hpp>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/fragment/mma_emulation.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/device.hpp"

namespace {

using se::MmaShape;
using se::Operand;

template <int A, int B, int C, typename F>
__device__ void run_f64(const double* a, const double* b, const double* c, double* d, F&& mma) {
  const int lane = threadIdx.x;
  double ra[A], rb[B], rc[C], rd[C];
  for (int i = 0; i < A; ++i) ra[i] = a[lane * A + i];
  for (int i = 0; i < B; ++i) rb[i] = b[lane * B + i];
  for (int i = 0; i < C; ++i) rc[i] = c[lane * C + i];
  mma(rd, ra, rb, rc);
  for (int i = 0; i < C; ++i) d[lane * C + i] = rd[i];
}

template <MmaShape S> __global__ void f64_kernel(const double* a, const double* b, const double* c, double* d) {
  if constexpr (S == MmaShape::M8N8K4_F64)
    run_f64<1, 1, 2>(a, b, c, d, [](double(&rd)[2], double(&ra)[1], double(&rb)[1], double(&rc)[2]) {
      se::ptx::mma_m8n8k4_f64(rd, ra[0], rb[0], rc);
    });
  else if constexpr (S == MmaShape::M16N8K4_F64)
    run_f64<2, 1, 4>(a, b, c, d, [](double(&rd)[4], double(&ra)[2], double(&rb)[1], double(&rc)[4]) {
      se::ptx::mma_m16n8k4_f64(rd, ra, rb[0], rc);
    });
  else if constexpr (S == MmaShape::M16N8K8_F64)
    run_f64<4, 2, 4>(a, b, c, d, [](double(&rd)[4], double(&ra)[4], double(&rb)[2], double(&rc)[4]) {
      se::ptx::mma_m16n8k8_f64(rd, ra, rb, rc);
    });
  else
    run_f64<8, 4, 4>(a, b, c, d, [](double(&rd)[4], double(&ra)[8], double(&rb)[4], double(&rc)[4]) {
      se::ptx::mma_m16n8k16_f64(rd, ra, rb, rc);
    });
}

// f16 fragments arrive as 16-bit elements, two per 32-bit register (element 2j low, 2j+1 high).
__global__ void f16_kernel(const std::uint32_t* a, const std::uint32_t* b, const float* c, float* d,
                           const std::uint32_t* metadata, bool sparse) {
  const int lane = threadIdx.x;
  float rc[4], rd[4];
  for (int i = 0; i < 4; ++i) rc[i] = c[lane * 4 + i];
  const std::uint32_t rb[2] = {b[lane * 2], b[lane * 2 + 1]};
  if (sparse) {
    const std::uint32_t ra[2] = {a[lane * 2], a[lane * 2 + 1]};
    se::ptx::mma_sp_m16n8k16_f16_f32(rd, ra, rb, rc, metadata[lane]);
  } else {
    const std::uint32_t ra[4] = {a[lane * 4], a[lane * 4 + 1], a[lane * 4 + 2], a[lane * 4 + 3]};
    se::ptx::mma_m16n8k16_f16_f32(rd, ra, rb, rc);
  }
  for (int i = 0; i < 4; ++i) d[lane * 4 + i] = rd[i];
}

// mma.sp.m16n8k32 .f16 -> .f32 with sparsity selector Sel: four A, four B registers per lane.
template <int Sel>
__global__ void f16_k32_kernel(const std::uint32_t* a, const std::uint32_t* b, const float* c, float* d,
                               const std::uint32_t* metadata) {
  const int lane = threadIdx.x;
  float acc[4];
  for (int i = 0; i < 4; ++i) acc[i] = c[lane * 4 + i];
  const std::uint32_t ra[4] = {a[lane * 4], a[lane * 4 + 1], a[lane * 4 + 2], a[lane * 4 + 3]};
  const std::uint32_t rb[4] = {b[lane * 4], b[lane * 4 + 1], b[lane * 4 + 2], b[lane * 4 + 3]};
  se::ptx::mma_sp_m16n8k32_f16_f32_sel<Sel>(acc, ra, rb, metadata[lane]);
  for (int i = 0; i < 4; ++i) d[lane * 4 + i] = acc[i];
}

template <typename T> std::vector<T> random_matrix(int rows, int cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> m(static_cast<std::size_t>(rows) * cols);
  for (auto& v : m) v = T(u(rng));
  return m;
}

template <typename T> void upload_to(const std::vector<T>& host, se::DeviceBuffer<T>& dev) {
  dev = se::DeviceBuffer<T>(host.size(), "mma test");
  dev.upload(host.data(), host.size());
}

std::vector<std::uint32_t> pack_halves(const std::vector<se::Half>& regs) {
  std::vector<std::uint32_t> out(regs.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint32_t>(regs[2 * i].bits) | (static_cast<std::uint32_t>(regs[2 * i + 1].bits) << 16);
  return out;
}

template <MmaShape S> void check_f64_shape(std::mt19937_64& rng) {
  const se::MmaShapeInfo& info = se::mma_info(S);
  const auto A = random_matrix<double>(info.m, info.k, rng), B = random_matrix<double>(info.k, info.n, rng),
             C = random_matrix<double>(info.m, info.n, rng);
  const auto fa = se::load_fragment<double>(S, Operand::A, A.data(), info.k);
  const auto fb = se::load_fragment<double>(S, Operand::B, B.data(), info.n);
  auto fc = se::load_fragment<double>(S, Operand::C, C.data(), info.n);
  se::DeviceBuffer<double> da, db, dc, dd(fc.regs.size(), "mma test");
  upload_to(fa.regs, da);
  upload_to(fb.regs, db);
  upload_to(fc.regs, dc);
  f64_kernel<S><<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get());
  SE_CUDA_CHECK_LAUNCH("f64_kernel");
  std::vector<double> gpu(fc.regs.size());
  dd.download(gpu.data(), gpu.size());
  se::mma_f64(S, fa, fb, fc);
  double worst = 0;
  for (std::size_t i = 0; i < gpu.size(); ++i) worst = std::max(worst, std::abs(gpu[i] - fc.regs[i]));
  INFO(info.ptx << ": largest difference from the emulation " << worst);
  CHECK(worst <= 1e-15); // sums of k products of values in [-1, 1]: a few ulps at most
}

} // namespace

TEST_CASE("FP64 MMA wrappers compute what core's emulation computes from the same fragments") {
  const se::DeviceInfo dev = se::query_device();
  std::mt19937_64 rng(20240611);
  check_f64_shape<MmaShape::M8N8K4_F64>(rng);
  if (dev.cc_major >= 9) {
    check_f64_shape<MmaShape::M16N8K4_F64>(rng);
    check_f64_shape<MmaShape::M16N8K8_F64>(rng);
    check_f64_shape<MmaShape::M16N8K16_F64>(rng);
  } else {
    WARN("m16n8k4/k8/k16 .f64 need sm_90; this GPU is sm_" << dev.cc_major << dev.cc_minor);
  }
}

TEST_CASE("FP16 dense and 2:4-sparse MMA wrappers match the emulation") {
  std::mt19937_64 rng(77);
  for (const bool sparse : {false, true}) {
    const MmaShape S = sparse ? MmaShape::SP_M16N8K16_F16_F32 : MmaShape::M16N8K16_F16_F32;
    auto A = random_matrix<double>(16, 16, rng);
    if (sparse) // keep two of every four along each row: positions (1, 3)
      for (int i = 0; i < 16 * 16; ++i)
        if (i % 4 == 0 || i % 4 == 2) A[static_cast<std::size_t>(i)] = 0.0;
    std::vector<se::Half> Ah(A.size());
    for (std::size_t i = 0; i < A.size(); ++i) Ah[i] = se::Half(A[i]);
    const auto B = random_matrix<se::Half>(16, 8, rng);
    const auto C = random_matrix<float>(16, 8, rng);
    se::Compressed24 compressed;
    std::vector<se::Half> a_values = Ah;
    int a_ld = 16;
    if (sparse) {
      std::vector<double> rounded(A.size());
      for (std::size_t i = 0; i < A.size(); ++i) rounded[i] = static_cast<float>(Ah[i]);
      compressed = se::compress_2to4(rounded.data(), 16, 16, 16);
      a_values.assign(compressed.values.size(), se::Half());
      for (std::size_t i = 0; i < a_values.size(); ++i) a_values[i] = se::Half(compressed.values[i]);
      a_ld = 8;
    }
    const auto fa = se::load_fragment<se::Half>(S, Operand::A, a_values.data(), a_ld);
    const auto fb = se::load_fragment<se::Half>(S, Operand::B, B.data(), 8);
    auto fc = se::load_fragment<float>(S, Operand::C, C.data(), 8);
    const se::SparseMetadata meta = sparse ? se::pack_metadata(compressed, 0) : se::SparseMetadata{std::vector<std::uint32_t>(32, 0u), 0};
    se::DeviceBuffer<std::uint32_t> da, db, dm;
    se::DeviceBuffer<float> dc, dd(fc.regs.size(), "mma test");
    upload_to(pack_halves(fa.regs), da);
    upload_to(pack_halves(fb.regs), db);
    upload_to(meta.per_lane, dm);
    upload_to(fc.regs, dc);
    f16_kernel<<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get(), dm.get(), sparse);
    SE_CUDA_CHECK_LAUNCH("f16_kernel");
    std::vector<float> gpu(fc.regs.size());
    dd.download(gpu.data(), gpu.size());
    if (sparse) se::mma_sp_f16_f32(fa, meta, fb, fc);
    else se::mma_f16_f32(S, fa, fb, fc);
    double worst = 0;
    for (std::size_t i = 0; i < gpu.size(); ++i) worst = std::max(worst, std::abs(double(gpu[i]) - double(fc.regs[i])));
    INFO((sparse ? "mma.sp" : "mma") << " m16n8k16 f16->f32: largest difference " << worst);
    CHECK(worst <= 1e-5); // the hardware's own summation order: about one f32 ulp of partial sums below 16
  }
}

// The m16n8k32 wrapper's fragment claim (mma_ptx.cuh): two m16n8k16 problems side by side along K, each laid out
// by core's m16n8k16 tables, its metadata packed with selectors 2 Sel and 2 Sel + 1, equal one m16n8k32 of
// selector Sel. Checked against the dense product in FP64 (a layout error moves results by O(1)).
TEST_CASE("mma.sp.m16n8k32 f16 is two m16n8k16 fragments side by side") {
  std::mt19937_64 rng(2024);
  const MmaShape S = MmaShape::SP_M16N8K16_F16_F32;
  for (const int sel : {0, 1}) {
    // A 16 x 32 with a random 2:4 pattern per group of four, values rounded to f16.
    std::vector<double> A(16 * 32, 0.0);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int r = 0; r < 16; ++r)
      for (int g = 0; g < 8; ++g) {
        int p0 = static_cast<int>(rng() % 4), p1 = static_cast<int>(rng() % 4);
        if (p1 == p0) p1 = (p0 + 1) % 4;
        A[static_cast<std::size_t>(r * 32 + 4 * g + p0)] = static_cast<float>(se::Half(u(rng)));
        A[static_cast<std::size_t>(r * 32 + 4 * g + p1)] = static_cast<float>(se::Half(u(rng)));
      }
    const auto B = random_matrix<se::Half>(32, 8, rng);
    const auto C = random_matrix<float>(16, 8, rng);
    std::vector<std::uint32_t> a_regs(32 * 4), b_regs(32 * 4), meta(32, 0u);
    for (int chunk = 0; chunk < 2; ++chunk) {
      const se::Compressed24 comp = se::compress_2to4(A.data() + 16 * chunk, 16, 16, 32);
      std::vector<se::Half> values(comp.values.size());
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = se::Half(comp.values[i]);
      const auto fa = pack_halves(se::load_fragment<se::Half>(S, Operand::A, values.data(), 8).regs);
      const auto fb = pack_halves(se::load_fragment<se::Half>(S, Operand::B, B.data() + 16 * 8 * chunk, 8).regs);
      const auto m = se::pack_metadata(comp, 2 * sel + chunk).per_lane;
      for (int lane = 0; lane < 32; ++lane) {
        for (int j = 0; j < 2; ++j) {
          a_regs[static_cast<std::size_t>(lane * 4 + 2 * chunk + j)] = fa[static_cast<std::size_t>(lane * 2 + j)];
          b_regs[static_cast<std::size_t>(lane * 4 + 2 * chunk + j)] = fb[static_cast<std::size_t>(lane * 2 + j)];
        }
        meta[static_cast<std::size_t>(lane)] |= m[static_cast<std::size_t>(lane)];
      }
    }
    const auto fc = se::load_fragment<float>(S, Operand::C, C.data(), 8);
    se::DeviceBuffer<std::uint32_t> da, db, dm;
    se::DeviceBuffer<float> dc, dd(fc.regs.size(), "mma test");
    upload_to(a_regs, da);
    upload_to(b_regs, db);
    upload_to(meta, dm);
    upload_to(fc.regs, dc);
    if (sel == 0) f16_k32_kernel<0><<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get(), dm.get());
    else f16_k32_kernel<1><<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get(), dm.get());
    SE_CUDA_CHECK_LAUNCH("f16_k32_kernel");
    std::vector<float> gpu(fc.regs.size());
    dd.download(gpu.data(), gpu.size());
    // The dense reference, D = C + A B in FP64, in the accumulator layout.
    std::vector<float> want(16 * 8);
    for (int r = 0; r < 16; ++r)
      for (int n = 0; n < 8; ++n) {
        double sum = C[static_cast<std::size_t>(r * 8 + n)];
        for (int k = 0; k < 32; ++k)
          sum += A[static_cast<std::size_t>(r * 32 + k)] * static_cast<double>(static_cast<float>(B[static_cast<std::size_t>(k * 8 + n)]));
        want[static_cast<std::size_t>(r * 8 + n)] = static_cast<float>(sum);
      }
    const auto fw = se::load_fragment<float>(S, Operand::C, want.data(), 8);
    double worst = 0;
    for (std::size_t i = 0; i < gpu.size(); ++i) worst = std::max(worst, std::abs(double(gpu[i]) - double(fw.regs[i])));
    INFO("mma.sp m16n8k32 f16->f32, selector " << sel << ": largest difference from FP64 " << worst);
    CHECK(worst <= 1e-4); // 32 f32 additions of products below 1 against one rounding of the exact sum
  }
}
