// SPIDER on the GPU, the host side: core's plan (kernel rows as L x 2L bands, the strided swap to 2:4, compressed
// values and packed metadata, the input row map) turned into what each lane of the kernel holds. Plain C++ (its
// tests run without a GPU); the kernels are kernels/spider/spider_kernels.cuh.
//
// The GPU plan is core's plan with the strided swap taken at the granularity of column pairs (SwapParity::Pairs;
// SwapParity::Lanes, the same pairs in the order of the lanes' B registers, at radius 3 and 7: lane_order): the two
// halves of every B register are then adjacent in shared memory, one 32-bit load per register (Lanes: one load per
// shift). The swap itself lives only in the per-lane shared-memory offsets below (boff): the kernel's arithmetic is
// the same for spider (swapped, mma.sp) and spider-dense (unswapped, mma).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/spider/spider_plan.hpp"

namespace se::spider_gpu {

constexpr int kWarps = 8; // warps per block
// Each warp's output scratch after the input tile: its pair of warp tiles (at most 256 halves at every radius), rows
// padded for stmatrix where the kernel uses it (at most 384 halves, spider_kernels.cuh's StagedStore).
constexpr int kScratchBytes = 768;
// Lane order (radius 3 and 7: sparse in 1D and 2D, dense in 2D; core's SwapParity::Lanes): each lane's B registers
// of one shift are adjacent words, fetched by one 64-bit (radius 3, one k16 chunk) or 128-bit (radius 7, two) shared
// load instead of two or four 32-bit ones. With the pair order a sparse load's four t-lanes read words {0, L/2, 1,
// L/2 + 1} of their row, which meet only 16 banks at any row stride a TMA box can land (notes/spider-gpu.md). The
// dense variant takes the same order so that the ablation differs from spider in the MMA only (1D dense keeps the
// pairs: its two-chunk shifts issue per chunk, Issue below).
constexpr bool lane_order(int dims, int r, bool sparse) { return (sparse || dims == 2) && (r == 3 || r == 7); }
// The input tile's bytes, rounded up to 16 so that the scratch after it takes 16-byte vectors.
constexpr int tile_bytes_aligned(int sw, int sh) { return (sw * sh * 2 + 15) / 16 * 16; }
// Shared half 0 of a tile row holds x = bx0 - kTileOrigin (bx0: the block tile's first output column, a multiple of
// 8): every row starts on a 16-byte boundary of the padded grid, so it arrives as whole 16-byte chunks (the
// register loader) or as one TMA box (whose start must be 16-byte aligned: an unaligned one faults as an illegal
// instruction on an H100). The B registers' pairs start at even x (core's band_offset at odd r), so each is one
// aligned 32-bit shared load.
constexpr int kTileOrigin = 8;
// TMA tiles (sm_90): each block tile arrives as one TMA box of sw x sh halves (2D) or one bulk copy of its row
// (1D), double-buffered; the box lands rows back to back and a bulk copy moves whole 16-byte units, so sw is a
// multiple of 8 halves.
// Split rows (2D TMA tiles with two kernel-row parts, py = 2: radius 1..3): a warp's lanes g = 0..7 read input rows
// 2 apart, which meet in at most 16 banks at any row stride a TMA box can land (a multiple of 8 halves). The tile
// then arrives as two boxes, its even rows and its odd rows, each a region with rows back to back: the lanes' rows
// are adjacent there, and a stride of 8 mod 16 halves puts them in 32 distinct banks. Which region a shift reads is
// its parity (a warp tile starts on an even row), known at compile time (split_rows, below).
// Bytes from one TMA tile buffer to the next (each region 128-byte aligned).
constexpr int tma_region_bytes(int sw, int rows) { return (sw * rows * 2 + 127) / 128 * 128; }
// classes: the tile's row classes (row_classes, below), each a region of ceil(sh / classes) rows.
constexpr int tma_tile_stride(int sw, int sh, int classes) {
  return classes * tma_region_bytes(sw, (sh + classes - 1) / classes);
}
// TMA tile buffers of a block: a ring, the loads of the next kTmaBuffers - 1 tiles in flight while the warps run
// one. Two: on an H200 three and four were slower (heat-2d 621 / 606 / 591 GStencil/s at 2 / 3 / 4, box-2d9p 606 /
// 593 / 577, before the stores moved to stmatrix; heat-2d 771 / 737 at 2 / 3 after; notes/spider-gpu.md).
constexpr int kTmaBuffers = 2;

// The geometry the kernels are compiled for: core's spider_geometry (the GPU plan's parities, Pairs and Lanes, give the
// same) and what the kernels derive from it.
struct Geometry {
  int dims = 2, radius = 1, L = 4, px = 1, py = 1, kc = 1, rpp = 4; // rpp: rows per part = px * L
  int tile_x = 0, tile_y = 1, nshift = 1, shift0 = 0, nmma = 1;
  int block_x = 0, block_y = 1; // outputs of one block tile
  int warp_tiles = 0;           // warp tiles per block tile
  int wtx = 8;                  // 2D: warp tiles across a block tile
  int band_offset = 0;          // core's SpiderGeometry::band_offset: r odd (the GPU plan swaps column pairs)
  int dx_max = 0;               // the largest input x offset a B row reads (a padding column's)
  int sw_min = 0, sw_max = 0;   // the shared tile's row stride (halves): at least sw_min; the bank search ends at
                                // sw_max (64 past sw_min for wide B loads)
  int sh = 1;                   // its rows
};
constexpr Geometry geometry(int dims, int r) {
  const SpiderGeometry c = spider_geometry(dims, r, SwapParity::Pairs);
  Geometry g;
  g.dims = dims;
  g.radius = r;
  g.L = c.L;
  g.px = c.blocks_along_k;
  g.kc = c.k_chunks;
  g.rpp = g.px * g.L;
  g.py = c.parts_along_m;
  g.tile_x = c.tile_x;
  g.tile_y = c.tile_y;
  g.shift0 = c.shift_begin;
  g.nshift = c.shift_end - c.shift_begin;
  g.nmma = g.nshift * g.kc;
  g.block_x = c.block_x;
  g.block_y = c.block_y;
  g.wtx = dims == 1 ? 8 : g.block_x / g.tile_x;
  g.warp_tiles = dims == 1 ? g.block_x / g.tile_x : g.wtx * (g.block_y / g.tile_y);
  g.band_offset = c.band_offset;
  g.dx_max = (g.px - 1) * g.L - r - g.band_offset + 2 * g.L - 1;
  if (dims == 1) {
    g.sw_min = g.block_x - g.tile_x + 7 * g.rpp + kTileOrigin + g.dx_max + 2;
    g.sw_min += g.sw_min % 2;
    g.sw_max = g.sw_min + 2;
    g.sh = 1;
  } else {
    g.sw_min = g.block_x - g.tile_x + kTileOrigin + g.dx_max + 2;
    g.sw_min += g.sw_min % 2;
    g.sw_max = g.sw_min + 32; // the bank-conflict search's range
    g.sh = g.block_y + 2 * r;
  }
  return g;
}

constexpr bool split_rows(int dims, int r) { return dims == 2 && geometry(dims, r).py == 2; }
// 32-bit words per B load: the shift's 2 kc registers in one load where the plan has the lane order, else 1.
constexpr int b_load_words(int dims, int r, bool sparse) {
  return lane_order(dims, r, sparse) ? 2 * geometry(dims, r).kc : 1;
}

// Block-wide output tiles (split rows whose fragment quarters are 8 adjacent output columns, rpp = 8: 2D radius 1
// and 3; and the interleaved strips of radius 4..7, strip_interleaved below): the warps' outputs go to one block
// tile in shared memory (split rows: even and odd rows in two regions; interleaved strips: rows by class), rows
// kBlockStorePad halves longer than the tile (an odd number of 16-byte units: a stmatrix quarter's eight rows meet
// distinct banks), and after a barrier every thread writes whole 16-byte vectors of it, rows of 128 (radius 7: 256)
// bytes, where each warp used to write its pair's 32-byte row pieces (notes/spider-gpu.md).
constexpr int kBlockStorePad = 8;
// Row tiles per warp strip (spider_kernels.cuh's IssueStrip; 2D radius 4..7, two K chunks per shift): 0 where the
// kernel keeps the pair loop.
// Interleaved strips (strip_interleaved: with TMA tiles, both variants): row tile i holds the strip's output rows
// i + T n (n = 0..7, the MMA's N), so window W (input rows W + T g, lane g's) serves row tile i at shift W - i: T +
// 2r windows for T nshift shifts. At T = 8 (the block's whole 64-row column of one x tile) and radius 7 that is 22
// windows for 120 shifts, 11 B of B loads per point, against 39 windows for 60 shifts (39 B) of the stacked strips
// below. The tile arrives in T row classes (box row y in region y mod T, row_classes) so that lane g's rows are
// adjacent in their region, and the outputs leave through the block-wide tile (block_store). Box-2d225p on an
// H200: sparse 546 -> 619, dense 358 -> 381 GStencil/s (notes/spider-gpu.md).
// Stacked strips (the register loader's kernels): row tile t holds output rows 8t .. 8t + 7 of the strip, nshift +
// 8 (T - 1) windows of B for T nshift shifts per x tile: sparse four row tiles by two x tiles, dense two by two (its
// A registers leave no room for more accumulators: four spilled at 255 registers, H100).
// The kernels that run strips: 2D with two K chunks per shift, one kernel row per 16-row A, 8-row tiles.
constexpr bool runs_strips(int dims, int r) {
  const Geometry g = geometry(dims, r);
  return dims == 2 && g.kc == 2 && g.py == 1 && g.tile_y == 8;
}
constexpr int kInterleavedTiles = 8; // row tiles of an interleaved strip: the block's whole 64-row column
constexpr bool strip_interleaved(int dims, int r, bool tma) { return tma && runs_strips(dims, r); }
constexpr int strip_tiles(int dims, int r, bool sparse, bool tma) {
  if (!runs_strips(dims, r)) return 0;
  return strip_interleaved(dims, r, tma) ? kInterleavedTiles : sparse ? 4 : 2;
}
// x tiles per strip: 1 for interleaved strips (their outputs leave through the block-wide tile), else 2 (a pair
// through the warp's scratch).
constexpr int strip_x_tiles(int dims, int r, bool tma) {
  return strip_interleaved(dims, r, tma) ? 1 : 2;
}
// Row classes of a TMA tile: 2 for split rows, T for interleaved strips, else 1. Box row y lands in region y mod
// classes, row y / classes; each class arrives as its own box (tensor map j: padded rows -r + j + classes q).
constexpr int kMaxRowClasses = 8;
constexpr int row_classes(int dims, int r, bool tma) {
  return tma && split_rows(dims, r) ? 2 : strip_interleaved(dims, r, tma) ? kInterleavedTiles : 1;
}
// (TMA kernels only.)
constexpr bool block_store(int dims, int r) {
  return (split_rows(dims, r) && geometry(dims, r).rpp % 8 == 0 && (geometry(dims, r).block_x / 8) % 2 == 0) ||
         strip_interleaved(dims, r, true);
}
constexpr int block_store_stride(int dims, int r) { return geometry(dims, r).block_x + kBlockStorePad; }
constexpr int block_store_region(int dims, int r) { return geometry(dims, r).block_y / 2 * block_store_stride(dims, r); }

struct Tables {
  Geometry g;
  bool sparse = true;
  bool acc16 = false;
  int bvec = 1;                    // 32-bit words per B load (b_load_words)
  int aregs = 2;                   // 32-bit A registers per MMA and lane: 2 (compressed) or 4 (dense)
  int nmeta = 0;                   // metadata registers per lane (sparse): one per four MMAs
  int sw = 0, sh = 0;              // shared tile: row stride in halves (even), rows
  std::vector<std::uint32_t> a;    // [mma][reg][lane]
  std::vector<std::uint32_t> meta; // [register][lane]
  std::vector<std::int32_t> boff;  // [chunk][half h][lane]: shared-memory half index of B register h's first half
                                   // relative to the warp tile's corner (lane column, radius and dx folded in)
  int bank_conflict_ways = 0;      // shared wavefronts of one shift's B loads: per load and phase (a warp's 32-,
                                   // 64- or 128-bit loads take 1, 2 or 4), the most distinct words one bank serves
  bool tma = false;                // TMA tile buffers (make_tables was asked for them)
  bool split = false;              // TMA: even and odd rows in two regions (split_rows)
  int classes = 1;                 // TMA: row classes, each its own region (row_classes; 2 where split)
  bool block = false;              // TMA: block-wide output tiles (block_store), after the warps' scratch
  // TMA: the buffers from the first 128-byte boundary (up to 128 bytes skipped; spider_kernels.cuh).
  int tile_region_bytes() const {
    return tma ? 128 + kTmaBuffers * tma_tile_stride(sw, sh, classes) : tile_bytes_aligned(sw, sh);
  }
  std::size_t shared_bytes() const {
    return static_cast<std::size_t>(tile_region_bytes()) + static_cast<std::size_t>(kWarps) * kScratchBytes +
           (block ? 4 * static_cast<std::size_t>(block_store_region(g.dims, g.radius)) : 0);
  }
};

// The radius the kernels run: radius 0 stencils run as radius 1 (zero weights around the centre).
int gpu_radius(const Stencil& s);
// Core's plan for the GPU: the stencil widened to gpu_radius, the pair-granular swap (sparse) or the plain band.
SpiderPlan gpu_plan(const Stencil& s, SpiderVariant variant, bool accumulate_fp16);
// Throws InputError if the plan's geometry is not the one the kernels are compiled for.
// tma: lay the tiles out for TMA boxes (the row stride a multiple of 8 halves).
Tables make_tables(const SpiderPlan& plan, bool tma = false);

} // namespace se::spider_gpu
