// A matrix drawn the way the papers draw them: coloured cells with their numbers, zeros as greyed zeros,
// equal values in equal colours across the matrices of one figure, hover tooltips, marked rows/columns,
// outlined cells and group separators. Drawn on ImGui's draw list; also used for lane maps and heat maps.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <imgui.h>

namespace se {

// Colours for the distinct non-zero values of one figure: equal values (to a relative tolerance, so
// rounding residue does not split them) get equal colours, in every matrix drawn with the palette.
class ValuePalette {
public:
  void add(std::span<const double> values);
  void add(double value) { add(std::span<const double>(&value, 1)); }
  // -1 for zero (|v| <= zero_tolerance()), else the value's place among the distinct values, largest first.
  int index(double value) const;
  ImU32 color(double value) const; // the zero colour for zeros
  // "a", ..., "z", "A", ..., "Z", "a2", ...: the value's name where cells are too narrow for numbers (as the
  // papers letter their figures); "0" for zero. Never runs out.
  std::string letter(double value) const;
  std::size_t size() const { return values_.size(); }
  const std::vector<double>& values() const { return values_; }
  double zero_tolerance() const;

private:
  std::vector<double> values_; // distinct, descending
  double largest_ = 0;
};

// The fewest significant digits (at least `at_least`) at which compact_number prints every value of `values`
// differently (17 at most): two distinct values never print alike.
int distinguishing_digits(const std::vector<double>& values, int at_least);

// The categorical colours ValuePalette and lane maps use (pastel, dark text readable on every one).
ImU32 categorical_color(int index);
ImU32 zero_cell_color();
// Cool (negative) through pale (zero) to warm (positive) at t in [-1, 1].
ImU32 diverging_color(double t);

enum class CellColoring {
  EqualValues, // a ValuePalette: the papers' figure style
  Diverging,   // a heat map centred on zero (DFT matrices, spectra)
  Custom,      // MatrixPicture::colors, one per cell (lane maps)
};

struct MatrixPicture {
  const char* id = "matrix";    // unique within the window
  std::string title;            // drawn above the cells
  ImU32 title_color = 0;        // 0: the text colour
  int rows = 0, cols = 0;
  std::vector<double> values;   // rows x cols, row-major (may be empty with Custom colours and labels)
  std::vector<std::string> labels; // per cell, replacing the number
  std::vector<ImU32> colors;       // per cell, for CellColoring::Custom
  CellColoring coloring = CellColoring::EqualValues;
  const ValuePalette* palette = nullptr; // EqualValues: shared by a figure; nullptr: built from `values`
  double diverging_scale = 0;   // Diverging: |value| at the ends; 0: the largest |value|
  int digits = 3;               // significant digits of the numbers (more where distinct values would print alike)
  float cell = 0;               // cell side in pixels; 0: wide enough for the widest number
  float cell_width = 0;         // if > 0, cells are this wide and `cell` tall (text tables beside a matrix)
  // If > 0, cells shrink to fit, numbers give way to letters (see the legend), but cells that carry values never
  // shrink below what a letter or label needs at kMinCellTextScale: then the picture is larger than asked.
  float max_width = 0;
  float max_height = 0;
  bool numbers = true;          // false: colours only (heat maps), numbers in the tooltip
  bool letters_when_narrow = true; // EqualValues: the palette's letters where numbers do not fit (see legend)
  // Where the cells show letters, draw_matrix draws the palette's legend under them (once per palette and frame);
  // false: the caller draws it (draw_palette_legend), e.g. beside a figure of several matrices.
  bool legend = true;
  std::vector<int> marked_columns, marked_rows; // a marker on the edge and an outline
  ImU32 mark_color = IM_COL32(255, 196, 64, 255);
  std::vector<char> outlined;   // rows x cols; non-zero: outlined (in outline_color)
  ImU32 outline_color = IM_COL32(255, 80, 80, 255);
  int column_group = 0, row_group = 0; // a separator line every n columns / rows
  std::vector<std::string> column_labels, row_labels; // headers above and to the left
  std::function<std::string(int row, int col)> tooltip; // lines added to the hovered cell's tooltip
};

// Where the cells went, so callers can draw on top (arrows, animations) and react to hovering.
struct MatrixDrawn {
  ImVec2 origin;   // top left of cell (0, 0)
  float cell = 0;  // height (and width, unless MatrixPicture::cell_width) of a cell
  float cell_w = 0;
  bool letters = false; // the cells show the palette's letters: draw_palette_legend explains them
  float text_scale = 0;  // the cells' text at this scale of the font (0: no text), the same for every cell
  int rows = 0, cols = 0;
  int hover_row = -1, hover_col = -1;
  ImVec2 min, max; // the whole widget, title and headers included
  ImVec2 cell_min(int row, int col) const { return ImVec2(origin.x + col * cell_w, origin.y + row * cell); }
  ImVec2 cell_center(int row, int col) const {
    return ImVec2(origin.x + (col + 0.5f) * cell_w, origin.y + (row + 0.5f) * cell);
  }
  bool hovered() const { return hover_row >= 0; }
};

// What draw_matrix will do, before drawing (to lay figures out and to know whether a legend is needed).
struct MatrixMeasure {
  ImVec2 size;          // the whole widget
  float cell = 0;
  bool numbers = false; // numbers (or labels) are drawn in the cells
  bool letters = false; // ... as the palette's letters
};
MatrixMeasure measure_matrix(const MatrixPicture& m);
// The smallest scale of the font that cells use for numbers before they switch to letters.
constexpr float kMinCellTextScale = 0.72f;
MatrixDrawn draw_matrix(const MatrixPicture& m);

// Rows [first, first + count) of `m`, with their numbers at the left (or m's own row labels, where it has them); its
// tooltip keeps the whole matrix's rows.
MatrixPicture rows_of(MatrixPicture m, int first, int count);
// Rows [r0, r0 + nr) and columns [c0, c0 + nc) of `m` (a page of a matrix too large for its numbers), headed by
// their indices in the whole matrix; its tooltip keeps the whole matrix's cells.
MatrixPicture window_of(const MatrixPicture& m, int r0, int nr, int c0, int nc);
// The rows of a block when `rows` stand in `blocks` blocks of whole groups of `group` rows.
int block_rows(int rows, int blocks, int group);
// `m` in `blocks` blocks of whole row groups side by side, each with its row numbers (the later ones titled with
// their rows): a matrix taller than the page stays whole. The first block's cells (for the caller's legend) and
// the rectangle of them all.
struct RowBlocks {
  MatrixDrawn first;
  ImVec2 min, max;
};
RowBlocks draw_row_blocks(const MatrixPicture& m, int blocks, const char* more_id);
// The size draw_row_blocks will take.
ImVec2 measure_row_blocks(const MatrixPicture& m, int blocks);

// The letters of a palette with their values, as coloured chips wrapping within the window (or, with
// `wrap_width` > 0, within that width from the cursor). Values print with enough digits to tell them apart.
// Drawn once per frame for a palette's values: skipped when a matrix (or a caller) already drew it this frame.
void draw_palette_legend(const ValuePalette& palette, int digits = 6, float wrap_width = 0);
// How draw_legend_chips draws: `fill` and `text` colour a chip for its value where the cells it explains are not
// coloured by the palette (the Stencil window's heat-map cells; empty: the palette's colours, dark text); `shown`
// keeps only the values a figure shows where its palette holds many more (empty: every value).
struct LegendStyle {
  std::function<ImU32(double)> fill, text;
  std::function<bool(double)> shown;
  bool columns = false; // chips in columns as wide as the widest (a tall legend's lines filled evenly)
};
// The same chips, always drawn.
void draw_legend_chips(const ValuePalette& palette, int digits = 6, float wrap_width = 0, const LegendStyle& style = {});
// True the first time this frame for these values (and marks them drawn): the legend's once-per-frame rule.
bool claim_legend(const ValuePalette& palette);
constexpr int kLegendDigits = 4;
// The widest of those chips: the room a legend needs beside a figure.
float palette_legend_width(const ValuePalette& palette, int digits = 6, const LegendStyle& style = {});
// A LegendStyle that shows only `values` (their letters stay the palette's).
LegendStyle legend_of(const ValuePalette& palette, const std::vector<double>& values);

// A colour key's line for a figure coloured by meaning rather than by value: a chip filled `fill` and framed
// `frame`, then `label` (wrapped where a wrap position is set).
constexpr ImU32 kChipEdge = IM_COL32(20, 20, 26, 255);
void draw_key_chip(ImU32 fill, ImU32 frame, const char* label);

// "0.125", "-1.5", "1.2e-05": the cell text for a value.
std::string compact_number(double value, int digits = 3);
// An operator ("=", "+", "·") at the cursor, centred in a band `height` tall, followed by SameLine() so the
// next matrix continues the equation.
void draw_operator(const char* text, float height);

} // namespace se
