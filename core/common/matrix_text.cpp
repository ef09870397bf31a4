// Aligned-column matrix text for the plan printouts.
#include "core/common/matrix_text.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

std::string format_matrix(std::string_view title, const double* values, int rows, int cols, int ld) {
  if (values == nullptr || rows <= 0 || cols <= 0 || ld < cols)
    throw InputError(fmt::format("format_matrix: a {} x {} matrix with leading dimension {} cannot be printed", rows,
                                 cols, ld));
  std::vector<std::string> cells(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  std::vector<std::size_t> width(static_cast<std::size_t>(cols), 0);
  for (int c = 0; c < cols; ++c) width[static_cast<std::size_t>(c)] = fmt::format("{}", c).size();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double v = values[static_cast<std::size_t>(r) * static_cast<std::size_t>(ld) + static_cast<std::size_t>(c)];
      std::string& cell = cells[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
      cell = v == 0.0 ? std::string("0") : fmt::format("{:.6g}", v);
      width[static_cast<std::size_t>(c)] = std::max(width[static_cast<std::size_t>(c)], cell.size());
    }
  const std::size_t label = fmt::format("{}", rows - 1).size();
  std::string out = fmt::format("{} ({} x {})\n{:>{}}", title, rows, cols, "", label);
  for (int c = 0; c < cols; ++c) out += fmt::format("  {:>{}}", c, width[static_cast<std::size_t>(c)]);
  out += '\n';
  for (int r = 0; r < rows; ++r) {
    out += fmt::format("{:>{}}", r, label);
    for (int c = 0; c < cols; ++c)
      out += fmt::format("  {:>{}}", cells[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)],
                         width[static_cast<std::size_t>(c)]);
    out += '\n';
  }
  return out;
}

} // namespace se
