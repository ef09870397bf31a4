// Input checks shared by the tile emulations (TCStencil, ConvStencil): the grid against the stencil and the
// value count, each failing with a message a person can act on.
#pragma once
#include <string>
#include <string_view>

#include "core/grid.hpp"
#include "core/stencil.hpp"

namespace se {

// Throws InputError when the grid's dims differ from the stencil's or the grid is smaller than the stencil.
void check_stencil_grid(const Stencil& s, const Extent& extent);
// Throws InputError when `count` values cannot be the grid `extent`.
void check_value_count(std::string_view method, const Extent& extent, std::size_t count);
// `reason` when it is not empty, else why the grid cannot take the stencil, else empty: a Method's
// unsupported_reason from a method's own reason.
std::string stencil_grid_reason(const std::string& reason, const Stencil& s, const Extent& extent);

} // namespace se
