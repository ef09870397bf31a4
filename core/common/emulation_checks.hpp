// Input checks shared by the tile emulations (TCStencil, ConvStencil): the grid against the stencil and the
// value count, each failing with a message a person can act on.
#pragma once
#include <string_view>

#include "core/grid.hpp"
#include "core/stencil.hpp"

namespace se {

// Throws InputError when the grid's dims differ from the stencil's or the grid is smaller than the stencil.
void check_stencil_grid(const Stencil& s, const Extent& extent);
// Throws InputError when `count` values cannot be the grid `extent`.
void check_value_count(std::string_view method, const Extent& extent, std::size_t count);

} // namespace se
