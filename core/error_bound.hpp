// The error bound every method's result is checked against: a rigorous first-order rounding analysis of a linear
// stencil run whose values are stored in a precision p after every step, against the FP64 reference
// (core/reference.hpp), for the stencil's own weights, the run's steps and the precision.
//
// One step is x' = fl_p(S~ x), S~ the stencil with its weights rounded to p and its sums rounded in the
// accumulation precision. Its error against the exact step S x is at most
//   u ||S x|| + (delta_w + gamma) ||x||,   delta_w = sum_i |w_i - fl_p(w_i)|,   gamma = taps u_acc sum_i |w_i|
// (u the unit roundoff of p; u_acc that of the sums: FP32 for FP16 operands, the default of every FP16 method, else
// p's own), and later steps carry an error e forward as S e. With a Dirichlet halo S (its linear part) is a
// compression of the convolution to the grid, on a periodic grid a circulant: both have an L2 norm of at most
// rho = max over frequencies theta of |K(theta)|, K the stencil's Fourier symbol (fourier_symbol_bound), and these
// are the only boundaries the project has. The Dirichlet value v enters only the size of the values: x - v obeys
// x' - v = S0 (x - v) + v (sum w - 1), S0 the zero-halo step, so ||x_j|| <= ||x_j - v|| + |v| sqrt(points).
// Summed over k steps, with the input rounded to p first (exact for FP64):
//   ||x~_k - x_k|| <= rho^k u ||x0|| + sum_j rho^(k-j) [u X_j + (delta_w + gamma) X_(j-1) + halo + underflow]
// X_j the bound on the values' norm above, `halo` the halo value's rounding to p (|v - fl_p(v)| sum |w| sqrt(points)),
// `underflow` the absolute rounding of values below p's normal range (half its smallest subnormal, per value). The
// FP64 reference has the same terms with FP64's u, exact weights and an exact input; the bound against it is the sum
// of both. rel L2 divides by ||reference||, as compare() does. First order: products of roundoffs are left out.
//
// FP64 methods that reorganise the arithmetic (FFTs, low-rank factors, fused kernels W^T formed by products) add
// roundings of their own that this model of a direct stencil does not describe; their CPU emulations reach up to
// 0.65 of it on random stencils. An FP64 bound is therefore never below 1e-12, the FP64 bound before it knew the
// stencil: above every short FP64 run measured (LoRAStencil's kernel on general 2D stencils, 2.7e-13 after 100
// steps), far below any error a wrong FP64 result shows. The model takes over on longer runs (heat-2d from ~650
// steps, box-2d225p from ~20).
#pragma once
#include <optional>
#include <span>

#include "core/grid.hpp"
#include "core/stencil.hpp"

namespace se {

// Unit roundoff of a value stored in p: 2^-11 (FP16), 2^-24 (FP32), 2^-53 (FP64).
double unit_roundoff(Precision p);

// The stencil's part of the bound in one precision: everything but the data and the step count.
struct RoundingModel {
  Precision precision = Precision::FP64;
  double u = 0;               // unit roundoff of the stored values
  double accumulation_u = 0;  // unit roundoff of the sums
  double rho = 0;             // fourier_symbol_bound: the L2 norm of one step's linear part, at most
  double abs_sum = 0;         // sum |w|
  // delta_w: sum |w - fl_p(w)|, FP16 subnormal weights rounded as such, 0 for FP64. A method that keeps FP32 weights
  // for FP16 values (cuda-core-fp16) rounds them less: every FP16 number is an FP32 number.
  double weight_rounding = 0;
  double accumulation = 0;    // gamma: non-zero taps x accumulation_u x sum |w|
  double underflow = 0;       // the largest rounding of one value below p's normal range
};
// `accumulation`: the precision of the sums where a run departs from the default (SPIDER's FP16 sums on request).
RoundingModel rounding_model(const Stencil& s, Precision p, std::optional<Precision> accumulation = std::nullopt);

class ErrorBound {
public:
  // From the run's own data: the input the method starts from (before it is rounded to p) and the boundary.
  ErrorBound(const Stencil& s, Precision p, const Boundary& b, std::span<const double> input,
             std::optional<Precision> accumulation = std::nullopt);
  // Without the data: an input of L2 norm `input_norm` on a zero-halo or periodic grid, every value inside p's normal
  // range. relative() then needs the reference's norm; error_bound() below assumes it.
  ErrorBound(const Stencil& s, Precision p, double input_norm);

  const RoundingModel& model() const { return model_; }
  // The bound on ||result - reference||_2 after `steps` steps: the method's rounding plus the reference's own.
  double absolute(int steps) const;
  // The bound on rel L2 as compare() measures it: divided by ||reference||_2, or absolute where that is zero; at
  // least error_bound_floor.
  double relative(int steps, std::span<const double> reference) const;
  double relative(int steps, double reference_norm) const;
  // The largest k in [1, steps] with relative(j, reference_norm) <= limit for every j <= k (1 when even j = 1 is
  // above it): the longest run from the same input whose check still resolves `limit`.
  int steps_within(double limit, int steps, double reference_norm) const;

private:
  template <typename F> void walk(int steps, F&& at) const;
  RoundingModel model_, reference_;
  double input_norm_ = 0;  // ||x0||
  double offset_norm_ = 0; // ||x0 - v||, v the Dirichlet value (0 on a periodic grid)
  double halo_norm_ = 0;   // |v| sqrt(points): the halo's share of every shifted copy of the values
  double drift_ = 0;       // |v| |sum w - 1| sqrt(points): how far a step moves x - v beyond S0 (x - v)
  double halo_rounding_ = 0, underflow_ = 0, reference_underflow_ = 0; // absolute terms of one step
};

// The bound of a run of `steps` steps from `input`, relative to `reference` (the FP64 result after those steps).
double error_bound(const Stencil& s, Precision p, int steps, const Boundary& b, std::span<const double> input,
                   std::span<const double> reference, std::optional<Precision> accumulation = std::nullopt);
// Where the data is not at hand: assumes ||input||_2 / ||reference||_2 = input_to_result (1: a run that neither grows
// nor decays its values), a zero-halo or periodic grid and values inside p's normal range.
double error_bound(const Stencil& s, Precision p, int steps, double input_to_result = 1.0);

// The least bound of precision p: 1e-12 for FP64 (above), 0 otherwise.
double error_bound_floor(Precision p);

// The loosest bound a check may rest on: above it a wrong result (a weight off by 1e-2, a step missing) can hide
// inside the bound. 5e-2 for FP16 and 1e-3 for FP32, the largest bounds the project accepted before the bound knew
// the stencil; 1e-9 for FP64, far above the FP64 bound of any run the suite or the sweep sizes (~1e-10 at most) and
// far below what a wrong FP64 result shows.
double check_bound_limit(Precision p);

// The length of the run a check rests on: `steps` where the bound there is within check_bound_limit, else the
// longest run from the same input whose bound is (at least 1 step). The reference after `steps` steps stands in for
// the shorter run's, which is not computed yet: a run that does not grow its values has a larger norm earlier, so
// the bound of the run chosen, measured against its own reference, is within the limit too.
int check_steps(const ErrorBound& bound, int steps, double reference_norm);

// ||v||_2, summed in long double as compare() does.
double l2_norm(std::span<const double> v);

} // namespace se
