// Fragment layouts: bijections onto their tiles, spot checks against the PTX ISA formulas, printing.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/fragment/fragment_layout.hpp"

using namespace se;

namespace {

const Operand kOperands[] = {Operand::A, Operand::B, Operand::C};

struct Expected {
  int rows, cols, regs;
};

Expected expected_tile(const MmaShapeInfo& info, Operand op) {
  const int rows = op == Operand::B ? info.k : info.m;
  const int cols = op == Operand::A ? (info.sparse ? info.k / 2 : info.k) : info.n;
  return {rows, cols, rows * cols / 32};
}

// The cell of row `row`, column `col` in FragmentLayout::to_string()'s table.
std::string printed_cell(const std::string& text, int row, int col) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line); // title
  std::getline(in, line); // column header
  for (int r = 0; r <= row; ++r) std::getline(in, line);
  std::istringstream cells(line);
  std::string cell;
  cells >> cell; // the row number
  REQUIRE(cell == std::to_string(row));
  for (int c = 0; c <= col; ++c) cells >> cell;
  return cell;
}

} // namespace

TEST_CASE("every fragment layout is a bijection between (lane, reg) and the operand tile", "[fragment]") {
  REQUIRE(mma_shapes().size() == 8);
  for (const MmaShapeInfo& info : mma_shapes()) {
    for (const Operand op : kOperands) {
      INFO(info.id << " operand " << to_string(op));
      const FragmentLayout layout = fragment_layout(info.shape, op);
      const Expected e = expected_tile(info, op);
      CHECK(layout.shape == info.shape);
      CHECK(layout.operand == op);
      CHECK(layout.rows == e.rows);
      CHECK(layout.cols == e.cols);
      CHECK(layout.regs_per_lane == e.regs);
      REQUIRE(layout.coords.size() == static_cast<std::size_t>(e.rows * e.cols));
      std::set<std::pair<int, int>> seen;
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < layout.regs_per_lane; ++reg) {
          const FragmentCoord rc = layout.at(lane, reg);
          REQUIRE(rc.row >= 0);
          REQUIRE(rc.row < layout.rows);
          REQUIRE(rc.col >= 0);
          REQUIRE(rc.col < layout.cols);
          seen.insert({rc.row, rc.col});
          const FragmentOwner back = layout.owner(rc.row, rc.col);
          REQUIRE(back.lane == lane);
          REQUIRE(back.reg == reg);
        }
      CHECK(seen.size() == static_cast<std::size_t>(layout.rows * layout.cols));
    }
  }
}

TEST_CASE("register counts per lane match the PTX operand sizes", "[fragment]") {
  // PTX: m8n8k4.f64 a0 / b0 / c0,c1; m16n8k4.f64 a0,a1 / b0 / c0-c3; m16n8k8.f64 a0-a3 / b0,b1;
  // m16n8k16.f64 a0-a7 / b0-b3; m16n8k16.f16 four f16x2 (8 halves) / two f16x2 (4 halves) / c0-c3;
  // mma.sp m16n8k16.f16 A two f16x2 (4 halves).
  CHECK(fragment_layout(MmaShape::M8N8K4_F64, Operand::A).regs_per_lane == 1);
  CHECK(fragment_layout(MmaShape::M8N8K4_F64, Operand::C).regs_per_lane == 2);
  CHECK(fragment_layout(MmaShape::M16N8K4_F64, Operand::A).regs_per_lane == 2);
  CHECK(fragment_layout(MmaShape::M16N8K4_F64, Operand::B).regs_per_lane == 1);
  CHECK(fragment_layout(MmaShape::M16N8K8_F64, Operand::A).regs_per_lane == 4);
  CHECK(fragment_layout(MmaShape::M16N8K8_F64, Operand::B).regs_per_lane == 2);
  CHECK(fragment_layout(MmaShape::M16N8K16_F64, Operand::A).regs_per_lane == 8);
  CHECK(fragment_layout(MmaShape::M16N8K16_F64, Operand::B).regs_per_lane == 4);
  CHECK(fragment_layout(MmaShape::M16N8K16_F16_F32, Operand::A).regs_per_lane == 8);
  CHECK(fragment_layout(MmaShape::M16N8K16_F16_F32, Operand::B).regs_per_lane == 4);
  CHECK(fragment_layout(MmaShape::M16N8K16_F16_F16, Operand::C).regs_per_lane == 4);
  CHECK(fragment_layout(MmaShape::SP_M16N8K16_F16_F32, Operand::A).regs_per_lane == 4);
  CHECK(fragment_layout(MmaShape::WMMA_M16N16K16_F16_F32, Operand::C).regs_per_lane == 8);
}

TEST_CASE("layouts agree with the PTX ISA formulas at sample points", "[fragment]") {
  auto at = [](MmaShape s, Operand op, int lane, int reg) { return fragment_layout(s, op).at(lane, reg); };
  // m16n8k16 f16 A: groupID = 1, threadID_in_group = 1 for lane 5.
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::A, 5, 0) == FragmentCoord{1, 2});
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::A, 5, 1) == FragmentCoord{1, 3});
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::A, 5, 2) == FragmentCoord{9, 2});
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::A, 5, 4) == FragmentCoord{1, 10});
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::A, 5, 7) == FragmentCoord{9, 11});
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::B, 5, 0) == FragmentCoord{2, 1});
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::B, 5, 3) == FragmentCoord{11, 1});
  CHECK(at(MmaShape::M16N8K16_F16_F16, Operand::C, 5, 3) == FragmentCoord{9, 3});
  CHECK(at(MmaShape::M16N8K16_F16_F32, Operand::C, 31, 0) == FragmentCoord{7, 6});
  // m8n8k4 f64, lane 13: groupID 3, threadID_in_group 1.
  CHECK(at(MmaShape::M8N8K4_F64, Operand::A, 13, 0) == FragmentCoord{3, 1});
  CHECK(at(MmaShape::M8N8K4_F64, Operand::B, 13, 0) == FragmentCoord{1, 3});
  CHECK(at(MmaShape::M8N8K4_F64, Operand::C, 13, 1) == FragmentCoord{3, 3});
  // m16n8k4 / k8 / k16 f64.
  CHECK(at(MmaShape::M16N8K4_F64, Operand::A, 13, 1) == FragmentCoord{11, 1});
  CHECK(at(MmaShape::M16N8K4_F64, Operand::B, 13, 0) == FragmentCoord{1, 3});
  CHECK(at(MmaShape::M16N8K8_F64, Operand::A, 13, 2) == FragmentCoord{3, 5});
  CHECK(at(MmaShape::M16N8K8_F64, Operand::A, 13, 3) == FragmentCoord{11, 5});
  CHECK(at(MmaShape::M16N8K8_F64, Operand::B, 13, 1) == FragmentCoord{5, 3});
  CHECK(at(MmaShape::M16N8K16_F64, Operand::A, 13, 5) == FragmentCoord{11, 9}); // (i*2) - 2 + tid = 9
  CHECK(at(MmaShape::M16N8K16_F64, Operand::A, 13, 6) == FragmentCoord{3, 13}); // (i*2) + tid = 13
  CHECK(at(MmaShape::M16N8K16_F64, Operand::B, 13, 3) == FragmentCoord{13, 3});
  CHECK(at(MmaShape::M16N8K16_F64, Operand::C, 13, 2) == FragmentCoord{11, 2});
  // mma.sp A: the chunk threadID_in_group of rows groupID / groupID + 8, as compressed columns.
  CHECK(at(MmaShape::SP_M16N8K16_F16_F32, Operand::A, 13, 0) == FragmentCoord{3, 2});
  CHECK(at(MmaShape::SP_M16N8K16_F16_F32, Operand::A, 13, 3) == FragmentCoord{11, 3});
  CHECK(at(MmaShape::SP_M16N8K16_F16_F32, Operand::B, 13, 2) == FragmentCoord{10, 3});
  // WMMA (observed): two m16n8k16 tiles side by side.
  CHECK(at(MmaShape::WMMA_M16N16K16_F16_F32, Operand::A, 13, 6) == FragmentCoord{11, 10});
  CHECK(at(MmaShape::WMMA_M16N16K16_F16_F32, Operand::B, 13, 6) == FragmentCoord{10, 11});
  CHECK(at(MmaShape::WMMA_M16N16K16_F16_F32, Operand::C, 13, 5) == FragmentCoord{3, 11});
}

TEST_CASE("shape table: ids parse back, bad ids and bad coordinates are rejected", "[fragment]") {
  for (const MmaShapeInfo& info : mma_shapes()) {
    CHECK(parse_mma_shape(info.id) == info.shape);
    CHECK(&mma_info(info.shape) == &info);
    CHECK(to_string(info.shape) == info.id);
    CHECK_FALSE(info.ptx.empty());
    CHECK(info.layout_observed == (info.shape == MmaShape::WMMA_M16N16K16_F16_F32));
    CHECK(info.sparse == (info.shape == MmaShape::SP_M16N8K16_F16_F32));
  }
  CHECK(mma_info(MmaShape::M16N8K16_F16_F16).accumulate == Precision::FP16);
  CHECK(mma_info(MmaShape::SP_M16N8K16_F16_F32).accumulate == Precision::FP32);
  CHECK(mma_info(MmaShape::M8N8K4_F64).operands == Precision::FP64);
  CHECK_THROWS_AS(parse_mma_shape("m16n8k32"), InputError);
  CHECK_THROWS_WITH(parse_mma_shape("m16n8k32"), Catch::Contains("m8n8k4.f64"));

  const FragmentLayout c = fragment_layout(MmaShape::M8N8K4_F64, Operand::C);
  CHECK_THROWS_AS(c.at(32, 0), InputError);
  CHECK_THROWS_AS(c.at(0, 2), InputError);
  CHECK_THROWS_AS(c.at(-1, 0), InputError);
  CHECK_THROWS_AS(c.owner(8, 0), InputError);
  CHECK_THROWS_AS(c.owner(0, -1), InputError);
}

TEST_CASE("to_string prints a rows x cols table of lane:reg", "[fragment]") {
  const FragmentLayout a = fragment_layout(MmaShape::M16N8K16_F16_F32, Operand::A);
  const std::string text = a.to_string();
  CHECK(text.find("m16n8k16.f16.f32") != std::string::npos);
  std::size_t lines = 0;
  for (const char ch : text) lines += ch == '\n' ? 1 : 0;
  CHECK(lines == 2 + 16);
  CHECK(printed_cell(text, 1, 2) == "5:0");
  CHECK(printed_cell(text, 9, 11) == "5:7");
  CHECK(printed_cell(text, 0, 0) == "0:0");
  CHECK(printed_cell(text, 15, 15) == "31:7");

  const std::string sparse = fragment_layout(MmaShape::SP_M16N8K16_F16_F32, Operand::A).to_string();
  CHECK(sparse.find("compressed") != std::string::npos);
  CHECK(printed_cell(sparse, 11, 3) == "13:3");
  CHECK(fragment_layout(MmaShape::WMMA_M16N16K16_F16_F32, Operand::B).to_string().find("observed") !=
        std::string::npos);
}
