// The items of a command-line option's comma-separated value (`--methods a,b`, `--strategy x,y`, `--sizes 128,256`):
// one rule for every such option, so a stray comma means the same thing everywhere.
#pragma once

#include <string>
#include <vector>

namespace se {

// The items of `text` in order. An empty `text` gives no items (the option's default applies); an empty item (a
// leading, doubled or trailing comma) is refused with an InputError that names `option` and quotes `text`, so it is
// neither dropped silently nor passed on as an empty name.
std::vector<std::string> split_comma_list(const std::string& text, const std::string& option);

} // namespace se
