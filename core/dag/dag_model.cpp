// The fusion-choice CNN+GCN in C++ (dag_model.hpp).
#include "core/dag/dag_model.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/dag/dag_generate.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace se::dag {

namespace {

Eigen::VectorXd vector_of(const nlohmann::json& tensors, const std::string& key, const std::string& path,
                          std::vector<int> want_shape) {
  if (!tensors.contains(key)) throw InputError(fmt::format("{}: the weights have no tensor '{}'", path, key));
  const auto& t = tensors.at(key);
  const std::vector<int> shape = t.at("shape").get<std::vector<int>>();
  if (shape != want_shape)
    throw InputError(fmt::format("{}: tensor '{}' has shape [{}], expected [{}]", path, key, fmt::join(shape, ","),
                                 fmt::join(want_shape, ",")));
  const std::vector<double> data = t.at("data").get<std::vector<double>>();
  std::size_t n = 1;
  for (int s : shape) n *= static_cast<std::size_t>(s);
  if (data.size() != n) throw InputError(fmt::format("{}: tensor '{}' holds {} values, not {}", path, key, data.size(), n));
  return Eigen::Map<const Eigen::VectorXd>(data.data(), static_cast<Eigen::Index>(data.size()));
}

// Row-major [rows, cols] from a flat PyTorch tensor.
Eigen::MatrixXd matrix_of(const Eigen::VectorXd& v, int rows, int cols) {
  Eigen::MatrixXd m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = v[static_cast<Eigen::Index>(r) * cols + c];
  return m;
}

// A valid 3x3x3 convolution: in [cin][s^3] -> out [cout][(s-2)^3]; weights [cout, cin*27] as PyTorch lays them out.
Eigen::MatrixXd conv3(const Eigen::MatrixXd& in, int side, const Eigen::MatrixXd& w, const Eigen::VectorXd& b) {
  const int cin = static_cast<int>(in.rows()), cout = static_cast<int>(w.rows()), o = side - 2;
  Eigen::MatrixXd out(cout, o * o * o);
  for (int co = 0; co < cout; ++co)
    for (int z = 0; z < o; ++z)
      for (int y = 0; y < o; ++y)
        for (int x = 0; x < o; ++x) {
          double acc = b[co];
          for (int ci = 0; ci < cin; ++ci)
            for (int kz = 0; kz < 3; ++kz)
              for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx)
                  acc += w(co, ci * 27 + kz * 9 + ky * 3 + kx) * in(ci, ((z + kz) * side + (y + ky)) * side + (x + kx));
          out(co, (z * o + y) * o + x) = acc;
        }
  return out;
}

} // namespace

std::vector<std::array<double, kPlanFeatures>> plan_features(const Program& p) {
  const Analysis a = analyse(p);
  const FusionPlan f = plan_producer_consumer(p);
  const std::size_t n = p.nodes.size();
  std::vector<int> computed(n, 0);
  for (const auto& k : f.kernels)
    for (const auto& v : k) ++computed[v.node];
  const std::array<int, 3> d{64, 64, 64};
  const Cost seq = strategy_cost(p, a, Strategy::Sequential, d), pc = strategy_cost(p, a, Strategy::ProducerConsumer, d);
  const double bytes = seq.bytes > 0 && pc.bytes > 0 ? std::log(pc.bytes / seq.bytes) : 0.0;
  const double flops = seq.flops > 0 && pc.flops > 0 ? std::log(pc.flops / seq.flops) : 0.0;
  std::vector<std::array<double, kPlanFeatures>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = {0, 0, 0, 0, bytes, flops};
    if (p.nodes[i].is_input) continue;
    const StencilInfo& si = a.info(static_cast<int>(i));
    out[i][0] = f.materialised[i] ? 1.0 : 0.0;
    out[i][1] = computed[i] / 8.0;
    out[i][2] = si.flops / 64.0;
    out[i][3] = si.points_read / 40.0;
  }
  return out;
}

namespace {

// Divisions and square roots of a stencil node's expression (FP64: each a sequence of instructions, not one).
int heavy_ops(const Node& n) {
  int h = 0;
  for (const Expr& e : n.expr) h += e.op == Op::Div || e.op == Op::Sqrt;
  return h;
}

double log_ratio(double num, double den) { return num > 0 && den > 0 ? std::log(num / den) : 0.0; }

} // namespace

std::vector<std::array<double, kPlanFeaturesV2>> plan_features_v2(const Program& p) {
  const Analysis a = analyse(p);
  const FusionPlan f = plan_producer_consumer(p);
  const std::size_t n = p.nodes.size();
  std::vector<int> computed(n, 0), consumers(n, 0), heavy(n, 0);
  for (const auto& k : f.kernels)
    for (const auto& v : k) ++computed[v.node];
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) consumers[i] += a.adjacency[i][j];
  for (std::size_t i = 0; i < n; ++i)
    if (!p.nodes[i].is_input) heavy[i] = heavy_ops(p.nodes[i]);
  std::vector<bool> is_output(n, false);
  for (int o : p.outputs()) is_output[o] = true;

  std::vector<std::array<double, kPlanFeaturesV2>> out(n);
  for (auto& row : out) row.fill(0.0);
  // Producer-consumer kernels: FLOPs and divisions/square roots with the recomputation, the materialised grids
  // they load (and the one they write), the distinct (grid, offset) loads, the values computed.
  double pc_grids = 0, pc_flops = 0, pc_heavy = 0;
  for (std::size_t k = 0; k < f.kernels.size(); ++k) {
    std::set<int> loads;
    std::set<std::array<int, 4>> points;
    std::set<std::array<int, 3>> offsets;
    double flops = 0, hv = 0, load_reads = 0;
    for (const auto& v : f.kernels[k]) {
      const StencilInfo& si = a.info(v.node);
      flops += si.flops;
      hv += heavy[v.node];
      for (const Expr& e : p.nodes[v.node].expr)
        if (e.op == Op::Read && f.materialised[e.grid]) {
          const std::array<int, 3> o{v.off[0] + e.off[0], v.off[1] + e.off[1], v.off[2] + e.off[2]};
          loads.insert(e.grid);
          points.insert({e.grid, o[0], o[1], o[2]});
          offsets.insert(o);
          ++load_reads;
        }
    }
    const int root = f.kernel_node[k];
    auto& r = out[static_cast<std::size_t>(root)];
    r[8] = flops / 256.0;
    r[9] = hv / 16.0;
    r[10] = (static_cast<double>(loads.size()) + 1.0) / 8.0;
    r[11] = static_cast<double>(points.size()) / 64.0;
    r[12] = static_cast<double>(f.kernels[k].size()) / 16.0;
    r[22] = static_cast<double>(offsets.size()) / 32.0;
    r[23] = load_reads / 128.0;
    pc_grids += static_cast<double>(loads.size()) + 1.0;
    pc_flops += flops;
    pc_heavy += hv;
  }
  // Parallelism fusion: one launch per bucket; the grids a bucket reads are loaded once for all its operators
  // (they run the same tile side by side), each operator writes its own.
  double par_grids = 0, seq_heavy = 0;
  for (const auto& b : a.buckets) {
    std::set<int> reads;
    for (int node : b)
      for (int g : a.info(node).reads) reads.insert(g);
    const double w = static_cast<double>(b.size()), grids = static_cast<double>(reads.size()) + w;
    par_grids += grids;
    for (int node : b) {
      auto& r = out[static_cast<std::size_t>(node)];
      r[13] = 1.0 / w;
      r[14] = grids / w / 8.0;
      r[15] = w / 8.0;
    }
  }
  for (const StencilInfo& si : a.stencils) {
    auto& r = out[static_cast<std::size_t>(si.node)];
    r[0] = f.materialised[si.node] ? 1.0 : 0.0;
    r[1] = computed[si.node] / 8.0;
    r[2] = si.flops / 64.0;
    r[3] = si.points_read / 40.0;
    r[4] = heavy[si.node] / 4.0;
    r[5] = static_cast<double>(si.reads.size()) / 5.0;
    r[6] = consumers[si.node] / 4.0;
    r[7] = is_output[si.node] ? 1.0 : 0.0;
    std::set<std::array<int, 3>> own_offsets;
    for (const Expr& e : p.nodes[si.node].expr)
      if (e.op == Op::Read) own_offsets.insert(e.off);
    r[21] = static_cast<double>(own_offsets.size()) / 16.0;
    seq_heavy += heavy[si.node];
  }
  const std::array<int, 3> d{64, 64, 64};
  const Cost seq = strategy_cost(p, a, Strategy::Sequential, d), pc = strategy_cost(p, a, Strategy::ProducerConsumer, d);
  const double g16 = log_ratio(pc.bytes, seq.bytes), g17 = log_ratio(pc.flops, seq.flops),
               g18 = log_ratio(pc_heavy + 1.0, seq_heavy + 1.0),
               g19 = log_ratio(static_cast<double>(f.kernels.size()), static_cast<double>(a.buckets.size())),
               g20 = log_ratio(pc_grids, par_grids);
  (void)pc_flops;
  for (auto& r : out) {
    r[16] = g16;
    r[17] = g17;
    r[18] = g18;
    r[19] = g19;
    r[20] = g20;
  }
  return out;
}

int plan_feature_count(int version) {
  switch (version) {
  case 0: return 0;
  case 1: return kPlanFeatures;
  case 2: return kPlanFeaturesV2;
  }
  throw InputError(fmt::format("unknown plan-feature version {} (1 or 2)", version));
}

std::vector<std::vector<double>> node_plan_features(const Program& p, int version) {
  std::vector<std::vector<double>> rows;
  if (version == 1)
    for (const auto& r : plan_features(p)) rows.emplace_back(r.begin(), r.end());
  else if (version == 2)
    for (const auto& r : plan_features_v2(p)) rows.emplace_back(r.begin(), r.end());
  else
    throw InputError(fmt::format("unknown plan-feature version {} (1 or 2)", version));
  return rows;
}

namespace {

// The tensors of one network of the configuration already in `m`.
void load_tensors(FusionModel& m, const nlohmann::json& t, const std::string& path) {
  m.conv1 = matrix_of(vector_of(t, "conv1.weight", path, {4, m.channels, 3, 3, 3}), 4, m.channels * 27);
  m.conv1_bias = vector_of(t, "conv1.bias", path, {4});
  m.conv2 = matrix_of(vector_of(t, "conv2.weight", path, {8, 4, 3, 3, 3}), 8, 4 * 27);
  m.conv2_bias = vector_of(t, "conv2.bias", path, {8});
  m.fc = matrix_of(vector_of(t, "fc.weight", path, {m.cnn_hidden, 8 * 27}), m.cnn_hidden, 8 * 27);
  m.fc_bias = vector_of(t, "fc.bias", path, {m.cnn_hidden});
  const int appended = 1 + plan_feature_count(m.plan_version);
  if (t.contains("feature_mean") || t.contains("feature_scale")) {
    m.feature_mean = vector_of(t, "feature_mean", path, {appended});
    m.feature_scale = vector_of(t, "feature_scale", path, {appended});
  }
  int in = m.slots * m.cnn_hidden + appended;
  for (int l = 0; l < 4; ++l) {
    m.gcn[l] = matrix_of(vector_of(t, fmt::format("gcn.{}.lin.weight", l), path, {m.gcn_hidden, in}), m.gcn_hidden, in);
    m.gcn_bias[l] = vector_of(t, fmt::format("gcn.{}.bias", l), path, {m.gcn_hidden});
    in = m.gcn_hidden;
  }
  m.out = matrix_of(vector_of(t, "out.weight", path, {2, m.gcn_hidden}), 2, m.gcn_hidden);
  m.out_bias = vector_of(t, "out.bias", path, {2});
}

} // namespace

FusionModel load_fusion_model(const std::string& path) {
  const nlohmann::json j = parse_json_text(read_text_file(path, "fusion model weights"), path);
  FusionModel m;
  m.path = path;
  try {
    const auto& c = j.at("config");
    m.slots = c.at("slots").get<int>();
    m.channels = c.at("channels").get<int>();
    m.cnn_hidden = c.at("cnn_hidden").get<int>();
    m.gcn_hidden = c.at("gcn_hidden").get<int>();
    m.variant = c.value("variant", std::string());
    m.plan = c.value("plan_features", false);
    m.plan_version = m.plan ? c.value("plan_version", 1) : 0;
    if (m.plan && m.plan_version != 1 && m.plan_version != 2)
      throw InputError(fmt::format("{}: unknown plan_version {} (1 or 2)", path, m.plan_version));
    if (c.value("side", kTensorSide) != kTensorSide) throw InputError(fmt::format("{}: the tensors are not 7x7x7", path));
    if (m.slots < 1 || m.slots > 64 || m.channels < 1 || m.channels > 2 || m.cnn_hidden < 1 || m.cnn_hidden > 4096 ||
        m.gcn_hidden < 1 || m.gcn_hidden > 4096)
      throw InputError(fmt::format("{}: the model's sizes are out of range", path));
    load_tensors(m, j.at("tensors"), path);
    if (j.contains("members")) { // an ensemble: the logits are the members' mean
      for (const auto& member : j.at("members")) {
        FusionModel e = m;
        e.members.clear();
        load_tensors(e, member.at("tensors"), path);
        m.members.push_back(std::move(e));
      }
      if (m.members.empty()) throw InputError(fmt::format("{}: \"members\" is empty", path));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a fusion model weights file: {}", path, e.what()));
  }
  return m;
}

namespace {

// One network's logits (producer-consumer, parallel).
Eigen::Vector2d network_logits(const FusionModel& m, const Program& p, const Analysis& a, std::array<int, 3> domain) {
  const int n = static_cast<int>(p.nodes.size());
  const int base = m.slots * m.cnn_hidden + 1; // the CNN slots and the grid size
  const int appended = 1 + plan_feature_count(m.plan_version);
  const int feat = base - 1 + appended;
  constexpr int kVox = kTensorSide * kTensorSide * kTensorSide;
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, feat);
  const double points = static_cast<double>(domain[0]) * domain[1] * domain[2];
  x.col(base - 1).setConstant(std::log2(points) / 3.0 - 7.0);
  if (m.plan) {
    const auto pf = node_plan_features(p, m.plan_version);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k + 1 < appended; ++k) x(i, base + k) = pf[i][k];
  }
  if (m.feature_mean.size() == appended) // standardised as in training
    for (int c = 0; c < appended; ++c)
      x.col(base - 1 + c) = ((x.col(base - 1 + c).array() - m.feature_mean[c]) / m.feature_scale[c]).matrix();
  for (const StencilInfo& si : a.stencils)
    for (int s = 0; s < m.slots && s < static_cast<int>(si.tensors.size()); ++s) {
      const NeighbourTensor& t = si.tensors[s];
      Eigen::MatrixXd in = Eigen::MatrixXd::Zero(m.channels, kVox);
      const bool producer = !p.nodes[t.grid].is_input;
      for (int v = 0; v < kVox; ++v)
        if (t.bits[v]) {
          in(0, v) = 1.0;
          if (m.channels > 1 && producer) in(1, v) = 1.0;
        }
      const Eigen::MatrixXd h1 = conv3(in, kTensorSide, m.conv1, m.conv1_bias).cwiseMax(0.0);
      const Eigen::MatrixXd h2 = conv3(h1, kTensorSide - 2, m.conv2, m.conv2_bias).cwiseMax(0.0);
      Eigen::VectorXd flat(h2.size());
      for (Eigen::Index c = 0; c < h2.rows(); ++c) flat.segment(c * h2.cols(), h2.cols()) = h2.row(c).transpose();
      const Eigen::VectorXd f = (m.fc * flat + m.fc_bias).array().tanh().matrix();
      x.block(si.node, s * m.cnn_hidden, 1, m.cnn_hidden) = f.transpose();
    }
  // GCN normalisation: self-loops, edges both ways, deg^-1/2 on both ends.
  Eigen::MatrixXd norm = Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (a.adjacency[i][j]) norm(i, j) = norm(j, i) = 1.0;
  const Eigen::VectorXd deg = norm.rowwise().sum();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) norm(i, j) /= std::sqrt(deg[i] * deg[j]);
  for (int l = 0; l < 4; ++l) {
    Eigen::MatrixXd h = norm * (x * m.gcn[l].transpose());
    h.rowwise() += m.gcn_bias[l].transpose();
    x = h.array().tanh().matrix();
  }
  const Eigen::VectorXd pooled = x.colwise().sum().transpose();
  return m.out * pooled + m.out_bias;
}

} // namespace

FusionPrediction predict_fusion(const FusionModel& m, const Program& p, std::array<int, 3> domain) {
  const Analysis a = analyse(p);
  Eigen::Vector2d logits = Eigen::Vector2d::Zero();
  if (m.members.empty()) {
    logits = network_logits(m, p, a, domain);
  } else {
    for (const FusionModel& e : m.members) logits += network_logits(e, p, a, domain);
    logits /= static_cast<double>(m.members.size());
  }
  FusionPrediction r;
  r.logits = {logits[0], logits[1]};
  const double mx = std::max(logits[0], logits[1]);
  const double e0 = std::exp(logits[0] - mx), e1 = std::exp(logits[1] - mx);
  r.probabilities = {e0 / (e0 + e1), e1 / (e0 + e1)};
  const bool pc = r.probabilities[0] > r.probabilities[1];
  r.strategy = pc ? Strategy::ProducerConsumer : Strategy::Parallel;
  r.probability = pc ? r.probabilities[0] : r.probabilities[1];
  return r;
}

std::string default_fusion_model_path() {
  const auto dir = se::find_data_dir("models");
  if (!dir) return {};
  const auto f = *dir / "fusion_cnn_gcn.weights.json";
  std::error_code ec;
  return std::filesystem::is_regular_file(f, ec) ? f.string() : std::string();
}

} // namespace se::dag
