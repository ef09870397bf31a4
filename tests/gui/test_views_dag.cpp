// The complex-stencil view (issue 15): the DAG editor loads an example, colours its buckets (published as facts),
// shows a parse error on the node that has it and keeps what was typed, undoes with Ctrl+Z, makes a connection
// from a synthetic pin-to-pin drag, and runs the CPU strategies off the UI thread, each checked against the
// interpreter, with the learned fusion choice (issue 16) beside the measured best.
#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/dag/dag.hpp"
#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

StartupState dag_view(bool lecture = false) {
  ExplorerOptions o;
  o.use_state = false;
  o.view = "dag";
  o.lecture = lecture;
  return prepare_startup(o);
}

const std::string kDags = std::string(SE_SOURCE_DIR) + "/assets/dags/";

// SE_DAG_SCREENSHOTS=folder: the tests write what they looked at there (to look at by eye).
void shot(HeadlessExplorer& ex, const char* name) {
  if (const char* dir = std::getenv("SE_DAG_SCREENSHOTS")) write_png(ex.screenshot(), std::string(dir) + "/" + name + ".png");
}

void ctrl(HeadlessExplorer& ex, int key) {
  ex.input().key(GLFW_KEY_LEFT_CONTROL, true);
  ex.input().press_key(key);
  ex.input().key(GLFW_KEY_LEFT_CONTROL, false);
  ex.settle();
}

} // namespace

// Loads assets/dags/`file` through the view's path box and opens the page `tab` (dag.tab.<tab>).
void open_page(HeadlessExplorer& ex, const std::string& file, const std::string& program, const std::string& tab) {
  ex.frames(2);
  ex.replace_text("dag.path", kDags + file);
  ex.click("dag.load");
  REQUIRE(ex.fact("dag.program") == program);
  const WidgetRect t = ex.probe("dag.tab." + tab);
  ex.input().move_mouse(t.center_x(), t.center_y()); // off the Load button first: the tab bar takes the next click
  ex.frames(1);
  ex.click("dag.tab." + tab);
  ex.frames(2);
  REQUIRE(ex.fact("dag.page") == tab);
}

TEST_CASE("dag view loads p_grad_c and colours its buckets", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view());
  ex.frames(2);
  CHECK(ex.fact("dag.program") == "p_grad_c");
  CHECK(ex.fact("dag.valid") == "yes");
  CHECK(ex.fact("dag.roundtrip") == "yes");
  // The view's buckets are core's.
  const dag::Program p = dag::load_program(kDags + "p_grad_c.dag");
  const dag::Analysis a = dag::analyse(p);
  REQUIRE(ex.fact("dag.buckets") == std::to_string(a.buckets.size()));
  REQUIRE(a.buckets.size() == 2);
  const std::string c0 = ex.fact("dag.bucket_color.0"), c1 = ex.fact("dag.bucket_color.1");
  CHECK(c0 != c1);
  for (int n : p.stencils())
    CHECK(ex.fact("dag.node_color." + p.nodes[n].name) == ex.fact("dag.bucket_color." + std::to_string(a.bucket_of[n])));
  CHECK(ex.fact("dag.node_color.wk") == c0);
  CHECK(ex.fact("dag.node_color.uout") == c1);
  CHECK(ex.fact("dag.node_color.delpc") != c0);
  // Another example through the path field and Load.
  ex.replace_text("dag.path", kDags + "hdiff.dag");
  ex.click("dag.load");
  CHECK(ex.fact("dag.program") == "hdiff");
  CHECK(ex.fact("dag.valid") == "yes");
  shot(ex, "hdiff");
  // Without the text pane the canvas takes the width.
  const WidgetRect with_text = ex.probe("dag.canvas");
  ex.click("dag.show_text");
  CHECK(ex.probe("dag.canvas").x1 - ex.probe("dag.canvas").x0 > with_text.x1 - with_text.x0 + 100);
  shot(ex, "hdiff-no-text");
  ex.click("dag.show_text");
  CHECK(ex.fact("dag.buckets") == std::to_string(dag::analyse(dag::load_program(kDags + "hdiff.dag")).buckets.size()));
  // Save writes the canonical text, which loads back as the same program.
  se::test::TempDir dir;
  const std::string saved = (dir.path() / "saved.dag").string();
  ex.replace_text("dag.path", saved);
  ex.click("dag.save");
  const dag::Program back = dag::load_program(saved);
  CHECK(dag::print_program(back) == dag::print_program(dag::load_program(kDags + "hdiff.dag")));
}

TEST_CASE("dag view's parallelism page names what horizontal fusion loads once per bucket", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view());
  open_page(ex, "hdiff.dag", "hdiff", "parallel");
  // hdiff's buckets: lap | flx fly (both read lap) | flxl flyl (both read in) | out.
  CHECK(ex.fact("dag.parallel.shared.0") == "-");
  CHECK(ex.fact("dag.parallel.shared.1") == "lap (2x)");
  CHECK(ex.fact("dag.parallel.shared.2") == "in (2x)");
  CHECK(ex.fact("dag.parallel.shared.3") == "-");
  // 9 grid reads (one per bucket and grid) and 6 writes: 15 passes of 8 bytes, against sequential's 17.
  CHECK(ex.fact("dag.parallel.horizontal_cost") == "horizontal: 4 launches, 120.0 bytes and 27.0 FLOPs per point");
  shot(ex, "parallel-page");
}

TEST_CASE("dag view shows a parse error in place and keeps the text and undo restores", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view());
  ex.frames(2);
  const std::string before = ex.fact("dag.expr.uout");
  ex.replace_text("dag.expr.uout", "uc + * rdxc");
  CHECK(ex.fact("dag.valid") == "no");
  CHECK(ex.fact("dag.expr.uout") == "uc + * rdxc"); // nothing lost
  const std::string error = ex.fact("dag.error.uout");
  INFO(error);
  CHECK(error.find("line 11, column") != std::string::npos);
  ex.probe("dag.error.uout"); // drawn on the node
  shot(ex, "error");
  ctrl(ex, GLFW_KEY_Z);
  CHECK(ex.fact("dag.valid") == "yes");
  CHECK(ex.fact("dag.expr.uout") == before);
  ctrl(ex, GLFW_KEY_Y);
  CHECK(ex.fact("dag.expr.uout") == "uc + * rdxc");
  ex.click("dag.undo");
  CHECK(ex.fact("dag.expr.uout") == before);
}

TEST_CASE("dag view connects a grid to an operator by dragging pin to pin", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view());
  ex.frames(2);
  const std::string before = ex.fact("dag.expr.uout");
  const WidgetRect from = ex.probe("dag.pin.out.rdyc"), to = ex.probe("dag.pin.in.uout");
  ex.drag(from.center_x(), from.center_y(), to.center_x(), to.center_y());
  CHECK(ex.fact("dag.expr.uout") == "(" + before + ") + rdyc");
  CHECK(ex.fact("dag.valid") == "yes");
  // An operator connected to a grid defined after it moves below that grid: uout reads vout.
  const WidgetRect v = ex.probe("dag.pin.out.vout"), u = ex.probe("dag.pin.in.uout");
  ex.drag(v.center_x(), v.center_y(), u.center_x(), u.center_y());
  CHECK(ex.fact("dag.valid") == "yes");
  CHECK(ex.fact("dag.buckets") == "3");
  ctrl(ex, GLFW_KEY_Z);
  ctrl(ex, GLFW_KEY_Z);
  CHECK(ex.fact("dag.expr.uout") == before);
}

TEST_CASE("dag view runs the CPU strategies and each passes the check against the interpreter", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view());
  ex.frames(2);
  ex.click("dag.tab.run");
  ex.click("dag.run");
  ex.frames(2); // headless: the frame waits for the background job
  CHECK(ex.fact("dag.run.cpu.interpreter") == "reference");
  for (const char* s : {"sequential", "producer-consumer", "parallel", "horizontal", "hybrid"}) {
    INFO(s);
    CHECK(ex.fact(std::string("dag.run.cpu.") + s) == "pass");
  }
  CHECK(std::stoi(ex.fact("dag.source_lines")) > 10);
  // The learned fusion choice (issue 16, assets/models) beside the measured best of the two fusions.
  const std::string predicted = ex.fact("dag.predicted");
  INFO(predicted);
  CHECK((predicted.rfind("producer-consumer 0.", 0) == 0 || predicted.rfind("parallel 0.", 0) == 0 ||
         predicted.rfind("producer-consumer 1.000", 0) == 0 || predicted.rfind("parallel 1.000", 0) == 0));
  const std::string best = ex.fact("dag.measured_best");
  CHECK((best == "producer-consumer" || best == "parallel"));
  shot(ex, "run");
}

TEST_CASE("dag view pages lie inside the window at 1280x720 in lecture mode", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view(true), 1280, 720);
  const std::vector<LectureStep> steps = lecture_steps(ex.app().state().stencil);
  int seen = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].view != "dag") continue;
    ++seen;
    INFO(steps[i].page);
    go_to_lecture_step(ex.app().layout(), ex.app().lecture(), ex.app().state().stencil, static_cast<int>(i));
    ex.frames(2);
    CHECK(ex.fact("dag.page") == steps[i].page);
    if (steps[i].page != "editor") continue;
    // The graph takes the width at a lecture's font; with the text pane switched on, it fits too.
    for (int with_text = 0; with_text < 2; ++with_text) {
      if (with_text == 1) ex.click("dag.show_text");
      const WidgetRect window = ex.probe("dag.window");
      for (const char* probe : {"dag.canvas", "dag.path", "dag.save", "dag.text", "dag.apply_text"}) {
        if (with_text == 0 && std::string(probe).rfind("dag.text", 0) == 0) continue;
        if (with_text == 0 && std::string(probe) == "dag.apply_text") continue;
        INFO(probe << " with the text pane " << with_text);
        const WidgetRect r = ex.probe(probe);
        CHECK(r.x0 >= window.x0);
        CHECK(r.x1 <= window.x1);
        CHECK(r.y1 <= window.y1);
      }
    }
    shot(ex, "lecture-editor");
    ex.click("dag.show_text");
  }
  CHECK(seen == 5); // the editor, the buckets, the two fusions and the strategies
  // The Strategies page after a run.
  ex.click("dag.tab.run");
  ex.click("dag.run");
  ex.frames(2);
  CHECK(ex.fact("dag.run.cpu.parallel") == "pass");
  const WidgetRect window = ex.probe("dag.window");
  for (const char* probe : {"dag.run", "dag.source.graph"}) {
    INFO(probe);
    const WidgetRect r = ex.probe(probe);
    CHECK(r.x1 <= window.x1 - 12); // not under the window's edge or a scroll bar
    CHECK(r.y1 <= window.y1);
  }
  shot(ex, "lecture-run");
}

TEST_CASE("dag view's producer-consumer page shows hybrid fusion's launches and cost", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view());
  open_page(ex, "hdiff.dag", "hdiff", "producer-consumer");
  // At limit 1 flx and fly (each read once, at its own point) are inlined into flxl and flyl, which share a level.
  CHECK(ex.fact("dag.pc.hybrid_levels") == "lap | flxl + flyl | out");
  // in + lap | lap, in + flxl, flyl | in, coeff, flxl, flyl + out: 11 passes of 8 bytes, no FLOP recomputed.
  CHECK(ex.fact("dag.pc.hybrid_cost") == "hybrid: 3 launches, 88.0 bytes and 27.0 FLOPs per point");
  // It does not follow the page's limit (hybrid fusion never recomputes).
  ex.click("dag.pc.limit");
  ex.frames(1);
  ex.click("dag.pc.limit.0");
  ex.frames(2);
  CHECK(ex.fact("dag.pc.hybrid_levels") == "lap | flxl + flyl | out");
  shot(ex, "pc-page-hybrid");
}

TEST_CASE("dag view: producer-consumer's recomputation limit changes its plan, costs and runs", "[gui][egl][dag-gui]") {
  HeadlessExplorer ex(PlatformKind::Egl, dag_view());
  ex.frames(2);
  ex.click("dag.tab.producer-consumer");
  ex.frames(1);
  CHECK(ex.fact("dag.pc.limit") == "8");
  const std::string kernels_at_8 = ex.fact("dag.pc.kernels");
  ex.click("dag.pc.limit");
  ex.frames(1);
  ex.click("dag.pc.limit.0"); // 0: inline nothing
  ex.frames(2);
  CHECK(ex.fact("dag.pc.limit") == "0");
  CHECK(ex.fact("dag.pc.inlined") == "0"); // p_grad_c: every node its own kernel
  CHECK(std::stoi(ex.fact("dag.pc.kernels")) > std::stoi(kernels_at_8));
  shot(ex, "pc_limit_0");
  ex.click("dag.tab.run");
  ex.click("dag.run");
  ex.frames(2);
  CHECK(ex.fact("dag.run.cpu.producer-consumer") == "pass");
}
