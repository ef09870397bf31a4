// Input checks shared by the TCStencil and ConvStencil emulations.
#include "core/common/emulation_checks.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

void check_stencil_grid(const Stencil& s, const Extent& extent) {
  if (extent.dims != s.dims)
    throw InputError(fmt::format("a {}D stencil cannot run on the {}D grid {}", s.dims, extent.dims, extent.to_string()));
  check_extent_fits_stencil(extent, s);
}

void check_value_count(std::string_view method, const Extent& extent, std::size_t count) {
  if (count != static_cast<std::size_t>(extent.points()))
    throw InputError(fmt::format("{}: {} values for the grid {} of {} points", method, count, extent.to_string(),
                                 extent.points()));
}

} // namespace se
