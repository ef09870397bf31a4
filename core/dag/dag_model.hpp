// The learned fusion-strategy choice (issue 16; Plasticine, ICS'25, Section 3.4) run in C++ with Eigen: the
// CNN+GCN that scripts/train_fusion_model.py trains, loaded from its weights file (assets/models/README.md gives
// the format). Each neighbour access of an operator (7x7x7 bits, plus a channel marking reads of stencil nodes
// in the `typed` variant) goes through two 3x3x3 convolutions (ReLU) and a linear layer (tanh); an operator's
// feature is its accesses' features side by side (empty slots zero) and log2(grid size) - 7; four GCNConv
// layers (tanh, symmetric normalisation with self-loops, edges taken both ways) over the const and stencil
// nodes; the sum over nodes; a linear layer to two logits: producer-consumer fusion, parallelism fusion.
// No GPU needed.
#pragma once
#include <array>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/dag/dag.hpp"

namespace se::dag {

// Fusion-plan features of every node (variant `plan`; zeros for inputs except the last two): whether
// producer-consumer fusion materialises it, how often its value is computed per point under that plan / 8, its
// FLOPs per point / 64, the points it reads / 40; then, the same on every node, log(PC bytes / sequential bytes)
// and log(PC FLOPs / sequential FLOPs) of the cost model (strategy_cost). What the paper's representation leaves
// for the network to infer, given to it.
constexpr int kPlanFeatures = 6;
std::vector<std::array<double, kPlanFeatures>> plan_features(const Program& p);

// Version 2 of the per-node features (variant `plan2`, assets/models/README.md lists them): what each strategy's
// generated kernels cost, split over the nodes so that the network's sum over nodes can add them up. Per stencil
// node: its own expression (FLOPs, divisions and square roots, points, grids and distinct offsets read,
// consumers, output or not); under producer-consumer fusion whether it is materialised, how often it is
// computed, and for a materialised node its kernel (FLOPs and divisions/square roots with the recomputation,
// grids loaded from memory, distinct loaded points and offsets, loads as written, values held); under
// parallelism fusion its bucket (1 / width, the bucket's grids over its width, the width). On every node (inputs too): the log ratios producer-consumer over sequential of bytes, FLOPs and
// divisions/square roots, of producer-consumer kernels over parallel launches, and of producer-consumer memory
// grids over parallel memory grids (a grid read by several operators of one bucket counted once). No grid size:
// the network gets that as its own feature.
constexpr int kPlanFeaturesV2 = 24;
std::vector<std::array<double, kPlanFeaturesV2>> plan_features_v2(const Program& p);
// The features of `version` (1: plan_features, 2: plan_features_v2) as rows; throws InputError for another.
std::vector<std::vector<double>> node_plan_features(const Program& p, int version);
int plan_feature_count(int version); // 0 for version 0 (none)

struct FusionModel {
  int slots = 5, channels = 1, cnn_hidden = 6, gcn_hidden = 8;
  bool plan = false;                   // the node features end with plan features
  int plan_version = 0;                // of those features: 1 (plan_features), 2 (plan_features_v2); 0 none
  std::string variant;                 // "paper", "typed", "plan" or "plan2"
  // Standardisation of the appended columns (grid size, then plan features): (x - mean) / scale; empty = none.
  Eigen::VectorXd feature_mean, feature_scale;
  std::string path;                    // where it was loaded from
  Eigen::MatrixXd conv1, conv2;        // [out, in*27]
  Eigen::VectorXd conv1_bias, conv2_bias;
  Eigen::MatrixXd fc;                  // [cnn_hidden, 8*27]
  Eigen::VectorXd fc_bias;
  std::array<Eigen::MatrixXd, 4> gcn;  // [out, in] (PyTorch's Linear layout)
  std::array<Eigen::VectorXd, 4> gcn_bias;
  Eigen::MatrixXd out;                 // [2, gcn_hidden]
  Eigen::VectorXd out_bias;
  // An ensemble (weights file with "members"): networks of this configuration whose logits are averaged; the
  // tensors above are then the first member's.
  std::vector<FusionModel> members;
};

// Throws InputError naming the file and what is wrong.
FusionModel load_fusion_model(const std::string& path);

struct FusionPrediction {
  Strategy strategy = Strategy::Parallel;   // ProducerConsumer or Parallel
  double probability = 0;                   // of `strategy`
  std::array<double, 2> logits{}, probabilities{}; // [producer-consumer, parallel]
};

// The model's choice for `p` on a domain of `domain` points (the grid-size feature is log2 of the cube root).
FusionPrediction predict_fusion(const FusionModel& m, const Program& p, std::array<int, 3> domain);

// assets/models/fusion_cnn_gcn.weights.json found above the program or the working directory; empty if none.
std::string default_fusion_model_path();

} // namespace se::dag
