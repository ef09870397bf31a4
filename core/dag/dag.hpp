// Complex-stencil programs (Plasticine, ICS'25): a DAG of const nodes (input grids) and stencil nodes (a grid
// defined by an expression over grids at neighbour offsets). Plain C++, no CUDA: the text format, its parser
// (errors with line and column), validation, the analysis of the paper's Section 3 (S-DAG buckets, neighbour
// access tensors, multi-grid computation tensors, adjacency matrix), and a CPU interpreter that is the
// reference every execution strategy is checked against.
//
// The text format (one statement per line, as the paper's Algorithm 2 reads; '#' starts a comment):
//
//   program p_grad_c                 optional: the program's name (default: the file name)
//   domain 128 128 64                optional: the 3D computational domain nx ny nz (default 128 128 128)
//   input  wgtfac f64                a const node: name, type (f64 or f32), optionally its own domain
//   input  rdxc   f64 128x128x64       (which must equal the program's: a mismatch is refused)
//   ppgk = wgtfac * ppuv[0,0,-1] + (1.0 - wgtfac) * ppuv   a stencil node: output grid = expression
//   out : f32 = a[1,0,0] - a          optional ': type' on a stencil node: must match the grids it reads
//
// Expressions: numbers, grid reads `g` (the centre) or `g[dx,dy,dz]` (integer offsets, each in -3..3), + - * /,
// unary minus, parentheses, sqrt(e), abs(e), min(a,b), max(a,b). Every grid a stencil reads must be defined
// above it (inputs or earlier stencil nodes); all grids of one stencil have one type, which is its type.
// The domain is periodic: a read beyond an edge wraps around (so every value is defined, no division meets a
// zero halo, and a value recomputed at a summed offset is exactly the value stored there).
// A stencil node no other node reads is an output of the program.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace se::dag {

constexpr int kMaxRadius = 3;              // offsets beyond it are refused
constexpr int kTensorSide = 2 * kMaxRadius + 1; // 7: the neighbour-access tensor is 7x7x7

enum class Type { F64, F32 };
const char* to_string(Type t);
std::size_t size_of(Type t);

struct SourcePos {
  int line = 0, column = 0; // 1-based; 0 where unknown
};

// One problem in a program's text: where and what. A GUI shows it in place; the CLI prints
// "file:line:column: message" and exits 2.
struct Diagnostic {
  SourcePos pos;
  std::string message;
  std::string to_string() const; // "line L, column C: message"
};

// Thrown by parse_program (an InputError: the CLI exits 2); carries every diagnostic found.
class DagError : public InputError {
public:
  explicit DagError(std::vector<Diagnostic> d);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

private:
  std::vector<Diagnostic> diagnostics_;
};

enum class Op { Number, Read, Neg, Add, Sub, Mul, Div, Sqrt, Abs, Min, Max };

// One expression node. A stencil's expression is a flat vector in post-order (children before parents), the
// root last; `a` and `b` index operands in the same vector.
struct Expr {
  Op op = Op::Number;
  double value = 0;             // Number
  int grid = -1;                // Read: index into Program::nodes
  std::array<int, 3> off{0, 0, 0}; // Read: dx, dy, dz
  int a = -1, b = -1;
  SourcePos pos;
};

struct Node {
  std::string name;
  bool is_input = true;
  Type type = Type::F64;
  SourcePos pos;
  std::vector<Expr> expr; // stencil nodes only, post-order, root last
  bool type_given = false; // a stencil node written with ': type'
  bool domain_given = false; // an input written with its own domain
};

struct Program {
  std::string name = "program";
  std::array<int, 3> domain{128, 128, 128};
  std::vector<Node> nodes; // in definition order (a topological order)
  std::vector<int> stencils() const; // indices of the stencil nodes, in order
  std::vector<int> inputs() const;
  std::vector<int> outputs() const; // stencil nodes that no stencil reads
  int find(std::string_view name) const; // -1 when absent
};

// Parses and validates; throws DagError with every diagnostic (line and column) when the text is refused.
Program parse_program(std::string_view text, std::string_view default_name = "program");
// The same without throwing: the program when `diagnostics` is empty.
Program parse_program(std::string_view text, std::vector<Diagnostic>& diagnostics,
                      std::string_view default_name = "program");
// Reads a file and parses it; the diagnostics are prefixed by the path.
Program load_program(const std::string& path);

// The canonical text (parse(print(p)) gives p back; print is a fixed point).
std::string print_program(const Program& p);
std::string print_expression(const Program& p, const Node& n);
// A program that refers to grids by index can be re-validated after an edit (a GUI's editor).
std::vector<Diagnostic> validate(const Program& p);

// ---- Analysis (Section 3.2 and 3.3) ---------------------------------------------------------------------

// The 7x7x7 binary neighbour-access tensor of one grid access within a stencil: bit (dz+3, dy+3, dx+3).
struct NeighbourTensor {
  int grid = -1;
  std::array<std::uint8_t, kTensorSide * kTensorSide * kTensorSide> bits{};
  bool at(int dx, int dy, int dz) const;
  int count() const;
};

struct StencilInfo {
  int node = -1;
  std::vector<int> reads;                 // distinct grids read, in first-read order
  std::vector<int> stencil_producers;     // the stencil nodes among them
  std::vector<NeighbourTensor> tensors;   // one per grid read: the multi-grid computation tensor (concatenated)
  std::vector<std::array<int, 3>> offsets(int grid) const;
  int radius = 0;                         // the largest |offset| it reads
  int flops = 0;                          // + - * / neg sqrt abs min max per point
  int points_read = 0;                    // distinct (grid, offset) reads per point
};

struct Analysis {
  std::vector<StencilInfo> stencils;      // in the order of Program::stencils()
  std::vector<std::vector<int>> buckets;  // node indices; bucket b runs after bucket b-1 (paper Fig. 5)
  std::vector<int> bucket_of;             // per node: its bucket, -1 for inputs
  std::vector<std::vector<std::uint8_t>> adjacency; // [i][j] = 1 when node i feeds stencil node j
  int edges = 0;                          // (node -> stencil) pairs
  const StencilInfo& info(int node) const;
  std::string benchmark_name() const;     // "k5_i4_e14": the paper's csN_kK_iI_eE counts
};

Analysis analyse(const Program& p);
std::string format_buckets(const Program& p, const Analysis& a);
std::string format_tensors(const Program& p, const Analysis& a);

// ---- Producer-consumer fusion plan ----------------------------------------------------------------------

// Which stencil nodes are materialised (written to memory) and which are inlined into their consumers,
// recomputed at every offset a consumer needs them (OpenEarth's halo recomputation). Outputs are always
// materialised; an intermediate is inlined when the recomputation it costs stays below `max_recompute`
// times its own work.
struct FusionPlan {
  std::vector<bool> materialised;         // per node (inputs: true)
  // Per materialised stencil: the (node, offset) values it computes, in dependency order, its own last
  // at offset 0. Reads of materialised grids inside are loads.
  struct Value {
    int node;
    std::array<int, 3> off;
  };
  std::vector<std::vector<Value>> kernels; // one per materialised stencil, in program order
  std::vector<int> kernel_node;            // the node each kernel writes
  int max_recompute = 8;
};
FusionPlan plan_producer_consumer(const Program& p, int max_recompute = 8);
// No recomputation limit: every intermediate inlined, one kernel per output.
constexpr int kNoRecomputeLimit = 1 << 30;
// The limits `stencil-bench dag --print costs` lists and the DAG view offers, from 0 (inline nothing) to none.
constexpr int kRecomputeLimitSteps[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, kNoRecomputeLimit};
// "none" for kNoRecomputeLimit, else the number.
std::string recompute_limit_name(int limit);
// The limits 1, 2, 4, 8, 16 and 32 that give distinct plans (the smallest limit of each): what a producer-consumer
// run with `--recompute-limit auto` times, keeping the fastest.
std::vector<int> distinct_recompute_limits(const Program& p);
std::string format_fusion(const Program& p, const FusionPlan& f);
// The plan's kernels by dependency level: a kernel's level is one more than the highest level of the kernels whose
// grids it loads (0 when it loads none). Kernels of one level are independent. Indices into FusionPlan::kernels, in
// plan order within a level.
std::vector<std::vector<int>> fusion_levels(const Program& p, const FusionPlan& f);
// The levels by the grids their kernels write: "lap | flxl + flyl | out".
std::string format_levels(const Program& p, const FusionPlan& f);
// Hybrid fusion's plan: producer-consumer fusion without recomputation (limit 1: an intermediate is inlined only
// where one kernel needs it at one offset, so every value is still computed once per point).
constexpr int kHybridRecomputeLimit = 1;

// ---- Data and execution ---------------------------------------------------------------------------------

// A grid's values, FP64 or FP32 (only the vector of its type is used), x fastest.
struct Field {
  Type type = Type::F64;
  std::vector<double> f64;
  std::vector<float> f32;
  double at(std::size_t i) const { return type == Type::F64 ? f64[i] : static_cast<double>(f32[i]); }
  std::size_t size() const { return type == Type::F64 ? f64.size() : f32.size(); }
};

// Every node's field (inputs filled, stencils computed or left empty), indexed like Program::nodes.
struct State {
  std::array<int, 3> domain{0, 0, 0};
  std::vector<Field> fields;
  std::size_t points() const { return static_cast<std::size_t>(domain[0]) * domain[1] * domain[2]; }
};

// Inputs with deterministic pseudo-random values in [0.5, 1.5) (divisions by sums of them stay finite).
State make_inputs(const Program& p, std::array<int, 3> domain, std::uint64_t seed);

// The execution strategies. Sequential: one kernel per stencil node. ProducerConsumer: producers inlined into their
// consumers (plan_producer_consumer). Parallel: one launch per bucket whose blocks are mTasks of the bucket's
// operators (Plasticine's parallelism fusion). Graph: the sequential kernels as a CUDA graph (GPU only).
// Horizontal: one launch per bucket in which every thread computes all the bucket's operators at its point and
// loads each (grid, offset) they read once, so a grid that several operators of a bucket read crosses memory once.
// Hybrid: both fusions, without recomputation: producer-consumer's plan at kHybridRecomputeLimit, its kernels of
// one dependency level (fusion_levels) fused horizontally, one launch per level.
enum class Strategy { Sequential, ProducerConsumer, Parallel, Graph, Horizontal, Hybrid };
// Every strategy, in the order the CLI, the GUI and `--strategy all` list and run them.
constexpr Strategy kStrategies[] = {Strategy::Sequential, Strategy::ProducerConsumer, Strategy::Parallel, Strategy::Graph,
                                    Strategy::Horizontal, Strategy::Hybrid};
const char* to_string(Strategy s);
Strategy parse_strategy(std::string_view s); // throws InputError naming the choices
// Whether the strategy has a CPU version (run_cpu): all but Graph.
inline bool runs_on_cpu(Strategy s) { return s != Strategy::Graph; }

// The reference: every stencil node in program order, over the whole domain, row by row. Fills every field.
// `progress(done, total)` is called after each stencil node.
void interpret(const Program& p, State& s, const std::function<void(int, int)>& progress = {});
// CPU versions of the strategies (Graph is GPU-only: InputError). Sequential is interpret(); ProducerConsumer
// follows plan_producer_consumer (inlined nodes recomputed row by row, never stored); Parallel runs each
// bucket's operators as one parallel loop over (operator, plane) tasks; Horizontal as one parallel loop over
// planes, each task computing every operator of the bucket on its plane; Hybrid likewise per level of its plan.
// `max_recompute` is producer-consumer fusion's recomputation limit (plan_producer_consumer); the other strategies
// ignore it (hybrid fusion's is always kHybridRecomputeLimit).
void run_cpu(const Program& p, Strategy strategy, State& s, int max_recompute = FusionPlan{}.max_recompute);

struct Compare {
  double rel_l2 = 0, max_abs = 0;
  bool finite = true;
};
// Over the program's outputs.
Compare compare_outputs(const Program& p, const State& got, const State& want);

// Memory traffic and arithmetic a strategy needs per run (compulsory: every grid a kernel reads once and
// every grid it writes once; FLOPs with the recomputation of inlined values).
struct Cost {
  double bytes = 0, flops = 0;
  int launches = 0;
  // The traffic between L2 and the SMs' L1 of the generated kernels (each block one kTileX x kTileY tile of one
  // plane): per kernel, grid and z offset read, the tile's rows widened by the y offsets times its 32-byte sectors
  // widened by one sector where x offsets reach out, per point; plus the writes. The generated kernels are bound
  // by it on the H200 (notes/complex-stencils.md, "What limits the fused kernels").
  double l2_bytes = 0;
};
// Producer-consumer follows plan_producer_consumer(p, max_recompute); the other strategies ignore it.
Cost strategy_cost(const Program& p, const Analysis& a, Strategy s, std::array<int, 3> domain,
                   int max_recompute = FusionPlan{}.max_recompute);
// Producer-consumer fusion under another recomputation limit than the strategy's (8): the family of plans between
// sequential's bytes (limit 0: nothing inlined) and the fewest bytes (no limit: every intermediate inlined, the
// most FLOPs). `stencil-bench dag --print costs` lists it; notes/complex-stencils.md bounds the 2x goal with it.
Cost producer_consumer_cost(const Program& p, const Analysis& a, std::array<int, 3> domain, int max_recompute);

// ---- CUDA source generation (compiled at run time with NVRTC by kernels/dag/) ------------------------------

// Threads of one block (an mTask: a tile of kTileX x kTileY points on one plane).
constexpr int kTileX = 32, kTileY = 8;

struct KernelInfo {
  std::string name;            // extern "C" symbol
  std::vector<int> nodes;      // the stencil nodes it writes (one, a bucket's for the parallel and horizontal
                               // strategies, a level's for the hybrid one)
  std::vector<int> after;      // kernels (indices into GeneratedCode::kernels) it must follow (graph edges)
  bool task_table = false;     // parallel strategy: launched over vEUs with (task_begin, tasks) arguments
  std::string direct_name;     // parallel strategy: the same bucket with block b = mTask (operator b % ops,
                               // tile b / ops), no table: the hardware's block scheduler places the mTasks
};

// The source of one strategy for one program and domain: every kernel takes `Ptrs P` (one device pointer per
// node of the program) and the parallel strategy's also `const int* task_begin, const int2* tasks`.
struct GeneratedCode {
  Strategy strategy = Strategy::Sequential;
  std::string source;
  std::vector<KernelInfo> kernels; // in launch order
  int pointer_slots = 0;           // size of Ptrs::p
};
// Producer-consumer fusion follows plan_producer_consumer(p, max_recompute); the other strategies ignore it.
GeneratedCode generate_cuda(const Program& p, Strategy s, std::array<int, 3> domain,
                            int max_recompute = FusionPlan{}.max_recompute);

} // namespace se::dag
