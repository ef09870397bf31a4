// Plain-text matrices with aligned columns for plan printouts. Zeros print as a bare "0" so the band and
// triangle structure of parameter matrices stands out; row and column indices frame the table.
#pragma once
#include <string>
#include <string_view>

namespace se {

// `title` on its own line, then a rows x cols table of values[r * ld + c] (6 significant digits), each column
// as wide as its widest entry.
std::string format_matrix(std::string_view title, const double* values, int rows, int cols, int ld);

} // namespace se
