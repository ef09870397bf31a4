// Pictures people load as an initial condition: any PNG (or JPEG, BMP, ... that stb_image reads), converted to
// grayscale brightness in [0, 1]; 16-bit PNGs keep their 16 bits.
#pragma once
#include <string>

#include "core/image_field.hpp"

namespace se {

// Throws InputError naming the path and the reason (missing, not a regular file, not a picture, too large).
GrayImage load_gray_image(const std::string& path);

} // namespace se
