// The FP64 reference: known answers (impulse, conservation, fixed points), an independent naive stencil,
// every dimension and precision, threading and cancellation.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "core/reference.hpp"

using namespace se;

namespace {

Stencil random_stencil(int dims, int radius, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  Stencil s = make_stencil(dims, radius, "random");
  for (double& w : s.weights) w = d(rng);
  return s;
}

// Deliberately simple and independent of the reference's padded buffers.
std::vector<double> naive_step(const Stencil& s, const Extent& e, const std::vector<double>& in, const Boundary& b) {
  std::vector<double> out(in.size());
  const std::vector<Tap> all = taps(s, true); // zeros too: 0 * a boundary value is still 0
  for (std::int64_t z = 0; z < e.n[2]; ++z)
    for (std::int64_t y = 0; y < e.n[1]; ++y)
      for (std::int64_t x = 0; x < e.n[0]; ++x) {
        double acc = 0;
        for (const Tap& t : all) {
          std::int64_t c[3] = {x + t.dx, y + t.dy, z + t.dz};
          bool outside = false;
          for (int d = 0; d < 3; ++d) {
            if (c[d] >= 0 && c[d] < e.n[d]) continue;
            if (b.kind == BoundaryKind::Periodic) c[d] = (c[d] % e.n[d] + e.n[d]) % e.n[d];
            else outside = true;
          }
          const double v = outside ? b.value : in[static_cast<std::size_t>((c[2] * e.n[1] + c[1]) * e.n[0] + c[0])];
          acc += t.w * v;
        }
        out[static_cast<std::size_t>((z * e.n[1] + y) * e.n[0] + x)] = acc;
      }
  return out;
}

} // namespace

TEST_CASE("a unit impulse reproduces the (mirrored) weights in 1D, 2D and 3D") {
  for (int dims = 1; dims <= 3; ++dims) {
    const Stencil s = random_stencil(dims, 2, 10 + dims);
    Extent e;
    e.dims = dims;
    for (int d = 0; d < dims; ++d) e.n[d] = 9;
    std::vector<double> v(static_cast<std::size_t>(e.points()), 0.0);
    const auto idx = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return static_cast<std::size_t>((z * e.n[1] + y) * e.n[0] + x); };
    const int c = 4, cy = dims >= 2 ? 4 : 0, cz = dims >= 3 ? 4 : 0;
    v[idx(c, cy, cz)] = 1.0;
    reference_advance(s, e, v, 1, Precision::FP64);
    for (const Tap& t : taps(s, true)) // out(x) = sum_d w(d) in(x+d), so the impulse lands at x = c - d
      REQUIRE(v[idx(c - t.dx, cy - t.dy, cz - t.dz)] == t.w);
    const double total = std::accumulate(v.begin(), v.end(), 0.0);
    CHECK(total == Approx(s.sum()).epsilon(1e-14));
  }
}

TEST_CASE("periodic heat conserves the sum over many steps") {
  for (const char* name : {"heat-1d", "heat-2d", "box-2d9p", "star-2d13p", "heat-3d", "box-3d27p"}) {
    INFO(name);
    const Stencil s = preset(name);
    Extent e;
    e.dims = s.dims;
    for (int d = 0; d < s.dims; ++d) e.n[d] = s.dims == 3 ? 12 : 37;
    auto v = initial_values(e, InitialCondition::Random, 5);
    const double before = std::accumulate(v.begin(), v.end(), 0.0);
    ReferenceOptions opt;
    opt.boundary.kind = BoundaryKind::Periodic;
    reference_advance(s, e, v, 50, Precision::FP64, opt);
    CHECK(std::accumulate(v.begin(), v.end(), 0.0) == Approx(before).epsilon(1e-12));
  }
}

TEST_CASE("a constant grid equal to the Dirichlet value is a fixed point of a sum-1 stencil") {
  const Stencil s = preset("box-2d25p");
  const Extent e = parse_extent("20x13");
  std::vector<double> v(static_cast<std::size_t>(e.points()), 0.75);
  ReferenceOptions opt;
  opt.boundary.value = 0.75;
  reference_advance(s, e, v, 10, Precision::FP64, opt);
  for (double x : v) REQUIRE(x == Approx(0.75).epsilon(1e-14));
}

TEST_CASE("the reference equals an independent naive stencil for random stencils, both boundaries") {
  for (int dims = 1; dims <= 3; ++dims)
    for (int radius : {1, 2, 3})
      for (auto kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
        INFO("dims " << dims << " radius " << radius << " " << to_string(kind));
        const Stencil s = random_stencil(dims, radius, 100 * dims + radius);
        Extent e;
        e.dims = dims;
        const std::int64_t sizes[3] = {dims == 1 ? 53 : 17, 13, 7 + 2 * radius};
        for (int d = 0; d < dims; ++d) e.n[d] = std::max<std::int64_t>(sizes[d], 2 * radius + 1);
        Boundary b{kind, kind == BoundaryKind::Dirichlet ? 0.3 : 0.0};
        auto v = initial_values(e, InitialCondition::Random, 42);
        auto expect = v;
        for (int t = 0; t < 3; ++t) expect = naive_step(s, e, expect, b);
        ReferenceOptions opt;
        opt.boundary = b;
        reference_advance(s, e, v, 3, Precision::FP64, opt);
        const auto err = compare(v, expect);
        CHECK(err.rel_l2 < 1e-14);
        CHECK(err.max_abs < 1e-12);
      }
}

TEST_CASE("FP32 and FP16 storage round every step and stay close to FP64") {
  for (const char* name : {"heat-1d", "box-2d9p", "heat-3d"}) {
    INFO(name);
    const Stencil s = preset(name);
    Extent e;
    e.dims = s.dims;
    for (int d = 0; d < s.dims; ++d) e.n[d] = s.dims == 3 ? 16 : 64;
    Grid<double> g64(e);
    Grid<float> g32(e);
    Grid<Half> g16(e);
    fill(g64, InitialCondition::Gaussian, 0);
    fill(g32, InitialCondition::Gaussian, 0);
    fill(g16, InitialCondition::Gaussian, 0);
    reference_advance(s, g64, 20);
    reference_advance(s, g32, 20);
    reference_advance(s, g16, 20);
    const auto ref = g64.to_double();
    const auto e32 = compare(g32.to_double(), ref);
    const auto e16 = compare(g16.to_double(), ref);
    CHECK(e32.rel_l2 > 0.0);
    CHECK(e32.rel_l2 < 1e-6);
    CHECK(e16.rel_l2 > e32.rel_l2);
    CHECK(e16.rel_l2 < 1e-2);
    for (float x : g32.data) REQUIRE(std::isfinite(x));
  }
}

TEST_CASE("threads give the same result as one thread; progress can cancel") {
  const Stencil s = preset("box-2d49p");
  const Extent e = parse_extent("300x301");
  auto a = initial_values(e, InitialCondition::Random, 9);
  auto b = a;
  ReferenceOptions one, many;
  one.threads = 1;
  many.threads = 4;
  reference_advance(s, e, a, 3, Precision::FP64, one);
  reference_advance(s, e, b, 3, Precision::FP64, many);
  CHECK(a == b);
  ReferenceOptions cancel;
  int calls = 0;
  cancel.progress = [&](int done, int total) {
    ++calls;
    CHECK(total == 10);
    return done < 4;
  };
  CHECK(reference_advance(s, e, a, 10, Precision::FP64, cancel) == 4);
  CHECK(calls == 4);
}

TEST_CASE("error metrics") {
  const std::vector<double> ref{3.0, 4.0}, same{3.0, 4.0}, off{3.0, 4.5}, bad{NAN, 4.0};
  CHECK(compare(same, ref).rel_l2 == 0.0);
  CHECK(compare(off, ref).rel_l2 == Approx(0.1));
  CHECK(compare(off, ref).max_abs == Approx(0.5));
  CHECK_FALSE(compare(bad, ref).finite);
  CHECK(std::isinf(compare(bad, ref).rel_l2));
  CHECK_THROWS_AS(compare(std::vector<double>{1.0}, ref), InputError);
  CHECK(error_bound(Precision::FP64, 100) == 1e-12);
  CHECK(error_bound(Precision::FP16, 1) > error_bound(Precision::FP32, 1));
}

TEST_CASE("fused steps with the boundary band fixed equal single steps") {
  for (const char* name : {"heat-1d", "box-2d9p", "heat-3d"}) {
    INFO(name);
    const Stencil s = preset(name);
    Extent e;
    e.dims = s.dims;
    for (int d = 0; d < s.dims; ++d) e.n[d] = s.dims == 3 ? 11 : 23 + d;
    const auto initial = initial_values(e, InitialCondition::Random, 77);
    Boundary b{BoundaryKind::Dirichlet, 0.25};
    // The fused kernel W^3 as one stencil of radius 3r: W composed with itself (a full convolution).
    Stencil w3 = make_stencil(s.dims, 3 * s.radius, "fused");
    {
      Extent ke;
      ke.dims = s.dims;
      for (int d = 0; d < s.dims; ++d) ke.n[d] = w3.side();
      std::vector<double> k(static_cast<std::size_t>(ke.points()), 0.0);
      const std::int64_t c = 3 * s.radius;
      k[static_cast<std::size_t>(((s.dims >= 3 ? c : 0) * ke.n[1] + (s.dims >= 2 ? c : 0)) * ke.n[0] + c)] = 1.0;
      Stencil mirrored = s; // the impulse response of out(x) = sum w(d) in(x+d) is w(-d)
      std::reverse(mirrored.weights.begin(), mirrored.weights.end());
      reference_advance(mirrored, ke, k, 3, Precision::FP64);
      w3.weights = k;
    }
    std::vector<double> single = initial, fused = initial;
    ReferenceOptions opt;
    opt.boundary = b;
    reference_advance(s, e, single, 3, Precision::FP64, opt);
    reference_advance(w3, e, fused, 1, Precision::FP64, opt);
    CHECK(compare(fused, single).max_abs > 1e-6); // the band really differs before the fix
    const auto fixed = fix_fused_boundary_band(s, e, initial, fused, 3, b);
    CHECK(fixed > 0);
    CHECK(compare(fused, single).max_abs < 1e-13);
    ReferenceOptions periodic;
    periodic.boundary.kind = BoundaryKind::Periodic;
    CHECK(fix_fused_boundary_band(s, e, initial, fused, 3, periodic.boundary) == 0);
  }
}
