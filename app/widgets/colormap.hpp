// Colormaps for heat maps: named perceptual maps sampled into an RGBA lookup table for the GLSL shader,
// and the same lookup on the CPU so the legend and tests see exactly what the shader draws.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace se {

enum class Colormap { Viridis, Inferno, CoolWarm, Gray };
const std::vector<Colormap>& all_colormaps();
std::string_view to_string(Colormap c);
Colormap parse_colormap(std::string_view name); // throws InputError listing the known names

using Rgba8 = std::array<std::uint8_t, 4>;

// The colour at t in [0, 1] (clamped), interpolated linearly between the map's anchor colours.
Rgba8 colormap_color(Colormap c, double t);
// `entries` colours from t = 0 to t = 1, as the shader's lookup texture (entries >= 2).
std::vector<Rgba8> colormap_lut(Colormap c, int entries = 256);

} // namespace se
