// Screenshots: read the framebuffer being drawn into (top row first, as image files expect) and
// write it as PNG with stb_image_write.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace se {

struct RgbaImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels; // width * height * 4, row 0 at the top
  const std::uint8_t* pixel(int x, int y) const { return &pixels[(static_cast<std::size_t>(y) * width + x) * 4]; }
};

// Reads width x height pixels at the origin of the currently bound read framebuffer (flipping GL's
// bottom-up rows). Needs a current GL context.
RgbaImage read_framebuffer(int width, int height);
// Throws InputError when the file cannot be written (missing folder, no permission).
void write_png(const RgbaImage& image, const std::string& path);

} // namespace se
