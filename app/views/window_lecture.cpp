// Lecture mode: the guided tour through the teaching views (one step = one view shown large, on one of its
// pages, with a caption) and the lecture bar that shows the caption with Prev/Next (PageUp/PageDown).
#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>

#include "app/views/views.hpp"

namespace se {

std::vector<LectureStep> lecture_steps() {
  static const std::vector<LectureStep> tour{
      {"simulation", "", "The stencil at work",
       "Every step replaces each point by the weighted sum of its neighbours, with the weights in the Stencil "
       "window. Edit a weight: every view of this tour is redrawn from the new weights."},
      {"pyramid", "pyramid", "LoRAStencil: a pyramid of rank-1 matrices",
       "A radially symmetric W is peeled ring by ring: C = u·vᵀ equals W on its outer ring, W − C is a smaller "
       "symmetric matrix, down to a 1×1 apex left to CUDA cores. Equal colours are equal weights."},
      {"pyramid", "rdg", "LoRAStencil: gathering one rank-1 term",
       "Each C = u·vᵀ is applied as Y = U·X·V: the banded U gathers down the columns, the banded V along the rows. "
       "The input window X is loaded once and reused by every term."},
      {"sparse24", "", "SPIDER: a kernel row made 2:4-sparse",
       "A kernel row becomes an L×(2r+L) band with L = 2r+2, so half of it is zero. Swapping the odd columns j "
       "and j+L leaves at most two non-zeros in every group of four: the sparse tensor cores keep those two values "
       "and their 2-bit positions, and the input rows are swapped to match."},
      {"params", "tcstencil", "TCStencil: parameter matrices",
       "A star stencil is two GEMMs: P_ver sums down the columns, P_hor along the rows. A box stencil needs one "
       "matrix per kernel row, each applied to the input shifted by one row. The tile border cuts the band: "
       "those partial sums are finished on CUDA cores."},
      {"params", "convstencil", "ConvStencil: stencil2row and dual tessellation",
       "stencil2row copies every input row into two overlapping matrices A and B. A lower- and an upper-"
       "triangular kernel matrix multiply them, and the sum of the two products is the stencil on a whole segment."},
      {"fft", "tailoring", "FlashFFTStencil: split, fuse, stitch",
       "The grid is cut into overlapping segments of L points. Each is transformed, multiplied by the kernel's "
       "spectrum and transformed back; only its S = L − (M − 1) central outputs are stitched into the result."},
      {"fft", "crt", "FlashFFTStencil: the prime-factor index map",
       "With L = L1·L2 coprime, position l goes to cell (l mod L1, l mod L2): a diagonal walk. The DFT of the "
       "segment is then two small dense matrix products, one per axis, with no twiddle factors between them."},
      {"fft", "fusion", "FlashFFTStencil: T steps in one pass",
       "T steps of the stencil are one multiplication by k_fᵀ in the frequency domain. The error against T steps "
       "of the FP64 reference is measured on this stencil, not assumed."},
      {"fragments", "layouts", "Who holds what: fragment layouts",
       "Each of the 32 lanes of a warp holds a few elements of A, B and C. Colours are lanes; hover a cell for "
       "its lane and register."},
      {"fragments", "loop:lorastencil", "LoRAStencil: butterfly vector swapping",
       "The accumulator of U·X becomes the A operand of T·V without leaving its lane: T is read with its columns "
       "in butterfly order and V's rows are permuted the same way, which leaves the product unchanged.",
       4},
      {"fragments", "loop:flashfft", "FlashFFTStencil: swizzled fragments",
       "Each DFT product feeds the next from registers: the constant matrix is stored with its K index in the "
       "swizzled order, so no shuffle and no shared-memory round trip is needed.",
       4},
      {"compare", "", "Methods side by side",
       "The same initial grid and stencil through several methods, each with its error map against the FP64 "
       "reference and its throughput."},
      {"performance", "", "Performance",
       "Throughput per method for this stencil, and where each method sits on the roofline: its cost model "
       "beside its measurement."},
  };
  std::vector<LectureStep> steps;
  for (const LectureStep& s : tour)
    if (find_view(s.view) != nullptr) steps.push_back(s);
  return steps;
}

void go_to_lecture_step(ViewLayout& layout, LectureMode& lecture, int step) {
  const std::vector<LectureStep> steps = lecture_steps();
  if (steps.empty()) return;
  lecture.touring = true;
  lecture.step = std::clamp(step, 0, static_cast<int>(steps.size()) - 1);
  const LectureStep& s = steps[static_cast<std::size_t>(lecture.step)];
  layout.show_focused(s.view);
  if (!s.page.empty()) layout.page_request[s.view] = s.page;
}

void stop_lecture_tour(ViewLayout& layout, LectureMode& lecture) {
  if (!lecture.touring) return;
  lecture.touring = false;
  layout.rearrange(); // the lecture bar's space is given back
}

void draw_lecture_bar(ViewContext& ctx) {
  const std::vector<LectureStep> steps = lecture_steps();
  if (steps.empty()) return;
  LectureMode& lecture = ctx.lecture;
  lecture.step = std::clamp(lecture.step, 0, static_cast<int>(steps.size()) - 1);
  const LectureStep& step = steps[static_cast<std::size_t>(lecture.step)];
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float wrap = display.x - 2.0f * style.WindowPadding.x;
  const float caption_h = ImGui::CalcTextSize(step.caption.c_str(), nullptr, false, wrap).y;
  const float height = 2.0f * style.WindowPadding.y + ImGui::GetFrameHeight() + style.ItemSpacing.y + caption_h;
  ImGui::SetNextWindowPos(ImVec2(0, ctx.layout.top));
  ImGui::SetNextWindowSize(ImVec2(display.x, height));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.13f, 0.17f, 0.25f, 1.0f));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
  if (ImGui::Begin("##lecture", nullptr, flags)) {
    const bool first = lecture.step == 0, last = lecture.step + 1 == static_cast<int>(steps.size());
    ImGui::BeginDisabled(first);
    if (ImGui::Button("◀ Prev")) go_to_lecture_step(ctx.layout, lecture, lecture.step - 1);
    ImGui::EndDisabled();
    probe_last_item(ctx.state, "lecture.prev");
    ImGui::SameLine();
    ImGui::BeginDisabled(last);
    if (ImGui::Button("Next ▶")) go_to_lecture_step(ctx.layout, lecture, lecture.step + 1);
    ImGui::EndDisabled();
    probe_last_item(ctx.state, "lecture.next");
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("Step %d of %d", lecture.step + 1, static_cast<int>(steps.size()));
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.45f, 1.0f));
    ImGui::TextUnformatted(step.title.c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::TextDisabled("  (PageUp / PageDown)");
    ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize("End tour").x - 2.0f * style.FramePadding.x -
                    style.WindowPadding.x);
    if (ImGui::Button("End tour")) stop_lecture_tour(ctx.layout, lecture);
    probe_last_item(ctx.state, "lecture.end");
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(step.caption.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
  publish(ctx, "lecture.step", std::to_string(lecture.step + 1));
  publish(ctx, "lecture.title", step.title);
  if (lecture.touring) ctx.layout.top += height;
}

} // namespace se
