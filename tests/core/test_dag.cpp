// Complex-stencil programs (core/dag): the parser's errors with line and column, the round trip of the text
// format, the buckets and tensors of the paper's Section 3, the interpreter against hand-computed points, and
// the CPU strategies against the interpreter on every example in assets/dags.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/dag/dag.hpp"

using namespace se::dag;

namespace {

std::vector<Diagnostic> errors_of(const std::string& text) {
  std::vector<Diagnostic> d;
  parse_program(text, d);
  return d;
}

bool has(const std::vector<Diagnostic>& d, int line, int column, const std::string& part) {
  for (const auto& x : d)
    if (x.pos.line == line && x.pos.column == column && x.message.find(part) != std::string::npos) return true;
  return false;
}

std::vector<std::string> example_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SE_SOURCE_DIR) + "/assets/dags"))
    if (e.path().extension() == ".dag") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("dag: a program parses into const and stencil nodes", "[dag]") {
  const Program p = parse_program("program t\ndomain 16 8 4\ninput a f64\ninput b f64 16x8x4\n"
                                  "c = a[1,0,0] - 2 * b   # a comment\nd = sqrt(abs(c)) + min(c, a[0,0,-3])\n");
  REQUIRE(p.nodes.size() == 4);
  CHECK(p.name == "t");
  CHECK(p.domain == std::array<int, 3>{16, 8, 4});
  CHECK(p.inputs() == std::vector<int>{0, 1});
  CHECK(p.stencils() == std::vector<int>{2, 3});
  CHECK(p.outputs() == std::vector<int>{3});
  CHECK(p.nodes[2].type == Type::F64);
  CHECK(print_expression(p, p.nodes[2]) == "a[1,0,0] - 2 * b");
}

TEST_CASE("dag: print and parse round-trip every example", "[dag]") {
  const auto files = example_files();
  REQUIRE(files.size() >= 16);
  for (const auto& f : files) {
    INFO(f);
    const Program p = load_program(f);
    const std::string text = print_program(p);
    const Program q = parse_program(text);
    CHECK(print_program(q) == text);
    REQUIRE(q.nodes.size() == p.nodes.size());
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      CHECK(q.nodes[i].expr.size() == p.nodes[i].expr.size());
      CHECK(print_expression(q, q.nodes[i]) == print_expression(p, p.nodes[i]));
    }
  }
  // Parentheses that the tree needs survive; those it does not are dropped.
  const Program p = parse_program("input a f64\nb = a - (a - a) / (a * a) - -a\nc = (b + a) + (b * (a * b))\n");
  CHECK(print_expression(p, p.nodes[1]) == "a - (a - a) / (a * a) - -a");
  CHECK(print_expression(p, p.nodes[2]) == "b + a + b * (a * b)");
}

TEST_CASE("dag: the parser refuses bad programs with line and column", "[dag]") {
  CHECK(has(errors_of("input a f64\nb = a[4,0,0]\n"), 2, 7, "beyond radius 3"));
  CHECK(has(errors_of("input a f64\nb = a[0,-5,0]\n"), 2, 9, "beyond radius 3"));
  CHECK(has(errors_of("input a f64\nb = a + x\n"), 2, 9, "unknown grid 'x'"));
  CHECK(has(errors_of("input alpha f64\nb = alpah\n"), 2, 5, "did you mean 'alpha'"));
  CHECK(has(errors_of("input a f64\nb = a\nb = a\n"), 3, 1, "defined twice (first on line 2)"));
  CHECK(has(errors_of("input a f64\ninput a f32\nb = a\n"), 2, 7, "defined twice"));
  CHECK(has(errors_of("input a f64\nb = c\nc = a\n"), 2, 5, "read before it is defined (on line 3)"));
  CHECK(has(errors_of("input a f64\nb = a + c\nc = b[1,0,0]\n"), 2, 9, "cycle: b <- c <- b"));
  CHECK(has(errors_of("input a f64\nb = b[1,0,0] + a\n"), 2, 5, "cycle: 'b' reads itself"));
  CHECK(has(errors_of("input a f64\ninput q f32\nb = a + q\n"), 3, 9, "type mismatch"));
  CHECK(has(errors_of("input a f64\nb : f32 = a\n"), 2, 11, "type mismatch"));
  CHECK(has(errors_of("domain 8 8 8\ninput a f64 16x8x8\nb = a\n"), 2, 13, "domain mismatch"));
  CHECK(has(errors_of("input a f64\nb = a +\n"), 2, 8, "ends too early"));
  CHECK(has(errors_of("input a f64\nb = (a + a\n"), 2, 11, "expected ')'"));
  CHECK(has(errors_of("input a f64\nb = a $ a\n"), 2, 7, "unexpected character '$'"));
  CHECK(has(errors_of("input a f64\nb = min(a)\n"), 2, 10, "expected ','"));
  CHECK(has(errors_of("input a f64\nb = a[1,0]\n"), 2, 10, "expected ','"));
  CHECK(has(errors_of("input a f64\nb a\n"), 2, 3, "expected '='"));
  CHECK(has(errors_of("input a f99\nb = a\n"), 1, 9, "expected a type"));
  CHECK(has(errors_of("input a f64\nb = a\ndomain 8 8 8\n"), 3, 1, "domain must come before"));
  CHECK(has(errors_of("input a f64\n"), 0, 0, "no stencil node"));
  CHECK(has(errors_of("input a f64\nsqrt = a\n"), 2, 1, "keyword"));
  // One cause, one message: a grid whose own line is refused is not also called unknown.
  const auto d = errors_of("input a f64\nb = a[9,0,0]\nc = b\n");
  CHECK(has(d, 3, 5, "defined on line 2, which has an error"));
  // The exception carries every diagnostic; load_program prefixes the file.
  try {
    parse_program("input a f64\nb = x\nc = y\n");
    FAIL("no error");
  } catch (const DagError& e) {
    CHECK(e.diagnostics().size() == 2);
    CHECK_THAT(e.what(), Catch::Contains("line 2, column 5") && Catch::Contains("line 3, column 5"));
  }
}

TEST_CASE("dag: buckets by removal of zero in-degree stencil nodes (Fig. 5)", "[dag]") {
  const Program p = parse_program("input a f64\ninput b f64\n"
                                  "s1 = a[1,0,0] + a\ns2 = b\ns3 = s1 + b[0,1,0]\ns4 = s1 * s2\ns5 = s3 - s4[0,0,1]\n"
                                  "s6 = a * 2\n");
  const Analysis a = analyse(p);
  REQUIRE(a.buckets.size() == 3);
  const auto names = [&](int b) {
    std::vector<std::string> out;
    for (int n : a.buckets[b]) out.push_back(p.nodes[n].name);
    return out;
  };
  CHECK(names(0) == std::vector<std::string>{"s1", "s2", "s6"});
  CHECK(names(1) == std::vector<std::string>{"s3", "s4"});
  CHECK(names(2) == std::vector<std::string>{"s5"});
  CHECK(a.edges == 1 + 1 + 2 + 2 + 2 + 1); // distinct (grid -> stencil) pairs
  CHECK(a.benchmark_name() == "k6_i2_e9");
  // The adjacency matrix: node i feeds stencil j.
  CHECK(a.adjacency[0][2] == 1);
  CHECK(a.adjacency[2][4] == 1);
  CHECK(a.adjacency[4][2] == 0);
  CHECK(a.adjacency[1][6] == 0);
  int ones = 0;
  for (const auto& row : a.adjacency)
    for (auto v : row) ones += v;
  CHECK(ones == a.edges);
  // Every stencil runs after each of its producers.
  for (const auto& s : a.stencils)
    for (int prod : s.stencil_producers) CHECK(a.bucket_of[prod] < a.bucket_of[s.node]);
}

TEST_CASE("dag: neighbour-access and multi-grid computation tensors", "[dag]") {
  const Program p = parse_program("input rho f64\ninput u f64\n"
                                  "out = rho[-1,0,0] + rho + rho[1,0,0] + rho[0,3,0] + u[0,0,-2] * rho\n");
  const Analysis a = analyse(p);
  const StencilInfo& s = a.info(2);
  REQUIRE(s.tensors.size() == 2); // concatenation of one 7x7x7 tensor per grid
  CHECK(s.tensors[0].grid == 0);
  CHECK(s.tensors[0].count() == 4); // rho read twice at the centre counts once
  CHECK(s.tensors[0].at(-1, 0, 0));
  CHECK(s.tensors[0].at(0, 3, 0));
  CHECK_FALSE(s.tensors[0].at(0, -3, 0));
  CHECK(s.tensors[1].count() == 1);
  CHECK(s.tensors[1].at(0, 0, -2));
  CHECK(s.radius == 3);
  CHECK(s.points_read == 5);
  CHECK(s.flops == 5);
  CHECK_THAT(format_tensors(p, a), Catch::Contains("out = concat[2 grids]") && Catch::Contains("dz=-2:"));
}

TEST_CASE("dag: the interpreter computes hand-checked points with a periodic domain", "[dag]") {
  const Program p = parse_program("domain 5 4 3\ninput a f64\ninput b f64\n"
                                  "c = a[1,0,0] - a[0,-1,0] * 2 + b[0,0,-1]\nd = c[-1,0,0] / (1.0 + b) + max(a, b)\n"
                                  "e : f64 = sqrt(abs(-d))\n");
  State s = make_inputs(p, p.domain, 7);
  interpret(p, s);
  const auto at = [&](int node, int x, int y, int z) {
    x = (x % 5 + 5) % 5, y = (y % 4 + 4) % 4, z = (z % 3 + 3) % 3;
    return s.fields[node].at((static_cast<std::size_t>(z) * 4 + y) * 5 + x);
  };
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 5; ++x) {
        const double c = at(0, x + 1, y, z) - at(0, x, y - 1, z) * 2 + at(1, x, y, z - 1);
        CHECK(at(2, x, y, z) == c);
        const double d = at(2, x - 1, y, z) / (1.0 + at(1, x, y, z)) + std::max(at(0, x, y, z), at(1, x, y, z));
        CHECK(at(3, x, y, z) == d);
        CHECK(at(4, x, y, z) == std::sqrt(std::abs(-d)));
      }
  // Inputs are deterministic per seed and lie in [0.5, 1.5).
  const State again = make_inputs(p, p.domain, 7);
  CHECK(again.fields[0].f64 == s.fields[0].f64);
  for (double v : s.fields[1].f64) CHECK((v >= 0.5 && v < 1.5));
}

TEST_CASE("dag: FP32 programs compute in FP32", "[dag]") {
  const Program p = parse_program("domain 4 4 4\ninput a f32\nb = a * 3 + a[1,0,0] / 7\n");
  CHECK(p.nodes[1].type == Type::F32);
  State s = make_inputs(p, p.domain, 3);
  interpret(p, s);
  REQUIRE(s.fields[1].f32.size() == 64);
  const auto& a = s.fields[0].f32;
  CHECK(s.fields[1].f32[0] == a[0] * 3.0f + a[1] / 7.0f);
}

TEST_CASE("dag: producer-consumer fusion inlines intermediates and recomputes their halos", "[dag]") {
  const Program p = load_program(std::string(SE_SOURCE_DIR) + "/assets/dags/hdiff.dag");
  const FusionPlan f = plan_producer_consumer(p);
  REQUIRE(f.kernels.size() == 1); // everything into `out`, as OpenEarth fuses it
  CHECK(p.nodes[f.kernel_node[0]].name == "out");
  int lap = 0;
  for (const auto& v : f.kernels[0]) lap += p.nodes[v.node].name == "lap";
  CHECK(lap == 5); // lap at (0,0), (1,0), (0,1), (-1,0), (0,-1) relative to out's point
  // With no recomputation allowed, every stencil is its own kernel.
  CHECK(plan_producer_consumer(p, 0).kernels.size() == 6);
}

TEST_CASE("dag: every CPU strategy gives the interpreter's outputs on every example", "[dag]") {
  for (const auto& f : example_files()) {
    INFO(f);
    const Program p = load_program(f);
    const std::array<int, 3> d{12, 10, 9};
    const State in = make_inputs(p, d, 11);
    State ref = in;
    interpret(p, ref);
    for (Strategy s : kStrategies) {
      if (!runs_on_cpu(s)) continue;
      State got = in;
      run_cpu(p, s, got);
      const Compare c = compare_outputs(p, got, ref);
      INFO(to_string(s));
      CHECK(c.finite);
      CHECK(c.rel_l2 < 1e-12);
    }
    State g = in;
    CHECK_THROWS_WITH(run_cpu(p, Strategy::Graph, g), Catch::Contains("GPU only"));
    // Producer-consumer under every recomputation limit, from nothing inlined to everything.
    for (const int limit : {0, 1, 4, 16, 64, kNoRecomputeLimit}) {
      State got = in;
      run_cpu(p, Strategy::ProducerConsumer, got, limit);
      INFO("recompute limit " << limit);
      CHECK(compare_outputs(p, got, ref).rel_l2 < 1e-12);
    }
  }
}

TEST_CASE("dag: the benchmark set follows the paper's naming and sizes", "[dag]") {
  int count = 0;
  for (const auto& f : example_files()) {
    const std::string stem = std::filesystem::path(f).stem().string();
    if (stem.rfind("cs", 0) != 0) continue;
    ++count;
    const Program p = load_program(f);
    const Analysis a = analyse(p);
    INFO(stem);
    CHECK(stem.substr(stem.find('_') + 1) == a.benchmark_name()); // csN_kK_iI_eE matches the program
    CHECK(a.stencils.size() >= 3);
    CHECK(a.stencils.size() <= 12);
    for (const auto& s : a.stencils) CHECK(s.reads.size() < 6);
  }
  CHECK(count >= 12);
}

TEST_CASE("dag: generated CUDA source has one kernel per node, bucket or fused group", "[dag]") {
  const Program p = load_program(std::string(SE_SOURCE_DIR) + "/assets/dags/hdiff.dag");
  const std::array<int, 3> d{64, 64, 8};
  const GeneratedCode seq = generate_cuda(p, Strategy::Sequential, d);
  CHECK(seq.kernels.size() == 6);
  CHECK_THAT(seq.source, Catch::Contains("extern \"C\" __global__") && Catch::Contains("k_lap"));
  CHECK(seq.kernels[1].after == std::vector<int>{0}); // flx after lap
  const GeneratedCode par = generate_cuda(p, Strategy::Parallel, d);
  CHECK(par.kernels.size() == 4);
  CHECK(par.kernels[1].nodes.size() == 2);
  CHECK(par.kernels[1].task_table);
  CHECK(par.kernels[1].direct_name == "bucket_1_direct");
  CHECK_THAT(par.source, Catch::Contains("bucket_1_direct(Ptrs P)"));
  const GeneratedCode pc = generate_cuda(p, Strategy::ProducerConsumer, d);
  CHECK(pc.kernels.size() == 1);
  CHECK_THAT(pc.source, Catch::Contains("lap inlined, recomputed at 5 offsets"));
  const Analysis a = analyse(p);
  const Cost cs = strategy_cost(p, a, Strategy::Sequential, d), cp = strategy_cost(p, a, Strategy::ProducerConsumer, d);
  CHECK(cp.bytes < cs.bytes);
  CHECK(cp.flops > cs.flops);
  CHECK(cs.bytes == 8.0 * 64 * 64 * 8 * (11 + 6)); // 11 edges read once, 6 grids written once
  // Horizontal fusion: one kernel per bucket writing all its operators, each (grid, offset) loaded once. hdiff's
  // buckets and the grids each reads: lap (in) | flx fly (lap) | flxl flyl (flx, fly, in) | out (in, coeff, flxl, flyl).
  const GeneratedCode hz = generate_cuda(p, Strategy::Horizontal, d);
  REQUIRE(hz.kernels.size() == 4);
  CHECK(hz.kernels[1].nodes.size() == 2);
  CHECK(!hz.kernels[1].task_table);
  CHECK(hz.kernels[2].after == std::vector<int>{1});
  CHECK_THAT(hz.source, Catch::Contains("hbucket_1(Ptrs P)") && Catch::Contains("bucket 1: flx fly"));
  const Cost ch = strategy_cost(p, a, Strategy::Horizontal, d);
  CHECK(ch.flops == cs.flops);
  CHECK(ch.launches == 4);
  CHECK(ch.bytes == 8.0 * 64 * 64 * 8 * (1 + 1 + 3 + 4 + 6)); // 9 bucket reads (11 edges) + 6 grids written
}

TEST_CASE("dag: horizontal fusion loads each (grid, offset) of a bucket once", "[dag]") {
  // b and c both read a at (0,0,0) and (1,0,0); c also reads a at (0,1,0): four loads of a become three.
  const Program p = parse_program("domain 16 8 4\ninput a f64\nb = a + a[1,0,0]\nc = 2.0 * a[1,0,0] - a + a[0,1,0]\n"
                                  "d = b[0,0,-1] + c\n");
  const GeneratedCode g = generate_cuda(p, Strategy::Horizontal, {16, 8, 4});
  REQUIRE(g.kernels.size() == 2);
  const std::string& src = g.source;
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = src.find(what); at != std::string::npos; at = src.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("= g0[") == 3); // a at (0,0,0), (1,0,0), (0,1,0): once each for b and c together
  CHECK_THAT(src, Catch::Contains("bucket 0: b c (2 operators, 3 distinct loads)"));
  CHECK_THAT(src, Catch::Contains("o1[c] = r1;") && Catch::Contains("o2[c] = r2;")); // b and c in one kernel
  CHECK(g.kernels[0].nodes == std::vector<int>{1, 2});
  const Analysis a = analyse(p);
  const double pts = 16.0 * 8 * 4;
  CHECK(strategy_cost(p, a, Strategy::Horizontal, {16, 8, 4}).bytes == 8 * pts * (1 + 2 + 2 + 1)); // a | b, c + 3 writes
  CHECK(strategy_cost(p, a, Strategy::Sequential, {16, 8, 4}).bytes == 8 * pts * (1 + 1 + 2 + 3));
  State in = make_inputs(p, p.domain, 3), ref = in, got = in;
  interpret(p, ref);
  run_cpu(p, Strategy::Horizontal, got);
  CHECK(compare_outputs(p, got, ref).max_abs == 0.0);
}

TEST_CASE("dag: hybrid fusion fuses producer-consumer's limit-1 kernels level by level", "[dag]") {
  const Program p = load_program(std::string(SE_SOURCE_DIR) + "/assets/dags/hdiff.dag");
  const Analysis a = analyse(p);
  const FusionPlan f = plan_producer_consumer(p, kHybridRecomputeLimit);
  // flx and fly are read once, at the reader's own point: inlined; lap (read at two offsets) and flxl, flyl stay.
  const auto node = [&](const char* n) { return p.find(n); };
  CHECK_FALSE(f.materialised[node("flx")]);
  CHECK_FALSE(f.materialised[node("fly")]);
  CHECK(f.materialised[node("lap")]);
  const auto levels = fusion_levels(p, f);
  REQUIRE(levels.size() == 3);
  const auto writes = [&](const std::vector<int>& level) {
    std::vector<std::string> out;
    for (int k : level) out.push_back(p.nodes[f.kernel_node[k]].name);
    return out;
  };
  CHECK(writes(levels[0]) == std::vector<std::string>{"lap"});
  CHECK(writes(levels[1]) == std::vector<std::string>{"flxl", "flyl"});
  CHECK(writes(levels[2]) == std::vector<std::string>{"out"});
  const std::array<int, 3> d{32, 16, 8};
  const GeneratedCode g = generate_cuda(p, Strategy::Hybrid, d);
  REQUIRE(g.kernels.size() == 3);
  CHECK(g.kernels[1].nodes == std::vector<int>{node("flxl"), node("flyl")});
  CHECK(g.kernels[2].after == std::vector<int>{1});
  CHECK_THAT(g.source, Catch::Contains("flx inlined at (0, 0, 0)") && Catch::Contains("level_1(Ptrs P)"));
  // lap is loaded only by level 1, at (0,0,0), (1,0,0) and (0,1,0): once each for both kernels.
  std::size_t lap_loads = 0;
  const std::string lap_load = "= g" + std::to_string(node("lap")) + "[";
  for (std::size_t at = g.source.find(lap_load); at != std::string::npos; at = g.source.find(lap_load, at + 1)) ++lap_loads;
  CHECK(lap_loads == 3);
  const double pts = 32.0 * 16 * 8;
  const Cost c = strategy_cost(p, a, Strategy::Hybrid, d);
  CHECK(c.launches == 3);
  CHECK(c.bytes == 8 * pts * (2 + 4 + 5)); // in, lap | lap, in, flxl, flyl | in, coeff, flxl, flyl, out
  CHECK(c.flops == strategy_cost(p, a, Strategy::Sequential, d).flops); // nothing recomputed
  State in = make_inputs(p, d, 5), ref = in, got = in;
  interpret(p, ref);
  run_cpu(p, Strategy::Hybrid, got);
  CHECK(compare_outputs(p, got, ref).rel_l2 < 1e-15);
}

TEST_CASE("dag: hybrid fusion never moves more than producer-consumer's limit-1 plan, nor recomputes", "[dag]") {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SE_SOURCE_DIR) + "/assets/dags")) {
    if (entry.path().extension() != ".dag") continue;
    const Program p = load_program(entry.path().string());
    INFO(p.name);
    const Analysis a = analyse(p);
    const std::array<int, 3> d{16, 16, 16};
    const Cost hy = strategy_cost(p, a, Strategy::Hybrid, d);
    const Cost pc1 = producer_consumer_cost(p, a, d, kHybridRecomputeLimit);
    CHECK(hy.bytes <= pc1.bytes);
    CHECK(hy.flops == strategy_cost(p, a, Strategy::Sequential, d).flops);
    CHECK(hy.launches == static_cast<int>(fusion_levels(p, plan_producer_consumer(p, kHybridRecomputeLimit)).size()));
    CHECK(generate_cuda(p, Strategy::Hybrid, d).kernels.size() == static_cast<std::size_t>(hy.launches));
  }
}

TEST_CASE("dag: the L2 traffic model counts a tile's rows and sectors per grid and z offset", "[dag]") {
  // One 32 x 8 tile: a read at z: x from -1 to 1 (a sector more each side), y from 0 to 1 (a row more): 9 rows of
  // 10 sectors; the read at z + 1: 8 rows of 8 sectors; and the write. In 32-byte sectors per 256 points.
  const Program p = parse_program("domain 32 8 2\ninput a f64\nb = a[-1,0,0] + a[1,0,0] + a[0,1,0] + a[0,0,1]\n"
                                  "c = b + a\n");
  const Analysis a = analyse(p);
  const double pts = 32.0 * 8 * 2;
  const double b_kernel = (9 * 10 + 8 * 8) * 32.0 / 256 + 8; // 27.25 bytes per point
  const double c_kernel = 2 * (8 * 8) * 32.0 / 256 + 8;      // b and a at the point itself, and the write
  CHECK(strategy_cost(p, a, Strategy::Sequential, {32, 8, 2}).l2_bytes == pts * (b_kernel + c_kernel));
  // Horizontal fusion: b and c are in different buckets, so the same two kernels.
  CHECK(strategy_cost(p, a, Strategy::Horizontal, {32, 8, 2}).l2_bytes == pts * (b_kernel + c_kernel));
  // Hybrid (and producer-consumer at limit 1): b is read once, at c's point: one kernel loads a at b's offsets
  // and at (0,0,0), which lies in the same box, and writes only c.
  const double fused = (9 * 10 + 8 * 8) * 32.0 / 256 + 8;
  CHECK(strategy_cost(p, a, Strategy::Hybrid, {32, 8, 2}).l2_bytes == pts * fused);
  CHECK(producer_consumer_cost(p, a, {32, 8, 2}, 1).l2_bytes == pts * fused);
}

TEST_CASE("dag: strategies parse by name, and an unknown one names every choice", "[dag]") {
  for (Strategy s : kStrategies) CHECK(parse_strategy(to_string(s)) == s);
  CHECK_THROWS_WITH(parse_strategy("diagonal"),
                    Catch::Contains("unknown strategy 'diagonal' (sequential, producer-consumer, parallel, graph, "
                                    "horizontal, hybrid, auto or all)"));
}

TEST_CASE("dag: producer-consumer plans by recomputation limit run from sequential's to outputs-only", "[dag]") {
  const std::array<int, 3> d{32, 32, 32};
  for (const auto& f : example_files()) {
    const Program p = load_program(f);
    const Analysis a = analyse(p);
    INFO(f);
    const Cost seq = strategy_cost(p, a, Strategy::Sequential, d);
    const Cost none = producer_consumer_cost(p, a, d, 0);
    CHECK(none.bytes == seq.bytes); // nothing inlined: every node its own kernel
    CHECK(none.flops == seq.flops);
    CHECK(none.launches == seq.launches);
    CHECK(producer_consumer_cost(p, a, d, 8).bytes == strategy_cost(p, a, Strategy::ProducerConsumer, d).bytes);
    // No limit: every intermediate inlined, one kernel per output (a stencil no other reads). Bytes are not
    // monotone in the limit: an inlined producer's own inputs become loads of each consumer's kernel.
    std::set<int> read;
    for (const auto& si : a.stencils) read.insert(si.reads.begin(), si.reads.end());
    int outputs = 0;
    for (const auto& si : a.stencils) outputs += read.count(si.node) == 0 ? 1 : 0;
    const Cost all = producer_consumer_cost(p, a, d, kNoRecomputeLimit);
    CHECK(all.launches == outputs);
    CHECK(all.flops >= seq.flops);
    // The limits `--recompute-limit auto` tries: increasing, from 1, each a plan none before it made.
    const std::vector<int> tried = distinct_recompute_limits(p);
    REQUIRE_FALSE(tried.empty());
    CHECK(tried.front() == 1);
    std::set<std::vector<bool>> plans;
    for (std::size_t i = 0; i < tried.size(); ++i) {
      if (i > 0) CHECK(tried[i] > tried[i - 1]);
      CHECK(plans.insert(plan_producer_consumer(p, tried[i]).materialised).second);
    }
  }
}

TEST_CASE("dag: mangled programs are refused or parsed, never crash, and what parses round-trips", "[dag]") {
  std::uint64_t state = 12345;
  const auto next = [&state]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 33);
  };
  const std::string alphabet = "abcxyz019+-*/()[],=:#. \n\tsqrtminf64f32input";
  int parsed = 0, refused = 0;
  for (const auto& f : example_files()) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string original = ss.str();
    for (int trial = 0; trial < 60; ++trial) {
      std::string text = original;
      const int edits = 1 + static_cast<int>(next() % 4);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = next() % text.size();
        switch (next() % 3) {
        case 0: text.erase(at, 1 + next() % 3); break;
        case 1: text.insert(at, 1, alphabet[next() % alphabet.size()]); break;
        default: text[at] = alphabet[next() % alphabet.size()];
        }
      }
      std::vector<Diagnostic> d;
      const Program p = parse_program(text, d);
      if (!d.empty()) {
        ++refused;
        for (const auto& x : d) {
          CHECK(!x.message.empty());
          CHECK(x.pos.line >= 0);
        }
        continue;
      }
      ++parsed;
      CHECK(validate(p).empty());
      const std::string printed = print_program(p);
      CHECK(print_program(parse_program(printed)) == printed);
      CHECK_NOTHROW(analyse(p));
    }
  }
  CHECK(parsed > 0);
  CHECK(refused > 0);
}
