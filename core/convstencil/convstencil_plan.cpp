// ConvStencil plans. The paper is not in shared/; the layout follows its description in the LoRAStencil, SPIDER
// and FlashFFTStencil papers and its public kernels (microsoft/ConvStencil): stencil2row with lookup tables,
// two triangular parameter matrices per kernel, 13 + 13 m8n8k4 MMAs per 8 x 8 outputs of a 7 x 7 kernel.
#include "core/convstencil/convstencil_plan.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/common/matrix_text.hpp"

namespace se {
namespace {

constexpr int kMaxFusedSteps = 3;

int fused_steps_of(const Stencil& s, const ConvStencilOptions& o) {
  return o.fused_steps == 0 ? convstencil_default_fused_steps(s) : o.fused_steps;
}

Stencil2RowLayout stencil2row_layout(int k, int U, int R) {
  Stencil2RowLayout l;
  l.segments = 8;
  l.input_columns = l.segments * U + 2 * R;
  for (int c = 0; c < l.input_columns; ++c) {
    const int sa = c / U, oa = c % U;
    const bool in_a = sa < l.segments && oa < k;
    l.a_segment.push_back(in_a ? sa : -1);
    l.a_offset.push_back(in_a ? oa : -1);
    const int cb = c - k;
    const int sb = cb >= 0 ? cb / U : -1, ob = cb >= 0 ? cb % U : -1;
    const bool in_b = cb >= 0 && sb < l.segments && ob < k;
    l.b_segment.push_back(in_b ? sb : -1);
    l.b_offset.push_back(in_b ? ob : -1);
    l.overlap += in_a && in_b;
  }
  return l;
}

} // namespace

int convstencil_default_fused_steps(const Stencil& s) { return s.radius == 1 ? kMaxFusedSteps : 1; }

std::string convstencil_unsupported_reason(const Stencil& s, const ConvStencilOptions& options) {
  try {
    validate(s);
  } catch (const InputError& e) {
    return e.what();
  }
  if (options.fused_steps < 0 || options.fused_steps > kMaxFusedSteps)
    return fmt::format("ConvStencil fuses 1 to {} steps into one kernel (0 picks the paper's choice); got {}",
                       kMaxFusedSteps, options.fused_steps);
  const int T = fused_steps_of(s, options);
  if (T * s.radius > kMaxRadius)
    return fmt::format("ConvStencil's fused kernel W^{0} of this radius-{1} stencil would have radius {2}; the plan "
                       "keeps W^T within radius {3} (a {4}-wide kernel, segments of at most two n = 8 MMA tiles); fuse "
                       "fewer steps", T, s.radius, T * s.radius, kMaxRadius, 2 * kMaxRadius + 1);
  return {};
}

ConvStencilPlan make_convstencil_plan(const Stencil& s, const ConvStencilOptions& options) {
  if (const std::string reason = convstencil_unsupported_reason(s, options); !reason.empty()) throw InputError(reason);
  ConvStencilPlan p;
  p.stencil = s;
  p.fused_steps = fused_steps_of(s, options);
  p.fused = fused_kernel(s, p.fused_steps);
  const int R = p.fused.radius;
  p.k = 2 * R + 1;
  p.segment = p.k + 1;
  p.kernel_rows = s.dims >= 2 ? p.k : 1;
  p.planes = s.dims >= 3 ? p.k : 1;
  p.k_columns = p.kernel_rows * p.k;
  p.k_padded = 4 * ((p.k_columns + 3) / 4);
  p.n_padded = 8 * ((p.segment + 7) / 8);
  p.layout = stencil2row_layout(p.k, p.segment, R);
  p.block_segments = s.dims == 1 ? 128 : 8;
  p.block_rows = s.dims == 1 ? 1 : s.dims == 2 ? 32 : 8;
  const int Ry = s.dims >= 2 ? R : 0, Rz = s.dims >= 3 ? R : 0;
  for (int pz = 0; pz < p.planes; ++pz) {
    DualTessellationKernels kern;
    kern.plane = pz - Rz;
    const std::size_t size = static_cast<std::size_t>(p.k_padded) * static_cast<std::size_t>(p.n_padded);
    kern.kernel_a.assign(size, 0.0);
    kern.kernel_b.assign(size, 0.0);
    for (int i = 0; i < p.kernel_rows; ++i)
      for (int j = 0; j < p.k; ++j)
        for (int t = 0; t < p.segment; ++t) {
          const std::size_t at = static_cast<std::size_t>((i * p.k + j) * p.n_padded + t);
          if (j >= t) kern.kernel_a[at] = p.fused.at(j - t - R, i - Ry, kern.plane);
          else kern.kernel_b[at] = p.fused.at(j + p.k - t - R, i - Ry, kern.plane);
        }
    p.kernels.push_back(std::move(kern));
  }
  return p;
}

namespace {

std::string layout_table(const Stencil2RowLayout& l) {
  std::string out;
  const auto cell = [](int segment, int offset) { return segment < 0 ? std::string("-") : fmt::format("{}:{}", segment, offset); };
  for (int first = 0; first < l.input_columns; first += 16) {
    const int last = std::min(l.input_columns, first + 16);
    std::string col = "  column", a = "  A     ", b = "  B     ";
    for (int c = first; c < last; ++c) {
      const auto i = static_cast<std::size_t>(c);
      col += fmt::format(" {:>5}", c);
      a += fmt::format(" {:>5}", cell(l.a_segment[i], l.a_offset[i]));
      b += fmt::format(" {:>5}", cell(l.b_segment[i], l.b_offset[i]));
    }
    out += col + '\n' + a + '\n' + b + '\n';
  }
  return out;
}

} // namespace

std::string to_string(const ConvStencilPlan& p) {
  const Stencil& s = p.stencil;
  const int R = p.fused.radius;
  std::string out = fmt::format("ConvStencil plan for '{}' ({}D, radius {})\n", s.name, s.dims, s.radius);
  out += "  instruction   mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64, FP64; fragment layouts from the PTX ISA\n";
  out += fmt::format("  fusion        {} step{} per pass: W^{} has radius {} ({}-wide){}\n", p.fused_steps,
                     p.fused_steps > 1 ? "s" : "", p.fused_steps, R, p.k,
                     p.fused_steps > 1 ? "; the paper fuses 3 steps of radius-1 kernels so U = 8 fills n = 8" : "");
  out += fmt::format("  segments      U = k + 1 = {} outputs each; a tile is 8 segments (m = 8) x 1 output row = {} "
                     "outputs, reading {} input columns\n", p.segment, p.outputs_per_tile_row(), p.layout.input_columns);
  out += fmt::format("  stencil2row   per input row, segment s of A takes columns [sU, sU+{0}), of B [sU+{0}, sU+{1}); "
                     "A and B share {2} of every {3} columns, so shared memory holds {4:.3f} copies of the input\n",
                     p.k, 2 * p.k, p.layout.overlap, p.layout.input_columns,
                     static_cast<double>(2 * p.k) / p.segment);
  out += fmt::format("  GEMM          per tile row and plane: {} A-fragments x kernel_a chunks, then {} B-fragments x "
                     "kernel_b chunks{}; {} MMAs for {} outputs{}\n", p.chunks(), p.chunks(),
                     p.n_tiles() > 1 ? fmt::format(", each fragment used for {} n-tiles", p.n_tiles()) : "",
                     p.mma_per_tile_row(), p.outputs_per_tile_row(),
                     p.planes > 1 ? fmt::format(" over the {} planes of W^T", p.planes) : "");
  out += "\nstencil2row lookup table for one input row of a tile (segment:offset in A and in B, - where absent)\n";
  out += layout_table(p.layout);
  for (int pz = 0; pz < p.planes; ++pz) {
    const int dz = pz - (s.dims >= 3 ? R : 0);
    const std::string plane = s.dims >= 3 ? fmt::format(" plane dz={}", dz) : "";
    std::vector<double> w(static_cast<std::size_t>(p.kernel_rows * p.k));
    for (int i = 0; i < p.kernel_rows; ++i)
      for (int j = 0; j < p.k; ++j)
        w[static_cast<std::size_t>(i * p.k + j)] = p.fused.at(j - R, i - (s.dims >= 2 ? R : 0), dz);
    const auto& kern = p.kernels[static_cast<std::size_t>(pz)];
    out += '\n' + format_matrix(fmt::format("W^{}{} (rows dy, columns dx)", p.fused_steps, plane), w.data(),
                                p.kernel_rows, p.k, p.k);
    out += '\n' + format_matrix(fmt::format("kernel_a{}: multiplies A; row i*k+j, column t = W(i, j-t), j >= t", plane),
                                kern.kernel_a.data(), p.k_padded, p.n_padded, p.n_padded);
    out += '\n' + format_matrix(fmt::format("kernel_b{}: multiplies B; row i*k+j, column t = W(i, j+k-t), j < t", plane),
                                kern.kernel_b.data(), p.k_padded, p.n_padded, p.n_padded);
  }
  return out;
}

nlohmann::json to_json(const ConvStencilPlan& p) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : p.kernels) kernels.push_back({{"plane", k.plane}, {"kernel_a", k.kernel_a}, {"kernel_b", k.kernel_b}});
  return {{"method", "convstencil"},
          {"stencil", se::to_json(p.stencil)},
          {"fused_steps", p.fused_steps},
          {"fused", se::to_json(p.fused)},
          {"mma_shape", "m8n8k4.f64"},
          {"k", p.k},
          {"segment", p.segment},
          {"kernel_rows", p.kernel_rows},
          {"planes", p.planes},
          {"k_columns", p.k_columns},
          {"k_padded", p.k_padded},
          {"n_padded", p.n_padded},
          {"stencil2row", {{"segments", p.layout.segments},
                           {"input_columns", p.layout.input_columns},
                           {"a_segment", p.layout.a_segment},
                           {"a_offset", p.layout.a_offset},
                           {"b_segment", p.layout.b_segment},
                           {"b_offset", p.layout.b_offset},
                           {"overlap", p.layout.overlap}}},
          {"kernels", kernels},
          {"block", {{"segments", p.block_segments}, {"rows", p.block_rows}}},
          {"fragment_loads_per_tile_row", p.fragment_loads_per_tile_row()},
          {"mma_per_tile_row", p.mma_per_tile_row()},
          {"outputs_per_tile_row", p.outputs_per_tile_row()}};
}

} // namespace se
