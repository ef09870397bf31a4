// Background benchmark work for the Performance view: sweeps of methods over grid sizes (each run timed and
// checked against the FP64 reference) and the roofs they are judged by, run on a std::jthread with atomic
// progress and cancellation; recorded GPU results from assets/results/*.json; the roofline's points; exports.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/sim/simulation.hpp"
#include "core/method.hpp"
#include "kernels/checked_run.hpp"

namespace se {

// One timed run: measured here by a sweep, or read from a recorded results file (source names the GPU); its check
// is CheckedFields (kernels/checked_run.hpp).
struct BenchmarkRecord : CheckedFields {
  std::string method;
  Backend backend = Backend::CPU;
  Precision precision = Precision::FP64;
  std::string stencil;
  Extent extent;
  int steps = 0, fused_steps = 1;
  double seconds = 0, gstencils = 0;
  std::string source; // "this machine" or "<gpu name> (recorded)"
  MethodKey key() const { return {method, backend}; }
};

struct SweepRequest {
  Stencil stencil;
  std::vector<MethodKey> methods;
  std::vector<Extent> sizes;     // smallest first: a method slower than max_step_seconds stops growing
  Boundary boundary{};
  double seconds_per_run = 0.2;  // steps are sized so each timed run takes about this long
  double max_step_seconds = 2.0;
  std::uint64_t seed = 7;
};

// Grids of the stencil's dims for a sweep: `quick` a few small ones (seconds in all on a CPU), otherwise up to
// 4096^2 / 16M / 256^3 with a GPU and a quarter of that per axis without one.
std::vector<Extent> sweep_sizes(int dims, bool quick, bool gpu);

// Roofs of a roofline: the memory bandwidth and the compute rates, measured (never from a data sheet).
struct ComputeRoof {
  std::string name; // "mma.m8n8k4.f64", "CPU FP64 FMA (AVX-512, 2 threads)"
  double tflops = 0;
};
struct RooflineCeilings {
  std::string device;     // GPU name, or "<CPU model> (CPU, <n> threads, <ISA>)"
  std::string source;     // "measured now", "assets/results/NVIDIA_H200.json"
  double bandwidth_gbs = 0;
  std::vector<ComputeRoof> compute;
  bool empty() const { return bandwidth_gbs <= 0; }
};
// The CPU's own roofs (core/cpu_roofs.hpp): a copy on every thread with the dispatched ISA's vectors and
// non-temporal stores (bytes read + written), and FP64 multiply-add chains on every thread. ~0.5 s.
RooflineCeilings measure_cpu_ceilings(const std::stop_token& stop = {});
// The GPU's roofs from kernels' measure_device_ceilings (copy and the MMA shapes); throws InputError without one.
RooflineCeilings measure_gpu_ceilings();
// From a results file: the suite's {gpu, copy_gbs, results} or the ceilings' {gpu, copy_gbs, rates}.
RooflineCeilings ceilings_from_json(const nlohmann::json& j, const std::string& source);

// A results file of `stencil-bench suite` or `stencil-bench device`, as recorded on a GPU.
struct RecordedResults {
  std::filesystem::path path;
  std::string gpu;
  RooflineCeilings ceilings;
  std::vector<BenchmarkRecord> records;
  std::vector<std::string> experiments; // per record: "papers" or "sweep"
};
// Throws InputError naming the file and the problem when it is not such a file.
RecordedResults load_recorded_results(const std::filesystem::path& path);
// The recorded results: $SE_RESULTS_DIR; else, installed, <prefix>/share/stencil-explorer/results beside the
// program's bin/; else assets/results above the executable or the working directory; nullopt if none.
std::optional<std::filesystem::path> find_results_dir();
// Every *.json there that parses as results, and one line per file that does not.
std::vector<RecordedResults> load_results_dir(const std::filesystem::path& dir, std::vector<std::string>& problems);

// Per point and base step, what a method executes and moves: the cost of the plan its variant builds at the
// recorded fusion (a tensor-core method's own model, or the streaming model of CUDA-core methods and the CPU).
struct MethodCost {
  double flops_per_point = 0;  // executed, zeros included
  double bytes_per_point = 0;  // device-memory bytes
  std::string mma_shape;       // the tensor-core roof that applies ("" for CUDA cores / CPU)
  bool from_plan = false;
  std::string note;
  double intensity() const { return bytes_per_point > 0 ? flops_per_point / bytes_per_point : 0; }
};
MethodCost method_cost(const std::string& method_id, Backend backend, Precision precision, int fused_steps,
                       const Stencil& s, const Extent& e);

struct RooflinePoint {
  MethodKey method;
  bool measured = false; // false: the cost model's prediction under the roofs
  double intensity = 0;  // FLOP/byte
  double flops = 0;      // FLOP/s
  double gstencils = 0;
  std::string source, note;
};
// The model point (attainable = min(bandwidth x intensity, the compute roof of its MMA shape, if measured))
// and the measured point (GStencil/s x executed FLOPs per point) of each record.
std::vector<RooflinePoint> roofline_points(const std::vector<BenchmarkRecord>& records, const Stencil& s,
                                           const RooflineCeilings& ceilings);

// Exports: one CSV row per record; JSON {records, ceilings, roofline}.
std::string records_csv(const std::vector<BenchmarkRecord>& records);
nlohmann::json performance_json(const std::vector<BenchmarkRecord>& records, const RooflineCeilings& ceilings,
                                const std::vector<RooflinePoint>& roofline);

// Runs one task at a time on its own thread. The task reports progress through the control it gets and
// returns early once the stop token is set (cancel() or the destructor).
class BenchmarkJob {
public:
  struct Control {
    std::stop_token stop;
    std::function<void(int done, int total, const std::string& what)> progress;
    std::function<void(BenchmarkRecord)> add;
  };
  using Task = std::function<void(Control&)>;

  BenchmarkJob() = default;
  ~BenchmarkJob(); // cancels and joins
  BenchmarkJob(const BenchmarkJob&) = delete;
  BenchmarkJob& operator=(const BenchmarkJob&) = delete;

  // Throws InputError while another task runs.
  void start(std::string title, Task task);
  void cancel();
  void wait();
  bool running() const { return running_.load(); }
  double progress() const; // 0..1
  std::string status() const; // what runs now, or how the last task ended
  // Everything the tasks added so far; a method measured again on the same stencil and grid keeps the latest.
  std::vector<BenchmarkRecord> records() const;
  std::size_t record_count() const;
  std::uint64_t records_version() const { return version_.load(); } // changes whenever records() may have
  void clear_records();

private:
  std::jthread thread_;
  std::atomic<bool> running_{false};
  std::atomic<int> done_{0}, total_{0};
  std::atomic<std::uint64_t> version_{0};
  mutable std::mutex mutex_;
  std::string title_, status_;
  std::vector<BenchmarkRecord> records_;
};

// The sweep as a task: for each size, each method runs on fresh random input, timed, then checked against the
// FP64 reference (CPU, or the validated cuda-core kernel where the CPU would be too slow) by check_run, with a
// shorter check run where the timed run's bound is too loose.
BenchmarkJob::Task sweep_task(std::vector<Method> methods, SweepRequest request);

} // namespace se
