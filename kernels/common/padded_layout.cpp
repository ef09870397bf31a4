// Padded layouts: halo widths, alignment of the interior, pitches.
#include "kernels/common/padded_layout.hpp"

#include "core/error.hpp"

namespace se {

PaddedLayout make_padded_layout(const Extent& e, int halo, int align_elements) {
  if (halo < 0) throw InputError("a padded layout needs a non-negative halo");
  if (align_elements < 1 || (align_elements & (align_elements - 1)))
    throw InputError("a padded layout's alignment must be a power of two");
  const auto round_up = [](std::int64_t v, std::int64_t a) { return (v + a - 1) / a * a; };
  PaddedLayout L;
  L.dims = e.dims;
  for (int d = 0; d < 3; ++d) {
    L.n[d] = e.n[d];
    L.halo[d] = d < e.dims ? halo : 0;
    L.origin[d] = L.halo[d];
  }
  L.origin[0] = round_up(L.halo[0], align_elements);
  L.pitch_y = round_up(L.origin[0] + L.n[0] + L.halo[0], align_elements);
  L.pitch_z = L.pitch_y * (L.n[1] + 2 * L.halo[1]);
  L.total = L.pitch_z * (L.n[2] + 2 * L.halo[2]);
  return L;
}

PaddedLayout make_packed_layout(const Extent& e) {
  PaddedLayout L;
  L.dims = e.dims;
  for (int d = 0; d < 3; ++d) L.n[d] = e.n[d];
  L.pitch_y = L.n[0];
  L.pitch_z = L.n[0] * L.n[1];
  L.total = e.points();
  return L;
}

} // namespace se
