// FP64 reference stencil. Halo-padded ping-pong buffers keep the row kernel branch-free; the row kernel
// (core/cpu_kernels) holds a few vectors of outputs in registers while it walks the taps; one OpenMP team
// runs all steps of a call, each thread on its own tiles of the grid.
#include "core/reference.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <exception>

#include <fmt/format.h>

#include "core/cpu_kernels.hpp"
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

namespace {

// The padded layout: a halo of r on each side of every axis the stencil has; each row starts its interior at a
// 64-byte boundary (`lead` doubles in), rows are `pitch` doubles apart (a multiple of 8, never a multiple of
// 4 KiB, which would make the rows of a column alias in the caches).
struct Layout {
  std::array<std::int64_t, 3> n{1, 1, 1};
  std::array<std::int64_t, 3> h{0, 0, 0};
  std::int64_t lead = 0, pitch = 1, rows = 1, planes = 1;
  std::size_t size() const { return static_cast<std::size_t>(pitch * rows * planes); }
  // Interior coordinates (the halo at -h..-1 and n..n+h-1) to the padded index.
  std::int64_t index(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return ((z + h[2]) * rows + (y + h[1])) * pitch + lead + x;
  }
};

Layout make_layout(const Extent& e, int r) {
  Layout g;
  for (int d = 0; d < 3; ++d) {
    g.n[d] = e.n[d];
    g.h[d] = d < e.dims ? r : 0;
  }
  g.lead = (g.h[0] + 7) / 8 * 8;
  g.pitch = (g.lead + g.n[0] + g.h[0] + 7) / 8 * 8;
  if (g.pitch % 512 == 0) g.pitch += 8;
  g.rows = g.n[1] + 2 * g.h[1];
  g.planes = g.n[2] + 2 * g.h[2];
  return g;
}

// A box of interior points one thread updates: z outermost, then y, then a row segment x0..x1.
struct Tile {
  std::int64_t x0, x1, y0, y1, z0, z1;
};

// Splits [0, n) into `parts` ranges; boundaries on multiples of `align` where the range allows.
std::int64_t split_at(std::int64_t n, int part, int parts, std::int64_t align) {
  if (part >= parts) return n;
  const std::int64_t at = n * part / parts;
  return std::min(n, at / align * align);
}

// Each thread's tiles. Threads split the outermost axis that has enough points for all of them (z, then y, then
// x), so every dimension runs on every thread. Inside a thread's box, tiles keep the input a row or plane of
// output needs (2r+1 rows of the strip in 2D; in 3D the 2r+2 planes of the block that two planes of output read,
// the sweep going two planes at a time) within half of L2, so each input point comes from memory once per step:
// x strips for very wide rows, y blocks for large planes.
std::vector<std::vector<Tile>> make_tiles(const Layout& g, int dims, int r, int threads) {
  const std::int64_t budget = std::max<std::int64_t>(cpu_l2_bytes() / 2, 128 << 10);
  const std::int64_t reach = dims == 3 ? 2 * r + 2 : 2 * r + 1;
  std::int64_t sx = g.n[0];
  const std::int64_t rows_per_strip = dims == 3 ? reach * (4 + 2 * r) : reach; // 3D: at least a few rows per block
  if (dims >= 2 && rows_per_strip * sx * 8 > budget)
    sx = std::max<std::int64_t>(512, budget / (rows_per_strip * 8) / 8 * 8);
  std::int64_t ty = g.n[1];
  if (dims == 3 && reach * (g.n[1] + 2 * r) * sx * 8 > budget) {
    ty = std::clamp<std::int64_t>(budget / (reach * sx * 8) - 2 * r, 4, g.n[1]);
    const std::int64_t blocks = (g.n[1] + ty - 1) / ty;
    ty = (g.n[1] + blocks - 1) / blocks; // blocks of equal height: no short block re-reading its halo rows
  }
  int axis = 0;
  for (int d = dims - 1; d >= 1; --d)
    if (g.n[d] >= threads) {
      axis = d;
      break;
    }
  std::vector<std::vector<Tile>> out(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    std::array<std::int64_t, 3> lo{0, 0, 0}, hi = g.n;
    lo[axis] = split_at(g.n[axis], t, threads, axis == 0 ? 8 : 1);
    hi[axis] = split_at(g.n[axis], t + 1, threads, axis == 0 ? 8 : 1);
    if (lo[axis] >= hi[axis]) continue;
    for (std::int64_t x = lo[0]; x < hi[0]; x += sx)
      for (std::int64_t y = lo[1]; y < hi[1]; y += ty)
        out[static_cast<std::size_t>(t)].push_back(
            {x, std::min(hi[0], x + sx), y, std::min(hi[1], y + ty), lo[2], hi[2]});
  }
  return out;
}

// How far the second buffer starts after the first, modulo 4 KiB, in doubles. A step reads one buffer and writes
// the other at the same index (the buffers swap roles every step), and a load whose address matches a recent
// store's modulo 4 KiB waits on it (4 KiB aliasing): a copy moves 97 GB/s with its arrays half a page apart, 81
// with them aligned. Half a page keeps the stores furthest from a 1D or 2D stencil's loads, whose rows lie a few
// cache lines apart modulo 4 KiB; a 3D grid's rows and planes can fall anywhere (256^3: a row 2176 bytes, a plane
// 256 bytes modulo 4 KiB, so half a page put the stores one chunk behind the loads of the row before, and the
// sweep ran 7% slower on one thread). So: the offset, in whole cache lines, whose distance modulo 4 KiB from every
// tap's load, either way round, is largest, half a page where that is as good.
std::size_t buffer_apart(const Layout& g, const Stencil& s) {
  constexpr std::int64_t kPage = 4096;
  std::vector<std::int64_t> loads;
  for (const Tap& t : taps(s)) {
    const std::int64_t bytes = ((static_cast<std::int64_t>(t.dz) * g.rows + t.dy) * g.pitch + t.dx) * 8;
    loads.push_back((bytes % kPage + kPage) % kPage);
  }
  std::int64_t best = kPage / 2, best_score = -1;
  for (std::int64_t apart = 64; apart < kPage; apart += 64) {
    std::int64_t score = kPage;
    for (const std::int64_t t : loads)
      for (const std::int64_t store : {apart, kPage - apart}) {
        const std::int64_t d = ((store - t) % kPage + kPage) % kPage;
        score = std::min(score, std::min(d, kPage - d));
      }
    if (score > best_score || (score == best_score && std::abs(apart - kPage / 2) < std::abs(best - kPage / 2)))
      best = apart, best_score = score;
  }
  return static_cast<std::size_t>(best / 8);
}

cpu_kernels::Rounding rounding_for(Precision storage) {
  switch (storage) {
  case Precision::FP32: return cpu_kernels::Rounding::FP32;
  case Precision::FP16: return cpu_kernels::Rounding::FP16;
  default: return cpu_kernels::Rounding::None;
  }
}

} // namespace

struct ReferenceStepper::State {
  Extent extent;
  Stencil stencil;
  Boundary boundary;
  Precision storage = Precision::FP64;
  CpuIsa isa = CpuIsa::Baseline;
  const cpu_kernels::Set* kernels = nullptr;
  int requested_threads = 0, threads = 1;
  std::optional<bool> requested_stream;
  bool stream = false, prefetch = false, long_rows = false;
  Layout g;
  cpu_kernels::DoubleBuffer buf[2];
  int current = 0; // buf[current] holds the values
  // The second buffer starts `apart` doubles after the first, modulo 4 KiB (buffer_apart).
  static constexpr std::size_t kMaxApart = 512;
  static constexpr std::size_t kSlack = 8; // the row kernel may load a vector past the last point it reads
  std::size_t apart = kMaxApart / 2;
  double* data(int i) const { return buf[i].get() + (i == 1 ? apart : 0); }
  std::vector<std::ptrdiff_t> offsets;
  std::vector<double> weights;
  std::vector<std::vector<Tile>> tiles;

  // Taps, team size, tiles and store kind for the current stencil and layout.
  void plan() {
    offsets.clear();
    weights.clear();
    for (const Tap& t : taps(stencil)) {
      offsets.push_back(static_cast<std::ptrdiff_t>((static_cast<std::int64_t>(t.dz) * g.rows + t.dy) * g.pitch + t.dx));
      weights.push_back(t.w);
    }
    const double work = static_cast<double>(extent.points()) * std::max<std::size_t>(weights.size(), 1);
    threads = work < 2e5 ? 1 : (requested_threads > 0 ? requested_threads : cpu_thread_count());
    tiles = make_tiles(g, extent.dims, stencil.radius, threads);
    stream = requested_stream.value_or(2.0 * static_cast<double>(g.size()) * sizeof(double) >
                                       static_cast<double>(cpu_llc_bytes()));
    prefetch = extent.dims >= 2;
    // Rows whose 2r+1 rows of input outgrow half of L1 (a 2D grid's rows of a thousand points and more): the
    // row kernel's long-row form (cpu_kernels.hpp), measured faster there, slower on 3D's short rows.
    std::int64_t width = g.n[0];
    for (const auto& mine : tiles)
      if (!mine.empty()) width = mine.front().x1 - mine.front().x0;
    long_rows = prefetch && (2 * stencil.radius + 1) * width * static_cast<std::int64_t>(sizeof(double)) > cpu_l1_bytes() / 2;
  }

  // New buffers for the current stencil's radius, holding `values` inside halos of the boundary value.
  // Throws InputError (keeping the old buffers) when the machine lacks the memory.
  void load(std::span<const double> values) {
    const Layout next = make_layout(extent, stencil.radius);
    check_host_memory(static_cast<std::uint64_t>(next.size()) * 2 * sizeof(double), "the reference's two padded buffers");
    cpu_kernels::DoubleBuffer fresh[2] = {cpu_kernels::allocate_doubles(next.size() + kSlack),
                                          cpu_kernels::allocate_doubles(next.size() + kMaxApart + kSlack)};
    g = next;
    apart = buffer_apart(g, stencil);
    buf[0] = std::move(fresh[0]);
    buf[1] = std::move(fresh[1]);
    current = 0;
    plan();
    const double outside = boundary.kind == BoundaryKind::Periodic ? 0.0 : boundary.value;
    const std::int64_t padded_rows = g.rows * g.planes;
    // Written by the threads that will compute on them (first touch), row by row.
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
    for (std::int64_t row = 0; row < padded_rows; ++row) {
      const std::int64_t y = row % g.rows - g.h[1], z = row / g.rows - g.h[2];
      for (int i = 0; i < 2; ++i) {
        double* p = data(i) + row * g.pitch;
        std::fill_n(p, g.pitch, outside);
        if (y >= 0 && y < g.n[1] && z >= 0 && z < g.n[2])
          std::copy_n(values.data() + (z * g.n[1] + y) * g.n[0], g.n[0], p + g.lead);
      }
    }
  }

  void read(std::span<double> out) const {
    const double* a = data(current);
    const std::int64_t rows = g.n[1] * g.n[2];
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
    for (std::int64_t row = 0; row < rows; ++row)
      std::copy_n(a + g.index(0, row % g.n[1], row / g.n[1]), g.n[0], out.data() + row * g.n[0]);
  }

  // Periodic halos of `a`, axis after axis so edges and corners come out right; called by every thread of the team.
  void fill_periodic_halo(double* a) const {
    const std::int64_t nx = g.n[0], hx = g.h[0];
    if (hx > 0) {
      const std::int64_t rows = g.n[1] * g.n[2];
#pragma omp for schedule(static)
      for (std::int64_t row = 0; row < rows; ++row) {
        double* p = a + g.index(0, row % g.n[1], row / g.n[1]);
        std::copy_n(p + nx - hx, hx, p - hx);
        std::copy_n(p, hx, p + nx);
      }
    }
    if (g.h[1] > 0) {
      const std::int64_t hy = g.h[1], ny = g.n[1];
#pragma omp for schedule(static)
      for (std::int64_t z = 0; z < g.n[2]; ++z)
        for (std::int64_t i = 0; i < hy; ++i) {
          const std::int64_t row0 = g.index(-g.lead, 0, z) - hy * g.pitch; // the first halo row of plane z
          std::copy_n(a + row0 + (ny + i) * g.pitch, g.pitch, a + row0 + i * g.pitch);
          std::copy_n(a + row0 + (hy + i) * g.pitch, g.pitch, a + row0 + (hy + ny + i) * g.pitch);
        }
    }
    if (g.h[2] > 0) {
      const std::int64_t hz = g.h[2], nz = g.n[2], plane = g.rows * g.pitch;
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < hz; ++i) {
        std::copy_n(a + (nz + i) * plane, plane, a + i * plane);
        std::copy_n(a + (hz + i) * plane, plane, a + (hz + nz + i) * plane);
      }
    }
  }
};

ReferenceStepper::ReferenceStepper(const Stencil& s, const Extent& extent, std::span<const double> values,
                                   Precision storage, const ReferenceOptions& options)
    : state_(std::make_unique<State>()) {
  validate(s);
  check_extent_fits_stencil(extent, s);
  if (values.size() != static_cast<std::size_t>(extent.points())) throw InputError("reference: grid size mismatch");
  State& st = *state_;
  st.extent = extent;
  st.stencil = s;
  st.boundary = options.boundary;
  st.storage = storage;
  st.isa = options.isa.value_or(best_cpu_isa());
  st.kernels = &cpu_kernels::kernels(st.isa);
  st.requested_threads = options.threads;
  st.requested_stream = options.streaming_stores;
  st.load(values);
}

ReferenceStepper::~ReferenceStepper() = default;
ReferenceStepper::ReferenceStepper(ReferenceStepper&&) noexcept = default;
ReferenceStepper& ReferenceStepper::operator=(ReferenceStepper&&) noexcept = default;

void ReferenceStepper::set_rule(const Stencil& s, const Boundary& boundary, Precision storage) {
  validate(s);
  check_extent_fits_stencil(state_->extent, s);
  State& st = *state_;
  const bool same_halo = s.radius == st.stencil.radius && boundary.kind == st.boundary.kind &&
                         (boundary.kind == BoundaryKind::Periodic || boundary.value == st.boundary.value);
  st.storage = storage;
  if (same_halo) {
    st.stencil = s;
    st.plan();
    return;
  }
  const std::vector<double> v = values();
  const Stencil old_stencil = st.stencil;
  const Boundary old_boundary = st.boundary;
  st.stencil = s;
  st.boundary = boundary;
  try {
    st.load(v);
  } catch (...) {
    st.stencil = old_stencil;
    st.boundary = old_boundary;
    throw;
  }
}

int ReferenceStepper::advance(int steps, const StepProgress& progress) {
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  State& st = *state_;
  const cpu_kernels::Set& k = *st.kernels;
  cpu_kernels::Taps taps{st.offsets.data(), st.weights.data(), static_cast<int>(st.weights.size())};
  if (!st.offsets.empty()) {
    taps.prefetch = st.prefetch;
    taps.long_rows = st.long_rows;
    taps.prefetch_offset = *std::max_element(st.offsets.begin(), st.offsets.end());
  }
  const cpu_kernels::Rounding rounding = rounding_for(st.storage);
  const bool periodic = st.boundary.kind == BoundaryKind::Periodic;
  const int planned = st.threads;
  int done = 0;
  bool stop = false;
  std::exception_ptr failure;
  // One team for the whole run: the threads wait at barriers between steps instead of being created per step.
#pragma omp parallel num_threads(planned) if (planned > 1)
  {
    const int team = omp_get_num_threads(), me = omp_get_thread_num();
    double* a = st.data(st.current);
    double* b = st.data(1 - st.current);
    for (int step = 0; step < steps; ++step) {
      if (periodic) st.fill_periodic_halo(a);
      for (int t = me; t < planned; t += team) { // a smaller team than planned still covers every tile
        const std::vector<Tile>& mine = st.tiles[static_cast<std::size_t>(t)];
        for (std::size_t j = 0; j < mine.size(); ++j) {
          const Tile& tile = mine[j];
          // 3D: two planes at a time (Rows::pair), the planes between them read from L2 once for both.
          for (std::int64_t z = tile.z0; z < tile.z1;) {
            const std::int64_t planes = st.extent.dims == 3 && z + 1 < tile.z1 ? 2 : 1;
            const std::int64_t i = st.g.index(tile.x0, tile.y0, z);
            cpu_kernels::Rows rows{b + i, a + i, tile.x1 - tile.x0, tile.y1 - tile.y0, static_cast<std::ptrdiff_t>(st.g.pitch)};
            // The prefetch goes on where this thread goes next: the next planes of the block, then the next tile.
            rows.whole_rows = tile.x0 == 0 && tile.x1 == st.g.n[0];
            if (z + planes < tile.z1) rows.next = st.g.index(tile.x0, tile.y0, z + planes) - i;
            else if (j + 1 < mine.size()) rows.next = st.g.index(mine[j + 1].x0, mine[j + 1].y0, mine[j + 1].z0) - i;
            if (planes == 2) {
              rows.pair = static_cast<std::ptrdiff_t>(st.g.index(0, 0, 1) - st.g.index(0, 0, 0));
              cpu_kernels::Taps both = taps;
              both.prefetch_offset += rows.pair; // the second plane's leading tap
              k.rows(rows, both, rounding, st.stream);
            } else {
              k.rows(rows, taps, rounding, st.stream);
            }
            z += planes;
          }
        }
      }
      if (st.stream) cpu_kernels::store_fence();
      std::swap(a, b);
#pragma omp barrier
#pragma omp master
      {
        done = step + 1;
        if (progress) {
          try {
            stop = !progress(done, steps);
          } catch (...) {
            failure = std::current_exception();
            stop = true;
          }
        }
      }
      if (progress) {
#pragma omp barrier
      }
      if (stop) break;
    }
  }
  if (done % 2 == 1) st.current = 1 - st.current;
  if (failure) std::rethrow_exception(failure);
  return done;
}

void ReferenceStepper::read(std::span<double> out) const {
  if (out.size() != static_cast<std::size_t>(state_->extent.points())) throw InputError("reference: grid size mismatch");
  state_->read(out);
}

std::vector<double> ReferenceStepper::values() const {
  std::vector<double> v(static_cast<std::size_t>(state_->extent.points()));
  state_->read(v);
  return v;
}

const Extent& ReferenceStepper::extent() const { return state_->extent; }
CpuIsa ReferenceStepper::isa() const { return state_->isa; }
int ReferenceStepper::threads() const { return state_->threads; }
bool ReferenceStepper::streaming() const { return state_->stream; }

int reference_advance(const Stencil& s, const Extent& extent, std::vector<double>& values, int steps,
                      Precision storage, const ReferenceOptions& options) {
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  ReferenceStepper stepper(s, extent, values, storage, options);
  const int done = stepper.advance(steps, options.progress);
  stepper.read(values);
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
