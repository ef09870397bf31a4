// The learned fusion choice in C++ (core/dag/dag_model.hpp): the exported weights of assets/models give, on the
// hand-written programs of assets/dags, the logits and probabilities PyTorch computed in float64 when it trained
// them (assets/models/fusion_cnn_gcn.reference.json), to 1e-5.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/dag/dag_model.hpp"
#include "core/error.hpp"

using namespace se::dag;

namespace {

std::string models() { return std::string(SE_SOURCE_DIR) + "/assets/models/"; }

} // namespace

TEST_CASE("dag model: C++ inference matches PyTorch on the stored inputs", "[dag][model]") {
  const FusionModel m = load_fusion_model(models() + "fusion_cnn_gcn.weights.json");
  std::ifstream f(models() + "fusion_cnn_gcn.reference.json");
  REQUIRE(f.good());
  const nlohmann::json ref = nlohmann::json::parse(f);
  REQUIRE(ref["outputs"].size() >= 16);
  for (const auto& o : ref["outputs"]) {
    const std::string name = o["program"];
    const int n = o["size"];
    const Program p = load_program(std::string(SE_SOURCE_DIR) + "/assets/dags/" + name + ".dag");
    const FusionPrediction r = predict_fusion(m, p, {n, n, n});
    INFO(name << " at " << n << "^3");
    for (int k = 0; k < 2; ++k) {
      CHECK(std::abs(r.logits[k] - o["logits"][k].get<double>()) < 1e-5);
      CHECK(std::abs(r.probabilities[k] - o["probabilities"][k].get<double>()) < 1e-5);
    }
    CHECK(r.probability >= 0.5);
    CHECK(r.probability == std::max(r.probabilities[0], r.probabilities[1]));
  }
}

TEST_CASE("dag model: a broken weights file is refused with its name", "[dag][model]") {
  const auto path = std::filesystem::temp_directory_path() / "se_test_bad_model.json";
  std::ofstream(path) << R"({"config": {"slots": 5, "channels": 1, "cnn_hidden": 6, "gcn_hidden": 8}, "tensors": {}})";
  try {
    load_fusion_model(path.string());
    FAIL("accepted a file without tensors");
  } catch (const se::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(path.string()) && Catch::Contains("conv1.weight"));
  }
  std::filesystem::remove(path);
  CHECK_THROWS_AS(load_fusion_model("/nonexistent/model.json"), se::InputError);
}

TEST_CASE("dag model: version-2 plan features of a two-stencil program", "[dag][model]") {
  // b is inlined into c at two offsets; c is the one producer-consumer kernel; two buckets of one operator.
  const Program p = parse_program("input a f64\nb = a[1,0,0] + a\nc = b[-1,0,0] / b\n", "two");
  const auto f = plan_features_v2(p);
  REQUIRE(f.size() == 3);
  const std::array<double, kPlanFeaturesV2> a{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                              std::log(0.5), std::log(1.5), 0.0, std::log(0.5), std::log(0.5), 0, 0, 0};
  const std::array<double, kPlanFeaturesV2> b{0, 2 / 8.0, 1 / 64.0, 2 / 40.0, 0, 1 / 5.0, 1 / 4.0, 0,
                                              0, 0, 0, 0, 0, 1, 2 / 8.0, 1 / 8.0,
                                              std::log(0.5), std::log(1.5), 0.0, std::log(0.5), std::log(0.5), 2 / 16.0, 0, 0};
  const std::array<double, kPlanFeaturesV2> c{1, 1 / 8.0, 1 / 64.0, 2 / 40.0, 1 / 4.0, 1 / 5.0, 0, 1,
                                              3 / 256.0, 1 / 16.0, 2 / 8.0, 3 / 64.0, 3 / 16.0, 1, 2 / 8.0, 1 / 8.0,
                                              std::log(0.5), std::log(1.5), 0.0, std::log(0.5), std::log(0.5), 2 / 16.0,
                                              3 / 32.0, 4 / 128.0};
  const std::array<double, kPlanFeaturesV2>* want[3] = {&a, &b, &c};
  for (int n = 0; n < 3; ++n)
    for (int k = 0; k < kPlanFeaturesV2; ++k) {
      INFO("node " << n << ", column " << k);
      CHECK(f[n][k] == Approx((*want[n])[k]).margin(1e-12));
    }
  CHECK(node_plan_features(p, 2).size() == 3);
  CHECK(node_plan_features(p, 1)[2].size() == static_cast<std::size_t>(kPlanFeatures));
  CHECK_THROWS_AS(node_plan_features(p, 3), se::InputError);
}
