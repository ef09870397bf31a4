// The WMMA recording check on the CPU: recordings made from core's own tables match, and every way a recording
// can depart from them (another lane, a repeat that is no repeat, a value that is no index, a wrong size) is
// reported. What the GPU records is checked by tests/gpu/test_wmma_recorder.cpp.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/error.hpp"
#include "kernels/device.hpp"
#include "kernels/fragment_probe/wmma_recording.hpp"

using namespace se;

namespace {

// What a GPU doing exactly what core's table says would record, with `elements` elements per lane.
WmmaOperandRecording as_core_says(MmaShape shape, Operand op, int elements) {
  const FragmentLayout& core = hardware_fragment_layout(shape, op);
  WmmaOperandRecording r;
  r.shape = shape;
  r.operand = op;
  r.fragment = "test fragment";
  r.rows = core.rows;
  r.cols = core.cols;
  r.elements_per_lane = elements;
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < elements; ++i) {
      const FragmentCoord c = core.at(lane, i % core.regs_per_lane);
      r.element_index.push_back(c.row * core.cols + c.col);
    }
  return r;
}

int& element(WmmaOperandRecording& r, int lane, int i) {
  return r.element_index[static_cast<std::size_t>(lane * r.elements_per_lane + i)];
}

} // namespace

TEST_CASE("a recording that does what core's table says matches it", "[fragment_probe]") {
  // WMMA's f16 A exposes 16 elements for 8 distinct values (x[i + 8] == x[i]); its accumulator has 8.
  for (const auto& [op, elements] : {std::pair{Operand::A, 16}, std::pair{Operand::B, 16}, std::pair{Operand::C, 8}}) {
    const WmmaLayoutCheck check = check_wmma_recording(as_core_says(MmaShape::WMMA_M16N16K16_F16_F32, op, elements));
    INFO(to_string(op));
    CHECK(check.matches());
    CHECK(check.core_layout_observed);
    REQUIRE(check.layout.has_value());
    CHECK(check.layout->coords == hardware_fragment_layout(MmaShape::WMMA_M16N16K16_F16_F32, op).coords);
  }
  const WmmaLayoutCheck f64 = check_wmma_recording(as_core_says(MmaShape::M8N8K4_F64, Operand::C, 2));
  CHECK(f64.matches());
  CHECK_FALSE(f64.core_layout_observed);
}

TEST_CASE("every way a recording departs from core's table is reported", "[fragment_probe]") {
  SECTION("two lanes hold each other's element") {
    WmmaOperandRecording r = as_core_says(MmaShape::WMMA_M16N16K16_F16_F32, Operand::C, 8);
    std::swap(element(r, 0, 0), element(r, 5, 0));
    const WmmaLayoutCheck check = check_wmma_recording(r);
    REQUIRE(check.differences.size() == 2);
    CHECK(check.differences[0] == "lane 0 x[0] holds (1, 2); core's table says (0, 0)");
    CHECK(check.differences[1] == "lane 5 x[0] holds (0, 0); core's table says (1, 2)");
    REQUIRE(check.layout.has_value()); // still one element per cell: drawable, and unlike core's
    CHECK(check.layout->at(0, 0) == FragmentCoord{1, 2});
  }
  SECTION("the second half of a fragment holds other elements than the first") {
    WmmaOperandRecording r = as_core_says(MmaShape::WMMA_M16N16K16_F16_F32, Operand::A, 16);
    // Lane 3 holds its values in the order x[8..15], x[0..7]: a repeat pattern core does not model.
    for (int i = 0; i < 8; ++i) std::swap(element(r, 3, i), element(r, 3, i + 8));
    element(r, 3, 9) = element(r, 3, 10); // and loses one value
    const WmmaLayoutCheck check = check_wmma_recording(r);
    CHECK_FALSE(check.matches());
    CHECK(std::any_of(check.differences.begin(), check.differences.end(),
                      [](const std::string& d) { return d.find("core models it as a copy of x[1]") != std::string::npos; }));
  }
  SECTION("a value that is no tile index, and the list is capped") {
    WmmaOperandRecording r = as_core_says(MmaShape::WMMA_M16N16K16_F16_F32, Operand::B, 16);
    for (int lane = 0; lane < kWarpSize; ++lane) element(r, lane, 2) = -1;
    const WmmaLayoutCheck check = check_wmma_recording(r, 4);
    REQUIRE(check.differences.size() == 5);
    CHECK(check.differences[0].rfind("lane 0 x[2] holds no index", 0) == 0);
    CHECK(check.differences[4] == "... and 28 more");
    CHECK_FALSE(check.layout.has_value());
  }
  SECTION("wrong sizes and empty recordings") {
    WmmaOperandRecording r = as_core_says(MmaShape::WMMA_M16N16K16_F16_F32, Operand::A, 16);
    r.cols = 8;
    CHECK_THAT(check_wmma_recording(r).differences.at(0), Catch::Contains("16x8; core's is 16x16"));
    r = as_core_says(MmaShape::WMMA_M16N16K16_F16_F32, Operand::A, 4);
    CHECK_THAT(check_wmma_recording(r).differences.at(0), Catch::Contains("4 elements per lane"));
    r.element_index.clear();
    CHECK(check_wmma_recording(r).differences.at(0) == "nothing was recorded for this fragment");
  }
}

TEST_CASE("the recorder covers every operand of core's observed shapes, and says why it cannot run", "[fragment_probe]") {
  const std::vector<WmmaOperandRecording> plan = wmma_recording_plan();
  for (const MmaShapeInfo& info : mma_shapes()) {
    if (!info.layout_observed) continue;
    for (Operand op : {Operand::A, Operand::B, Operand::C})
      CHECK(std::count_if(plan.begin(), plan.end(), [&](const WmmaOperandRecording& r) {
              return r.shape == info.shape && r.operand == op;
            }) == 1);
  }
  const auto c = std::find_if(plan.begin(), plan.end(), [](const WmmaOperandRecording& r) {
    return r.shape == MmaShape::WMMA_M16N16K16_F16_F32 && r.operand == Operand::C;
  });
  REQUIRE(c != plan.end());
  CHECK(c->fragment == "wmma::fragment<accumulator, 16, 16, 16, float>");
  CHECK((c->rows == 16 && c->cols == 16));
  if (cuda_device_count() == 0) CHECK_THROWS_WITH(record_wmma_layouts(), Catch::StartsWith("no CUDA device: "));
}
