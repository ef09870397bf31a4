// LoRAStencil's low-rank view of a 2D weight matrix: the pyramid of rank-1 pairs of decreasing size
// (Pyramidal Matrix Adaptation, paper Fig. 5 / Eq. 15) and the general rank-r split by SVD (Eq. 8).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/stencil.hpp"

namespace se {

// A square weight matrix, row-major: rows run along y (dy = -h..h), columns along x (dx = -h..h), so a
// rank-1 term u v^T gathers with u down the rows (U·X) and v along the columns (X·V).
struct WeightMatrix {
  int side = 0;
  std::vector<double> values;
  int radius() const { return side / 2; }
  double at(int row, int col) const { return values[static_cast<std::size_t>(row * side + col)]; }
  double& at(int row, int col) { return values[static_cast<std::size_t>(row * side + col)]; }
  double max_abs() const;
  int nonzero_count() const;
};

// Plane dz of a 2D or 3D stencil (dz must be 0 for 2D); throws InputError for 1D stencils or |dz| > radius.
WeightMatrix weight_matrix(const Stencil& s, int dz = 0);

// One rank-1 matrix C = u v^T, occupying rows and columns [offset, offset + size) of the full matrix.
struct RankOneTerm {
  int size = 0;
  int offset = 0;
  std::vector<double> u, v;     // length size; u along y, v along x
  bool on_cuda_cores = false;   // the pyramid's 1x1 apex: a scalar times the centre point, nothing to gather
  WeightMatrix residual;        // W minus this and every earlier term (full side); zero (to rounding) after the last
  double weight() const { return u.empty() ? 0.0 : u[0] * v[0]; } // the apex value when size == 1
  WeightMatrix embedded(int side) const; // C placed in a side x side matrix of zeros
};

// Pyramid: PMA's rings; Svd: Eq. 8; Cross: single gathers of a star-shaped plane (cross_decomposition.hpp).
enum class DecompositionKind { Pyramid, Svd, Cross };
std::string_view to_string(DecompositionKind k);

struct WeightDecomposition {
  DecompositionKind kind = DecompositionKind::Pyramid;
  WeightMatrix weights;
  std::vector<RankOneTerm> terms;
  int rank = 0;                        // numerical rank of W, from its singular values
  std::vector<double> singular_values; // descending
  std::string reason;                  // why this decomposition was taken (or why the pyramid could not be)
  int tensor_core_terms() const;       // terms gathered by U·X·V on the tensor cores
  WeightMatrix reconstruct() const;    // the sum of the terms, which equals W up to rounding
};

// Empty when the pyramid can be built: W is mirror-symmetric along both axes (radial symmetry, the paper's
// condition, implies it), every ring of every residual is either all zero or has a non-zero corner, and the
// rank-1 terms stay within 100x the largest weight (else rounding would be amplified). Otherwise the reason.
std::string pyramid_obstacle(const WeightMatrix& w);

// PMA: ring by ring from the outside, C = u v^T with u = (column 0 of the residual) / corner and v = its row 0, which
// matches the residual on its whole outer ring; the apex (1x1) goes to CUDA cores. Throws InputError with
// pyramid_obstacle() when it cannot be built. Levels whose ring is all zero contribute no term.
WeightDecomposition pyramid_decomposition(const WeightMatrix& w);

// Eq. 8: W = sum_k sigma_k u_k v_k^T over the numerically non-zero singular values (Eigen's JacobiSVD);
// every term is full size and goes to the tensor cores.
WeightDecomposition svd_decomposition(const WeightMatrix& w);

// Singular values of W, descending, and how many exceed side * eps * sigma_max * 8.
std::vector<double> singular_values(const WeightMatrix& w);
int numerical_rank(const std::vector<double>& singular_values, int side);

} // namespace se
