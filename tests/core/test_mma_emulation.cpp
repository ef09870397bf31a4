// Instruction-exact MMA emulation: fragment load/store, each mma against a plain matrix product, and the
// 2:4 compression, metadata packing and mma.sp that SPIDER builds on.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "core/fragment/mma_emulation.hpp"

using namespace se;

namespace {

struct Dims {
  int m, n, k;
};
Dims dims_of(MmaShape s) {
  const MmaShapeInfo& info = mma_info(s);
  return {info.m, info.n, info.k};
}

std::vector<double> random_matrix(std::mt19937& rng, int rows, int cols, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(rows * cols));
  for (double& x : v) x = dist(rng);
  return v;
}

std::vector<Half> to_half(const std::vector<double>& v) {
  std::vector<Half> h;
  for (const double x : v) h.push_back(Half(x));
  return h;
}
std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// Plain products in double of already-rounded inputs, and the sum of |terms| that bounds rounding error.
struct Product {
  std::vector<double> value, magnitude;
};
template <typename T>
Product product(const std::vector<T>& a, const std::vector<T>& b, const std::vector<double>& c, Dims d) {
  Product p{std::vector<double>(c.size()), std::vector<double>(c.size())};
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      long double sum = c[static_cast<std::size_t>(i * d.n + j)], mag = std::fabs(sum);
      for (int k = 0; k < d.k; ++k) {
        const long double t = static_cast<long double>(static_cast<double>(a[static_cast<std::size_t>(i * d.k + k)])) *
                              static_cast<double>(b[static_cast<std::size_t>(k * d.n + j)]);
        sum += t;
        mag += std::fabs(t);
      }
      p.value[static_cast<std::size_t>(i * d.n + j)] = static_cast<double>(sum);
      p.magnitude[static_cast<std::size_t>(i * d.n + j)] = static_cast<double>(mag);
    }
  return p;
}

// A 16x16 2:4 matrix of f16-representable values; groups hold 0, 1 or 2 nonzeros at random positions.
std::vector<double> random_2to4(std::mt19937& rng, int rows, int cols) {
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  std::uniform_int_distribution<int> count(0, 2), position(0, 3);
  std::vector<double> m(static_cast<std::size_t>(rows * cols), 0.0);
  for (int r = 0; r < rows; ++r)
    for (int g = 0; g < cols; g += 4) {
      const int wanted = r == 0 ? 2 : count(rng); // row 0 keeps every group full
      for (int placed = 0; placed < wanted;) {
        double& slot = m[static_cast<std::size_t>(r * cols + g + position(rng))];
        if (slot != 0.0) continue;
        double v = 0.0;
        while (v == 0.0) v = round_to_half(value(rng));
        slot = v;
        ++placed;
      }
    }
  return m;
}

const MmaShape kF64Shapes[] = {MmaShape::M8N8K4_F64, MmaShape::M16N8K4_F64, MmaShape::M16N8K8_F64,
                               MmaShape::M16N8K16_F64};
const MmaShape kF16F32Shapes[] = {MmaShape::M16N8K16_F16_F32, MmaShape::WMMA_M16N16K16_F16_F32};

constexpr double kF32Unit = 0x1p-24;  // unit roundoff of f32
constexpr double kF16Unit = 0x1p-11;  // unit roundoff of f16
constexpr double kF64Unit = 0x1p-53;

} // namespace

TEST_CASE("load_fragment / store_fragment round-trip every layout, leaving padding alone", "[fragment]") {
  for (const MmaShapeInfo& info : mma_shapes())
    for (const Operand op : {Operand::A, Operand::B, Operand::C}) {
      INFO(info.id << " operand " << to_string(op));
      const FragmentLayout layout = fragment_layout(info.shape, op);
      const int ld = layout.cols + 3;
      std::vector<double> src(static_cast<std::size_t>(layout.rows * ld), -7.0);
      for (int r = 0; r < layout.rows; ++r)
        for (int c = 0; c < layout.cols; ++c) src[static_cast<std::size_t>(r * ld + c)] = r * 100 + c;
      const WarpFragment<double> f = load_fragment(info.shape, op, src.data(), ld);
      REQUIRE(f.regs.size() == layout.coords.size());
      for (int lane = 0; lane < 32; lane += 7)
        for (int reg = 0; reg < layout.regs_per_lane; ++reg) {
          const FragmentCoord rc = layout.at(lane, reg);
          CHECK(f.regs[static_cast<std::size_t>(lane * layout.regs_per_lane + reg)] == rc.row * 100 + rc.col);
        }
      std::vector<double> dst(src.size(), -7.0);
      store_fragment(f, dst.data(), ld);
      CHECK(dst == src);

      const std::vector<Half> src_half = to_half(src);
      const WarpFragment<Half> fh = load_fragment(info.shape, op, src_half.data(), ld);
      std::vector<Half> dst_half(src_half.size(), Half(-7.0));
      store_fragment(fh, dst_half.data(), ld);
      for (std::size_t i = 0; i < src_half.size(); ++i) REQUIRE(dst_half[i].bits == src_half[i].bits);
    }
  const WarpFragment<float> a = load_fragment(MmaShape::M16N8K16_F16_F32, Operand::A,
                                              to_float(std::vector<double>(256, 1.0)).data(), 16);
  CHECK(a.regs.size() == 256);
  CHECK_THROWS_AS(load_fragment<double>(MmaShape::M8N8K4_F64, Operand::A, nullptr, 4), InputError);
  const std::vector<double> small(64, 0.0);
  CHECK_THROWS_AS(load_fragment(MmaShape::M8N8K4_F64, Operand::C, small.data(), 7), InputError);
  std::vector<double> out(64);
  WarpFragment<double> c = load_fragment(MmaShape::M8N8K4_F64, Operand::C, small.data(), 8);
  CHECK_THROWS_AS(store_fragment(c, out.data(), 4), InputError);
  c.regs.pop_back();
  CHECK_THROWS_AS(store_fragment(c, out.data(), 8), InputError);
}

TEST_CASE("mma_f64 is an fma chain in k order and matches the matrix product", "[fragment]") {
  std::mt19937 rng(20240611);
  for (const MmaShape shape : kF64Shapes) {
    INFO(to_string(shape));
    const Dims d = dims_of(shape);
    const auto a = random_matrix(rng, d.m, d.k), b = random_matrix(rng, d.k, d.n), c = random_matrix(rng, d.m, d.n);
    const auto fa = load_fragment(shape, Operand::A, a.data(), d.k);
    const auto fb = load_fragment(shape, Operand::B, b.data(), d.n);
    auto fc = load_fragment(shape, Operand::C, c.data(), d.n);
    mma_f64(shape, fa, fb, fc);
    std::vector<double> got(c.size());
    store_fragment(fc, got.data(), d.n);

    const Product p = product(a, b, c, d);
    for (int i = 0; i < d.m; ++i)
      for (int j = 0; j < d.n; ++j) {
        const std::size_t o = static_cast<std::size_t>(i * d.n + j);
        double chain = c[o];
        for (int k = 0; k < d.k; ++k)
          chain = std::fma(a[static_cast<std::size_t>(i * d.k + k)], b[static_cast<std::size_t>(k * d.n + j)], chain);
        REQUIRE(got[o] == chain);
        // One rounding per fma: |error| <= K * u * sum |terms| (first order).
        REQUIRE(std::fabs(got[o] - p.value[o]) <= d.k * kF64Unit * p.magnitude[o] * 1.0001);
      }

    // Small integers: every step is exact, so the result is exactly the product.
    std::vector<double> ai(a.size()), bi(b.size()), ci(c.size());
    std::uniform_int_distribution<int> small(-9, 9);
    for (double& x : ai) x = small(rng);
    for (double& x : bi) x = small(rng);
    for (double& x : ci) x = small(rng);
    auto fci = load_fragment(shape, Operand::C, ci.data(), d.n);
    mma_f64(shape, load_fragment(shape, Operand::A, ai.data(), d.k), load_fragment(shape, Operand::B, bi.data(), d.n),
            fci);
    store_fragment(fci, got.data(), d.n);
    CHECK(got == product(ai, bi, ci, d).value);
  }
}

TEST_CASE("mma_f16_f32 (mma and wmma) accumulates exact f16 products in f32", "[fragment]") {
  std::mt19937 rng(7);
  for (const MmaShape shape : kF16F32Shapes) {
    INFO(to_string(shape));
    const Dims d = dims_of(shape);
    const auto a = to_half(random_matrix(rng, d.m, d.k)), b = to_half(random_matrix(rng, d.k, d.n));
    const auto c = to_float(random_matrix(rng, d.m, d.n, -4.0, 4.0));
    auto fc = load_fragment(shape, Operand::C, c.data(), d.n);
    mma_f16_f32(shape, load_fragment(shape, Operand::A, a.data(), d.k), load_fragment(shape, Operand::B, b.data(), d.n),
                fc);
    std::vector<float> got(c.size());
    store_fragment(fc, got.data(), d.n);

    const Product p = product(a, b, std::vector<double>(c.begin(), c.end()), d);
    for (int i = 0; i < d.m; ++i)
      for (int j = 0; j < d.n; ++j) {
        const std::size_t o = static_cast<std::size_t>(i * d.n + j);
        float chain = c[o];
        for (int k = 0; k < d.k; ++k)
          chain += static_cast<float>(a[static_cast<std::size_t>(i * d.k + k)]) *
                   static_cast<float>(b[static_cast<std::size_t>(k * d.n + j)]);
        REQUIRE(got[o] == chain);
        // K f32 additions, products exact: |error| <= K * u32 * (|c| + sum |a b|). The hardware's own
        // summation order stays inside the same bound.
        REQUIRE(std::fabs(got[o] - p.value[o]) <= d.k * kF32Unit * p.magnitude[o] * 1.0001);
      }
  }
}

TEST_CASE("mma_f16_f16 rounds the f32 chain to f16 once", "[fragment]") {
  std::mt19937 rng(11);
  const MmaShape shape = MmaShape::M16N8K16_F16_F16;
  const Dims d = dims_of(shape);
  const auto a = to_half(random_matrix(rng, d.m, d.k)), b = to_half(random_matrix(rng, d.k, d.n));
  const auto c = to_half(random_matrix(rng, d.m, d.n, -4.0, 4.0));
  auto fc = load_fragment(shape, Operand::C, c.data(), d.n);
  mma_f16_f16(load_fragment(shape, Operand::A, a.data(), d.k), load_fragment(shape, Operand::B, b.data(), d.n), fc);
  std::vector<Half> got(c.size());
  store_fragment(fc, got.data(), d.n);
  std::vector<double> c_double;
  for (const Half h : c) c_double.push_back(static_cast<float>(h));
  const Product p = product(a, b, c_double, d);
  for (std::size_t o = 0; o < got.size(); ++o) {
    const double value = static_cast<float>(got[o]);
    // f32 chain error, then one f16 rounding of the result.
    const double bound = kF16Unit * std::fabs(p.value[o]) + d.k * kF32Unit * p.magnitude[o] * (1 + kF16Unit);
    REQUIRE(std::fabs(value - p.value[o]) <= bound * 1.0001);
  }
  // Where the two orders part: C = 1 plus products 2^-11 and 2^-12. Rounding to f16 after each add would
  // give 1 (1 + 2^-11 is a tie that rounds to even, then + 2^-12 is lost); one rounding of the f32 sum
  // 1 + 3 * 2^-12 gives 1 + 2^-10.
  std::vector<Half> a1(256, Half(0.0)), b1(128, Half(0.0)), c1(128, Half(1.0));
  a1[0] = Half(0x1p-11);
  a1[1] = Half(0x1p-12);
  b1[0] = Half(1.0); // B(0, 0)
  b1[8] = Half(1.0); // B(1, 0)
  auto fc1 = load_fragment(shape, Operand::C, c1.data(), 8);
  mma_f16_f16(load_fragment(shape, Operand::A, a1.data(), 16), load_fragment(shape, Operand::B, b1.data(), 8), fc1);
  store_fragment(fc1, c1.data(), 8);
  CHECK(static_cast<float>(c1[0]) == 1.0f + 0x1p-10f);
  CHECK(static_cast<float>(c1[1]) == 1.0f); // column 1 of B is zero
}

TEST_CASE("mma functions reject fragments of the wrong shape or operand", "[fragment]") {
  const std::vector<double> z(256, 0.0);
  const auto a = load_fragment(MmaShape::M8N8K4_F64, Operand::A, z.data(), 4);
  const auto b = load_fragment(MmaShape::M8N8K4_F64, Operand::B, z.data(), 8);
  auto c = load_fragment(MmaShape::M8N8K4_F64, Operand::C, z.data(), 8);
  CHECK_NOTHROW(mma_f64(MmaShape::M8N8K4_F64, a, b, c));
  CHECK_THROWS_AS(mma_f64(MmaShape::M8N8K4_F64, b, b, c), InputError);
  CHECK_THROWS_AS(mma_f64(MmaShape::M16N8K4_F64, a, b, c), InputError);
  CHECK_THROWS_AS(mma_f64(MmaShape::M16N8K16_F16_F32, a, b, c), InputError);
  auto corrupt = a;
  std::swap(corrupt.layout.coords[0], corrupt.layout.coords[1]);
  corrupt.layout.coords[1] = corrupt.layout.coords[0]; // two lanes claim one element
  CHECK_THROWS_AS(mma_f64(MmaShape::M8N8K4_F64, corrupt, b, c), InputError);

  const std::vector<Half> h(256, Half(0.0));
  const std::vector<float> f(256, 0.0f);
  const auto ha = load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::A, h.data(), 8);
  const auto hb = load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::B, h.data(), 8);
  auto fc = load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::C, f.data(), 8);
  CHECK_THROWS_WITH(mma_f16_f32(MmaShape::SP_M16N8K16_F16_F32, ha, hb, fc), Catch::Contains("mma_sp_f16_f32"));
}

TEST_CASE("2:4 validation, compression and decompression", "[fragment][sparse]") {
  std::mt19937 rng(42);
  for (const auto& [rows, cols] : {std::pair{16, 16}, std::pair{8, 32}, std::pair{3, 4}}) {
    const auto dense = random_2to4(rng, rows, cols);
    REQUIRE(is_2to4(dense.data(), rows, cols, cols));
    const Compressed24 comp = compress_2to4(dense.data(), rows, cols, cols);
    REQUIRE(comp.values.size() == static_cast<std::size_t>(rows * cols / 2));
    for (std::size_t i = 0; i < comp.indices.size(); i += 2) {
      REQUIRE(comp.indices[i] < comp.indices[i + 1]);
      REQUIRE(comp.indices[i + 1] <= 3);
    }
    CHECK(decompress_2to4(comp) == dense);
  }
  // Leading dimension larger than cols: the padding is not part of the matrix.
  std::vector<double> padded = {1, 0, 2, 0, 99, 99, 0, 0, 0, 3, 99, 99};
  REQUIRE(is_2to4(padded.data(), 2, 4, 6));
  CHECK(decompress_2to4(compress_2to4(padded.data(), 2, 4, 6)) == std::vector<double>{1, 0, 2, 0, 0, 0, 0, 3});

  // Encodings of every group kind (SPIDER's example: E0G0 -> EG, positions 0 and 2; 0G00 -> G0, 1 and 2).
  const std::vector<double> kinds = {5, 0, 7, 0, /**/ 0, 6, 0, 0, /**/ 0, 0, 0, 9, /**/ 0, 0, 0, 0};
  const Compressed24 k = compress_2to4(kinds.data(), 1, 16, 16);
  CHECK(k.values == std::vector<double>{5, 7, 6, 0, 0, 9, 0, 0});
  CHECK(k.indices == std::vector<std::uint8_t>{0, 2, 1, 2, 2, 3, 0, 1});

  std::vector<double> three = random_2to4(rng, 16, 16);
  three[16 * 5 + 8] = 1.0;
  three[16 * 5 + 9] = 2.0;
  three[16 * 5 + 10] = 3.0;
  CHECK_FALSE(is_2to4(three.data(), 16, 16, 16));
  CHECK_THROWS_AS(compress_2to4(three.data(), 16, 16, 16), InputError);
  CHECK_THROWS_WITH(compress_2to4(three.data(), 16, 16, 16), Catch::Contains("row 5"));
  const std::vector<double> six(12, 0.0);
  CHECK_FALSE(is_2to4(six.data(), 2, 6, 6));
  CHECK_THROWS_AS(compress_2to4(six.data(), 2, 6, 6), InputError);
  CHECK_THROWS_AS(is_2to4(six.data(), 2, 6, 5), InputError);
  Compressed24 broken = k;
  broken.indices[0] = 2; // equal positions 2, 2
  CHECK_THROWS_AS(decompress_2to4(broken), InputError);
}

TEST_CASE("pack_metadata follows the mma.sp m16n8k16 .f16 register layout", "[fragment][sparse]") {
  // Every group keeps positions 0 and 2: nibble 0b1000, so each used register reads 0x88888888.
  std::vector<double> every_other(256, 0.0);
  for (int i = 0; i < 256; i += 2) every_other[static_cast<std::size_t>(i)] = 1.0;
  const Compressed24 c = compress_2to4(every_other.data(), 16, 16, 16);
  for (int selector = 0; selector < 4; ++selector) {
    const SparseMetadata meta = pack_metadata(c, selector);
    REQUIRE(meta.per_lane.size() == 32);
    CHECK(meta.selector == selector);
    for (int lane = 0; lane < 32; ++lane)
      CHECK(meta.per_lane[static_cast<std::size_t>(lane)] == ((lane & 3) == selector ? 0x88888888u : 0u));
  }
  // Row 3 group 2 keeps positions 1 and 3 (nibble 0xd), row 11 group 1 keeps only zeros (0 and 1: 0x4):
  // both live in the register of lane 12 + selector, row 3 in bits 8-11, row 11 in bits 20-23.
  std::vector<double> m = every_other;
  m[16 * 3 + 8] = 0.0;
  m[16 * 3 + 9] = 1.0;
  m[16 * 3 + 10] = 0.0;
  m[16 * 3 + 11] = 1.0;
  for (int j = 4; j < 8; ++j) m[static_cast<std::size_t>(16 * 11 + j)] = 0.0;
  const SparseMetadata meta = pack_metadata(compress_2to4(m.data(), 16, 16, 16), 2);
  CHECK(meta.per_lane[14] == 0x88488d88u);
  CHECK(meta.per_lane[2] == 0x88888888u);
  CHECK(to_string(meta).find("lane 14: 0x88488d88") != std::string::npos);

  CHECK_THROWS_AS(pack_metadata(c, 4), InputError);
  CHECK_THROWS_AS(pack_metadata(c, -1), InputError);
  const Compressed24 wide = compress_2to4(std::vector<double>(8 * 32, 0.0).data(), 8, 32, 32);
  CHECK_THROWS_AS(pack_metadata(wide, 0), InputError);
}

TEST_CASE("mma_sp_f16_f32 equals the dense mma of the decompressed matrix for every selector",
          "[fragment][sparse]") {
  std::mt19937 rng(99);
  const auto b = to_half(random_matrix(rng, 16, 8));
  const auto c = to_float(random_matrix(rng, 16, 8, -2.0, 2.0));
  for (int trial = 0; trial < 3; ++trial) {
    const auto dense = random_2to4(rng, 16, 16);
    const Compressed24 comp = compress_2to4(dense.data(), 16, 16, 16);
    const auto dense_half = to_half(decompress_2to4(comp));
    auto dense_c = load_fragment(MmaShape::M16N8K16_F16_F32, Operand::C, c.data(), 8);
    mma_f16_f32(MmaShape::M16N8K16_F16_F32, load_fragment(MmaShape::M16N8K16_F16_F32, Operand::A, dense_half.data(), 16),
                load_fragment(MmaShape::M16N8K16_F16_F32, Operand::B, b.data(), 8), dense_c);
    std::vector<float> expected(128);
    store_fragment(dense_c, expected.data(), 8);

    const auto values = to_half(comp.values);
    const auto fa = load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::A, values.data(), 8);
    const auto fb = load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::B, b.data(), 8);
    for (int selector = 0; selector < 4; ++selector) {
      INFO("trial " << trial << " selector " << selector);
      SparseMetadata meta = pack_metadata(comp, selector);
      // Lanes the selector does not name are never read: fill them with invalid patterns.
      for (int lane = 0; lane < 32; ++lane)
        if ((lane & 3) != selector) meta.per_lane[static_cast<std::size_t>(lane)] = 0xffffffffu;
      auto fc = load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::C, c.data(), 8);
      mma_sp_f16_f32(fa, meta, fb, fc);
      std::vector<float> got(128);
      store_fragment(fc, got.data(), 8);
      CHECK(got == expected);

      meta.selector = (selector + 1) % 4; // the named lanes now hold 0xffffffff: positions 3, 3
      CHECK_THROWS_AS(mma_sp_f16_f32(fa, meta, fb, fc), InputError);
    }
  }
}
