// The plain data one LoRAStencil GPU pass receives by value: grid, boundary, tile geometry and the rank-1
// terms (their fragment tables live in device memory). Shared by the host plan and the CUDA kernels.
#pragma once
#include <cstdint>

namespace se::lora_gpu {

// Limits of one pass. The fused radius never exceeds core's kMaxRadius (7); 8 keeps the even-rounded halo.
constexpr int kMaxFusedRadius = 8;
constexpr int kMaxPlanes = 2 * kMaxFusedRadius + 1;
constexpr int kMaxTerms = 64;

// Warp and block tiles. Every product is mma.m16n8k4.f64 (twice the rate of m8n8k4 on Hopper). A warp
// computes 16 rows x 32 columns: four 16x8 C fragments that share the columns of T. 2D: 4 x 2 warps make a
// 64 x 64 block tile; 3D: 16 x 16 warp tiles, 2 or 1 warp rows of 4 (32 or 16 x 64) so that 2R+3 staged
// planes fit; 1D: 16 segments of 128 points, a warp taking 32 columns of every segment.
constexpr int kThreads = 256;
constexpr int kWarpRows = 16;
constexpr int kWarpCols = 32;
constexpr int kOutTilesPerWarp = kWarpCols / 8; // C fragments per warp along x
constexpr int kTileRows = 64;
constexpr int kTileCols = 64;
constexpr int k3dWarpCols = 16;
constexpr int k3dOutTilesPerWarp = k3dWarpCols / 8;
constexpr int kLineRows = 16;
constexpr int kLineCols = 128;
constexpr int kLineThreads = (kLineCols / kWarpCols) * 32; // 128
constexpr int kLineStages = 3;                             // tiles in flight per 1D block: this one and 2 more

// Fragments are whole 4-row chunks and 8-column tiles, so a warp reads up to 2 rows past its window and a few
// columns past a row's end (into the next row); those inputs meet zero weights. Rows past a staged plane are zeroed once per block, so every value
// read is finite (0 x NaN would not vanish). 1D reads at most a few columns past a row: one row suffices.
constexpr int kSlackRows = 3;
constexpr int kStagedAlign = 128; // bytes: 2D/3D staged planes start this aligned (TMA destination)
constexpr int kLineSlackRows = 1;

// How a rank-1 term u v^T is executed (u down the rows, v along x):
//   Full      - T = U·X on the tensor cores, then Y += T'·V' with the butterfly-swapped V (both vectors wider than 1)
//   RowGather - Y += U·X directly: v is a single weight (folded into u)
//   ColGather - Y += X·V directly: u is a single weight (folded into v); also the whole 1D stencil
//   Scalar    - Y += s * X(dx, dy) on CUDA cores: the pyramid's apex, or a single-weight 3D plane
enum TermKind : int { kFull = 0, kRowGather = 1, kColGather = 2, kScalar = 3 };

// One switch key per kernel instantiation a term selects (kind, chunk count, wide), so that the kernels
// dispatch a term with one jump.
#ifdef __CUDACC__
#define SE_LORA_HD __host__ __device__
#else
#define SE_LORA_HD
#endif
SE_LORA_HD constexpr int term_key(int kind, int kc, int wide) { return kind * 32 + kc * 2 + wide; }

struct TermDesc {
  int kind = kScalar;
  int key = term_key(kScalar, 0, 0); // term_key(kind, kc, wide): what the kernels switch on
  int offset = 0;      // staged-plane offset of the term's first read from the lane base of its kind (make_pass_args):
                       // rows (Full, RowGather) (R-wu)*P + xs + R - wv; columns (R*P + xs + R - wv);
                       // scalar (R+dy)*P + xs + R + dx, with xs = halo - R and P the pitch
  int wu = 0, wv = 0;  // half-widths of u and v (the term covers (2wu+1) x (2wv+1), centred)
  int kc = 0;          // k-chunks of 4 of the first (or only) product (U·X: 16 output rows; X·V: 8 columns)
  int table = 0;       // first slot of this term's fragments in the table (a slot = 32 doubles, one per lane;
                       // U fragments take 2 slots per chunk: rows g and g+8 of lane 4g+q, interleaved)
  int dx = 0, dy = 0;  // Scalar: where the weight sits
  int wide = 0;        // Full: 1 when wv > 4 (T spans 6 fragments instead of 5, V' reaches 3 of them)
  double scalar = 0.0; // Scalar: the weight
};

struct PassArgs {
  const double* in = nullptr;
  double* out = nullptr;
  const double* tables = nullptr; // table_slots x 32 doubles
  long long nx = 1, ny = 1, nz = 1;
  int dims = 2;
  int radius = 1;         // R of the fused kernel W^T (the same along every axis)
  int halo = 2;           // R rounded up to even, so every staged row starts 16-byte aligned
  int pitch = 0;          // doubles per staged row in shared memory (bank-conflict-free for 8-byte fragments)
  int tile_rows = kTileRows; // output rows per block tile (3D takes fewer when its 2R+2 planes would not fit)
  int staged_rows = 0;    // rows per staged plane (tile rows + 2R); 1D: kLineRows
  int plane_stride = 0;   // doubles per staged plane: staged rows plus kSlackRows zero rows
  int periodic = 0;
  double boundary_value = 0.0;
  int table_slots = 0;
  int tables_in_shared = 1; // 0: the tables stay in global memory (read through the L1 cache)
  int term_count = 0;
  int plane_first[kMaxPlanes] = {};
  int plane_count[kMaxPlanes] = {};
  int plane_mirror[kMaxPlanes] = {}; // 3D mirror folding: the plane whose staged values plane p adds to its own, or -1
  long long items = 0;    // work items: 1D/2D tiles; 3D (tile, z chunk) pairs
  int tiles_x = 1, tiles_y = 1;
  int z_chunk = 1;
  int aligned_rows = 0;   // 1 when every grid row starts 16-byte aligned (nx even): 16-byte copies and stores
  int tensor_map = 0;     // 1 when the launch passes a TMA tensor map of `in` (box: pitch x staged_rows [x 1])
  TermDesc terms[kMaxTerms];
};

// 3D passes whose term list the kernels compile in (the symmetric radius-1 presets' shapes): radius 1, plane -1
// folding plane +1, plane -1's term keys then plane 0's (-1: none), in make_gpu_pass's order. Their z-loop is
// straight-line code: no per-term dispatch, and one term's loads may overlap another's MMAs.
struct StaticProgram3d {
  int lower[2];  // keys of plane -1's terms (run on x[z-1] + x[z+1])
  int middle[2]; // keys of plane 0's terms
};
constexpr StaticProgram3d kStaticPrograms3d[] = {
    {{term_key(kFull, 5, 0), term_key(kScalar, 0, 0)}, {term_key(kFull, 5, 0), term_key(kScalar, 0, 0)}}, // box-3d27p
    {{term_key(kScalar, 0, 0), -1}, {term_key(kColGather, 3, 0), term_key(kRowGather, 5, 0)}},            // heat-3d
};
constexpr int kStaticPrograms3dCount = static_cast<int>(sizeof(kStaticPrograms3d) / sizeof(kStaticPrograms3d[0]));

// The static program a 3D pass matches, or -1 (then the kernel dispatches each term by its key).
inline int static_program_3d(const PassArgs& a) {
  if (a.dims != 3 || a.radius != 1 || !a.tables_in_shared || a.plane_mirror[0] != 2 || a.plane_mirror[1] != -1 ||
      a.plane_mirror[2] != -1 || a.plane_count[2] != 0 || a.plane_first[0] != 0 || a.plane_first[1] != a.plane_count[0])
    return -1;
  for (int i = 0; i < kStaticPrograms3dCount; ++i) {
    const StaticProgram3d& p = kStaticPrograms3d[i];
    const auto same = [&](const int (&keys)[2], int first, int count) {
      int n = 0;
      for (int key : keys)
        if (key >= 0) {
          if (n >= count || a.terms[first + n].key != key) return false;
          ++n;
        }
      return n == count;
    };
    if (same(p.lower, a.plane_first[0], a.plane_count[0]) && same(p.middle, a.plane_first[1], a.plane_count[1]))
      return i;
  }
  return -1;
}

} // namespace se::lora_gpu
