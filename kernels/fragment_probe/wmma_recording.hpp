// What the GPU's wmma::load_matrix_sync puts in which lane and fragment element, read back from the hardware,
// and how that compares with core's fragment tables. The recording itself needs a CUDA device (wmma_recorder.cu);
// the comparison is plain C++, tested on any machine.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/fragment/fragment_layout.hpp"

namespace se {

// One fragment type loaded from a tile whose entries are their own index row * cols + col: element x[i] of
// lane l then holds the index of the tile element it was given.
struct WmmaOperandRecording {
  MmaShape shape = MmaShape::WMMA_M16N16K16_F16_F32; // core's table it is compared with
  Operand operand = Operand::A;
  std::string fragment;  // the CUDA type, "wmma::fragment<matrix_a, 16, 16, 16, half, row_major>"
  int rows = 0, cols = 0;
  int elements_per_lane = 0;      // the fragment's num_elements
  std::vector<int> element_index; // [lane * elements_per_lane + i]; -1 where x[i] held no tile index
};

// A recording next to core's table for the same shape and operand.
struct WmmaLayoutCheck {
  WmmaOperandRecording recording;
  bool core_layout_observed = false;    // core marks the table "observed" (NVIDIA leaves it unspecified)
  std::optional<FragmentLayout> layout; // the recorded distinct elements as core's layout type, when they form one
  std::vector<std::string> differences; // empty: the hardware does what core's table says
  bool matches() const { return differences.empty(); }
  std::string title() const; // "wmma.m16n16k16.f16.f32 A (wmma::fragment<matrix_a, ...>)"
};

// Compares a recording with core's table. Core models each lane's distinct elements as registers 0 ..
// rows * cols / 32 - 1; a fragment that exposes more elements (WMMA's f16 A and B expose 16 for 8 values) must
// repeat them: x[i] == x[i mod distinct]. Every way the recording departs from that is one line of
// `differences` (at most `max_listed`, then a count of the rest).
WmmaLayoutCheck check_wmma_recording(const WmmaOperandRecording& recording, std::size_t max_listed = 12);

// The recordings of one device, checked.
struct WmmaRecordingReport {
  std::string device;                  // "NVIDIA H100 80GB HBM3 (sm_90)"
  std::vector<WmmaLayoutCheck> checks; // every operand of every recorded shape
  bool matches() const;
  std::string summary() const;         // one line per check: "A matches core's table" or its differences
};

// The fragment types the recorder loads: every operand of every shape core marks "observed", plus WMMA's f64
// m8n8k4, whose fragments are compared with mma.m8n8k4.f64's documented table.
std::vector<WmmaOperandRecording> wmma_recording_plan();

// Runs the recorder on CUDA device 0 and checks every recording. Throws InputError when there is no usable
// device (no CUDA build, no driver, no GPU, or one older than sm_80) and CudaError when a launch fails.
WmmaRecordingReport record_wmma_layouts();

} // namespace se
