#include "app/platform/png_file.hpp"

#include <memory>

#include <fmt/format.h>
#include <stb_image.h> // libstb (Debian) compiles the stb_image implementation

#include "core/error.hpp"
#include "core/files.hpp"

namespace se {

GrayImage load_gray_image(const std::string& path) {
  constexpr std::uint64_t kMaxPictureFileBytes = std::uint64_t{256} << 20;
  const std::string bytes = read_text_file(path, "picture", kMaxPictureFileBytes);
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  int width = 0, height = 0, channels = 0;
  if (stbi_info_from_memory(data, size, &width, &height, &channels) == 0)
    throw InputError(fmt::format("{}: not a picture stb_image can read ({})", path, stbi_failure_reason()));
  if (width > kMaxImageSide || height > kMaxImageSide)
    throw InputError(fmt::format("{} is {}x{}; at most {} pixels per side are taken", path, width, height, kMaxImageSide));
  GrayImage image;
  const bool sixteen = stbi_is_16_bit_from_memory(data, size) != 0;
  // One channel asked for: stb converts colour to its luminance (and drops alpha).
  if (sixteen) {
    std::unique_ptr<stbi_us, void (*)(void*)> px(stbi_load_16_from_memory(data, size, &width, &height, &channels, 1),
                                                 stbi_image_free);
    if (!px) throw InputError(fmt::format("{}: cannot decode ({})", path, stbi_failure_reason()));
    image.values.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    for (std::size_t i = 0; i < image.values.size(); ++i) image.values[i] = static_cast<float>(px.get()[i]) / 65535.0f;
  } else {
    std::unique_ptr<stbi_uc, void (*)(void*)> px(stbi_load_from_memory(data, size, &width, &height, &channels, 1),
                                                 stbi_image_free);
    if (!px) throw InputError(fmt::format("{}: cannot decode ({})", path, stbi_failure_reason()));
    image.values.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    for (std::size_t i = 0; i < image.values.size(); ++i) image.values[i] = static_cast<float>(px.get()[i]) / 255.0f;
  }
  image.width = width;
  image.height = height;
  validate(image);
  return image;
}

} // namespace se
