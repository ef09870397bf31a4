// The stencil model: dims (1-3), radius, and a dense (2r+1)^d weight array (star shapes are boxes
// with zeros). Presets carry the papers' names; JSON load/save uses the format in assets/stencils/README.md.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace se {

constexpr int kMaxRadius = 7;

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
