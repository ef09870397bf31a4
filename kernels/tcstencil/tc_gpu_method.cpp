// TCStencil in the GPU method registry. The kernel's plan is core's TCStencil plan on the instruction the kernel
// issues (mma.m16n8k16 for FP16, mma.m16n8k4 for FP64, L = 16 for both); the stepper lays that plan's parameter
// matrices and CUDA-core taps out for the kernels (kernels/tcstencil/tc_kernel.cuh) and checks that the taps are
// the border cuts the kernel adds.
#include "kernels/tcstencil/tc_gpu_method.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/tcstencil/tcstencil_method.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/cuda_core/ping_pong_stepper.hpp"
#include "kernels/common/tensor_map.hpp"
#include "kernels/tcstencil/tc_kernels.hpp"
#endif

namespace se {
namespace {

MmaShape gpu_shape(Precision p) { return p == Precision::FP16 ? MmaShape::M16N8K16_F16_F32 : MmaShape::M16N8K4_F64; }

std::string dims_reason(const Stencil& s) {
  if (s.dims <= 2) return {};
  return "TCStencil's GPU kernels run 1D and 2D stencils; 3D (streaming the plan's planes) is not written yet (use "
         "lorastencil or cuda-core for 3D)";
}

#if defined(SE_HAVE_CUDA)
// A 1D line runs on the 2D kernels as rows of kLineRow consecutive points (tc::StepArgs::line): a multiple of both
// kernels' block widths (128 FP16, 64 FP64), so that no block straddles a view row's end. The line sits in one
// allocation with 8 view rows (plus kLineLead points) of slack before it and 9 after, so that every row the kernels
// stage, the vertical halo rows included, lies inside it.
constexpr std::int64_t kLineRow = 1024, kLineLead = 64;

std::int64_t line_rows(const Extent& e) { return (e.n[0] + kLineRow - 1) / kLineRow; }

// The line's own layout (what upload, download and the halo fills see): 8 halo points each side of the line.
PaddedLayout line_layout(const Extent& e) {
  PaddedLayout L;
  L.dims = 1;
  L.n[0] = e.n[0];
  L.halo[0] = tc::kHalo;
  L.origin[0] = kLineLead + tc::kHalo * kLineRow;
  L.total = L.pitch_y = L.pitch_z = (line_rows(e) + 2 * tc::kHalo + 1) * kLineRow;
  return L;
}

// The same allocation as the kernels read it: point i of the line at view (i % kLineRow, i / kLineRow).
PaddedLayout line_view(const Extent& e) {
  const PaddedLayout line = line_layout(e);
  PaddedLayout L;
  L.dims = 2;
  L.n[0] = kLineRow;
  L.n[1] = line_rows(e);
  L.halo[0] = L.halo[1] = tc::kHalo;
  L.origin[0] = kLineLead;
  L.origin[1] = tc::kHalo;
  L.pitch_y = kLineRow;
  L.pitch_z = L.total = line.total;
  return L;
}

// The expected border cut of a tap (the kernel's CUDA-core remainder): dx < 0 -> columns [0, -dx), dx > 0 ->
// columns [16 - dx, 16); star vertical taps likewise on the rows; box rows never cut (their GEMM reads the shifted
// input). A plan that says otherwise is not what the kernel computes.
void check_tap(const TCStencilPlan& plan, const CudaCoreTap& t) {
  const int L = 16;
  const bool star = plan.decomposition == TCStencilDecomposition::Star;
  int cb = 0, ce = L, rb = 0, re = L;
  if (t.dx > 0) cb = L - t.dx;
  if (t.dx < 0) ce = -t.dx;
  if (star && t.dy > 0) rb = L - t.dy;
  if (star && t.dy < 0) re = -t.dy;
  const bool shape_ok = t.dz == 0 && (!star || t.dx == 0 || t.dy == 0);
  if (!shape_ok || t.col_begin != cb || t.col_end != ce || t.row_begin != rb || t.row_end != re)
    throw std::logic_error(fmt::format("TCStencil GPU: the plan's tap ({},{}) covers rows [{},{}) x cols [{},{}), not "
                                       "the border cut the kernel adds", t.dx, t.dy, t.row_begin, t.row_end,
                                       t.col_begin, t.col_end));
}

template <typename S> class TcStencilStepper final : public PingPongStepper<S> {
  using C = std::conditional_t<sizeof(S) == 2, float, double>;

public:
  TcStencilStepper(const TCStencilPlan& plan, int fused_steps, const Extent& e, const Boundary& b)
      : PingPongStepper<S>(e.dims == 1 ? line_layout(e) : make_padded_layout(e, tc::kHalo, sizeof(S) == 2 ? 64 : 16), b,
                           fmt::format("tcstencil ({}) on a {} grid", to_string(storage_precision<S>()), e.to_string())),
        line_(e.dims == 1 ? e.n[0] : 0), kernel_layout_(e.dims == 1 ? line_view(e) : this->layout()),
        matrices_(static_cast<std::size_t>(2 * tc::kMaxRadius + 1) * 256, "tcstencil parameter matrices"),
        border_(static_cast<std::size_t>((2 * tc::kMaxRadius + 1) * (2 * tc::kMaxRadius + 1)), "tcstencil taps") {
    if (const std::string why = dims_reason(plan.stencil); !why.empty()) throw InputError(why);
    if (plan.stencil.dims != e.dims) throw InputError("TCStencil GPU: the stencil's and the grid's dimensions differ");
    set_plan(plan, fused_steps);
  }

  // A line's kernels read the slack around it (the view's vertical halo rows, with zero weights): it must hold
  // finite values, and a periodic output grid starts as NaN everywhere.
  void upload(std::span<const double> values) override {
    PingPongStepper<S>::upload(values);
    if (line_ == 0 || !this->periodic()) return;
    const PaddedLayout& L = this->layout();
    const std::int64_t head = L.origin[0] - tc::kHalo, tail = L.origin[0] + line_ + tc::kHalo;
    for (S* grid : {const_cast<S*>(this->current()), this->next()}) {
      SE_CUDA_CHECK(cudaMemsetAsync(grid, 0, static_cast<std::size_t>(head) * sizeof(S), this->stream()));
      SE_CUDA_CHECK(cudaMemsetAsync(grid + tail, 0, static_cast<std::size_t>(L.total - tail) * sizeof(S), this->stream()));
    }
    this->synchronize();
  }

  void advance(int steps) override {
    args_.layout = kernel_layout_;
    args_.line = line_;
    args_.periodic = this->periodic();
    for (int i = 0; i < steps;) {
      if constexpr (sizeof(S) == 2) {
        // Two steps per launch where the plan fuses them and the GPU runs that kernel (sm_90 with TMA); an odd last
        // step, and other GPUs, one launch a step.
        if (fuse_ == 2 && i + 2 <= steps && tc::launch_step2_fp16(args_, this->current(), this->next(), this->stream())) {
          this->swap();
          this->record_pass(2);
          i += 2;
          continue;
        }
        tc::launch_step_fp16(args_, this->current(), this->next(), this->stream());
      } else {
        tc::launch_step_fp64(args_, this->current(), this->next(), this->stream());
      }
      this->swap();
      this->record_pass(1);
      ++i;
    }
  }
  int fused_steps() const override { return fuse_; }
  // The halo (8) holds every radius the kernels take, so any plan of this method of the grid's dimension swaps in place.
  bool set_stencil(const MethodPlan& p) override {
    const TCStencilPlan& plan = plan_value<TCStencilPlan>(p);
    if (plan.stencil.dims != (line_ > 0 ? 1 : 2) || plan.L != 16) return false;
    set_plan(plan, p.fused_steps);
    return true;
  }

private:
  // fused_steps: the plan's (tcstencil_max_fused_steps); SE_TCSTENCIL_FUSE=1 runs one step per launch instead (the
  // tests and A/B timings compare both on one GPU).
  void set_plan(const TCStencilPlan& plan, int fused_steps) {
    if (plan.L != 16) throw std::logic_error("TCStencil GPU: the kernels take L = 16 plans");
    if (fused_steps < 1 || fused_steps > tcstencil_max_fused_steps(plan))
      throw std::logic_error(fmt::format("TCStencil GPU: a plan fusing {} steps on a stencil that takes {}", fused_steps,
                                         tcstencil_max_fused_steps(plan)));
    const char* force = std::getenv("SE_TCSTENCIL_FUSE");
    const bool runs_fused = line_ == 0 && tma_supported() && tma_wanted("SE_TCSTENCIL_FP16_TMA"); // step2_fp16's needs
    fuse_ = force && std::string_view(force) == "1" ? 1 : runs_fused ? fused_steps : 1;
    const int R = std::max(1, plan.stencil.radius), W = 2 * R + 1;
    const bool star = plan.decomposition == TCStencilDecomposition::Star;
    const int nm = star ? 2 : W;
    host_matrices_.assign(static_cast<std::size_t>(nm) * 256, S(0));
    host_border_.assign(static_cast<std::size_t>(W * W), C(0));
    unsigned mask = 0;
    for (const ParameterMatrix& m : plan.matrices) {
      const int q = star ? (m.side == ParameterSide::Left ? 0 : 1) : m.row_shift + R;
      if (m.plane != 0 || q < 0 || q >= nm) throw std::logic_error("TCStencil GPU: a parameter matrix out of range");
      mask |= 1u << q;
      for (int i = 0; i < 256; ++i) host_matrices_[static_cast<std::size_t>(q * 256 + i)] = S(m.operand[static_cast<std::size_t>(i)]);
    }
    for (const CudaCoreTap& t : plan.cuda_core_taps) {
      check_tap(plan, t);
      host_border_[static_cast<std::size_t>((t.dy + R) * W + t.dx + R)] = static_cast<C>(t.operand);
    }
    matrices_.upload(host_matrices_.data(), host_matrices_.size(), this->stream());
    border_.upload(host_border_.data(), host_border_.size(), this->stream());
    this->synchronize(); // the host copies may change at the next set_plan
    args_.star = star;
    args_.radius = R;
    args_.matrix_mask = mask;
    args_.matrices = matrices_.get();
    args_.border = border_.get();
  }

  int fuse_ = 1;               // base steps per launch (2: tc::launch_step2_fp16)
  std::int64_t line_;          // a 1D line's points, 0 for a 2D grid
  PaddedLayout kernel_layout_; // what the kernels index: the grid's layout, or the line's view
  DeviceBuffer<S> matrices_;
  DeviceBuffer<C> border_;
  std::vector<S> host_matrices_;
  std::vector<C> host_border_;
  tc::StepArgs args_;
};
#endif

} // namespace

GpuKernel tcstencil_gpu_kernel(Precision precision) {
  if (precision != Precision::FP16 && precision != Precision::FP64)
    throw std::logic_error("tcstencil_gpu_kernel takes FP16 or FP64");
  GpuKernel k;
  k.description = precision == Precision::FP16
                      ? "TCStencil on FP16 tensor cores (mma.m16n8k16, FP32 accumulate): star stencils as P_ver·A' + "
                        "A'·P_hor, box stencils as one parameter matrix per kernel row on the input shifted one row, "
                        "16x16 bricks staged by TMA (cp.async before sm_90), the tile-border partial sums finished on "
                        "CUDA cores; stars of radius 1-2 two steps per launch on sm_90"
                      : "TCStencil on FP64 tensor cores (mma.m16n8k4, our variant): the same L = 16 decomposition, a "
                        "16x16x16 product as 8 MMAs with the all-zero band blocks skipped, the border on CUDA cores";
  k.unavailable_reason = gpu_unavailable_reason;
  k.plan = [precision](const Stencil& s, const PlanRequest& request) -> PlanPtr {
    if (const std::string why = dims_reason(s); !why.empty()) throw InputError(why);
    return tcstencil_method_plan(s, request, precision, gpu_shape(precision), true);
  };
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [precision](const MethodPlan& p, const Extent& e, const Boundary& b) -> std::unique_ptr<GridStepper> {
    const TCStencilPlan& plan = plan_value<TCStencilPlan>(p);
    if (precision == Precision::FP16) return std::make_unique<TcStencilStepper<__half>>(plan, p.fused_steps, e, b);
    return std::make_unique<TcStencilStepper<double>>(plan, p.fused_steps, e, b);
  };
#endif
  return k;
}

} // namespace se
