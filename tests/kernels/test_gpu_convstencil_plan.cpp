// The ConvStencil GPU kernel's data path on the CPU: the block shape, the stencil2row lookup table and the
// lane-ordered kernel fragments that the host uploads are run here through the same index arithmetic as
// kernels/convstencil/cs_kernel.cuh (fragment loads at the swizzled slots, mma.m16n8k4's A[g][q], A[g+8][q],
// B[q][g] and D[g][2q..2q+1] lane layout), and the result is checked against the FP64 reference. Needs no GPU.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "core/convstencil/convstencil_plan.hpp"
#include "core/reference.hpp"
#include "kernels/convstencil/cs_gpu_plan.hpp"

namespace {

using namespace se;
using namespace se::conv_gpu;

double load(const std::vector<double>& in, const Extent& e, bool periodic, double bv, long long x, long long y, long long z) {
  const long long nx = e.n[0], ny = e.n[1], nz = e.n[2];
  if (x < 0 || x >= nx || y < 0 || y >= ny || z < 0 || z >= nz) {
    if (!periodic) return bv;
    x = ((x % nx) + nx) % nx;
    y = ((y % ny) + ny) % ny;
    z = ((z % nz) + nz) % nz;
  }
  return in[static_cast<std::size_t>((z * ny + y) * nx + x)];
}

// One pass of W^T, block by block and warp by warp as the kernel runs it.
std::vector<double> emulate_pass(const ConvStencilPlan& p, const Extent& e, const std::vector<double>& in, bool periodic) {
  const int K = p.k, dims = e.dims, R = p.fused.radius, U = K + 1, CH = (K + 3) / 4, E = 2 * CH, NT = (U + 7) / 8;
  const int SS = 8 * CH, ROWD = kSegmentsPerWarp * SS, TW = kSegmentsPerWarp * U;
  const CsBlockShape s = block_shape(p, e);
  const int RW = s.rows_per_warp, NWY = s.warps_y, NWZ = s.warps_z, BY = RW * NWY, BZ = NWZ;
  const int KR = dims >= 2 ? K : 1, KP = dims == 3 ? K : 1;
  const std::vector<int> table = stencil2row_table(p);
  const std::vector<double> kf = kernel_fragments(p);
  REQUIRE(kf.size() == static_cast<std::size_t>(s.kernel_fragments) * 32);
  std::vector<double> out(in.size(), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> s2r(static_cast<std::size_t>(s.in_planes * s.in_rows * ROWD));
  for (long long bz = 0; bz < s.tiles_z; ++bz)
    for (long long by = 0; by < s.tiles_y; ++by)
      for (long long bx = 0; bx < s.tiles_x; ++bx) {
        const long long x0 = dims == 1 ? bx * BY * TW : bx * TW, y0 = by * BY, z0 = bz * BZ;
        for (int i = 0; i < s.in_planes * s.in_rows * ROWD; ++i) {
          const int slot = i % ROWD, row = (i / ROWD) % s.in_rows, plane = i / (ROWD * s.in_rows);
          const int col = table[static_cast<std::size_t>(slot)];
          double v = 0.0;
          if (col >= 0) {
            if (dims == 1) v = load(in, e, periodic, 0.0, x0 + static_cast<long long>(row) * TW + col - R, 0, 0);
            else v = load(in, e, periodic, 0.0, x0 + col - R, y0 + row - R, dims == 3 ? z0 + plane - R : 0);
          }
          s2r[static_cast<std::size_t>(i)] = v;
        }
        for (int wz = 0; wz < NWZ; ++wz)
          for (int wy = 0; wy < NWY; ++wy) {
            // acc[o][nt][m][n]: the 16 x 8 accumulator tile of output row o.
            std::vector<double> acc(static_cast<std::size_t>(RW * NT * 16 * 8), 0.0);
            for (int pz = 0; pz < KP; ++pz)
              for (int ir = 0; ir < RW + KR - 1; ++ir) {
                const double* row = s2r.data() + static_cast<std::size_t>(((wz + pz) * s.in_rows + wy * RW + ir) * ROWD);
                for (int o = 0; o < RW; ++o) {
                  const int i = ir - o;
                  if (i < 0 || i >= KR) continue;
                  for (int e2 = 0; e2 < E; ++e2)
                    for (int nt = 0; nt < NT; ++nt) {
                      const int f = ((pz * KR + i) * E + e2) * NT + nt;
                      double A[16][4], B[4][8];
                      for (int lane = 0; lane < 32; ++lane) {
                        const int g = lane >> 2, q = lane & 3;
                        A[g][q] = row[g * SS + 4 * cs_swizzle(g, e2, CH) + q];
                        A[g + 8][q] = row[(g + 8) * SS + 4 * cs_swizzle(g + 8, e2, CH) + q];
                        B[q][g] = kf[static_cast<std::size_t>(f * 32 + lane)];
                      }
                      for (int m = 0; m < 16; ++m)
                        for (int n = 0; n < 8; ++n)
                          for (int kk = 0; kk < 4; ++kk)
                            acc[static_cast<std::size_t>(((o * NT + nt) * 16 + m) * 8 + n)] += A[m][kk] * B[kk][n];
                    }
                }
              }
            for (int o = 0; o < RW; ++o) {
              const long long gz = z0 + wz;
              const long long xb = dims == 1 ? x0 + static_cast<long long>(wy * RW + o) * TW : x0;
              const long long gy = dims == 1 ? 0 : y0 + wy * RW + o;
              if (gy >= e.n[1] || gz >= e.n[2]) continue;
              for (int nt = 0; nt < NT; ++nt)
                for (int m = 0; m < 16; ++m)
                  for (int n = 0; n < 8; ++n) {
                    const int t = 8 * nt + n;
                    const long long gx = xb + m * U + t;
                    if (t < U && gx < e.n[0])
                      out[static_cast<std::size_t>((gz * e.n[1] + gy) * e.n[0] + gx)] =
                          acc[static_cast<std::size_t>(((o * NT + nt) * 16 + m) * 8 + n)];
                  }
            }
          }
      }
  return out;
}

Stencil random_stencil(int dims, int radius, std::mt19937_64& rng) {
  Stencil s = make_stencil(dims, radius, "random");
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int dz) { s.at(dx, dy, dz) = u(rng) < 0.3 ? 0.0 : u(rng); });
  s.at(0, 0, 0) += 0.5;
  return normalized(s);
}

void check_pass(const Stencil& st, int fused, const Extent& e) {
  const ConvStencilPlan p = make_convstencil_plan(st, {fused});
  if (!unsupported_reason(p).empty()) return;
  INFO(st.name << " T=" << p.fused_steps << " k=" << p.k << " " << e.to_string());
  const std::vector<double> v = initial_values(e, InitialCondition::Random, 7);
  std::vector<double> ref = v;
  ReferenceOptions opt;
  opt.boundary.kind = BoundaryKind::Periodic;
  reference_advance(st, e, ref, p.fused_steps, Precision::FP64, opt);
  const ErrorMetrics err = compare(emulate_pass(p, e, v, true), ref);
  CHECK(err.finite);
  CHECK(err.rel_l2 < 1e-13);
}

} // namespace

TEST_CASE("ConvStencil GPU tables: every slot of a tile row is one input column or a zero pad, and the swizzle is "
          "conflict-free", "[convstencil-gpu]") {
  std::mt19937_64 rng(5);
  for (int r = 0; r <= 7; ++r) {
    const ConvStencilPlan p = make_convstencil_plan(random_stencil(2, r, rng), {1});
    const int CH = (p.k + 3) / 4, SS = 8 * CH;
    const std::vector<int> t = stencil2row_table(p);
    int used = 0;
    for (int x : t) used += x >= 0;
    CHECK(used == kSegmentsPerWarp * 2 * p.k); // each segment holds k columns in A and k in B
    // Every fragment load: the 16 lanes of each half warp hit 16 different 8-byte bank pairs.
    for (int e = 0; e < 2 * CH; ++e)
      for (int second = 0; second < 2; ++second)
        for (int half = 0; half < 2; ++half) {
          std::set<int> banks;
          for (int lane = 16 * half; lane < 16 * half + 16; ++lane) {
            const int g = (lane >> 2) + 8 * second, q = lane & 3;
            banks.insert((g * SS + 4 * cs_swizzle(g, e, CH) + q) % 16);
          }
          CHECK(banks.size() == 16);
        }
  }
}

TEST_CASE("ConvStencil GPU data path on the CPU: presets, random stencils, fused and not, 1D to 3D",
          "[convstencil-gpu]") {
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    const Extent e = s.dims == 1 ? parse_extent("5000") : s.dims == 2 ? parse_extent("150x45") : parse_extent("70x19x13");
    for (int T = 1; T <= 3; ++T)
      if (T * s.radius <= kMaxRadius) check_pass(s, T, e);
  }
  std::mt19937_64 rng(99);
  for (int dims = 1; dims <= 3; ++dims)
    for (int r = 0; r <= (dims == 3 ? 3 : 7); ++r) {
      const Extent e = dims == 1 ? parse_extent("3001") : dims == 2 ? parse_extent("271x40") : parse_extent("67x17x11");
      check_pass(random_stencil(dims, r, rng), 1, e);
    }
}
