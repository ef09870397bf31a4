// `stencil-bench dag --file F [--strategy ...] [--size N] [--backend cpu|gpu] [--json F] [--print ...]`.
#include "app/cli/dag_cli.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <fstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/dag/dag.hpp"
#include "core/dag/dag_generate.hpp"
#include "core/dag/dag_model.hpp"
#include "core/common/comma_list.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/grid.hpp"
#include "core/ordered_parallel.hpp"
#include "kernels/dag/dag_gpu.hpp"
#include "kernels/dag/dag_label.hpp"
#include "kernels/device.hpp"

namespace se {

namespace {

using namespace se::dag;

std::array<int, 3> parse_dag_size(const std::string& text) {
  std::array<int, 3> d{};
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t x = text.find('x', pos);
    parts.push_back(text.substr(pos, x == std::string::npos ? std::string::npos : x - pos));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  if (parts.size() != 1 && parts.size() != 3)
    throw InputError(fmt::format("--size takes N (a cube) or NXxNYxNZ; got '{}'", text));
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string& s = parts[parts.size() == 1 ? 0 : i];
    int v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 1 || v > 2048)
      throw InputError(fmt::format("--size takes whole numbers from 1 to 2048 (N or NXxNYxNZ); got '{}'", text));
    d[i] = v;
  }
  return d;
}

std::uint64_t parse_seed_text(const std::string& text) {
  std::uint64_t seed = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
    throw InputError(fmt::format("--seed takes a whole number from 0 to 18446744073709551615; got '{}'", text));
  return seed;
}

constexpr int kAutoLimit = -1;
// --recompute-limit: a whole number from 0 (inline nothing) to 1000000, `none` (inline every intermediate) or
// `auto` (kAutoLimit: time the distinct plans of limits 1 to 32, keep the fastest).
int parse_recompute_limit(const std::string& text) {
  if (text == "none") return kNoRecomputeLimit;
  if (text == "auto") return kAutoLimit;
  int v = -1;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 0 || v > 1000000)
    throw InputError(
        fmt::format("--recompute-limit takes a whole number from 0 to 1000000, 'none' or 'auto'; got '{}'", text));
  return v;
}

// A recomputation limit in the JSON: the number, or "none".
nlohmann::json limit_json(int limit) {
  return limit == kNoRecomputeLimit ? nlohmann::json("none") : nlohmann::json(limit);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Row {
  Strategy strategy;
  double seconds = 0, min_seconds = 0, compile_seconds = 0;
  int repeats = 0, launches = 0, registers = 0;
  int limit = FusionPlan{}.max_recompute; // producer-consumer's recomputation limit
  Cost cost;
  Compare cmp;
  bool passed = false;
  std::string schedule;
};

} // namespace

CLI::App* add_dag_subcommand(CLI::App& app, DagCliOptions& o) {
  auto* dag = app.add_subcommand("dag", "complex-stencil programs (a DAG of stencils): analyse, run the strategies, "
                                        "check them against the CPU interpreter");
  dag->add_option("--file,-f", o.file, "program in the text format (assets/dags/*.dag)")->required();
  dag->add_option("--strategy", o.strategy,
                  "sequential, producer-consumer, parallel, graph, horizontal or hybrid (or several, comma-separated), "
                  "auto (the learned fusion choice of assets/models picks producer-consumer or parallel; without a "
                  "model as all) or all (run all, report the fastest)")
      ->capture_default_str();
  dag->add_option("--size", o.size, "domain: N (a cube) or NXxNYxNZ (default: the program's)");
  dag->add_option("--backend,-b", o.backend, "cpu or gpu (default: gpu where the GPU strategies can run, else cpu)");
  dag->add_option("--json", o.json, "write the program's analysis and every run as JSON to this file");
  dag->add_option("--print", o.print,
                  "comma-separated: buckets, tensors, fusion, costs, source (with no --strategy: print only, run nothing)");
  dag->add_option("--model", o.model, "fusion model weights for --strategy auto (default: assets/models/fusion_cnn_gcn.weights.json)");
  dag->add_option("--seed", o.seed_text, "seed of the random inputs, 0 to 2^64-1 (default 1)");
  dag->add_option("--seconds", o.seconds_text, "target time of each strategy's timed runs (GPU)")->capture_default_str();
  dag->add_option("--recompute-limit", o.recompute_limit,
                  "producer-consumer fusion inlines an intermediate while its recomputation stays within this many "
                  "times its own work: 0 (inline nothing) to 1000000, none (inline every intermediate) or auto (run "
                  "the distinct plans of limits 1 to 32, keep the fastest); --print costs lists each limit's bytes "
                  "and FLOPs")
      ->capture_default_str();
  return dag;
}

int cmd_dag(const DagCliOptions& o) {
  const Program p = load_program(o.file); // InputError with file:line:column for every problem
  const Analysis a = analyse(p);
  const std::array<int, 3> domain = o.size.empty() ? p.domain : parse_dag_size(o.size);
  const std::uint64_t seed = o.seed_text.empty() ? 1 : parse_seed_text(o.seed_text);
  const int limit_asked = parse_recompute_limit(o.recompute_limit);
  // What printing, the generated source and the costs use under auto: the default plan.
  const int limit = limit_asked == kAutoLimit ? FusionPlan{}.max_recompute : limit_asked;
  double target = 0;
  {
    const auto r = std::from_chars(o.seconds_text.data(), o.seconds_text.data() + o.seconds_text.size(), target);
    if (r.ec != std::errc() || r.ptr != o.seconds_text.data() + o.seconds_text.size() || !(target > 0) || target > 600)
      throw InputError(fmt::format("--seconds takes a number above 0 and at most 600; got '{}'", o.seconds_text));
  }
  const std::vector<std::string> prints = split_comma_list(o.print, "--print");
  for (const std::string& w : prints)
    if (w != "buckets" && w != "tensors" && w != "source" && w != "fusion" && w != "costs")
      throw InputError(
          fmt::format("--print takes buckets, tensors, fusion, costs or source (comma-separated); got '{}'", w));
  std::vector<Strategy> strategies;
  // auto: the learned fusion choice (assets/models) picks producer-consumer or parallel fusion and only that runs;
  // without a model file, every strategy runs and the fastest measured is reported (as `all`).
  std::optional<FusionPrediction> predicted;
  std::string model_path;
  if (o.strategy == "auto") {
    model_path = o.model.empty() ? default_fusion_model_path() : o.model;
    if (!model_path.empty()) predicted = predict_fusion(load_fusion_model(model_path), p, domain);
  }
  const bool run_all = o.strategy == "all" || (o.strategy == "auto" && !predicted);
  if (predicted)
    strategies = {predicted->strategy};
  else if (run_all)
    strategies.assign(std::begin(kStrategies), std::end(kStrategies));
  else // one strategy, or several comma-separated (each once, in the order given)
    for (const std::string& name : split_comma_list(o.strategy, "--strategy")) {
      if (name == "all" || name == "auto")
        throw InputError(fmt::format("--strategy: '{}' stands alone, not in a list ('{}')", name, o.strategy));
      const Strategy s = parse_strategy(name);
      if (std::find(strategies.begin(), strategies.end(), s) == strategies.end()) strategies.push_back(s);
    }
  if (strategies.empty()) throw InputError("--strategy needs a strategy, a comma-separated list of them, all or auto");
  if (!o.backend.empty() && o.backend != "cpu" && o.backend != "gpu")
    throw InputError(fmt::format("--backend takes cpu or gpu; got '{}'", o.backend));
  if (!o.json.empty()) check_writable(o.json, "result JSON");

  const auto printed = [&](const char* w) { return std::find(prints.begin(), prints.end(), w) != prints.end(); };
  if (printed("buckets")) std::printf("%s", format_buckets(p, a).c_str());
  if (printed("tensors")) std::printf("%s", format_tensors(p, a).c_str());
  if (printed("fusion")) {
    std::printf("%s", format_fusion(p, plan_producer_consumer(p, limit)).c_str());
    std::printf("hybrid fusion (the plan at limit %d, its kernels fused by level): %s\n", kHybridRecomputeLimit,
                format_levels(p, plan_producer_consumer(p, kHybridRecomputeLimit)).c_str());
  }
  if (printed("costs")) {
    std::printf("model per run of %s at %dx%dx%d (compulsory traffic: each grid a kernel reads once, each it writes "
                "once; FLOPs with recomputation; L2: the tiles' sectors between L2 and L1):\n",
                p.name.c_str(), domain[0], domain[1], domain[2]);
    for (Strategy s : kStrategies) {
      const Cost c = strategy_cost(p, a, s, domain, limit);
      std::printf("  %-18s %9.1f MB %9.1f MFLOP %6.2f FLOP/B %3d launches %9.1f L2 MB\n", to_string(s), c.bytes / 1e6,
                  c.flops / 1e6, c.bytes > 0 ? c.flops / c.bytes : 0.0, c.launches, c.l2_bytes / 1e6);
    }
    std::printf("producer-consumer plans by recomputation limit (this run: %s; the default %d; 0 inlines nothing):\n",
                o.recompute_limit.c_str(), FusionPlan{}.max_recompute);
    for (const int step : kRecomputeLimitSteps) {
      const Cost c = producer_consumer_cost(p, a, domain, step);
      std::printf("  limit %-11s %9.1f MB %9.1f MFLOP %6.2f FLOP/B %3d launches %9.1f L2 MB\n",
                  recompute_limit_name(step).c_str(), c.bytes / 1e6, c.flops / 1e6, c.bytes > 0 ? c.flops / c.bytes : 0.0,
                  c.launches, c.l2_bytes / 1e6);
    }
  }
  if (printed("source"))
    for (Strategy s : strategies) {
      const GeneratedCode g = generate_cuda(p, s, domain, limit);
      std::printf("// ===== strategy %s: %zu kernels =====\n%s", to_string(s), g.kernels.size(), g.source.c_str());
    }
  if (!prints.empty() && !o.strategy_given) return 0;

  // Backend: the GPU where it can run the strategies, unless asked otherwise.
  const std::string gpu_why = gpu_strategies_unavailable_reason();
  const bool gpu = o.backend.empty() ? gpu_why.empty() : o.backend == "gpu";
  if (gpu && !gpu_why.empty()) throw InputError(fmt::format("the GPU strategies cannot run: {}", gpu_why));
  if (!gpu && !run_all && std::find(strategies.begin(), strategies.end(), Strategy::Graph) != strategies.end())
    throw InputError("the graph strategy is a CUDA graph of the sequential kernels: it runs on the GPU only "
                     "(--backend gpu)");
  if (!gpu && run_all) // no graph on the CPU
    strategies.erase(std::remove_if(strategies.begin(), strategies.end(), [](Strategy s) { return !runs_on_cpu(s); }),
                     strategies.end());
  const std::size_t points = static_cast<std::size_t>(domain[0]) * domain[1] * domain[2];
  std::size_t bytes_per_point = 0;
  for (const Node& n : p.nodes) bytes_per_point += size_of(n.type);
  check_host_memory(static_cast<std::uint64_t>(points) * bytes_per_point * 2,
                    fmt::format("program {} at {}x{}x{}", p.name, domain[0], domain[1], domain[2]));

  std::printf("program %s: %zu stencil nodes, %zu inputs, %d edges, %zu buckets, domain %dx%dx%d\n", p.name.c_str(),
              a.stencils.size(), p.inputs().size(), a.edges, a.buckets.size(), domain[0], domain[1], domain[2]);
  std::string device = "cpu";
  if (gpu) {
    device = query_device().name;
    std::printf("backend: gpu (%s), kernels compiled at run time with NVRTC\n", device.c_str());
  } else {
    std::printf("backend: cpu%s\n", gpu_why.empty() ? "" : fmt::format(" (GPU strategies unavailable: {})", gpu_why).c_str());
  }
  if (std::find(strategies.begin(), strategies.end(), Strategy::ProducerConsumer) != strategies.end())
    std::printf("producer-consumer: recomputation limit %s%s\n", o.recompute_limit.c_str(),
                limit_asked == kAutoLimit
                    ? fmt::format(" (the fastest of limits {})", fmt::join(distinct_recompute_limits(p), ", ")).c_str()
                    : (limit == FusionPlan{}.max_recompute ? " (the default)" : ""));
  if (predicted)
    std::printf("auto: the fusion model picks %s (probability %.3f; producer-consumer %.3f, parallel %.3f) [%s]\n",
                to_string(predicted->strategy), predicted->probability, predicted->probabilities[0],
                predicted->probabilities[1], model_path.c_str());
  else if (o.strategy == "auto")
    std::printf("auto: no fusion model found (assets/models/fusion_cnn_gcn.weights.json or --model): every strategy "
                "runs and the fastest measured is kept\n");
  std::fflush(stdout);

  const State inputs = make_inputs(p, domain, seed);
  const auto t_ref = std::chrono::steady_clock::now();
  State reference = inputs;
  interpret(p, reference, [&](int done, int total) {
    if (seconds_since(t_ref) > 1.0)
      std::fprintf(stderr, "interpreter (reference): %d/%d stencil nodes after %.1fs\n", done, total,
                   seconds_since(t_ref));
  });
  const double reference_seconds = seconds_since(t_ref);

  std::vector<Row> rows;
  int done = 0;
  const double bound = p.nodes[p.outputs()[0]].type == Type::F64 ? 1e-12 : 1e-5;
  // One strategy at one recomputation limit, timed and checked.
  const auto run_one = [&](Strategy s, int lim) {
    Row r;
    r.strategy = s;
    r.limit = lim;
    r.cost = strategy_cost(p, a, s, domain, lim);
    State result = inputs;
    if (gpu) {
      const GpuTiming t = run_gpu(p, s, inputs, result, target, lim);
      r.seconds = t.seconds;
      r.min_seconds = t.min_seconds;
      r.repeats = t.repeats;
      r.launches = t.launches;
      r.compile_seconds = t.compile_seconds;
      r.registers = t.registers;
      r.schedule = t.schedule;
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      run_cpu(p, s, result, lim);
      r.seconds = r.min_seconds = seconds_since(t0);
      r.repeats = 1;
      r.launches = r.cost.launches;
    }
    r.cmp = compare_outputs(p, result, reference);
    r.passed = r.cmp.finite && r.cmp.rel_l2 < bound;
    return r;
  };
  for (Strategy s : strategies) {
    if (s == Strategy::ProducerConsumer && limit_asked == kAutoLimit) {
      // Every distinct plan runs and is checked; the fastest that passes is the strategy's row, and the schedule
      // lists them all (a failed plan fails the row).
      std::vector<Row> tries;
      for (const int lim : distinct_recompute_limits(p)) tries.push_back(run_one(s, lim));
      std::size_t best = 0;
      for (std::size_t i = 1; i < tries.size(); ++i)
        if (tries[i].passed && (!tries[best].passed || tries[i].seconds < tries[best].seconds)) best = i;
      Row r = tries[best];
      std::string list;
      double compile = 0;
      for (const Row& x : tries) {
        list += fmt::format("{}limit {}: {:.4f} ms{}", list.empty() ? "" : ", ", x.limit, x.seconds * 1e3,
                            x.passed ? "" : " FAILED");
        compile += x.compile_seconds;
        r.passed = r.passed && x.passed;
      }
      r.schedule = fmt::format("limit {} kept of {}", r.limit, list);
      r.compile_seconds = compile;
      rows.push_back(r);
    } else {
      rows.push_back(run_one(s, limit));
    }
    ++done;
    if (strategies.size() > 1 && seconds_since(t_ref) > 2.0) // progress once the whole run has taken a while
      std::fprintf(stderr, "dag %s: %d/%zu strategies after %.1fs\n", p.name.c_str(), done, strategies.size(),
                   seconds_since(t_ref));
  }

  std::printf("%-18s %10s %8s %9s %9s %9s %11s  %s\n", "strategy", "time ms", "launches", "model MB", "MFLOP",
              "GB/s", "rel L2", "check");
  for (const Row& r : rows)
    std::printf("%-18s %10.4f %8d %9.1f %9.1f %9.1f %11.3e  %s%s\n", to_string(r.strategy), r.seconds * 1e3, r.launches,
                r.cost.bytes / 1e6, r.cost.flops / 1e6, r.seconds > 0 ? r.cost.bytes / r.seconds / 1e9 : 0.0,
                r.cmp.rel_l2, r.passed ? "ok" : "FAILED",
                r.schedule.empty() ? "" : fmt::format("  ({})", r.schedule).c_str());
  const Row* best = nullptr;
  const Row* seq = nullptr;
  for (const Row& r : rows) {
    if (r.strategy == Strategy::Sequential) seq = &r;
    if (r.passed && (best == nullptr || r.seconds < best->seconds)) best = &r;
  }
  if (run_all && best != nullptr)
    std::printf("%s: %s%s\n", o.strategy == "auto" ? "auto picks (fastest measured)" : "fastest", to_string(best->strategy),
                seq && best->seconds > 0 ? fmt::format(", {:.2f}x sequential", seq->seconds / best->seconds).c_str() : "");
  std::printf("reference: CPU interpreter, %.3f s\n", reference_seconds);

  const bool ok = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.passed; });
  if (!o.json.empty()) {
    nlohmann::json j;
    j["program"] = p.name;
    j["file"] = o.file;
    j["domain"] = domain;
    j["backend"] = gpu ? "gpu" : "cpu";
    j["device"] = device;
    j["seed"] = seed;
    j["recompute_limit"] = limit_asked == kAutoLimit ? nlohmann::json("auto") : limit_json(limit);
    j["stencil_nodes"] = a.stencils.size();
    j["inputs"] = p.inputs().size();
    j["edges"] = a.edges;
    nlohmann::json buckets = nlohmann::json::array();
    for (const auto& b : a.buckets) {
      nlohmann::json names = nlohmann::json::array();
      for (int n : b) names.push_back(p.nodes[n].name);
      buckets.push_back(names);
    }
    j["buckets"] = buckets;
    j["adjacency"] = a.adjacency;
    nlohmann::json results = nlohmann::json::array();
    for (const Row& r : rows)
      results.push_back({{"strategy", to_string(r.strategy)},
                         {"seconds", r.seconds},
                         {"min_seconds", r.min_seconds},
                         {"repeats", r.repeats},
                         {"launches", r.launches},
                         {"compile_seconds", r.compile_seconds},
                         {"registers", r.registers},
                         {"schedule", r.schedule},
                         {"recompute_limit",
                          r.strategy == Strategy::ProducerConsumer ? limit_json(r.limit) : nlohmann::json(nullptr)},
                         {"model_bytes", r.cost.bytes},
                         {"model_flops", r.cost.flops},
                         {"rel_l2_error", r.cmp.finite ? nlohmann::json(r.cmp.rel_l2) : nlohmann::json(nullptr)},
                         {"max_abs_error", r.cmp.finite ? nlohmann::json(r.cmp.max_abs) : nlohmann::json(nullptr)},
                         {"passed", r.passed}});
    j["results"] = results;
    if (run_all && best) j["fastest"] = to_string(best->strategy);
    if (predicted)
      j["predicted"] = {{"strategy", to_string(predicted->strategy)},
                        {"probability", predicted->probability},
                        {"probabilities", {{"producer-consumer", predicted->probabilities[0]},
                                           {"parallel", predicted->probabilities[1]}}},
                        {"model", model_path}};
    j["reference_seconds"] = reference_seconds;
    write_file(o.json, j.dump(2) + "\n", "result JSON");
  }
  if (!ok) {
    std::fprintf(stderr, "error: a strategy's outputs differ from the interpreter's (marked FAILED)\n");
    return 1;
  }
  return 0;
}

CLI::App* add_dag_gen_subcommand(CLI::App& app, DagGenCliOptions& o) {
  auto* gen = app.add_subcommand("dag-gen", "write random complex-stencil programs (the paper's Section 3.5 generator: "
                                            "dependencies from sub-topological chains of real programs)");
  gen->add_option("--seed", o.seed_text, "seed of the first program; program i has seed S+i")->capture_default_str();
  gen->add_option("--count,-n", o.count, "how many programs (1 to 100000)")->capture_default_str();
  gen->add_option("--out,-o", o.out, "directory to write gen_<seed>.dag into (created)")->required();
  gen->add_option("--real", o.real, "directory of the real programs whose chains are used (default: assets/dags)");
  return gen;
}

int cmd_dag_gen(const DagGenCliOptions& o) {
  const std::uint64_t seed = parse_seed_text(o.seed_text);
  if (o.count < 1 || o.count > 100000) throw InputError(fmt::format("--count takes 1 to 100000; got {}", o.count));
  std::filesystem::path real = o.real;
  if (real.empty()) {
    const auto found = se::find_data_dir("dags");
    if (!found) throw InputError("assets/dags not found above the program or the working directory: give --real DIR");
    real = *found;
  }
  const std::vector<Chain> chains = extract_chains(load_programs(real));
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec) throw InputError(fmt::format("cannot create {}: {}", o.out, ec.message()));
  for (int i = 0; i < o.count; ++i) {
    const std::uint64_t s = seed + static_cast<std::uint64_t>(i);
    write_file((std::filesystem::path(o.out) / fmt::format("gen_{}.dag", s)).string(),
               generate_program_text(s, chains), "generated program");
  }
  std::printf("wrote %d programs (seeds %llu..%llu) to %s; %zu sub-topological chains from %s\n", o.count,
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed + o.count - 1), o.out.c_str(),
              chains.size(), real.string().c_str());
  return 0;
}

CLI::App* add_dag_label_subcommand(CLI::App& app, DagLabelCliOptions& o) {
  auto* lab = app.add_subcommand("dag-label", "time every GPU strategy of many complex-stencil programs in one process "
                                              "(NVRTC on all cores): the fusion-choice model's dataset, one JSON line "
                                              "per program");
  lab->add_option("--seed", o.seed_text, "seed of the first generated program (dag-gen's)")->capture_default_str();
  lab->add_option("--count,-n", o.count, "generated programs (seeds S..S+N-1)")->capture_default_str();
  lab->add_option("--files", o.files, "also every .dag program of this directory (e.g. assets/dags), first");
  lab->add_option("--out,-o", o.out, "JSON-lines file to write")->required();
  lab->add_option("--sizes", o.sizes, "cube sizes, comma-separated")->capture_default_str();
  lab->add_option("--repeats", o.repeats, "timed runs per strategy after one warm-up (median kept)")->capture_default_str();
  lab->add_option("--threads", o.threads, "compiling threads (0: the cores less one)")->capture_default_str();
  lab->add_flag("--features-only", o.features_only, "write the records without timing anything (no GPU needed)");
  lab->add_flag("--ptxas", o.ptxas,
                "with --features-only: also compile each program's strategies with NVRTC for sm_90 at each size (no "
                "GPU needed) and record every kernel's registers, spill stores, spill loads and stack bytes (key "
                "`ptxas`)");
  lab->add_option("--max-seconds", o.max_seconds, "start no program after this long (0: no limit)")->capture_default_str();
  return lab;
}

static nlohmann::json program_record(const Program& p) {
  const Analysis a = analyse(p);
  nlohmann::json ops = nlohmann::json::array();
  int stencil_edges = 0, points = 0, flops = 0;
  std::size_t max_width = 0;
  for (const auto& b : a.buckets) max_width = std::max(max_width, b.size());
  for (const StencilInfo& si : a.stencils) {
    nlohmann::json reads = nlohmann::json::array();
    for (const NeighbourTensor& t : si.tensors) {
      std::vector<int> on;
      for (std::size_t i = 0; i < t.bits.size(); ++i)
        if (t.bits[i]) on.push_back(static_cast<int>(i));
      reads.push_back({t.grid, on});
    }
    stencil_edges += static_cast<int>(si.stencil_producers.size());
    points += si.points_read;
    flops += si.flops;
    ops.push_back({{"node", si.node}, {"reads", reads}});
  }
  nlohmann::json edges = nlohmann::json::array();
  for (std::size_t i = 0; i < a.adjacency.size(); ++i)
    for (std::size_t j = 0; j < a.adjacency[i].size(); ++j)
      if (a.adjacency[i][j]) edges.push_back({i, j});
  const FusionPlan f = plan_producer_consumer(p);
  nlohmann::json plan = nlohmann::json::array();
  for (const auto& row : plan_features(p)) {
    nlohmann::json r = nlohmann::json::array();
    for (double x : row) r.push_back(std::round(x * 1e9) / 1e9);
    plan.push_back(r);
  }
  nlohmann::json plan2 = nlohmann::json::array(); // plan_features_v2 (variant plan2), rounded the same way
  for (const auto& row : plan_features_v2(p)) {
    nlohmann::json r = nlohmann::json::array();
    for (double x : row) r.push_back(std::round(x * 1e9) / 1e9);
    plan2.push_back(r);
  }
  return {{"name", p.name},
          {"plan", plan},
          {"plan2", plan2},
          {"nodes", p.nodes.size()},
          {"ops", ops},
          {"edges", edges},
          {"counts",
           {{"stencils", a.stencils.size()},
            {"inputs", p.inputs().size()},
            {"edges", a.edges},
            {"dependencies", stencil_edges},
            {"depth", a.buckets.size()},
            {"max_width", max_width},
            {"points_read", points},
            {"flops", flops},
            {"pc_kernels", f.kernels.size()}}}};
}

int cmd_dag_label(const DagLabelCliOptions& o) {
  const std::uint64_t seed = parse_seed_text(o.seed_text);
  if (o.count < 0 || o.count > 100000) throw InputError(fmt::format("--count takes 0 to 100000; got {}", o.count));
  LabelOptions lo;
  lo.sizes.clear();
  for (const std::string& size : split_comma_list(o.sizes, "--sizes")) lo.sizes.push_back(parse_dag_size(size)[0]);
  if (lo.sizes.empty()) throw InputError("--sizes needs at least one cube size (e.g. 128,256)");
  lo.repeats = o.repeats;
  lo.threads = o.threads;
  lo.max_seconds = o.max_seconds;
  std::vector<Program> programs;
  std::vector<nlohmann::json> origin;
  if (!o.files.empty())
    for (Program& p : load_programs(o.files)) {
      origin.push_back({{"source", "file"}});
      programs.push_back(std::move(p));
    }
  if (o.count > 0) {
    const auto real = se::find_data_dir("dags");
    if (!real) throw InputError("assets/dags not found above the program or the working directory (the generator's chains)");
    const std::vector<Chain> chains = extract_chains(load_programs(*real));
    for (int i = 0; i < o.count; ++i) {
      const std::uint64_t s = seed + static_cast<std::uint64_t>(i);
      programs.push_back(parse_program(generate_program_text(s, chains), fmt::format("gen_{}", s)));
      origin.push_back({{"source", "generated"}, {"seed", s}});
    }
  }
  if (programs.empty()) throw InputError("nothing to label: give --count N and/or --files DIR");
  check_writable(o.out, "label file");
  if (o.ptxas && !o.features_only) throw InputError("--ptxas goes with --features-only");
  if (o.features_only) { // the records without timings (no GPU): to add features to an existing dataset
    std::ofstream fo(o.out);
    const auto write = [&](std::size_t i, const nlohmann::json& ptxas) {
      nlohmann::json rec = program_record(programs[i]);
      rec.update(origin[i]);
      if (!ptxas.is_null()) rec["ptxas"] = ptxas;
      fo << rec.dump() << "\n" << std::flush;
    };
    if (!o.ptxas) {
      for (std::size_t i = 0; i < programs.size(); ++i) write(i, nullptr);
    } else { // NVRTC on worker threads, records written in order as they complete
      static const char* names[3] = {"sequential", "producer-consumer", "parallel"};
      const auto resources = [&](std::size_t i) {
        nlohmann::json sizes = nlohmann::json::object();
        try {
          for (const int n : lo.sizes) {
            const auto r = dag::module_resources(programs[i], n, 9, 0);
            nlohmann::json per = nlohmann::json::object();
            for (int k = 0; k < 3; ++k) {
              nlohmann::json ks = nlohmann::json::array();
              for (const dag::KernelResources& x : r[static_cast<std::size_t>(k)])
                ks.push_back({x.registers, x.spill_store_bytes, x.spill_load_bytes, x.stack_bytes});
              per[names[k]] = ks;
            }
            sizes[std::to_string(n)] = per;
          }
        } catch (const std::exception& e) {
          sizes = {{"error", e.what()}};
        }
        return sizes;
      };
      const int threads = o.threads > 0 ? o.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
      ordered_parallel<nlohmann::json>(programs.size(), threads, 4 * static_cast<std::size_t>(threads), resources,
                                       [&](std::size_t i, nlohmann::json ptxas) {
                                         write(i, ptxas);
                                         if ((i + 1) % 100 == 0) {
                                           std::printf("dag-label --ptxas: %zu / %zu programs\n", i + 1,
                                                       programs.size());
                                           std::fflush(stdout);
                                         }
                                         return true;
                                       });
    }
    std::printf("dag-label: %zu program records (no timings%s) -> %s\n", programs.size(),
                o.ptxas ? ", ptxas's kernel resources [registers, spill store bytes, spill load bytes, stack bytes]" : "",
                o.out.c_str());
    return 0;
  }
  std::ofstream out(o.out);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<nlohmann::json> timings(programs.size(), nlohmann::json::object());
  std::size_t written = 0, failed = 0;
  double compile_total = 0;
  static const char* names[4] = {"sequential", "producer-consumer", "parallel", "graph"};
  const std::string device = label_programs(programs, lo, [&](std::size_t prog, std::size_t size, const LabelTiming& t) {
    nlohmann::json tj = nlohmann::json::object();
    if (t.error.empty())
      for (int s = 0; s < 4; ++s) tj[names[s]] = t.seconds[s];
    else
      tj["error"] = t.error, ++failed;
    tj["compile_seconds"] = t.compile_seconds;
    compile_total += t.compile_seconds;
    timings[prog][std::to_string(lo.sizes[size])] = tj;
    if (size + 1 == lo.sizes.size()) {
      nlohmann::json rec = program_record(programs[prog]);
      rec.update(origin[prog]);
      rec["times"] = timings[prog];
      out << rec.dump() << "\n";
      out.flush();
      ++written;
      if (written % 100 == 0)
        std::fprintf(stderr, "dag-label: %zu/%zu programs after %.1fs\n", written, programs.size(), seconds_since(t0));
    }
  });
  const double total = seconds_since(t0);
  const nlohmann::json summary = {{"summary", true},         {"device", device},        {"date", date},
                                  {"sizes", lo.sizes},       {"repeats", lo.repeats},   {"programs", written},
                                  {"failed_runs", failed},   {"seconds", total},        {"compile_cpu_seconds", compile_total},
                                  {"parallel_placement", "direct (block b = mTask b)"}};
  out << summary.dump() << "\n";
  std::printf("dag-label: %zu programs x %zu sizes on %s in %.1f s (NVRTC %.1f CPU-s), %zu failed runs -> %s\n", written,
              lo.sizes.size(), device.c_str(), total, compile_total, failed, o.out.c_str());
  return failed == 0 ? 0 : 1;
}

} // namespace se
