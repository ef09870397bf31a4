// GLSL sources compiled into the binary from the files in shaders/ (see shaders/embed_shaders.cmake).
// The files stay the source of truth; the embedding only spares the app a search for them at run time.
#pragma once
#include <string_view>

namespace se {

// The text of shaders/<file_name>, or an empty view for a name that is not embedded.
std::string_view embedded_shader(std::string_view file_name);

} // namespace se
