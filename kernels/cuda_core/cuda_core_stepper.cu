// cuda-core, cuda-core-fp32, cuda-core-fp16: ping-pong between two padded device grids, one kernel
// launch per base step; the halo holds the Dirichlet value, or the images the kernel itself writes.
#include <algorithm>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/cuda_core/cuda_core.hpp"
#include "kernels/cuda_core/ping_pong_stepper.hpp"
#include "kernels/cuda_core/step_kernels.hpp"
#include "kernels/cuda_core/tb_kernels.hpp"
#include "core/temporal_blocking_model.hpp"

namespace se {

std::vector<double> weights_at_radius(const Stencil& s, int radius) {
  if (radius < s.radius) throw InputError("weights_at_radius: the radius cannot shrink");
  const int side = 2 * radius + 1;
  const int sz = s.dims == 3 ? side : 1, sy = s.dims >= 2 ? side : 1;
  std::vector<double> dense(static_cast<std::size_t>(sz) * sy * side, 0.0);
  for (const Tap& t : taps(s)) {
    const int iz = s.dims == 3 ? t.dz + radius : 0, iy = s.dims >= 2 ? t.dy + radius : 0;
    dense[(static_cast<std::size_t>(iz) * sy + iy) * side + (t.dx + radius)] = t.w;
  }
  return dense;
}

namespace {

template <typename S> class CudaCoreStepper final : public PingPongStepper<S> {
public:
  CudaCoreStepper(const Stencil& s, const Extent& e, const Boundary& b, int radius)
      : PingPongStepper<S>(make_padded_layout(e, layout_halo(s.dims, radius), static_cast<int>(128 / sizeof(S))), b,
                           "cuda-core (" + std::string(to_string(storage_precision<S>())) + ") on a " + e.to_string() +
                               " grid"),
        dims_(s.dims), radius_(radius), weights_(weights_at_radius(s, radius)) {}

  // 1D (FP64/FP32) runs the warp-register kernel, whose halo is the radius rounded up to a 16-byte chunk.
  static int layout_halo(int dims, int radius) {
    if (dims == 1 && !std::is_same_v<S, __half>) return tb::halo_columns(1, radius, static_cast<int>(sizeof(S)));
    return radius;
  }

  void advance(int steps) override {
    for (int i = 0; i < steps; ++i) {
      const PaddedLayout& L = this->layout();
      const bool periodic = this->periodic();
      if (dims_ == 1 && !std::is_same_v<S, __half>) {
        // FP64 and FP32 1D: cuda-core-tb's warp-register kernel at depth 1 (coalesced 16-byte loads, 512 points
        // per warp, no barrier) moves more bytes per second than the shared-tile step_1d kernel.
        TbLaunch a;
        a.radius = radius_;
        a.periodic = periodic;
        a.boundary = this->boundary().value;
        a.steps = 1;
        launch_tb_1d<S>(a, this->current(), this->next(), L, weights_, this->stream());
      } else if (dims_ == 1) launch_step_1d<S>(radius_, this->current(), this->next(), L, periodic, weights_, this->stream());
      else if (dims_ == 2) launch_step_2d<S>(radius_, this->current(), this->next(), L, periodic, weights_, this->stream());
      else launch_step_3d<S>(radius_, this->current(), this->next(), L, periodic, weights_, this->stream());
      this->swap();
      this->record_pass(1);
    }
  }
  int fused_steps() const override { return 1; }
  // The kernels take the weights as launch arguments: new ones apply from the next step while the radius (the
  // instantiation and the halo of the grids) stays.
  bool set_stencil(const MethodPlan& plan) override {
    const Stencil& s = plan.stencil; // validated when the plan was built
    if (s.dims != dims_ || std::max(1, s.radius) != radius_) return false;
    weights_ = weights_at_radius(s, radius_);
    return true;
  }

private:
  int dims_;
  int radius_;
  std::vector<double> weights_;
};

} // namespace

std::unique_ptr<GridStepper> make_cuda_core_stepper(Precision storage, const Stencil& s, const Extent& e,
                                                    const Boundary& b) {
  validate(s);
  check_extent_fits_stencil(e, s);
  const int radius = std::max(1, s.radius); // the kernels are instantiated for radius 1..7
  switch (storage) {
  case Precision::FP64: return std::make_unique<CudaCoreStepper<double>>(s, e, b, radius);
  case Precision::FP32: return std::make_unique<CudaCoreStepper<float>>(s, e, b, radius);
  case Precision::FP16: return std::make_unique<CudaCoreStepper<__half>>(s, e, b, radius);
  }
  throw InputError("cuda-core: unknown precision");
}

} // namespace se
