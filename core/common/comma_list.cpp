#include "core/common/comma_list.hpp"

#include "core/error.hpp"

namespace se {

std::vector<std::string> split_comma_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  for (std::size_t pos = 0;;) {
    const std::size_t comma = text.find(',', pos);
    const std::size_t end = comma == std::string::npos ? text.size() : comma;
    if (end == pos)
      throw InputError(option + ": an empty item in '" + text + "' (a leading, doubled or trailing comma)");
    items.push_back(text.substr(pos, end - pos));
    if (comma == std::string::npos) return items;
    pos = comma + 1;
  }
}

} // namespace se
