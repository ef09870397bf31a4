// The Performance view's "Fusion depth T" tab (issue 11): GStencil/s over the fusion depth T for flashfft and
// lorastencil on heat-2d and box-2d49p, as recorded by test_gpu "[.flashfft-tsweep]" (a "tsweep" array in a JSON
// file of assets/results, or notes/flashfft-gpu-*-tsweep.json beside it), one line per method, the crossover marked.
#pragma once
#include "app/views/views.hpp"

namespace se {
void draw_performance_tsweep_tab(ViewContext& ctx);
// True once when SE_PERFORMANCE_TAB=tsweep asks the view to open on this tab (headless screenshots).
bool performance_tsweep_tab_requested();
}
