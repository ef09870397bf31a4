// The GPU strategies: NVRTC (dlopen) compiles the generated source to a cubin for this device; the CUDA
// runtime's library API (cudaLibraryLoadData, cudaLibraryGetKernel) loads it, so libcuda is never linked.
#include "kernels/dag/dag_gpu.hpp"

#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <queue>

#include <fmt/format.h>

#include "kernels/common/cuda_check.hpp"
#include "kernels/device.hpp"
#include "kernels/vendor/dynamic_library.hpp"
#include "kernels/vendor/vendor_libraries.hpp"

namespace se::dag {

namespace {

struct Nvrtc {
  DynamicLibrary lib;
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  Nvrtc()
      : lib(nvrtc_search().display_name, nvrtc_search().env_var, nvrtc_search().candidates, nvrtc_search().siblings) {
    if (!lib.loaded()) return;
    create = lib.function<decltype(create)>("nvrtcCreateProgram");
    compile = lib.function<decltype(compile)>("nvrtcCompileProgram");
    log_size = lib.function<decltype(log_size)>("nvrtcGetProgramLogSize");
    log = lib.function<decltype(log)>("nvrtcGetProgramLog");
    cubin_size = lib.function<decltype(cubin_size)>("nvrtcGetCUBINSize");
    cubin = lib.function<decltype(cubin)>("nvrtcGetCUBIN");
    destroy = lib.function<decltype(destroy)>("nvrtcDestroyProgram");
    error_string = lib.function<decltype(error_string)>("nvrtcGetErrorString");
  }
};

Nvrtc& nvrtc() {
  static Nvrtc n;
  return n;
}

void check_nvrtc(nvrtcResult r, const char* call) {
  if (r != NVRTC_SUCCESS) throw CudaError(fmt::format("{} failed: {}", call, nvrtc().error_string(r)));
}

struct Module {
  cudaLibrary_t library = nullptr;
  std::vector<cudaKernel_t> kernels;
  std::vector<cudaKernel_t> direct; // parallel: the table-free variant of each bucket kernel (else null)
  double compile_seconds = 0;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module() {
    if (library) cudaLibraryUnload(library);
  }
};

// NVRTC on `source` for sm_<cc>: the cubin, and with `ptxas_log` ptxas's -v report in it.
std::vector<char> compile_source(const std::string& source, const std::string& what, int cc_major, int cc_minor,
                                 std::string* ptxas_log = nullptr) {
  Nvrtc& n = nvrtc();
  if (!n.lib.loaded()) throw InputError(n.lib.failure());
  nvrtcProgram prog = nullptr;
  check_nvrtc(n.create(&prog, source.c_str(), "dag.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  const std::string arch = fmt::format("--gpu-architecture=sm_{}{}", cc_major, cc_minor);
  const char* opts[] = {arch.c_str(), "--std=c++17", "-default-device", "--ptxas-options=-v"};
  const nvrtcResult r = n.compile(prog, ptxas_log ? 4 : 3, opts);
  std::size_t log_size = 0;
  n.log_size(prog, &log_size);
  std::string log(log_size, '\0');
  n.log(prog, log.data());
  if (r != NVRTC_SUCCESS) {
    n.destroy(&prog);
    throw CudaError(fmt::format("NVRTC could not compile the generated {} source: {}\n{}", what, n.error_string(r), log));
  }
  if (ptxas_log) *ptxas_log = std::move(log);
  std::size_t size = 0;
  check_nvrtc(n.cubin_size(prog, &size), "nvrtcGetCUBINSize");
  std::vector<char> cubin(size);
  check_nvrtc(n.cubin(prog, cubin.data()), "nvrtcGetCUBIN");
  n.destroy(&prog);
  return cubin;
}

std::vector<char> compile_cubin(const GeneratedCode& g, int cc_major, int cc_minor) {
  return compile_source(g.source, std::string(to_string(g.strategy)), cc_major, cc_minor);
}

void compile(const GeneratedCode& g, const DeviceInfo& dev, Module& m) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<char> cubin = compile_cubin(g, dev.cc_major, dev.cc_minor);
  SE_CUDA_CHECK(cudaLibraryLoadData(&m.library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  for (const KernelInfo& k : g.kernels) {
    cudaKernel_t kernel = nullptr;
    SE_CUDA_CHECK(cudaLibraryGetKernel(&kernel, m.library, k.name.c_str()));
    m.kernels.push_back(kernel);
    cudaKernel_t direct = nullptr;
    if (!k.direct_name.empty()) SE_CUDA_CHECK(cudaLibraryGetKernel(&direct, m.library, k.direct_name.c_str()));
    m.direct.push_back(direct);
  }
  m.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct DeviceFields {
  std::vector<void*> ptr;
  ~DeviceFields() {
    for (void* p : ptr)
      if (p) cudaFree(p);
  }
};

// A bucket's mTasks bound to virtual execution units: a table task_begin[vEU] .. task_begin[vEU+1] into tasks.
struct Schedule {
  int veus = 0;
  std::vector<int> begin;
  std::vector<int2> tasks;
  int* d_begin = nullptr;
  int2* d_tasks = nullptr;
  ~Schedule() {
    if (d_begin) cudaFree(d_begin);
    if (d_tasks) cudaFree(d_tasks);
  }
};

// Resource-aware placement (Rammer's vEUs): as many vEUs as blocks fit on the device at once (the kernel's
// occupancy), each mTask to the least-loaded vEU (heaviest first), each vEU's list interleaving the operators.
// With `one_per_block`, every mTask is its own block instead (the hardware scheduler places them), operators
// interleaved in block order.
void build_schedule(const Program& p, const Analysis& a, const std::vector<int>& nodes, std::array<int, 3> d,
                    int veus, bool one_per_block, Schedule& s) {
  const int tiles = ((d[0] + kTileX - 1) / kTileX) * ((d[1] + kTileY - 1) / kTileY) * d[2];
  const int ops = static_cast<int>(nodes.size());
  std::vector<double> cost(ops);
  for (int i = 0; i < ops; ++i) {
    const StencilInfo& si = a.info(nodes[i]);
    cost[i] = (si.reads.size() + 1.0) * size_of(p.nodes[nodes[i]].type) + 0.05 * si.flops + 0.02 * si.points_read;
  }
  const std::size_t total = static_cast<std::size_t>(tiles) * ops;
  s.tasks.clear();
  s.begin.clear();
  if (one_per_block || static_cast<std::size_t>(veus) >= total) {
    s.veus = static_cast<int>(total);
    for (int t = 0; t < tiles; ++t)
      for (int i = 0; i < ops; ++i) s.tasks.push_back({i, t});
    s.begin.resize(total + 1);
    std::iota(s.begin.begin(), s.begin.end(), 0);
  } else {
    s.veus = veus;
    std::vector<std::vector<int2>> lists(veus);
    using Load = std::pair<double, int>;
    std::priority_queue<Load, std::vector<Load>, std::greater<Load>> heap;
    for (int v = 0; v < veus; ++v) heap.push({0.0, v});
    std::vector<int> order(ops);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return cost[x] > cost[y]; });
    // Round-robin over the operators tile by tile (heaviest operator first in each round), LPT placement.
    for (int t = 0; t < tiles; ++t)
      for (int i : order) {
        auto [load, v] = heap.top();
        heap.pop();
        lists[v].push_back({i, t});
        heap.push({load + cost[i], v});
      }
    s.begin.push_back(0);
    for (auto& l : lists) {
      s.tasks.insert(s.tasks.end(), l.begin(), l.end());
      s.begin.push_back(static_cast<int>(s.tasks.size()));
    }
  }
  if (s.d_begin) cudaFree(s.d_begin), s.d_begin = nullptr;
  if (s.d_tasks) cudaFree(s.d_tasks), s.d_tasks = nullptr;
  SE_CUDA_CHECK(cudaMalloc(&s.d_begin, s.begin.size() * sizeof(int)));
  SE_CUDA_CHECK(cudaMalloc(&s.d_tasks, s.tasks.size() * sizeof(int2)));
  SE_CUDA_CHECK(cudaMemcpy(s.d_begin, s.begin.data(), s.begin.size() * sizeof(int), cudaMemcpyHostToDevice));
  SE_CUDA_CHECK(cudaMemcpy(s.d_tasks, s.tasks.data(), s.tasks.size() * sizeof(int2), cudaMemcpyHostToDevice));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

std::string nvrtc_unavailable_reason_for_dag() { return nvrtc().lib.loaded() ? std::string() : nvrtc().lib.failure(); }

std::size_t compile_only(const GeneratedCode& g, int cc_major, int cc_minor) {
  return compile_cubin(g, cc_major, cc_minor).size();
}

std::vector<char> compile_to_cubin(const GeneratedCode& g, int cc_major, int cc_minor) {
  return compile_cubin(g, cc_major, cc_minor);
}

std::vector<KernelResources> ptxas_resources(const std::string& source, int cc_major, int cc_minor) {
  std::string log;
  compile_source(source, "module", cc_major, cc_minor, &log);
  return parse_ptxas_log(log);
}

std::string gpu_strategies_unavailable_reason() {
  const DeviceInfo dev = query_device();
  if (!dev.available) return fmt::format("no CUDA device: {}", dev.reason);
  if (!nvrtc().lib.loaded()) return nvrtc().lib.failure();
  return {};
}

GpuTiming run_gpu(const Program& p, Strategy s, const State& inputs, State& result, double target_seconds,
                  int max_recompute) {
  if (const std::string why = gpu_strategies_unavailable_reason(); !why.empty())
    throw InputError(fmt::format("the GPU strategies cannot run: {}", why));
  const DeviceInfo dev = query_device();
  const std::array<int, 3> d = inputs.domain;
  const Analysis a = analyse(p);
  const GeneratedCode g = generate_cuda(p, s == Strategy::Graph ? Strategy::Sequential : s, d, max_recompute);
  GpuTiming t;
  t.strategy = s;
  t.device = dev.name;

  const std::size_t points = inputs.points();
  std::uint64_t bytes = 0;
  for (const Node& n : p.nodes) bytes += points * size_of(n.type);
  require_device_memory(bytes, fmt::format("program {} at {}x{}x{}", p.name, d[0], d[1], d[2]));
  DeviceFields f;
  f.ptr.assign(p.nodes.size(), nullptr);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const std::size_t b = points * size_of(p.nodes[i].type);
    SE_CUDA_CHECK(cudaMalloc(&f.ptr[i], b));
    if (p.nodes[i].is_input) {
      const Field& in = inputs.fields[i];
      const void* src = in.type == Type::F64 ? static_cast<const void*>(in.f64.data()) : in.f32.data();
      SE_CUDA_CHECK(cudaMemcpy(f.ptr[i], src, b, cudaMemcpyHostToDevice));
    } else {
      SE_CUDA_CHECK(cudaMemset(f.ptr[i], 0, b));
    }
  }
  Module m;
  compile(g, dev, m);
  t.compile_seconds = m.compile_seconds;
  for (cudaKernel_t k : m.kernels) {
    cudaFuncAttributes attr{};
    SE_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(k)));
    t.registers = std::max(t.registers, attr.numRegs);
  }

  cudaStream_t stream = nullptr;
  SE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const dim3 block(kTileX, kTileY, 1);
  const dim3 grid((d[0] + kTileX - 1) / kTileX, (d[1] + kTileY - 1) / kTileY, d[2]);
  void* ptrs = f.ptr.data(); // the kernels' Ptrs argument: one device pointer per node, by value
  std::vector<std::unique_ptr<Schedule>> schedules;
  std::vector<std::vector<void*>> params;
  std::vector<dim3> grids;
  std::vector<cudaKernel_t> funcs;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;

  // Placement of a bucket's mTasks: 0 the vEU schedule, 1 one block per mTask through the table, 2 one block per
  // mTask without a table (the direct kernel).
  const auto setup = [&](int placement) {
    schedules.clear();
    params.clear();
    grids.clear();
    funcs = m.kernels;
    const bool one_per_block = placement == 1;
    for (std::size_t k = 0; k < g.kernels.size(); ++k) {
      if (g.kernels[k].task_table && placement == 2) {
        const unsigned tiles = ((d[0] + kTileX - 1) / kTileX) * ((d[1] + kTileY - 1) / kTileY) * d[2];
        funcs[k] = m.direct[k];
        grids.push_back(dim3(tiles * static_cast<unsigned>(g.kernels[k].nodes.size()), 1, 1));
        params.push_back({ptrs});
      } else if (g.kernels[k].task_table) {
        int per_sm = 0;
        SE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, reinterpret_cast<const void*>(m.kernels[k]), kTileX * kTileY, 0));
        auto sch = std::make_unique<Schedule>();
        build_schedule(p, a, g.kernels[k].nodes, d, std::max(1, per_sm) * dev.sm_count, one_per_block, *sch);
        grids.push_back(dim3(sch->veus, 1, 1));
        params.push_back({ptrs, &sch->d_begin, &sch->d_tasks});
        schedules.push_back(std::move(sch));
      } else {
        grids.push_back(grid);
        params.push_back({ptrs});
      }
    }
  };
  const auto launch_all = [&]() {
    if (exec) {
      SE_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      return;
    }
    for (std::size_t k = 0; k < g.kernels.size(); ++k)
      SE_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(funcs[k]), grids[k], block,
                                     params[k].data(), 0, stream));
  };
  const auto time_runs = [&](std::vector<double>& times) {
    launch_all(); // warm-up
    SE_CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaEvent_t e0, e1;
    SE_CUDA_CHECK(cudaEventCreate(&e0));
    SE_CUDA_CHECK(cudaEventCreate(&e1));
    double total = 0;
    while ((times.size() < 5 || total < target_seconds) && times.size() < 2000) {
      SE_CUDA_CHECK(cudaEventRecord(e0, stream));
      launch_all();
      SE_CUDA_CHECK(cudaEventRecord(e1, stream));
      SE_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      SE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      times.push_back(ms * 1e-3);
      total += ms * 1e-3;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  };

  std::vector<double> times;
  if (s == Strategy::Parallel) {
    // Three placements of the same mTasks: the vEU schedule (persistent blocks, static lists), one block per
    // mTask through the table, and one block per mTask computed from the block index (no table); the hardware's
    // block scheduler places the last two. The fastest is kept and all are reported.
    std::vector<double> placement_times[3];
    int veus = 0;
    for (int pl = 0; pl < 3; ++pl) {
      setup(pl);
      if (pl == 0) veus = schedules.empty() ? 0 : schedules[0]->veus;
      time_runs(placement_times[pl]);
    }
    int best = 0;
    for (int pl = 1; pl < 3; ++pl)
      if (median(placement_times[pl]) < median(placement_times[best])) best = pl;
    static const char* names[] = {"vEU", "blocks", "direct"};
    t.schedule = fmt::format("{}: vEU schedule ({} vEUs) {:.4f} ms, one block per mTask {:.4f} ms, "
                             "direct (no table) {:.4f} ms",
                             names[best], veus, median(placement_times[0]) * 1e3, median(placement_times[1]) * 1e3,
                             median(placement_times[2]) * 1e3);
    setup(best);
    times = placement_times[best];
  } else {
    setup(0);
    if (s == Strategy::Graph) {
      // The sequential kernels as graph nodes, each depending on the kernels of its producers only: the
      // independent operators of a bucket are parallel branches.
      SE_CUDA_CHECK(cudaGraphCreate(&graph, 0));
      std::vector<cudaGraphNode_t> nodes(g.kernels.size());
      for (std::size_t k = 0; k < g.kernels.size(); ++k) {
        cudaKernelNodeParams kp{};
        kp.func = reinterpret_cast<void*>(m.kernels[k]);
        kp.gridDim = grids[k];
        kp.blockDim = block;
        kp.sharedMemBytes = 0;
        kp.kernelParams = params[k].data();
        std::vector<cudaGraphNode_t> deps;
        for (int dep : g.kernels[k].after) deps.push_back(nodes[dep]);
        SE_CUDA_CHECK(cudaGraphAddKernelNode(&nodes[k], graph, deps.data(), deps.size(), &kp));
      }
      SE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    }
    time_runs(times);
  }
  t.repeats = static_cast<int>(times.size());
  t.seconds = median(times);
  t.min_seconds = *std::min_element(times.begin(), times.end());
  t.launches = static_cast<int>(g.kernels.size());
  if (s == Strategy::Graph) t.schedule = fmt::format("one graph launch of {} kernel nodes", g.kernels.size());

  // A clean run for the check: the written fields start from zero again.
  std::vector<bool> written(p.nodes.size(), false);
  for (const KernelInfo& k : g.kernels)
    for (int n : k.nodes) written[n] = true;
  for (std::size_t i = 0; i < p.nodes.size(); ++i)
    if (written[i]) SE_CUDA_CHECK(cudaMemsetAsync(f.ptr[i], 0, points * size_of(p.nodes[i].type), stream));
  launch_all();
  SE_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);

  result.domain = d;
  result.fields.resize(p.nodes.size());
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    if (!written[i]) continue;
    Field& out = result.fields[i];
    out.type = p.nodes[i].type;
    if (out.type == Type::F64) {
      out.f64.assign(points, 0.0);
      SE_CUDA_CHECK(cudaMemcpy(out.f64.data(), f.ptr[i], points * 8, cudaMemcpyDeviceToHost));
    } else {
      out.f32.assign(points, 0.0f);
      SE_CUDA_CHECK(cudaMemcpy(out.f32.data(), f.ptr[i], points * 4, cudaMemcpyDeviceToHost));
    }
  }
  return t;
}

} // namespace se::dag
