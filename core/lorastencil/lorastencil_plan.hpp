// The LoRAStencil plan: temporal fusion chosen by the cost model, the fused kernel's planes (pyramid or SVD
// per plane, single-weight planes on CUDA cores in 3D), the RDG tile, banded U/V and butterfly swap; its cost.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cost.hpp"
#include "core/grid.hpp"
#include "core/lorastencil/residual_gathering.hpp"
#include "core/lorastencil/weight_decomposition.hpp"
#include "core/stencil.hpp"

namespace se {

enum class DecompositionChoice {
  Auto,    // per plane, the fewest MMAs on the plan's warp tile among the pyramid, the cross split and the SVD
  Pyramid, // the pyramid or an InputError saying why not
  Svd,     // always the SVD (to compare its cost with the pyramid's)
  Cross,   // the cross split / star expansion (cross_decomposition.hpp) or an InputError saying why not
};
std::string_view to_string(DecompositionChoice c);
DecompositionChoice parse_decomposition_choice(std::string_view s); // "auto", "pyramid", "cross", "svd"

// The roofs the fusion choice weighs: device-memory bandwidth and FP64 tensor-core peak.
struct RooflineDevice {
  std::string name = "A100 80GB (the paper's machine)";
  double memory_gbs = 1935.0;
  double tensor_fp64_tflops = 19.5;
};

struct LoraStencilOptions {
  MmaShape shape = MmaShape::M8N8K4_F64;
  int fused_steps = 0; // base steps per pass; 0: the cost model picks 1, 2 or 3
  DecompositionChoice decomposition = DecompositionChoice::Auto;
  RooflineDevice device{};
  // C fragments side by side along x in one warp tile, sharing the rows of T = U·X: the tile the MMAs are
  // counted on (and the emulation runs). 1 is the paper's tile; the GPU kernels take 4 in 2D and 2 in 3D.
  int warp_fragments = 1;
  // 3D: a plane dz < 0 whose weights equal plane -dz's runs its terms once on the sum x[z+dz] + x[z-dz] (one add
  // per loaded value instead of a second plane's MMAs); LoraPlane::folds_mirror / ::mirrored. Off in the paper's
  // plan (Algorithm 2 runs every plane); the GPU kernels' plan turns it on (kernel_plan_options).
  bool fold_mirror_planes = false;
};

enum class PlaneKind { TensorCores, CudaCores, Empty };
std::string_view to_string(PlaneKind k);

// One plane dz of the kernel (the only plane, dz = 0, in 2D). Paper Algorithm 2: a plane with a single weight
// is a point-wise multiply-add on CUDA cores; any other non-zero plane is a 2D LoRAStencil on tensor cores.
struct LoraPlane {
  int dz = 0;
  PlaneKind kind = PlaneKind::Empty;
  WeightDecomposition decomposition; // TensorCores
  std::vector<BandedPair> bands;     // TensorCores: one per tensor-core term, in term order
  std::vector<TermGather> gathers;   // TensorCores: the same terms trimmed to their non-zeros, as the tile runs them
  double apex = 0.0;                 // TensorCores: the pyramid's 1x1 term, added on CUDA cores (0 if none)
  int dx = 0, dy = 0;                // CudaCores: where the single weight sits
  double weight = 0.0;               // CudaCores: its value
  // Mirror folding (LoraStencilOptions::fold_mirror_planes), 3D only: this plane (dz < 0) takes its input as
  // x[z+dz] + x[z-dz], doing the work of plane -dz as well; plane -dz is then `mirrored`: the same weights,
  // decomposition and terms (kept for the views), none of which run or are counted.
  bool folds_mirror = false;
  bool mirrored = false;
  bool runs() const { return kind != PlaneKind::Empty && !mirrored; }
};

// One fusion depth the cost model weighed, per point and base step.
struct FusionCandidate {
  int steps = 1;
  int radius = 0; // of W^steps
  int tensor_core_terms = 0;
  double mma_per_point = 0;
  double global_bytes_per_point = 0;
  double estimated_ps_per_point = 0; // max(memory time, tensor-core time) on options.device
  std::string bound;                 // "memory" or "tensor cores"
};

struct LoraStencilPlan {
  Stencil stencil;     // the base stencil
  Stencil kernel;      // W^T: what one pass applies
  int fused_steps = 1; // T
  LoraStencilOptions options;
  std::string fusion_rule; // how T was chosen
  std::vector<FusionCandidate> fusion_candidates;
  LineGather line;     // 1D
  GatherTile tile;     // 2D and 3D
  ButterflySwap swap;  // 2D and 3D
  std::vector<LoraPlane> planes; // 2D: one; 3D: 2R+1 for the kernel's radius R
  CostReport cost;
  int tensor_core_terms() const;  // over all planes that run (mirrored planes run as their mirror)
  int folded_planes() const;      // planes that fold their mirror (LoraPlane::folds_mirror)
  int cuda_core_terms() const;    // apexes, single-weight planes and terms that trim to the centre point
};

// Mirror folding's rule (LoraStencilOptions::fold_mirror_planes): planes dz and -dz (dz != 0) of a 3D kernel carry
// the same weights and are not empty.
bool mirror_planes_fold(const Stencil& kernel, int dz);

// The MMAs one warp tile of `tile` executes for the tensor-core terms of `d`, each trimmed to its non-zeros
// (term_schedule of term_gather): the count the decomposition rule below compares, and the cost model sums.
int decomposition_tile_mma(const WeightDecomposition& d, const GatherTile& tile);

// Throws InputError when LoRAStencil cannot take the stencil: radius 0 (nothing to gather), a forced pyramid
// on weights without the symmetry it needs, a forced cross split on a plane that is not star-shaped, a non-FP64
// shape, fewer than 1 or more than 16 fragments per warp tile, or a fusion depth beyond kMaxRadius.
// Decomposition rule (options.decomposition == Auto), per plane: the split with the fewest MMAs on the warp
// tile (term_schedule of every term, trimmed to its non-zeros), then the fewest CUDA-core terms, then the first
// of pyramid, cross, SVD; the plane's reason says which and what the others would cost.
// Fusion rule (options.fused_steps == 0): among T = 1..min(3, kMaxRadius / r), the T with the smallest
// max(global bytes / bandwidth, tensor FLOPs / FP64 tensor peak) per point and base step on options.device;
// a deeper fusion is taken only when it beats the shallower ones by more than 2%.
LoraStencilPlan make_lorastencil_plan(const Stencil& s, const LoraStencilOptions& options = {});

// Counted from the plan's own matrices (per updated point and base step). Global bytes assume the paper's
// blocking (Table II: 1024 in 1D, 32x64 in 2D, 8x64 planes streamed along z in 3D), 8-byte values read once
// per block with a halo of R and written once.
CostReport lorastencil_cost(const LoraStencilPlan& plan);

// The paper's own counts for an a x b grid at radius h (Eq. 12-16), exactly as printed there.
struct LoraPaperCounts {
  int h = 0;
  double points_per_update = 0;          // 32 ceil(h/2) ceil(h/4)
  double rdg_fragment_loads = 0;         // Eq. 12: ab / 8
  double convstencil_fragment_loads = 0; // Eq. 13: 2 ceil((2h+1)^2/4) ceil(a / (16(h+1))) b
  double memory_ratio = 0;               // Eq. 13 / Eq. 12 at this a, b
  double memory_ratio_limit = 0;         // Eq. 14: ceil((2h+1)^2/4) / (h+1)
  double lorastencil_mma = 0;            // Eq. 16: 2h ceil(h/2) (2 ceil(h/4) + 1) ab / (32 ceil(h/2) ceil(h/4))
  double convstencil_mma = 0;            // ConvStencil has no fragment reuse: its MMAs equal Eq. 13
  std::vector<int> pyramid_sides;        // Eq. 15: 2h+1, 2h-1, ..., 1
};
LoraPaperCounts lorastencil_paper_counts(int h, std::int64_t a, std::int64_t b); // throws for h < 1, a, b < 1

std::string to_string(const LoraStencilPlan& plan); // matrices with aligned columns, metadata, layouts, cost
nlohmann::json to_json(const LoraStencilPlan& plan);

} // namespace se
