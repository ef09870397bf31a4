// The name nearest to a mistyped word, for "did you mean" in error messages (the CLI's method and preset names,
// the grid names of a complex-stencil program).
#pragma once

#include <string>
#include <vector>

namespace se {

// The first of `names` at the smallest edit distance (insertions, deletions, substitutions) from `word`, when that
// distance is at most two; empty otherwise.
std::string nearest_name(const std::string& word, const std::vector<std::string>& names);

} // namespace se
