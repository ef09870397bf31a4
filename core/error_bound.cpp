// The rounding-error bound of a stencil run (core/error_bound.hpp has the analysis).
#include "core/error_bound.hpp"

#include <algorithm>
#include <cmath>

#include "core/half.hpp"

namespace se {

double unit_roundoff(Precision p) {
  switch (p) {
  case Precision::FP16: return std::ldexp(1.0, -11);
  case Precision::FP32: return std::ldexp(1.0, -24);
  case Precision::FP64: return std::ldexp(1.0, -53);
  }
  return 0;
}

namespace {

// A value as a method of precision p holds it: FP16 through FP32 as the GPU's conversions (and core/half.hpp) do,
// subnormals included.
double stored(double x, Precision p) {
  switch (p) {
  case Precision::FP16: return round_to_half(x);
  case Precision::FP32: return static_cast<double>(static_cast<float>(x));
  case Precision::FP64: return x;
  }
  return x;
}

// Half the spacing of p's subnormals: how far rounding can move a value below p's normal range.
double underflow_of(Precision p) {
  switch (p) {
  case Precision::FP16: return std::ldexp(1.0, -25);
  case Precision::FP32: return std::ldexp(1.0, -150);
  case Precision::FP64: return std::ldexp(1.0, -1075);
  }
  return 0;
}

// The model with rho given: the reference's shares the method's.
RoundingModel model_with(const Stencil& s, Precision p, double rho, std::optional<Precision> accumulation) {
  RoundingModel m;
  m.precision = p;
  m.u = unit_roundoff(p);
  // By default every FP16 method multiplies FP16 operands into FP32 sums (the MMAs and the CUDA-core kernel alike);
  // FP32 and FP64 sum in their own precision.
  m.accumulation_u = unit_roundoff(accumulation.value_or(p == Precision::FP16 ? Precision::FP32 : p));
  m.rho = rho;
  int count = 0;
  for (const Tap& t : taps(s)) {
    m.abs_sum += std::abs(t.w);
    m.weight_rounding += std::abs(t.w - stored(t.w, p));
    ++count;
  }
  m.accumulation = count * m.accumulation_u * m.abs_sum;
  m.underflow = underflow_of(p);
  return m;
}

} // namespace

RoundingModel rounding_model(const Stencil& s, Precision p, std::optional<Precision> accumulation) {
  return model_with(s, p, fourier_symbol_bound(s), accumulation);
}

double l2_norm(std::span<const double> v) {
  long double sum = 0;
  for (const double x : v) sum += static_cast<long double>(x) * x;
  return static_cast<double>(std::sqrt(sum));
}

ErrorBound::ErrorBound(const Stencil& s, Precision p, const Boundary& b, std::span<const double> input,
                       std::optional<Precision> accumulation)
    : model_(rounding_model(s, p, accumulation)), reference_(model_with(s, Precision::FP64, model_.rho, std::nullopt)) {
  const double v = b.kind == BoundaryKind::Dirichlet ? b.value : 0.0;
  long double offset = 0;
  for (const double x : input) offset += static_cast<long double>(x - v) * (x - v);
  input_norm_ = l2_norm(input);
  offset_norm_ = static_cast<double>(std::sqrt(offset));
  const double root_points = std::sqrt(static_cast<double>(input.size()));
  double sum = 0;
  for (const Tap& t : taps(s)) sum += t.w;
  halo_norm_ = std::abs(v) * root_points;
  drift_ = std::abs(v) * std::abs(sum - 1) * root_points;
  halo_rounding_ = std::abs(v - stored(v, p)) * model_.abs_sum * root_points;
  underflow_ = model_.underflow * root_points;
  reference_underflow_ = reference_.underflow * root_points;
}

ErrorBound::ErrorBound(const Stencil& s, Precision p, double input_norm)
    : model_(rounding_model(s, p)), reference_(model_with(s, Precision::FP64, model_.rho, std::nullopt)),
      input_norm_(input_norm), offset_norm_(input_norm) {}

// Calls at(k, bound after k steps) for k = 0..steps, the recurrences of the header's sum step by step.
template <typename F> void ErrorBound::walk(int steps, F&& at) const {
  const RoundingModel& m = model_;
  const RoundingModel& r = reference_;
  const double rho = m.rho;
  // The method rounds its input to p (FP64 holds it exactly); the reference starts from the exact input.
  double method = m.precision == Precision::FP64 ? 0.0 : m.u * input_norm_;
  double reference = 0;
  double offset = offset_norm_; // bound on ||x_j - v||
  at(0, method);
  for (int k = 1; k <= steps; ++k) {
    const double before = offset + halo_norm_; // bound on ||x_(k-1)|| and on the halo-padded values a tap reads
    offset = rho * offset + drift_;
    const double after = offset + halo_norm_;
    method = rho * method + m.u * after + (m.weight_rounding + m.accumulation) * before + halo_rounding_ + underflow_;
    reference = rho * reference + r.u * after + r.accumulation * before + reference_underflow_;
    if (!at(k, method + reference)) return;
  }
}

double ErrorBound::absolute(int steps) const {
  double out = 0;
  walk(std::max(0, steps), [&](int k, double b) {
    out = b;
    return k < steps;
  });
  return out;
}

double ErrorBound::relative(int steps, double reference_norm) const {
  const double abs = absolute(steps);
  return std::max(error_bound_floor(model_.precision), reference_norm > 0 ? abs / reference_norm : abs);
}

double ErrorBound::relative(int steps, std::span<const double> reference) const {
  return relative(steps, l2_norm(reference));
}

int ErrorBound::steps_within(double limit, int steps, double reference_norm) const {
  const double floor = error_bound_floor(model_.precision);
  int within = 1;
  walk(steps, [&](int k, double b) {
    if (k == 0) return true;
    if (std::max(floor, reference_norm > 0 ? b / reference_norm : b) > limit) return false;
    within = k;
    return true;
  });
  return within;
}

double error_bound(const Stencil& s, Precision p, int steps, const Boundary& b, std::span<const double> input,
                   std::span<const double> reference, std::optional<Precision> accumulation) {
  return ErrorBound(s, p, b, input, accumulation).relative(steps, reference);
}

double error_bound(const Stencil& s, Precision p, int steps, double input_to_result) {
  return ErrorBound(s, p, input_to_result).relative(steps, 1.0);
}

double error_bound_floor(Precision p) { return p == Precision::FP64 ? 1e-12 : 0.0; }

double check_bound_limit(Precision p) {
  switch (p) {
  case Precision::FP16: return 5e-2;
  case Precision::FP32: return 1e-3;
  case Precision::FP64: return 1e-9;
  }
  return 0;
}

int check_steps(const ErrorBound& bound, int steps, double reference_norm) {
  const double limit = check_bound_limit(bound.model().precision);
  if (bound.relative(steps, reference_norm) <= limit) return steps;
  return bound.steps_within(limit, steps, reference_norm);
}

} // namespace se
