// The stencil model: dims (1-3), radius, and a dense (2r+1)^d weight array (star shapes are boxes
// with zeros). Presets carry the papers' names; JSON load/save uses the format in assets/stencils/README.md.
#pragma once
#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace se {

constexpr int kMaxRadius = 7;
constexpr std::size_t kMaxStencilName = 200; // characters a stencil's name may have (files, the GUI, saved state)

struct Stencil {
  std::string name;
  int dims = 2;   // 1, 2 or 3
  int radius = 1; // 0..kMaxRadius
  // Weights in row-major order with x fastest: index = ((dz+r)*side + (dy+r))*side + (dx+r).
  // For dims < 3 the missing axes have extent 1 (offset 0).
  std::vector<double> weights;

  int side() const { return 2 * radius + 1; }
  std::array<int, 3> shape() const; // {x, y, z} extents of the weight array
  std::size_t size() const;         // number of weights, side^dims

  double& at(int dx, int dy = 0, int dz = 0);
  double at(int dx, int dy = 0, int dz = 0) const;

  int nonzero_count() const;
  double sum() const;
  bool is_star() const; // every non-zero weight lies on an axis through the centre
  // Radially symmetric: weights depend only on the multiset of |offsets| (the papers' "symmetric" stencils).
  bool is_radially_symmetric(double tol = 0.0) const;
  bool operator==(const Stencil&) const = default;
};

// One weight of a stencil with its offset.
struct Tap {
  int dx = 0, dy = 0, dz = 0;
  double w = 0.0;
  bool operator==(const Tap&) const = default;
};

// Calls f(dx, dy, dz) for every offset of the stencil's weight array, x fastest (axes beyond dims stay 0).
// The one loop over a stencil's offsets: everything else asks for taps() or this.
template <typename F> void for_each_offset(const Stencil& s, F&& f) {
  const int r = s.radius, ry = s.dims >= 2 ? r : 0, rz = s.dims >= 3 ? r : 0;
  for (int dz = -rz; dz <= rz; ++dz)
    for (int dy = -ry; dy <= ry; ++dy)
      for (int dx = -r; dx <= r; ++dx) f(dx, dy, dz);
}
// The non-zero weights with their offsets in weight-array order (x fastest); with zeros too on request.
std::vector<Tap> taps(const Stencil& s, bool include_zeros = false);

// The stencil of `steps` steps, W^T: weights convolved T times (radius T r). Throws InputError when T < 1 or
// T r exceeds kMaxRadius (naming the largest T that fits).
Stencil fused_kernel(const Stencil& s, int steps);

// The Fourier symbol K(k) = sum_d w(d) e^{i k.d} at the angular frequency k (one component per axis).
std::complex<double> fourier_symbol(const Stencil& s, const std::array<double, 3>& k);
// max |K| sampled on a frequency grid (4096 points in 1D, 256^2 in 2D, 32^3 in 3D, w = 0 and pi included):
// how much one step can grow a grid's L2 norm.
double fourier_symbol_peak(const Stencil& s);
// An upper bound on max |K| over every frequency: the L2 norm one step can reach at most, on a Dirichlet or a
// periodic grid. Within ~1e-9 of the peak for every 1D and 2D stencil and the small 3D ones (the error bound raises
// it to the power of the step count: a sampled value may lie below the peak, and a first-order margin for the
// sampling would be ~1e-4). A few milliseconds; up to ~70 ms for 3D stencils of large radius, which stop looser
// (a full 3D box of radius 5 ~1e-2 above its peak).
double fourier_symbol_bound(const Stencil& s);

// A zero stencil of the given shape (dims 1-3, radius 0-7); throws InputError otherwise.
Stencil make_stencil(int dims, int radius, std::string name = "custom");

// Throws InputError naming the first problem: dims, radius, weight count, NaN/Inf weights.
void validate(const Stencil& s);

// Resize keeping the weights that still fit (centred), so a user's edits survive radius changes.
Stencil with_radius(const Stencil& s, int radius);
// Change dims: going up places the old stencil in the centre plane; going down keeps the centre plane.
Stencil with_dims(const Stencil& s, int dims);
// Scale so the weights sum to 1; throws InputError when they sum to zero.
Stencil normalized(const Stencil& s);

// Positions equivalent to (dx,dy,dz) under the stencil's symmetry group: sign flips of each axis and
// permutations of the active axes (the "radially equivalent" positions of the LoRAStencil paper).
std::vector<std::array<int, 3>> symmetric_positions(int dims, int dx, int dy, int dz);

// Presets named as in the papers, with physically sensible weights.
const std::vector<std::string>& preset_names();
std::string preset_description(std::string_view name);
Stencil preset(std::string_view name); // throws InputError for an unknown name (listing the known ones)

// JSON: {"name": ..., "dims": d, "radius": r, "weights": nested arrays (z, then y, then x)}.
nlohmann::json to_json(const Stencil& s);
Stencil stencil_from_json(const nlohmann::json& j); // throws InputError
std::string format_stencil_json(const Stencil& s); // the file format: one line per row of weights
Stencil load_stencil_file(const std::string& path); // throws InputError
void save_stencil_file(const Stencil& s, const std::string& path);
// A preset name or a path to a JSON file.
Stencil resolve_stencil(const std::string& name_or_path);

} // namespace se
