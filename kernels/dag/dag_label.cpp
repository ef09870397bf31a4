// The labeller (dag_label.hpp): NVRTC on worker threads, CUDA events on the calling thread.
#include "kernels/dag/dag_label.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "core/ordered_parallel.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/dag/dag_gpu.hpp"
#include "kernels/device.hpp"

namespace se::dag {

namespace {

constexpr Strategy kModuleStrategies[3] = {Strategy::Sequential, Strategy::ProducerConsumer, Strategy::Parallel};
constexpr const char* kNamespaces[3] = {"s_seq", "s_pc", "s_par"};

struct Compiled {
  std::vector<char> cubin;
  GeneratedCode code[3]; // sequential, producer-consumer, parallel (kernel names and graph edges)
  double seconds = 0;
  std::string error;
};

struct Pool {
  std::vector<void*> inputs, stencils;
  ~Pool() {
    for (void* p : inputs) cudaFree(p);
    for (void* p : stencils) cudaFree(p);
  }
};

constexpr int kInputSlots = 8, kStencilSlots = 24;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The labeller's module: the three strategies' sources side by side, each in its own namespace.
std::string module_source(const Program& p, std::array<int, 3> d, GeneratedCode (&code)[3]) {
  std::string all;
  for (int k = 0; k < 3; ++k) {
    code[k] = generate_cuda(p, kModuleStrategies[k], d);
    all += fmt::format("namespace {} {{\n{}\n}}\n", kNamespaces[k], code[k].source);
  }
  return all;
}

} // namespace

std::array<std::vector<KernelResources>, 3> module_resources(const Program& p, int n, int cc_major, int cc_minor) {
  GeneratedCode code[3];
  const std::vector<KernelResources> all = ptxas_resources(module_source(p, {n, n, n}, code), cc_major, cc_minor);
  std::array<std::vector<KernelResources>, 3> out;
  for (int k = 0; k < 3; ++k)
    for (const KernelInfo& ki : code[k].kernels) {
      const std::string& name = ki.direct_name.empty() ? ki.name : ki.direct_name;
      const auto it = std::find_if(all.begin(), all.end(), [&](const KernelResources& r) { return r.name == name; });
      if (it == all.end()) throw CudaError(fmt::format("ptxas reported nothing for the generated kernel {}", name));
      out[static_cast<std::size_t>(k)].push_back(*it);
    }
  return out;
}

std::string label_programs(const std::vector<Program>& programs, const LabelOptions& o,
                           const std::function<void(std::size_t, std::size_t, const LabelTiming&)>& done) {
  if (const std::string why = gpu_strategies_unavailable_reason(); !why.empty())
    throw InputError(fmt::format("the GPU strategies cannot run: {}", why));
  if (o.sizes.empty() || o.repeats < 1) throw InputError("the labeller needs at least one size and one repeat");
  const DeviceInfo dev = query_device();
  const auto t_start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(); };

  // The pool: every grid of the largest size, FP64 (an FP32 program uses the first half of each).
  const int max_n = *std::max_element(o.sizes.begin(), o.sizes.end());
  const std::size_t max_points = static_cast<std::size_t>(max_n) * max_n * max_n;
  require_device_memory(max_points * 8 * (kInputSlots + kStencilSlots), "the labeller's grid pool");
  Pool pool;
  {
    std::vector<double> host(max_points);
    std::uint64_t s = 12345;
    for (double& x : host) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      x = 0.5 + static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);
    }
    for (int i = 0; i < kInputSlots + kStencilSlots; ++i) {
      void* p = nullptr;
      SE_CUDA_CHECK(cudaMalloc(&p, max_points * 8));
      SE_CUDA_CHECK(cudaMemcpy(p, host.data(), max_points * 8, cudaMemcpyHostToDevice));
      (i < kInputSlots ? pool.inputs : pool.stencils).push_back(p);
    }
  }

  // Jobs: (program, size) in order, compiled on worker threads (at most kAhead modules waiting: bounds the memory of
  // cubins) and timed here in order.
  const std::size_t jobs = programs.size() * o.sizes.size();
  constexpr std::size_t kAhead = 96;
  const auto compile = [&](std::size_t j) {
    const Program& p = programs[j / o.sizes.size()];
    const int n = o.sizes[j % o.sizes.size()];
    const std::array<int, 3> d{n, n, n};
    Compiled c;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      GeneratedCode all;
      all.source = module_source(p, d, c.code);
      c.cubin = compile_to_cubin(all, dev.cc_major, dev.cc_minor);
    } catch (const std::exception& e) {
      c.error = e.what();
    }
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return c;
  };
  const int threads = o.threads > 0 ? o.threads
                                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);

  struct Timing { // the stream and events, released however the loop ends
    cudaStream_t stream = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    ~Timing() {
      if (e0) cudaEventDestroy(e0);
      if (e1) cudaEventDestroy(e1);
      if (stream) cudaStreamDestroy(stream);
    }
  } timing;
  SE_CUDA_CHECK(cudaStreamCreateWithFlags(&timing.stream, cudaStreamNonBlocking));
  SE_CUDA_CHECK(cudaEventCreate(&timing.e0));
  SE_CUDA_CHECK(cudaEventCreate(&timing.e1));
  cudaStream_t stream = timing.stream;
  cudaEvent_t e0 = timing.e0, e1 = timing.e1;
  const dim3 block(kTileX, kTileY, 1);

  // The GPU's side, on this thread, jobs in order; false stops (the time limit, checked before a program's first
  // size).
  const auto time = [&](std::size_t j, Compiled c) {
    if (o.max_seconds > 0 && elapsed() > o.max_seconds && j % o.sizes.size() == 0) return false;
    const Program& p = programs[j / o.sizes.size()];
    const int n = o.sizes[j % o.sizes.size()];
    LabelTiming t;
    t.compile_seconds = c.seconds;
    t.error = c.error;
    int in_slot = 0, st_slot = 0;
    std::vector<void*> ptrs(p.nodes.size());
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      if (p.nodes[i].is_input ? in_slot >= kInputSlots : st_slot >= kStencilSlots) {
        t.error = fmt::format("more than {} inputs or {} stencils: beyond the labeller's pool", kInputSlots, kStencilSlots);
        break;
      }
      ptrs[i] = p.nodes[i].is_input ? pool.inputs[in_slot++] : pool.stencils[st_slot++];
    }
    if (!t.error.empty()) {
      done(j / o.sizes.size(), j % o.sizes.size(), t);
      return true;
    }
    cudaLibrary_t lib = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    try {
      SE_CUDA_CHECK(cudaLibraryLoadData(&lib, c.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
      void* args[1] = {ptrs.data()};
      const unsigned tiles_x = (n + kTileX - 1) / kTileX, tiles_y = (n + kTileY - 1) / kTileY;
      const dim3 grid(tiles_x, tiles_y, n);
      struct Launch {
        cudaKernel_t k;
        dim3 grid;
      };
      std::vector<Launch> launches[3];
      for (int s = 0; s < 3; ++s)
        for (const KernelInfo& ki : c.code[s].kernels) {
          const bool direct = !ki.direct_name.empty();
          cudaKernel_t k = nullptr;
          SE_CUDA_CHECK(cudaLibraryGetKernel(&k, lib, (direct ? ki.direct_name : ki.name).c_str()));
          launches[s].push_back({k, direct ? dim3(tiles_x * tiles_y * n * static_cast<unsigned>(ki.nodes.size()), 1, 1)
                                           : grid});
        }
      // The graph: the sequential kernels, each after its producers' kernels.
      SE_CUDA_CHECK(cudaGraphCreate(&graph, 0));
      std::vector<cudaGraphNode_t> nodes(launches[0].size());
      for (std::size_t k = 0; k < launches[0].size(); ++k) {
        cudaKernelNodeParams kp{};
        kp.func = reinterpret_cast<void*>(launches[0][k].k);
        kp.gridDim = launches[0][k].grid;
        kp.blockDim = block;
        kp.kernelParams = args;
        std::vector<cudaGraphNode_t> deps;
        for (int dep : c.code[0].kernels[k].after) deps.push_back(nodes[dep]);
        SE_CUDA_CHECK(cudaGraphAddKernelNode(&nodes[k], graph, deps.data(), deps.size(), &kp));
      }
      SE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      const auto run = [&](int s) {
        if (s == 3) {
          SE_CUDA_CHECK(cudaGraphLaunch(exec, stream));
          return;
        }
        for (const Launch& l : launches[s])
          SE_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(l.k), l.grid, block, args, 0, stream));
      };
      for (int s = 0; s < 4; ++s) {
        run(s); // warm-up
        std::vector<double> times;
        for (int r = 0; r < o.repeats; ++r) {
          SE_CUDA_CHECK(cudaEventRecord(e0, stream));
          run(s);
          SE_CUDA_CHECK(cudaEventRecord(e1, stream));
          SE_CUDA_CHECK(cudaEventSynchronize(e1));
          float ms = 0;
          SE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          times.push_back(ms * 1e-3);
        }
        t.seconds[s] = median(times);
      }
    } catch (const std::exception& e) {
      t.error = e.what();
      cudaGetLastError();
    }
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (lib) cudaLibraryUnload(lib);
    done(j / o.sizes.size(), j % o.sizes.size(), t);
    return true;
  };
  ordered_parallel<Compiled>(jobs, threads, kAhead, compile, time);
  return dev.name;
}

} // namespace se::dag
