// LoRAStencil's split of star-shaped weights into single gathers: a cross-shaped plane is its centre row (one X·V)
// plus its column without the centre (one U·X), and a fused star W^T expands into rank-1 products of 1D kernels.
#pragma once
#include <string>

#include "core/lorastencil/weight_decomposition.hpp"
#include "core/stencil.hpp"

namespace se {

// Empty when every non-zero of W lies on its centre row or its centre column; otherwise the first that does not.
std::string cross_obstacle(const WeightMatrix& w);

// W = δ ⊗ row + column' ⊗ δ: the centre row (centre included) as a term whose u is one weight (an X·V gather)
// and the centre column without its centre as a term whose v is one weight (a U·X gather). A plane with only a
// row (or only a column) is one term. Throws InputError with cross_obstacle() when W is not a cross.
WeightDecomposition cross_decomposition(const WeightMatrix& w);

// Empty when star_power_decomposition can split plane dz of W^steps; otherwise why not (not a star, a plane
// outside W^steps, or terms that would grow beyond 100x the plane's largest weight and amplify rounding).
std::string star_power_obstacle(const Stencil& star, int steps, int dz);

// A star W = c + X + Y (+ Z), with X, Y, Z its arms along x, y, z without the centre, commutes term by term, so
// plane dz of W^steps is sum over (j, l) of a_jl X^j ⊗ Y^l (1D convolution powers, X^0 = Y^0 = δ) with a_jl
// from the multinomial expansion (Z^m contributes its value at dz). Its terms: the pure-x part
// sum_j a_j0 X^j (the constant a_00 included) with u = δ, the pure-y part sum_{l>=1} a_0l Y^l with v = δ, and
// for each j >= 1 the chain (sum_{l>=1} a_jl Y^l) ⊗ X^j, whose vectors are 1D kernels of different lengths
// (placed centred in the plane's side). For steps = 1 this is the cross split of each plane. Every vector is a
// full-side vector (offset 0). Throws InputError with star_power_obstacle().
WeightDecomposition star_power_decomposition(const Stencil& star, int steps, int dz);

} // namespace se
