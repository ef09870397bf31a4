// FP64 reference stencil. Halo-padded ping-pong buffers keep the inner loop branch-free and
// vectorisable (tap-outer, x-inner); rows are split across threads.
#include "core/reference.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "core/error.hpp"

namespace se {

ErrorMetrics compare(std::span<const double> result, std::span<const double> reference) {
  if (result.size() != reference.size()) throw InputError("compare: grids of different sizes");
  ErrorMetrics m;
  long double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (!std::isfinite(result[i])) {
      m.finite = false;
      m.max_abs = INFINITY;
      continue;
    }
    const double d = result[i] - reference[i];
    diff2 += static_cast<long double>(d) * d;
    ref2 += static_cast<long double>(reference[i]) * reference[i];
    m.max_abs = std::max(m.max_abs, std::abs(d));
  }
  if (!m.finite) {
    m.rel_l2 = INFINITY;
    return m;
  }
  m.rel_l2 = static_cast<double>(ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2));
  return m;
}

double error_bound(Precision arithmetic, int steps) {
  // Rounding errors of a stable stencil grow at most linearly in the step count.
  const double s = std::max(1, steps);
  switch (arithmetic) {
  case Precision::FP64: return 1e-12;
  case Precision::FP32: return std::min(1e-3, 1e-6 * s);
  case Precision::FP16: return std::min(5e-2, 5e-3 * std::sqrt(s));
  }
  return 0;
}

namespace {

struct Padded {
  std::array<std::int64_t, 3> n{1, 1, 1}; // interior
  std::array<std::int64_t, 3> p{1, 1, 1}; // padded
  std::array<std::int64_t, 3> h{0, 0, 0}; // halo width per axis
  std::size_t index(std::int64_t x, std::int64_t y, std::int64_t z) const { // padded coordinates
    return static_cast<std::size_t>((z * p[1] + y) * p[0] + x);
  }
};

// Periodic halos, one axis after the other so edges and corners come out right.
void fill_periodic_halo(const Padded& g, std::vector<double>& a) {
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t h = g.h[axis];
    if (h == 0) continue;
    const std::int64_t n = g.n[axis];
    std::array<std::int64_t, 3> lo{0, 0, 0}, hi = g.p;
    for (int d = axis + 1; d < 3; ++d) { lo[d] = g.h[d]; hi[d] = g.h[d] + g.n[d]; } // later axes: interior only
    for (std::int64_t z = lo[2]; z < hi[2]; ++z)
      for (std::int64_t y = lo[1]; y < hi[1]; ++y)
        for (std::int64_t x = lo[0]; x < hi[0]; ++x) {
          std::array<std::int64_t, 3> c{x, y, z};
          const std::int64_t i = c[axis];
          if (i >= h && i < h + n) continue;
          c[axis] = h + (((i - h) % n) + n) % n;
          a[g.index(x, y, z)] = a[g.index(c[0], c[1], c[2])];
        }
  }
}

template <typename F> void parallel_rows(std::int64_t rows, int threads, F&& f) {
  if (threads <= 1 || rows < 2) {
    f(0, rows);
    return;
  }
  std::vector<std::thread> pool;
  const std::int64_t chunk = (rows + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const std::int64_t b = t * chunk, e = std::min(rows, b + chunk);
    if (b >= e) break;
    pool.emplace_back([&f, b, e] { f(b, e); });
  }
  for (auto& th : pool) th.join();
}

} // namespace

int reference_advance(const Stencil& s, const Extent& extent, std::vector<double>& values, int steps,
                      Precision storage, const ReferenceOptions& options) {
  validate(s);
  check_extent_fits_stencil(extent, s);
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  if (values.size() != static_cast<std::size_t>(extent.points())) throw InputError("reference: grid size mismatch");
  const int r = s.radius;
  Padded g;
  for (int d = 0; d < 3; ++d) {
    g.n[d] = extent.n[d];
    g.h[d] = d < extent.dims ? r : 0;
    g.p[d] = g.n[d] + 2 * g.h[d];
  }
  const std::uint64_t padded_points = static_cast<std::uint64_t>(g.p[0]) * g.p[1] * g.p[2];
  check_host_memory(padded_points * 2 * sizeof(double), "the reference's two padded buffers");
  const bool periodic = options.boundary.kind == BoundaryKind::Periodic;
  std::vector<double> a(padded_points, periodic ? 0.0 : options.boundary.value), b = a;
  for (std::int64_t z = 0; z < g.n[2]; ++z)
    for (std::int64_t y = 0; y < g.n[1]; ++y)
      std::copy_n(values.begin() + static_cast<std::ptrdiff_t>((z * g.n[1] + y) * g.n[0]), g.n[0],
                  a.begin() + static_cast<std::ptrdiff_t>(g.index(g.h[0], y + g.h[1], z + g.h[2])));

  struct Tap { std::ptrdiff_t offset; double w; };
  std::vector<Tap> taps;
  const auto sh = s.shape();
  for (int dz = 0; dz < sh[2]; ++dz)
    for (int dy = 0; dy < sh[1]; ++dy)
      for (int dx = 0; dx < sh[0]; ++dx) {
        const double w = s.weights[(static_cast<std::size_t>(dz) * sh[1] + dy) * sh[0] + dx];
        if (w == 0.0) continue;
        // Offset from the output's padded index to this neighbour.
        const std::ptrdiff_t off = (static_cast<std::ptrdiff_t>(dz - (sh[2] - 1) / 2) * g.p[1] + (dy - (sh[1] - 1) / 2)) * g.p[0] +
                                   (dx - r);
        taps.push_back({off, w});
      }

  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const double work = static_cast<double>(extent.points()) * std::max<std::size_t>(taps.size(), 1);
  const int threads = work < 2e5 ? 1 : (options.threads > 0 ? options.threads : hw);
  const std::int64_t rows = g.n[1] * g.n[2];

  int done = 0;
  for (; done < steps; ++done) {
    if (periodic) fill_periodic_halo(g, a);
    parallel_rows(rows, threads, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t row = begin; row < end; ++row) {
        const std::int64_t y = row % g.n[1], z = row / g.n[1];
        const std::size_t base = g.index(g.h[0], y + g.h[1], z + g.h[2]);
        double* out = b.data() + base;
        const double* in = a.data() + base;
        std::fill_n(out, g.n[0], 0.0);
        for (const Tap& t : taps) {
          const double* src = in + t.offset;
          const double w = t.w;
          for (std::int64_t x = 0; x < g.n[0]; ++x) out[x] += w * src[x];
        }
        if (storage == Precision::FP32)
          for (std::int64_t x = 0; x < g.n[0]; ++x) out[x] = static_cast<float>(out[x]);
        else if (storage == Precision::FP16)
          for (std::int64_t x = 0; x < g.n[0]; ++x) out[x] = round_to_half(out[x]);
      }
    });
    std::swap(a, b);
    if (options.progress && !options.progress(done + 1, steps)) {
      ++done;
      break;
    }
  }
  for (std::int64_t z = 0; z < g.n[2]; ++z)
    for (std::int64_t y = 0; y < g.n[1]; ++y)
      std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(g.index(g.h[0], y + g.h[1], z + g.h[2])), g.n[0],
                  values.begin() + static_cast<std::ptrdiff_t>((z * g.n[1] + y) * g.n[0]));
  return done;
}

std::int64_t fix_fused_boundary_band(const Stencil& s, const Extent& extent, const std::vector<double>& initial,
                                     std::vector<double>& result, int fused_steps, const Boundary& boundary) {
  if (boundary.kind == BoundaryKind::Periodic || fused_steps <= 1 || s.radius == 0) return 0;
  const std::int64_t band = static_cast<std::int64_t>(fused_steps - 1) * s.radius;
  const std::int64_t strip = static_cast<std::int64_t>(2 * fused_steps - 1) * s.radius;
  std::vector<char> done(result.size(), 0);
  std::int64_t fixed = 0;
  ReferenceOptions opt;
  opt.boundary = boundary;
  opt.threads = 1;
  for (int axis = 0; axis < extent.dims; ++axis)
    for (int side = 0; side < 2; ++side) {
      // A strip along this face, full extent along the other axes. Its cut side is wrong after T steps only
      // to a depth of T*r, which never reaches the band we keep when the strip is (2T-1)*r wide.
      const std::int64_t n = extent.n[axis];
      const std::int64_t width = std::min(n, strip);
      const std::int64_t first = side == 0 ? 0 : n - width; // first index of the strip along `axis`
      Extent sub = extent;
      sub.n[axis] = width;
      if (sub.n[axis] < s.side()) sub.n[axis] = std::min(n, static_cast<std::int64_t>(s.side()));
      std::vector<double> v(static_cast<std::size_t>(sub.points()));
      const auto full_index = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        std::int64_t c[3] = {x, y, z};
        c[axis] += first;
        return static_cast<std::size_t>((c[2] * extent.n[1] + c[1]) * extent.n[0] + c[0]);
      };
      for (std::int64_t z = 0; z < sub.n[2]; ++z)
        for (std::int64_t y = 0; y < sub.n[1]; ++y)
          for (std::int64_t x = 0; x < sub.n[0]; ++x)
            v[static_cast<std::size_t>((z * sub.n[1] + y) * sub.n[0] + x)] = initial[full_index(x, y, z)];
      reference_advance(s, sub, v, fused_steps, Precision::FP64, opt);
      for (std::int64_t z = 0; z < sub.n[2]; ++z)
        for (std::int64_t y = 0; y < sub.n[1]; ++y)
          for (std::int64_t x = 0; x < sub.n[0]; ++x) {
            const std::int64_t c[3] = {x, y, z};
            const std::int64_t depth = side == 0 ? c[axis] : sub.n[axis] - 1 - c[axis]; // distance from the face
            if (depth >= band) continue;
            const std::size_t i = full_index(x, y, z);
            if (!done[i]) ++fixed;
            done[i] = 1;
            result[i] = v[static_cast<std::size_t>((z * sub.n[1] + y) * sub.n[0] + x)];
          }
    }
  return fixed;
}

} // namespace se
