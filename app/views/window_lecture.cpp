// Lecture mode: the guided tour through the teaching views (one step = one view shown large, on one of its
// pages, with a caption) and the lecture bar that shows the caption with Prev/Next (PageUp/PageDown).
#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>

#include "app/views/views.hpp"
#include "kernels/registry.hpp"

namespace se {

namespace {

// The tour's own steps, about no one method: what the stencil does, who holds what, and the runs.
const std::vector<LectureStep>& general_steps() {
  static const std::vector<LectureStep> steps{
      {"simulation", "", "The stencil at work",
       "Every step replaces each point by the weighted sum of its neighbours, with the weights in the Stencil "
       "window. Edit a weight: every view of this tour is redrawn from the new weights."},
      {"fragments", "layouts", "Who holds what: fragment layouts",
       "Each of the 32 lanes of a warp holds a few elements of A, B and C. Colours are lanes; hover a cell for "
       "its lane and register."},
      {"compare", "", "Methods side by side",
       "The same initial grid and stencil through several methods, each with its error map against the FP64 "
       "reference and its throughput."},
      {"performance", "", "Performance",
       "Throughput per method for this stencil, and where each method sits on the roofline: its cost model "
       "beside its measurement."},
      {"baselines", "", "CUDA cores against tensor cores",
       "The fastest CUDA-core method and the fastest tensor-core method for this stencil, by recorded GPU runs, with "
       "the bytes and FLOPs per point their plans count. The bars show how much of the speed-up fewer bytes explain."},
      {"dag", "editor", "Complex stencils: a DAG of grids and operators", "Grey nodes are input grids; each operator defines a grid by an expression over grids at neighbour offsets. Drag a pin onto an operator to connect; edit an expression in place."},
      {"dag", "buckets", "Complex stencils: buckets of the S-DAG", "Operators whose inputs are all ready (in-degree zero) are removed together: each removal is a bucket, whose operators can run side by side. Colours are buckets, in the editor too."},
      {"dag", "producer-consumer", "Producer-consumer fusion", "A producer is inlined into its consumers and never written: each consumer recomputes it at every offset it reads (the halo). Fewer bytes re-read, more FLOPs."},
      {"dag", "parallel", "Parallelism fusion", "One launch per bucket: its thread blocks are tiles of different operators. Nothing is recomputed; every grid is still written and a later bucket re-reads it. Fewer launches."},
      {"dag", "run", "Complex stencils: every strategy, checked", "Each strategy runs against the interpreter. Horizontal fusion computes a bucket's operators in one thread and loads each shared grid once; hybrid adds producer-consumer inlining where nothing is recomputed. Fewest bytes, usually fastest."},
  };
  return steps;
}

} // namespace

// The tour goes through the views in their menu order; at each view its own steps come first, then the steps of
// every method that draws its plan there (MethodDescriptor::views), in the order of the method list.
std::vector<LectureStep> lecture_steps(const Stencil& stencil) {
  const std::size_t dim = static_cast<std::size_t>(std::clamp(stencil.dims, 1, 3) - 1);
  std::vector<LectureStep> steps;
  for (const ViewEntry& view : explorer_views()) {
    for (const LectureStep& s : general_steps())
      if (s.view == view.name) steps.push_back(s);
    for (const DescriptorPtr& d : method_list())
      for (const MethodViewStep& v : d->views)
        if (v.view == view.name && v.dims[dim])
          steps.push_back({v.view, v.page, v.title, dim == 0 && !v.caption_1d.empty() ? v.caption_1d : v.caption,
                           v.captures});
  }
  return steps;
}

void go_to_lecture_step(ViewLayout& layout, LectureMode& lecture, const Stencil& stencil, int step) {
  const std::vector<LectureStep> steps = lecture_steps(stencil);
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
  const std::vector<LectureStep> steps = lecture_steps(ctx.state.stencil);
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
    if (ImGui::Button("◀ Prev")) go_to_lecture_step(ctx.layout, lecture, ctx.state.stencil, lecture.step - 1);
    ImGui::EndDisabled();
    probe_last_item(ctx.state, "lecture.prev");
    ImGui::SameLine();
    ImGui::BeginDisabled(last);
    if (ImGui::Button("Next ▶")) go_to_lecture_step(ctx.layout, lecture, ctx.state.stencil, lecture.step + 1);
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
