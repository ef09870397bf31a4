// Anchor colours of each map, sampled at evenly spaced t (matplotlib's viridis and inferno at 9 points,
// a Moreland-style cool-warm diverging map, and plain gray), interpolated linearly in sRGB.
#include "app/widgets/colormap.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {
namespace {

using Anchors = std::vector<std::array<int, 3>>;

const Anchors& anchors(Colormap c) {
  static const Anchors viridis{{0x44, 0x01, 0x54}, {0x47, 0x2c, 0x7a}, {0x3b, 0x51, 0x8b},
                               {0x2c, 0x71, 0x8e}, {0x21, 0x90, 0x8d}, {0x27, 0xad, 0x81},
                               {0x5c, 0xc8, 0x63}, {0xaa, 0xdc, 0x32}, {0xfd, 0xe7, 0x25}};
  static const Anchors inferno{{0x00, 0x00, 0x04}, {0x1f, 0x0c, 0x48}, {0x55, 0x0f, 0x6d},
                               {0x88, 0x22, 0x6a}, {0xba, 0x36, 0x55}, {0xe3, 0x59, 0x33},
                               {0xf9, 0x8c, 0x0a}, {0xf9, 0xc9, 0x32}, {0xfc, 0xff, 0xa4}};
  static const Anchors cool_warm{{0x3b, 0x4c, 0xc0}, {0x62, 0x82, 0xea}, {0x8d, 0xb0, 0xfe},
                                 {0xb8, 0xd0, 0xf9}, {0xdd, 0xdd, 0xdd}, {0xf5, 0xc4, 0xac},
                                 {0xf4, 0x9a, 0x7b}, {0xde, 0x60, 0x4d}, {0xb4, 0x04, 0x26}};
  static const Anchors gray{{0, 0, 0}, {255, 255, 255}};
  switch (c) {
  case Colormap::Viridis: return viridis;
  case Colormap::Inferno: return inferno;
  case Colormap::CoolWarm: return cool_warm;
  case Colormap::Gray: return gray;
  }
  return viridis;
}

} // namespace

const std::vector<Colormap>& all_colormaps() {
  static const std::vector<Colormap> all{Colormap::Viridis, Colormap::Inferno, Colormap::CoolWarm, Colormap::Gray};
  return all;
}

std::string_view to_string(Colormap c) {
  switch (c) {
  case Colormap::Viridis: return "viridis";
  case Colormap::Inferno: return "inferno";
  case Colormap::CoolWarm: return "cool-warm";
  case Colormap::Gray: return "gray";
  }
  return "?";
}

Colormap parse_colormap(std::string_view name) {
  for (Colormap c : all_colormaps())
    if (name == to_string(c)) return c;
  throw InputError(fmt::format("unknown colormap '{}' (viridis, inferno, cool-warm, gray)", name));
}

Rgba8 colormap_color(Colormap c, double t) {
  const Anchors& a = anchors(c);
  if (!(t >= 0.0)) t = 0.0; // also catches NaN
  t = std::min(t, 1.0);
  const double pos = t * static_cast<double>(a.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(pos), a.size() - 2);
  const double f = pos - static_cast<double>(i);
  Rgba8 out{0, 0, 0, 255};
  for (int k = 0; k < 3; ++k)
    out[k] = static_cast<std::uint8_t>(std::lround(a[i][k] + f * (a[i + 1][k] - a[i][k])));
  return out;
}

std::vector<Rgba8> colormap_lut(Colormap c, int entries) {
  if (entries < 2) throw InputError(fmt::format("a colormap table needs at least 2 entries; got {}", entries));
  std::vector<Rgba8> lut(static_cast<std::size_t>(entries));
  for (int i = 0; i < entries; ++i) lut[static_cast<std::size_t>(i)] = colormap_color(c, static_cast<double>(i) / (entries - 1));
  return lut;
}

} // namespace se
