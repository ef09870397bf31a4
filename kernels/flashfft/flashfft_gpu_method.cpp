// FlashFFTStencil in the GPU method registry: the plan the kernel runs (core's, at a compiled tile), the
// device grids and passes (ping-pong: each pass reads the previous pass's output), the exact Dirichlet band
// after fused passes (LoRAStencil's band-fix kernel, the same arithmetic as core's fix_fused_boundary_band).
#include "kernels/flashfft/flashfft_gpu_method.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/flashfft/flashfft_emulation.hpp"
#include "core/flashfft/flashfft_method.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

#if defined(SE_HAVE_CUDA)
#include <cuda_runtime.h>

#include "kernels/flashfft/flashfft_launch.hpp"
#include "kernels/lorastencil/lora_gpu_plan.hpp"
#include "kernels/lorastencil/lora_launch.hpp"
#endif

namespace se {
namespace flashfft_gpu {

const std::vector<Tile1d>& tiles_1d() {
  static const std::vector<Tile1d> t = {{16, 15, 1, 1}, {32, 15, 2, 1}, {16, 31, 1, 2}};
  return t;
}
const std::vector<Tile1d>& tiles_2d() {
  static const std::vector<Tile1d> t = {{16, 16, 1, 1}, {32, 16, 2, 1}, {16, 32, 1, 2}};
  return t;
}
const std::vector<Tile1d>& tiles_3d() {
  static const std::vector<Tile1d> t = {{16, 16, 1, 1}};
  return t;
}

namespace {
constexpr double kMmaFlops = 67e12; // H200 FP64 m16n8k4 (notes/gpu.md: 66 measured)
constexpr double kBandwidth = 4.0e12;
constexpr int kMaxAutoDepth1d = 64, kMaxAutoDepth2d = 8, kMaxAutoDepth3d = 3;
constexpr int kCubeSlices = 8; // the 3D kernel's z extent (one slice per warp, kernels/flashfft/flashfft_launch.hpp)
} // namespace

const Tile1d* tile_of(const FlashFftPlan& p) {
  if (p.whole_period || p.dims < 1 || p.dims > 3) return nullptr;
  if (p.dims == 3 && p.depth.length != kCubeSlices) return nullptr;
  for (const Tile1d& t : p.dims == 1 ? tiles_1d() : p.dims == 2 ? tiles_2d() : tiles_3d())
    if (t.L1 == p.rows.length && t.L2 == p.cols.length) return &t;
  return nullptr;
}

namespace {
// The prediction from the geometry alone (the plan's tile and stitched sizes follow from it), so the search over
// tiles and depths builds only the plan it keeps.
GpuPrediction predict_tile(int dims, const Tile1d& t, int T, int radius) {
  GpuPrediction g;
  const double shrink = 2.0 * T * radius;
  const double in = static_cast<double>(t.L1) * t.L2;
  if (dims == 3) { // 16 x 16 x 8 cubes: steps 1 + 2 on all 8 slices, 4 + 5 on the Sz output slices
    const double sz = kCubeSlices - shrink, out = (t.L1 - shrink) * (t.L2 - shrink) * sz;
    if (out < 1 || sz < 1) return g;
    const double outputs = 2.0 * out * T;
    g.mma_per_point = 64.0 * (kCubeSlices + sz) / outputs;
    g.bytes_per_point = 8.0 * (2.0 * in * kCubeSlices + 2.0 * out) / outputs;
    g.seconds_per_point = std::max(g.mma_per_point * 1024.0 / kMmaFlops, g.bytes_per_point / kBandwidth);
    return g;
  }
  const double out = dims == 1 ? in - shrink : (t.L1 - shrink) * (t.L2 - shrink);
  if (out < 1) return g;
  const double per_pair_mma = 64.0 * t.t1 * t.t2 * (t.t1 + t.t2); // steps 1, 2, 4, 5
  const double outputs = 2.0 * out * T;
  g.mma_per_point = per_pair_mma / outputs;
  g.bytes_per_point = 8.0 * (2.0 * in + 2.0 * out) / outputs;
  g.seconds_per_point = std::max(g.mma_per_point * 1024.0 / kMmaFlops, g.bytes_per_point / kBandwidth);
  return g;
}
} // namespace

GpuPrediction predict(const FlashFftPlan& p) {
  const Tile1d* t = tile_of(p);
  return t ? predict_tile(p.dims, *t, p.fused_steps, p.stencil.radius) : GpuPrediction{};
}

FlashFftPlan plan_for_gpu(const Stencil& s, int fused_steps) {
  const int most = s.dims == 1 ? kMaxAutoDepth1d : s.dims == 2 ? kMaxAutoDepth2d : kMaxAutoDepth3d;
  const int lo = fused_steps > 0 ? fused_steps : 1, hi = fused_steps > 0 ? fused_steps : most;
  const auto& tiles = s.dims == 1 ? tiles_1d() : s.dims == 2 ? tiles_2d() : tiles_3d();
  double best = std::numeric_limits<double>::infinity();
  const Tile1d* best_tile = nullptr;
  int best_T = 0;
  int longest = 0; // the most points along the shortest side of a tile
  const auto shortest_side = [&](const Tile1d& t) {
    return s.dims == 1 ? t.L1 * t.L2 : s.dims == 2 ? std::min(t.L1, t.L2) : std::min({t.L1, t.L2, kCubeSlices});
  };
  for (const Tile1d& t : tiles) longest = std::max(longest, shortest_side(t));
  for (int T = lo; T <= hi; ++T)
    for (const Tile1d& t : tiles) {
      const int shortest = shortest_side(t);
      if (shortest - 2 * T * s.radius < 1) continue;
      const double time = predict_tile(s.dims, t, T, s.radius).seconds_per_point;
      if (time < best * (1 - 1e-9)) {
        best = time;
        best_tile = &t;
        best_T = T;
      }
    }
  if (!best_tile)
    throw InputError(fmt::format("FlashFFTStencil's GPU kernel cannot fuse T = {} steps of radius {}: the halo of {} "
                                 "points per side leaves no output in its tiles ({} points along their shortest side); fuse "
                                 "at most {}",
                                 fused_steps, s.radius, fused_steps * s.radius, longest,
                                 (longest - 1) / (2 * std::max(1, s.radius))));
  FlashFftOptions options;
  options.fused_steps = best_T;
  options.rows = best_tile->L1;
  options.cols = best_tile->L2;
  if (s.dims == 3) options.depth = kCubeSlices;
  FlashFftPlan chosen = make_flashfft_plan(s, options);
  // The error of k_f^T, measured (core's fusion-error curve on one periodic tile of this size, against T steps of
  // the FP64 reference): a depth past kFlashFftFusionErrorLimit is refused with the figure.
  const FusionErrorSample err = measure_plan_fusion_error(chosen);
  if (fused_steps == 0 && (!err.finite || err.rel_l2 > kFlashFftFusionErrorLimit))
    for (int T = chosen.fused_steps - 1; T >= 1; --T) { // the automatic depth: the deepest shallower one that passes
      try {
        return plan_for_gpu(s, T);
      } catch (const InputError&) {
      }
    }
  if (!err.finite || err.rel_l2 > kFlashFftFusionErrorLimit)
    throw InputError(fmt::format("FlashFFTStencil refuses T = {} fused steps of {}: k_f^T's relative L2 error, measured "
                                 "on one periodic {} x {} tile against {} steps of the FP64 reference, is {:.3g}, past "
                                 "the {:.0e} bound; fuse fewer steps",
                                 chosen.fused_steps, s.name, chosen.rows.length, chosen.cols.length, chosen.fused_steps,
                                 err.rel_l2, kFlashFftFusionErrorLimit));
  const GpuPrediction g = predict(chosen);
  chosen.tile_choice = fmt::format(
      "the GPU kernel's tile ({}) and T with the least predicted time on an H200 (max of m16n8k4 FLOPs / 67 TFLOP/s "
      "and bytes / 4 TB/s). Predicted per point and base step at T = {}: {:.3f} bytes, {:.4f} m16n8k4 ({:.1f} MMA "
      "FLOPs), {:.0f} GStencil/s; fusion error measured on one periodic tile: rel L2 {:.2e} (refused past {:.0e})",
      s.dims == 1   ? "compiled for 16x15, 32x15, 16x31"
      : s.dims == 2 ? "compiled for 16x16, 32x16, 16x32"
                    : "compiled for 16x16 (y x x) x 8 (z)",
      chosen.fused_steps,
      g.bytes_per_point, g.mma_per_point, 1024.0 * g.mma_per_point, 1e-9 / g.seconds_per_point, err.rel_l2,
      kFlashFftFusionErrorLimit);
  return chosen;
}

} // namespace flashfft_gpu

namespace {

#if defined(SE_HAVE_CUDA)
using flashfft_gpu::Shape1d;

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw InputError(fmt::format("FlashFFTStencil GPU: {} failed: {}", what, cudaGetErrorString(err)));
  }
}

// The plan's constant operands in the fragment order the kernel reads (flashfft_kernel_1d.cu).
std::vector<double> pack_constants(const FlashFftPlan& p, Shape1d s) {
  const int T1 = s.t1, T2 = s.t2, P2 = p.cols.padded;
  std::vector<double> out;
  out.reserve(flashfft_gpu::constant_doubles(s));
  const auto a_frag = [&](const FftMatrix& m, int mtiles, int ksteps) {
    for (int mi = 0; mi < mtiles; ++mi)
      for (int kk = 0; kk < ksteps; ++kk)
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane >> 2, t = lane & 3;
          out.push_back(m.at(16 * mi + g, 4 * kk + t));
          out.push_back(m.at(16 * mi + g + 8, 4 * kk + t));
        }
  };
  const auto b_frag = [&](const FftMatrix& m, int ksteps, int ntiles) {
    for (int kk = 0; kk < ksteps; ++kk)
      for (int nj = 0; nj < ntiles; ++nj)
        for (int lane = 0; lane < 32; ++lane) out.push_back(m.at(4 * kk + (lane & 3), 8 * nj + (lane >> 2)));
  };
  a_frag(p.forward_rows, 2 * T1, 8 * T1);
  b_frag(p.forward_cols_swizzled, 8 * T2, 4 * T2);
  a_frag(p.inverse_cols_swizzled, 2 * T2, 8 * T2);
  b_frag(p.inverse_rows_swizzled, 8 * T1, 4 * T1);
  for (int mi = 0; mi < T1; ++mi)
    for (int c = 0; c < 2 * T2; ++c)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < 4; ++r) {
          const int row = 16 * mi + (lane >> 2) + (r >= 2 ? 8 : 0), col = 8 * c + 2 * (lane & 3) + (r & 1);
          const std::complex<double> k = p.fused_spectrum[static_cast<std::size_t>(row * P2 + col)] * p.inverse_scale;
          out.push_back(k.real());
          out.push_back(k.imag());
        }
  if (out.size() != flashfft_gpu::constant_doubles(s)) throw std::logic_error("FlashFFTStencil GPU: constant packing");
  return out;
}

// 3D: the t1 = t2 = 1 matrices as above, then k_f^T / N per (kz, cell) with cell = (c * 4 + r) * 32 + lane
// (the thread that owns it in flashfft_kernel_3d.cu's z phase), then Fz row by row (flashfft_launch.hpp).
std::vector<double> pack_constants_3d(const FlashFftPlan& p) {
  const int P1 = p.rows.padded, P2 = p.cols.padded, Lz = p.depth.length;
  std::vector<double> out = [&] {
    FlashFftPlan flat = p;
    flat.fused_spectrum.resize(static_cast<std::size_t>(P1 * P2)); // the k_f^T part is replaced below
    std::vector<double> v = pack_constants(flat, Shape1d{1, 1});
    v.resize(v.size() - static_cast<std::size_t>(2 * 32 * 8));
    return v;
  }();
  for (int kz = 0; kz < Lz; ++kz)
    for (int c = 0; c < 2; ++c)
      for (int r = 0; r < 4; ++r)
        for (int lane = 0; lane < 32; ++lane) {
          const int row = (lane >> 2) + (r >= 2 ? 8 : 0), col = 8 * c + 2 * (lane & 3) + (r & 1);
          const std::complex<double> k =
              p.fused_spectrum[static_cast<std::size_t>((kz * P1 + row) * P2 + col)] * p.inverse_scale;
          out.push_back(k.real());
          out.push_back(k.imag());
        }
  for (int k = 0; k < Lz; ++k)
    for (int z = 0; z < Lz; ++z) {
      out.push_back(p.depth.re.at(k, z));
      out.push_back(p.depth.im.at(k, z));
    }
  if (out.size() != flashfft_gpu::constant_doubles_3d()) throw std::logic_error("FlashFFTStencil GPU: 3D constant packing");
  return out;
}

template <typename T> T* device_copy(const std::vector<T>& host, const char* what) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<std::size_t>(host.size(), 1) * sizeof(T)), what);
  if (!host.empty()) check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), what);
  return static_cast<T*>(p);
}

class FlashFftStepper final : public GridStepper {
public:
  FlashFftStepper(const FlashFftPlan& plan, const Extent& e, const Boundary& b) : extent_(e), boundary_(b) {
    check_extent_fits_stencil(e, plan.stencil);
    const std::size_t points = static_cast<std::size_t>(e.points());
    require_device_memory(2 * points * sizeof(double), "FlashFFTStencil's two grids");
    check(cudaMalloc(&grid_[0], points * sizeof(double)), "the input grid");
    check(cudaMalloc(&grid_[1], points * sizeof(double)), "the output grid");
    set_plan(plan);
  }
  ~FlashFftStepper() override {
    release_passes();
    cudaFree(grid_[0]);
    cudaFree(grid_[1]);
  }
  void upload(std::span<const double> values) override {
    clear_passes();
    const std::size_t bytes = static_cast<std::size_t>(extent_.points()) * sizeof(double);
    if (values.size() != static_cast<std::size_t>(extent_.points()))
      throw InputError(fmt::format("FlashFFTStencil GPU: {} values for a grid of {} points", values.size(), extent_.points()));
    check(cudaMemcpyAsync(grid_[current_], values.data(), bytes, cudaMemcpyHostToDevice, stream()), "upload");
    check(cudaMemsetAsync(grid_[1 - current_], 0xFF, bytes, stream()), "poison");
    check(cudaStreamSynchronize(stream()), "upload");
  }
  void advance(int steps) override {
    if (steps < 0) throw InputError("the number of steps cannot be negative");
    const int T = plan_.fused_steps;
    for (int i = 0; i < steps / T; ++i) run_pass(pass_for(T));
    if (steps % T) run_pass(pass_for(steps % T));
  }
  void download(std::span<double> values) override {
    if (values.size() != static_cast<std::size_t>(extent_.points()))
      throw InputError(fmt::format("FlashFFTStencil GPU: room for {} values, the grid has {}", values.size(), extent_.points()));
    check(cudaMemcpyAsync(values.data(), grid_[current_], values.size() * sizeof(double), cudaMemcpyDeviceToHost,
                          stream()),
          "download");
    check(cudaStreamSynchronize(stream()), "the FlashFFTStencil passes");
  }
  DeviceGridView view() const override { return {grid_[current_], Precision::FP64, make_packed_layout(extent_)}; }
  int fused_steps() const override { return plan_.fused_steps; }
  bool set_stencil(const MethodPlan& plan) override { // packed grid (no halo): any radius fits
    set_plan(plan_value<FlashFftPlan>(plan));
    return true;
  }

private:
  struct Pass {
    int depth = 1;
    Shape1d shape;
    flashfft_gpu::Pass1dArgs args;
    flashfft_gpu::Pass3dArgs args3;
    int blocks = 0;
    double* consts = nullptr;
    lora_gpu::FixBox* boxes = nullptr;
    lora_gpu::BandFixArgs fix;
  };

  void release_passes() {
    for (auto& p : passes_)
      if (p) {
        cudaFree(p->consts);
        cudaFree(p->boxes);
      }
    passes_.clear();
    cudaFree(weights_);
    weights_ = nullptr;
  }

  void set_plan(const FlashFftPlan& plan) {
    check_extent_fits_stencil(extent_, plan.stencil);
    check(cudaStreamSynchronize(stream()), "the FlashFFTStencil passes"); // nothing queued reads the old constants
    release_passes();
    plan_ = plan;
    passes_.resize(static_cast<std::size_t>(plan_.fused_steps));
    weights_ = device_copy(plan_.stencil.weights, "the stencil weights");
    pass_for(plan_.fused_steps);
  }

  Pass& pass_for(int depth) {
    auto& slot = passes_[static_cast<std::size_t>(depth - 1)];
    if (slot) return *slot;
    FlashFftPlan p = depth == plan_.fused_steps ? plan_ : [&] {
      FlashFftOptions o;
      o.fused_steps = depth;
      o.rows = plan_.rows.length;
      o.cols = plan_.cols.length;
      if (plan_.dims == 3) o.depth = plan_.depth.length;
      return make_flashfft_plan(plan_.stencil, o);
    }();
    const flashfft_gpu::Tile1d* tile = flashfft_gpu::tile_of(p);
    if (!tile)
      throw InputError(fmt::format("FlashFFTStencil GPU: no kernel for a {}D plan of tile {} x {}", p.dims,
                                   p.rows.length, p.cols.length));
    auto out = std::make_unique<Pass>();
    out->depth = depth;
    out->shape = {tile->t1, tile->t2};
    out->consts = device_copy(p.dims == 3 ? pack_constants_3d(p) : pack_constants(p, out->shape),
                              "the DFT matrices and k_f^T");
    if (p.dims == 3) {
      flashfft_gpu::Pass3dArgs& a = out->args3;
      a.consts = out->consts;
      a.nx = extent_.n[0];
      a.ny = extent_.n[1];
      a.nz = extent_.n[2];
      a.Sx = p.stitched[0];
      a.Sy = p.stitched[1];
      a.Sz = p.stitched[2];
      a.R = p.halo;
      a.cx = (a.nx + a.Sx - 1) / a.Sx;
      a.cy = (a.ny + a.Sy - 1) / a.Sy;
      a.tiles = a.cx * a.cy * ((a.nz + a.Sz - 1) / a.Sz);
      if (a.tiles >= (1LL << 31)) // the kernel indexes cubes in 32 bits (far beyond any device's memory)
        throw InputError(fmt::format("FlashFFTStencil GPU: {} cubes exceed the 3D kernel's 2^31", a.tiles));
      a.pairs = (a.tiles + 1) / 2;
      a.periodic = boundary_.kind == BoundaryKind::Periodic ? 1 : 0;
      a.boundary_value = boundary_.value;
      out->blocks = flashfft_gpu::pass_blocks_3d();
    }
    flashfft_gpu::Pass1dArgs& a = out->args;
    a.consts = out->consts;
    a.dims = p.dims;
    a.nx = extent_.n[0];
    a.ny = p.dims >= 2 ? extent_.n[1] : 1;
    a.L1 = p.rows.length;
    a.L2 = p.cols.length;
    a.Sx = p.stitched[0];
    a.Sy = p.dims >= 2 ? p.stitched[1] : 1;
    a.R = p.halo;
    a.cx = (a.nx + a.Sx - 1) / a.Sx;
    a.tiles = a.cx * ((a.ny + a.Sy - 1) / a.Sy);
    a.pairs = (a.tiles + 1) / 2;
    a.periodic = boundary_.kind == BoundaryKind::Periodic ? 1 : 0;
    a.boundary_value = boundary_.value;
    if (p.dims != 3) out->blocks = flashfft_gpu::pass_blocks_1d(out->shape);
    if (boundary_.kind == BoundaryKind::Dirichlet && depth > 1) {
      const std::size_t budget = lora_gpu::band_fix_shared_budget();
      const std::vector<lora_gpu::FixBox> boxes = lora_gpu::band_fix_boxes(extent_, p.stencil.radius, depth, budget);
      out->boxes = device_copy(boxes, "the band boxes");
      out->fix = lora_gpu::band_fix_args(extent_, p.stencil, weights_, depth, boundary_.value, boxes, out->boxes);
    }
    slot = std::move(out);
    return *slot;
  }

  void run_pass(Pass& p) {
    double* in = grid_[current_];
    double* out = grid_[1 - current_];
    if (plan_.dims == 3) {
      p.args3.in = in;
      p.args3.out = out;
      flashfft_gpu::launch_pass_3d(p.args3, p.blocks, stream());
    } else {
      p.args.in = in;
      p.args.out = out;
      flashfft_gpu::launch_pass_1d(p.args, p.shape, p.blocks, stream());
    }
    if (p.fix.box_count > 0) {
      p.fix.in = in;
      p.fix.out = out;
      lora_gpu::launch_band_fix(p.fix, stream());
    }
    record_pass(p.depth);
    current_ = 1 - current_;
  }

  Extent extent_;
  Boundary boundary_;
  FlashFftPlan plan_;
  std::vector<std::unique_ptr<Pass>> passes_;
  double* grid_[2] = {nullptr, nullptr};
  double* weights_ = nullptr;
  int current_ = 0;
};
#endif

std::string shared_memory_reason(const MethodPlan& p, const Extent&) {
  const FlashFftPlan& plan = plan_value<FlashFftPlan>(p);
  if (flashfft_gpu::tile_of(plan)) return {};
  return fmt::format("no FlashFFTStencil GPU kernel for a {}D tile of {} x {}", plan.dims, plan.rows.length,
                     plan.cols.length);
}

} // namespace

GpuKernel flashfft_gpu_kernel() {
  GpuKernel k;
  k.description = "FlashFFTStencil on FP64 tensor cores (mma.m16n8k4), 1D, 2D and 3D: overlapping segments (1D: L = L1 L2 "
                  "points staged by diagonal indexing; 2D: 16/32-point tiles per axis; 3D: 16 x 16 x 8 cubes, a slice "
                  "per warp, the z DFT on CUDA cores), two per complex tile (double-layer filling), prime-factor DFT x k_f^T "
                  "x inverse DFT as five warp-level products fed register to register through core's swizzled "
                  "matrices, the central S outputs stitched back; real ping-pong passes, the Dirichlet band fixed "
                  "after fused passes";
  k.unavailable_reason = gpu_unavailable_reason;
  k.plan = [](const Stencil& s, const PlanRequest& request) -> PlanPtr {
    auto p = wrap_plan("flashfft", s, request, flashfft_gpu::plan_for_gpu(s, request.fused_steps));
    const FlashFftPlan& f = p->value;
    p->fused_steps = f.fused_steps;
    p->cost = flashfft_cost(f);
    const flashfft_gpu::GpuPrediction g = flashfft_gpu::predict(f);
    p->brief = fmt::format("GPU: {} of {} x {}{} points (halo {}, {} x {}{} stitched), k_f^{} per pass, {:.4f} m16n8k4 "
                           "and {:.3f} bytes per point and step, {:.0f} GStencil/s predicted on an H200",
                           f.dims == 1 ? "prime-factor segments" : f.dims == 2 ? "tiles (y x x)" : "cubes (y x x x z)",
                           f.rows.length, f.cols.length, f.dims == 3 ? fmt::format(" x {}", f.depth.length) : "",
                           f.halo, f.stitched[0], f.dims == 1 ? 1 : f.stitched[1],
                           f.dims == 3 ? fmt::format(" x {}", f.stitched[2]) : "", f.fused_steps, g.mma_per_point,
                           g.bytes_per_point, 1e-9 / g.seconds_per_point);
    return p;
  };
  k.unsupported_reason = shared_memory_reason;
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [](const MethodPlan& p, const Extent& e, const Boundary& b) -> std::unique_ptr<GridStepper> {
    return std::make_unique<FlashFftStepper>(plan_value<FlashFftPlan>(p), e, b);
  };
#endif
  return k;
}

} // namespace se
