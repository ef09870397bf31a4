#include "kernels/spider/spider_stepper.hpp"

#include <string>

#include "core/error.hpp"
#include "kernels/common/tensor_map.hpp"
#include "kernels/cuda_core/ping_pong_stepper.hpp"
#include "kernels/spider/spider_launch.hpp"

namespace se {
namespace {

class SpiderStepper final : public PingPongStepper<__half> {
public:
  SpiderStepper(const SpiderPlan& plan, const Extent& e, const Boundary& b)
      : PingPongStepper<__half>(make_padded_layout(e, plan.geometry.radius, 64), b,
                                std::string(to_string(plan.options.variant)) + " on a " + e.to_string() + " grid"),
        extent_(e) {
    load_tables(plan);
  }

  // TMA tiles read from x = -8: the columns left of the halo, [-8, -r), which no kernel writes, are set to 0 in both
  // grids (an output grid starts as NaN outside its interior, and at odd r a zero band column meets x = -r - 1). A
  // 1D tile's bulk copy also reads the row past n + r to the padded row's end: those columns are set to 0 as well.
  void upload(std::span<const double> values) override {
    PingPongStepper<__half>::upload(values);
    const PaddedLayout& L = layout();
    const int r = tables_.g.radius;
    if (!tables_.tma || r >= spider_gpu::kTileOrigin) return;
    const std::size_t pitch = static_cast<std::size_t>(L.pitch_y) * sizeof(__half);
    const std::size_t rows = tables_.g.dims == 1 ? 1 : static_cast<std::size_t>(L.n[1] + 2 * r);
    const std::int64_t row_end = L.pitch_y - L.origin[0]; // x of the padded row's end
    for (__half* grid : {const_cast<__half*>(current()), next()}) {
      SE_CUDA_CHECK(cudaMemset2DAsync(grid + L.index(-spider_gpu::kTileOrigin, tables_.g.dims == 1 ? 0 : -r, 0), pitch, 0,
                                      static_cast<std::size_t>(spider_gpu::kTileOrigin - r) * sizeof(__half), rows,
                                      stream()));
      if (tables_.g.dims == 1 && row_end > L.n[0] + r)
        SE_CUDA_CHECK(cudaMemsetAsync(grid + L.index(L.n[0] + r, 0, 0), 0,
                                      static_cast<std::size_t>(row_end - L.n[0] - r) * sizeof(__half), stream()));
    }
    stream_.synchronize();
  }

  void advance(int steps) override {
    const spider_gpu::Geometry& g = tables_.g;
    for (int i = 0; i < steps; ++i) {
      spider_gpu::KernelArgs args;
      args.in = current();
      args.out = next();
      args.layout = layout();
      args.periodic = periodic() ? 1 : 0;
      args.a = a_.get();
      args.meta = meta_.get();
      args.boff = boff_.get();
      args.sw = tables_.sw;
      args.sh = tables_.sh;
      args.tiles_x = (extent_.n[0] + g.block_x - 1) / g.block_x;
      args.tiles_y = g.dims == 1 ? 1 : (extent_.n[1] + g.block_y - 1) / g.block_y;
      if (g.dims == 1) spider_gpu::launch_step_1d(tables_, args, stream());
      else spider_gpu::launch_step_2d(tables_, args, stream());
      swap();
      record_pass(1);
    }
  }
  int fused_steps() const override { return 1; }
  bool set_stencil(const MethodPlan& plan) override {
    const SpiderPlan& p = plan_value<SpiderPlan>(plan);
    if (p.geometry.dims != tables_.g.dims || p.geometry.radius != tables_.g.radius) return false;
    stream_.synchronize(); // the tables are read by launches in flight
    load_tables(p);
    return true;
  }

private:
  void load_tables(const SpiderPlan& plan) {
    // TMA tiles where the kernels take them (spider_kernels.cuh), unless SE_SPIDER_TMA=0.
    tables_ = spider_gpu::make_tables(plan, tma_supported() && tma_wanted("SE_SPIDER_TMA"));
    a_ = DeviceBuffer<std::uint32_t>(tables_.a.size(), "SPIDER A fragments");
    a_.upload(tables_.a.data(), tables_.a.size(), stream());
    const std::size_t nmeta = tables_.meta.empty() ? 1 : tables_.meta.size();
    meta_ = DeviceBuffer<std::uint32_t>(nmeta, "SPIDER metadata");
    if (!tables_.meta.empty()) meta_.upload(tables_.meta.data(), tables_.meta.size(), stream());
    boff_ = DeviceBuffer<std::int32_t>(tables_.boff.size(), "SPIDER B offsets");
    boff_.upload(tables_.boff.data(), tables_.boff.size(), stream());
    stream_.synchronize();
  }

  Extent extent_;
  spider_gpu::Tables tables_;
  DeviceBuffer<std::uint32_t> a_, meta_;
  DeviceBuffer<std::int32_t> boff_;
};

} // namespace

std::unique_ptr<GridStepper> make_spider_stepper(const SpiderPlan& plan, const Extent& e, const Boundary& b) {
  if (plan.geometry.dims == 3) throw InputError("SPIDER's GPU kernels are 1D and 2D");
  check_extent_fits_stencil(e, plan.stencil);
  return std::make_unique<SpiderStepper>(plan, e, b);
}

} // namespace se
