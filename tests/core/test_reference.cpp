// The FP64 reference: known answers (impulse, conservation, fixed points), an independent naive stencil,
// every dimension and precision, threading and cancellation.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "core/half.hpp"
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

// The test's own oracle loop is left out of the sanitizer job's instrumentation (it made one test there take 70 s);
// the reference it checks stays instrumented.
#if defined(__clang__)
#define SE_ORACLE_UNSANITIZED __attribute__((no_sanitize("address", "undefined")))
#else
#define SE_ORACLE_UNSANITIZED
#endif

// One step, deliberately simple and independent of the reference's padded buffers: out(x) = sum over `list`
// (in its order, from 0) of w * in(x + d), the exterior from the boundary; then the storage rounding.
SE_ORACLE_UNSANITIZED std::vector<double> plain_step(const std::vector<Tap>& list, const Extent& e,
                                                     const std::vector<double>& in, const Boundary& b,
                                                     Precision storage = Precision::FP64) {
  std::vector<double> out(in.size());
  // Plain locals and pointers: the sanitizer job instruments std::array's and std::vector's accessors, which at -O1
  // stay calls.
  const std::int64_t n[3] = {e.n[0], e.n[1], e.n[2]};
  const Tap* taps_begin = list.data();
  const std::size_t ntaps = list.size();
  const double* src = in.data();
  double* dst = out.data();
  const bool periodic = b.kind == BoundaryKind::Periodic;
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x) {
        double acc = 0;
        for (std::size_t i = 0; i < ntaps; ++i) {
          const Tap& t = taps_begin[i];
          std::int64_t c[3] = {x + t.dx, y + t.dy, z + t.dz};
          bool outside = false;
          for (int d = 0; d < 3; ++d) {
            if (c[d] >= 0 && c[d] < n[d]) continue;
            if (periodic) c[d] = (c[d] % n[d] + n[d]) % n[d];
            else outside = true;
          }
          const double v = outside ? b.value : src[(c[2] * n[1] + c[1]) * n[0] + c[0]];
          acc = acc + t.w * v;
        }
        dst[(z * n[1] + y) * n[0] + x] =
            storage == Precision::FP32 ? static_cast<float>(acc) : storage == Precision::FP16 ? round_to_half(acc) : acc;
      }
  return out;
}

// Every weight, zeros too (0 * a boundary value is still 0).
std::vector<double> naive_step(const Stencil& s, const Extent& e, const std::vector<double>& in, const Boundary& b) {
  return plain_step(taps(s, true), e, in, b);
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

namespace {

// The reference's own order, written plainly: the non-zero taps in weight-array order, each product added to a
// sum that starts at 0, then the storage rounding. The vectorised, threaded reference must give these bits.
std::vector<double> ordered_steps(const Stencil& s, const Extent& e, std::vector<double> v, int steps, const Boundary& b,
                                  Precision storage = Precision::FP64) {
  const std::vector<Tap> nonzero = taps(s);
  for (int t = 0; t < steps; ++t) v = plain_step(nonzero, e, v, b, storage);
  return v;
}

Extent extent_of(std::initializer_list<std::int64_t> n) {
  Extent e;
  e.dims = static_cast<int>(n.size());
  int d = 0;
  for (const auto v : n) e.n[d++] = v;
  return e;
}

// Sizes that are not multiples of any vector width and large enough that the reference runs threaded (and, in
// 3D, in y blocks: a 200 x 190 plane of 3 planes exceeds half of a 1 MiB L2).
Extent test_extent(int dims) {
  return dims == 1 ? extent_of({200'003}) : dims == 2 ? extent_of({517, 389}) : extent_of({200, 190, 9});
}

// `steps` steps of the reference on two threads, on every ISA this CPU runs, streaming stores or not: the bits of
// `expect`; `more` checks each result further.
void check_every_isa(const Stencil& s, const Extent& e, const std::vector<double>& initial, int steps, const Boundary& b,
                     Precision storage, const std::vector<double>& expect,
                     const std::function<void(const std::vector<double>&)>& more = {}) {
  for (const CpuIsa isa : supported_cpu_isas())
    for (bool stream : {false, true}) {
      INFO(s.name << " " << e.to_string() << " " << to_string(b.kind) << " " << to_string(storage) << " "
                  << to_string(isa) << " streaming " << stream);
      ReferenceOptions o;
      o.boundary = b;
      o.isa = isa;
      o.threads = 2;
      o.streaming_stores = stream;
      auto got = initial;
      reference_advance(s, e, got, steps, storage, o);
      CHECK(got == expect);
      if (more) more(got);
    }
}

} // namespace

TEST_CASE("every preset, both boundaries: the reference gives the bits of the plain loop in its order") {
  for (const std::string& name : preset_names())
    for (const auto kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
      const Stencil s = preset(name);
      const Extent e = test_extent(s.dims);
      const Boundary b{kind, kind == BoundaryKind::Dirichlet ? 0.375 : 0.0};
      INFO(name << " " << e.to_string() << " " << to_string(kind));
      const auto initial = initial_values(e, InitialCondition::Random, 3);
      const auto expect = ordered_steps(s, e, initial, 2, b);
      ReferenceOptions o;
      o.boundary = b;
      auto got = initial;
      REQUIRE(reference_advance(s, e, got, 2, Precision::FP64, o) == 2);
      CHECK(got == expect);
      // The independent naive loop (zeros included, its own padding) agrees to rounding.
      auto naive = initial;
      for (int t = 0; t < 2; ++t) naive = naive_step(s, e, naive, b);
      CHECK(compare(got, naive).rel_l2 < 1e-15);
    }
}

TEST_CASE("every ISA this CPU runs, any thread count, streaming stores or not: the same bits") {
  for (int dims = 1; dims <= 3; ++dims)
    for (int radius : {1, 2, 3}) {
      // Random weights with a few zeros, so tap counts other than the presets' take the run-time tap loop too.
      Stencil s = random_stencil(dims, radius, 7 * dims + radius);
      for (std::size_t i = 0; i < s.weights.size(); i += 5) s.weights[i] = 0.0;
      const Extent e = dims == 1 ? extent_of({70'001}) : dims == 2 ? extent_of({301, 77}) : extent_of({45, 37, 29});
      const Boundary b{BoundaryKind::Periodic, 0.0};
      const auto initial = initial_values(e, InitialCondition::Random, 11);
      const auto expect = ordered_steps(s, e, initial, 3, b);
      for (const CpuIsa isa : supported_cpu_isas())
        for (int threads : {1, 2, 3})
          for (bool stream : {false, true}) {
            INFO(dims << "D radius " << radius << " " << to_string(isa) << ", " << threads << " threads, streaming " << stream);
            ReferenceOptions o;
            o.boundary = b;
            o.isa = isa;
            o.threads = threads;
            o.streaming_stores = stream;
            auto got = initial;
            reference_advance(s, e, got, 3, Precision::FP64, o);
            CHECK(got == expect);
          }
    }
}

TEST_CASE("rows long enough for the long-row kernel (2D and 3D), every ISA, both boundaries, FP64 and FP32: the same bits") {
  // Rows of a few thousand points: the 2r+1 input rows outgrow half of L1, so the row kernel loads every tap
  // directly and prefetches the trailing row; odd widths leave vector and point tails.
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    if (s.dims == 1) continue;
    const Extent e = s.dims == 2 ? extent_of({2051, 23}) : extent_of({1031, 11, 9});
    for (const auto kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
      for (const Precision storage : {Precision::FP64, Precision::FP32}) {
        const Boundary b{kind, kind == BoundaryKind::Dirichlet ? -0.625 : 0.0};
        const auto initial = initial_values(e, InitialCondition::Random, 5);
        check_every_isa(s, e, initial, 2, b, storage, ordered_steps(s, e, initial, 2, b, storage));
      }
  }
}

TEST_CASE("FP32 and FP16 storage: rounded after every step exactly as the plain loop rounds, on every ISA") {
  for (const char* name : {"heat-1d", "1d7p", "heat-2d", "box-2d25p", "heat-3d", "box-3d27p"})
    for (const Precision storage : {Precision::FP32, Precision::FP16}) {
      const Stencil s = preset(name);
      const Extent e = s.dims == 1 ? extent_of({4099}) : s.dims == 2 ? extent_of({131, 67}) : extent_of({37, 21, 13});
      const Boundary b{BoundaryKind::Dirichlet, 0.5};
      const auto initial = initial_values(e, InitialCondition::Random, 5);
      check_every_isa(s, e, initial, 4, b, storage, ordered_steps(s, e, initial, 4, b, storage), [&](const std::vector<double>& got) {
        bool representable = true;
        for (double v : got)
          representable = representable && (storage == Precision::FP32 ? v == static_cast<float>(v) : v == round_to_half(v));
        CHECK(representable);
      });
    }
}

TEST_CASE("a stepper keeps the grid between advances, takes new weights in place and re-pads for a wider radius") {
  const Stencil heat = preset("heat-2d");
  const Extent e = extent_of({257, 129});
  const auto initial = initial_values(e, InitialCondition::Random, 21);
  Boundary b{BoundaryKind::Dirichlet, 0.25};
  ReferenceOptions o;
  o.boundary = b;
  ReferenceStepper stepper(heat, e, initial, Precision::FP64, o);
  CHECK(stepper.extent() == e);
  CHECK(stepper.isa() == best_cpu_isa());
  CHECK(stepper.advance(2) == 2);
  CHECK(stepper.advance(3) == 3); // two calls of 2 and 3 steps are 5 steps
  auto want = ordered_steps(heat, e, initial, 5, b);
  CHECK(stepper.values() == want);

  Stencil edited = heat; // a weight edit: same radius, the values stay
  edited.at(0, 0) = 0.4;
  edited.at(1, 0) = 0.15;
  stepper.set_rule(edited, b, Precision::FP64);
  stepper.advance(2);
  want = ordered_steps(edited, e, want, 2, b);
  CHECK(stepper.values() == want);

  const Stencil wide = preset("box-2d25p"); // radius 2: new padding, same values
  Boundary periodic{BoundaryKind::Periodic, 0.0};
  stepper.set_rule(wide, periodic, Precision::FP32);
  stepper.advance(2);
  want = ordered_steps(wide, e, want, 2, periodic, Precision::FP32);
  std::vector<double> got(static_cast<std::size_t>(e.points()));
  stepper.read(got);
  CHECK(got == want);

  // Refused: a stencil the grid is too small for, a wrong-sized read; the stepper keeps its rule and values.
  Stencil wide7 = make_stencil(2, 7, "radius 7");
  wide7.at(0, 0) = 1.0;
  const auto nine = initial_values(extent_of({9, 9}), InitialCondition::Random, 2);
  ReferenceStepper small_grid(heat, extent_of({9, 9}), nine, Precision::FP64, o);
  CHECK_THROWS_AS(small_grid.set_rule(wide7, b, Precision::FP64), InputError); // 15 points across a 9 x 9 grid
  small_grid.advance(1);
  CHECK(small_grid.values() == ordered_steps(heat, extent_of({9, 9}), nine, 1, b));
  CHECK_THROWS_AS(ReferenceStepper(wide7, extent_of({5, 5}), std::vector<double>(25, 0.0), Precision::FP64), InputError);
  std::vector<double> small(3);
  CHECK_THROWS_AS(stepper.read(small), InputError);
  CHECK_THROWS_AS(ReferenceStepper(heat, e, std::vector<double>(5, 0.0), Precision::FP64), InputError);
  CHECK(stepper.values() == want);
}

TEST_CASE("a failing progress callback ends the run and its exception reaches the caller") {
  const Stencil s = preset("heat-3d");
  const Extent e = extent_of({64, 64, 64});
  auto v = initial_values(e, InitialCondition::Random, 1);
  ReferenceStepper stepper(s, e, v, Precision::FP64);
  int calls = 0;
  CHECK_THROWS_AS(stepper.advance(10, [&](int done, int) {
    ++calls;
    if (done == 3) throw InputError("stop here");
    return true;
  }), InputError);
  CHECK(calls == 3);
  // The three steps done are kept: three more give what six plain steps give.
  stepper.advance(3);
  CHECK(stepper.values() == ordered_steps(s, e, v, 6, Boundary{}));
}
