// glReadPixels + stb_image_write. libstb (Debian) already compiles the stb_image_write implementation.
#include "app/platform/screenshot.hpp"

#include <algorithm>

#include <glad/gl.h>
#include <stb_image_write.h>

#include "core/error.hpp"
#include "core/files.hpp"

namespace se {

RgbaImage read_framebuffer(int width, int height) {
  RgbaImage image;
  if (width <= 0 || height <= 0) return image;
  image.width = width;
  image.height = height;
  image.pixels.resize(static_cast<std::size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.pixels.data());
  const std::size_t row = static_cast<std::size_t>(width) * 4;
  for (int y = 0; y < height / 2; ++y)
    std::swap_ranges(image.pixels.begin() + static_cast<std::ptrdiff_t>(y * row),
                     image.pixels.begin() + static_cast<std::ptrdiff_t>((y + 1) * row),
                     image.pixels.begin() + static_cast<std::ptrdiff_t>((height - 1 - y) * row));
  // The UI is drawn opaque, but alpha left over from blending would make viewers show it see-through.
  for (std::size_t i = 3; i < image.pixels.size(); i += 4) image.pixels[i] = 255;
  return image;
}

void write_png(const RgbaImage& image, const std::string& path) {
  if (image.width <= 0 || image.height <= 0) throw InputError("no image to write to " + path);
  // Encoded in memory, then written through the checked writer: a full disk is an error, not a cut-off PNG.
  std::string png;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (stbi_write_png_to_func(append, &png, image.width, image.height, 4, image.pixels.data(), image.width * 4) == 0)
    throw InputError("cannot encode the screenshot for '" + path + "'");
  write_file(path, png, "screenshot");
}

} // namespace se
