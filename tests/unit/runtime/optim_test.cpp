//===-- optim_test.cpp - Master-weight optimizer tests --------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace mixrt;

namespace {

Optimizer makeOptimizer(const OptimizerConfig &config) {
  absl::StatusOr<Optimizer> o = Optimizer::Create(config);
  INFO(o.status().ToString());
  REQUIRE(o.ok());
  return *std::move(o);
}

std::vector<absl::Span<const float>> one(const std::vector<float> &g) {
  return {absl::MakeConstSpan(g)};
}

} // namespace

TEST_CASE("optim.sgd_momentum_nesterov_weight_decay", "[optim]") {
  OptimizerConfig c = OptimizerConfig::Sgd(0.1, 0.9);
  c.weight_decay = 0.01;
  c.nesterov = true;
  Optimizer o = makeOptimizer(c);
  REQUIRE(*o.AddParam(std::vector<double>{1.0, -2.0}, LowpFormat::kF16) == 0);
  // Reference: torch.optim.SGD formulas in f64.
  std::vector<double> w = {1.0, -2.0}, buf(2);
  const std::vector<float> grads[] = {
      {0.5f, 0.25f}, {-1.0f, 0.125f}, {0.0f, 3.0f}};
  for (int step = 0; step < 3; ++step) {
    REQUIRE(o.Step(one(grads[step])).ok());
    for (int i = 0; i < 2; ++i) {
      double d = grads[step][i] + 0.01 * w[i];
      buf[i] = step == 0 ? d : 0.9 * buf[i] + (1.0 - 0.0) * d;
      d = d + 0.9 * buf[i];
      w[i] -= 0.1 * d;
    }
    for (int i = 0; i < 2; ++i) {
      REQUIRE(o.master(0)[i] == w[i]);
      REQUIRE(o.lowp_u16(0)[i] == mixrt_f64_to_f16(w[i]));
    }
  }
}

TEST_CASE("optim.sgd_plain_and_dampening", "[optim]") {
  OptimizerConfig c = OptimizerConfig::Sgd(0.5, 0.5);
  c.dampening = 0.25;
  Optimizer o = makeOptimizer(c);
  REQUIRE(o.AddParam(std::vector<double>{2.0}, LowpFormat::kBF16).ok());
  REQUIRE(o.Step(one({1.0f})).ok()); // buf = 1, w = 2 - 0.5 = 1.5
  CHECK(o.master(0)[0] == 1.5);
  REQUIRE(o.Step(one({1.0f})).ok()); // buf = 0.5 + 0.75 = 1.25, w = 0.875
  CHECK(o.master(0)[0] == 0.875);
  CHECK(o.lowp_u16(0)[0] == mixrt_f64_to_bf16(0.875));
  CHECK(o.lowp_int8(0) == nullptr);
}

TEST_CASE("optim.adam_matches_reference", "[optim]") {
  OptimizerConfig c = OptimizerConfig::Adam(1e-2);
  c.weight_decay = 0.1;
  Optimizer o = makeOptimizer(c);
  const std::vector<double> init = {0.5, -1.5, 3.0};
  REQUIRE(o.AddParam(init, LowpFormat::kInt8).ok());
  std::vector<double> w = init, m(3, 0.0), v(3, 0.0);
  for (int t = 1; t <= 4; ++t) {
    const std::vector<float> g = {0.1f * t, -0.2f, 1.0f / t};
    REQUIRE(o.Step(one(g)).ok());
    const double stepSize = 1e-2 / (1.0 - std::pow(0.9, t));
    const double c2 = std::sqrt(1.0 - std::pow(0.999, t));
    for (int i = 0; i < 3; ++i) {
      const double gi = g[i] + 0.1 * w[i];
      m[i] += (1.0 - 0.9) * (gi - m[i]);
      v[i] = 0.999 * v[i] + (1.0 - 0.999) * gi * gi;
      w[i] -= stepSize * (m[i] / (std::sqrt(v[i]) / c2 + 1e-8));
    }
    for (int i = 0; i < 3; ++i)
      REQUIRE(o.master(0)[i] == w[i]);
    // int8 copy: symmetric per tensor, re-derived from the new masters.
    const QTensor want =
        *Quantize(absl::Span<const double>(w), {3}, QScheme::kSymmetric);
    const QTensor *q = o.lowp_int8(0);
    REQUIRE(q != nullptr);
    CHECK(q->scales()[0] == want.scales()[0]);
    CHECK(std::vector<int8_t>(q->data().begin(), q->data().end()) ==
          std::vector<int8_t>(want.data().begin(), want.data().end()));
  }
}

TEST_CASE("optim.step_is_all_or_nothing", "[optim]") {
  Optimizer o = makeOptimizer(OptimizerConfig::Sgd(1.0));
  REQUIRE(o.AddParam(std::vector<double>{1.0}, LowpFormat::kNone).ok());
  REQUIRE(o.AddParam(std::vector<double>{60000.0}, LowpFormat::kF16).ok());
  // The second parameter would overflow its f16 copy: nothing changes.
  std::vector<float> g0 = {1.0f}, g1 = {-10000.0f};
  std::vector<absl::Span<const float>> grads = {g0, g1};
  const absl::Status s = o.Step(grads);
  CHECK(s.code() == absl::StatusCode::kOutOfRange);
  CHECK_THAT(std::string(s.message()), Catch::Contains("overflows f16"));
  CHECK(o.master(0)[0] == 1.0);
  CHECK(o.master(1)[0] == 60000.0);
  // Non-finite gradients are rejected before anything happens.
  g1 = {NAN};
  CHECK(o.Step(grads).code() == absl::StatusCode::kInvalidArgument);
  CHECK(o.master(0)[0] == 1.0);
  // Wrong counts and sizes.
  CHECK(o.Step(one({1.0f})).code() == absl::StatusCode::kInvalidArgument);
  std::vector<float> two = {1.0f, 2.0f};
  grads = {g0, two};
  CHECK(o.Step(grads).code() == absl::StatusCode::kInvalidArgument);
  // Adding a parameter that overflows f16, or is empty / non-finite.
  CHECK(
      o.AddParam(std::vector<double>{1e5}, LowpFormat::kF16).status().code() ==
      absl::StatusCode::kOutOfRange);
  CHECK(o.AddParam(std::vector<double>{}, LowpFormat::kNone).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(o.AddParam(std::vector<double>{INFINITY}, LowpFormat::kNone)
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
  CHECK(o.num_params() == 2);
}

TEST_CASE("optim.invalid_configs", "[optim]") {
  auto code = [](OptimizerConfig c) {
    return Optimizer::Create(c).status().code();
  };
  OptimizerConfig c = OptimizerConfig::Sgd(0.0);
  CHECK(code(c) == absl::StatusCode::kInvalidArgument);
  c = OptimizerConfig::Sgd(0.1, 1.0);
  CHECK(code(c) == absl::StatusCode::kInvalidArgument);
  c = OptimizerConfig::Sgd(0.1, 0.0);
  c.nesterov = true;
  CHECK(code(c) == absl::StatusCode::kInvalidArgument);
  c = OptimizerConfig::Adam(1e-3, 1.0);
  CHECK(code(c) == absl::StatusCode::kInvalidArgument);
  c = OptimizerConfig::Adam(1e-3, 0.9, 0.999, 0.0);
  CHECK(code(c) == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("optim.loss_scaler_skips_the_optimizer", "[optim]") {
  Optimizer o = makeOptimizer(OptimizerConfig::Sgd(0.5));
  REQUIRE(o.AddParam(std::vector<double>{1.0, 2.0}, LowpFormat::kBF16).ok());
  LossScaler scaler = *LossScaler::Create({});
  std::vector<float> g = {65536.0f, NAN};
  std::vector<absl::Span<float>> grads = {absl::MakeSpan(g)};
  auto apply = [&] { return o.Step(one(g)); };
  absl::StatusOr<bool> skipped = scaler.Step(grads, apply);
  REQUIRE(skipped.ok());
  CHECK(*skipped);
  CHECK(o.master(0)[0] == 1.0); // Untouched.
  CHECK(o.master(0)[1] == 2.0);
  g = {65536.0f, -32768.0f};
  skipped = scaler.Step(grads, apply); // scale is now 32768
  REQUIRE(skipped.ok());
  CHECK_FALSE(*skipped);
  CHECK(o.master(0)[0] == 1.0 - 0.5 * 2.0);
  CHECK(o.master(0)[1] == 2.0 + 0.5 * 1.0);
}

TEST_CASE("optim.c_api", "[optim]") {
  mixrt_optimizer_config c;
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAM, &c);
  CHECK(c.learning_rate == 1e-3);
  CHECK(c.beta2 == 0.999);
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &c);
  c.learning_rate = 0.25;
  mixrt_optimizer *o = nullptr;
  REQUIRE(mixrt_optimizer_create(&c, &o) == MIXRT_STATUS_OK);
  const double w[] = {1.0, -1.0, 0.5};
  int64_t index = -1;
  REQUIRE(mixrt_optimizer_add_param(o, w, 3, MIXRT_LOWP_INT8, &index) ==
          MIXRT_STATUS_OK);
  CHECK(index == 0);
  CHECK(mixrt_optimizer_num_params(o) == 1);
  CHECK(mixrt_optimizer_param_size(o, 0) == 3);
  CHECK(mixrt_optimizer_lowp_format(o, 0) == MIXRT_LOWP_INT8);
  CHECK(mixrt_optimizer_lowp_int8_scale(o, 0) == static_cast<float>(1.0 / 127));
  CHECK(mixrt_optimizer_lowp_int8(o, 0)[1] == -127);
  CHECK(mixrt_optimizer_lowp_u16(o, 0) == nullptr);
  const float g[] = {4.0f, 0.0f, 0.0f};
  const float *grads[] = {g};
  const int64_t sizes[] = {3};
  REQUIRE(mixrt_optimizer_step_f32(o, grads, sizes, 1) == MIXRT_STATUS_OK);
  CHECK(mixrt_optimizer_master(o, 0)[0] == 0.0);
  CHECK(mixrt_optimizer_lowp_int8(o, 0)[0] == 0);
  CHECK(mixrt_optimizer_master(o, 5) == nullptr);
  const int64_t badSizes[] = {2};
  CHECK(mixrt_optimizer_step_f32(o, grads, badSizes, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("gradient 0 has 2"));
  const double g64[] = {0.0, 0.0, 0.0};
  const double *grads64[] = {g64};
  CHECK(mixrt_optimizer_step_f64(o, grads64, sizes, 1) == MIXRT_STATUS_OK);
  CHECK(mixrt_optimizer_add_param(o, w, 3, static_cast<mixrt_lowp_format>(9),
                                  nullptr) == MIXRT_STATUS_INVALID_ARGUMENT);
  mixrt_optimizer_destroy(o);
  c.momentum = 2.0;
  CHECK(mixrt_optimizer_create(&c, &o) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_optimizer_create(nullptr, &o) == MIXRT_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("optim.adamw_matches_reference", "[optim]") {
  // torch.optim.AdamW: w *= 1 - lr * wd, then Adam without the L2 term.
  OptimizerConfig c = OptimizerConfig::AdamW(1e-2);
  CHECK(c.kind == OptimizerKind::kAdamW);
  CHECK(c.weight_decay == 1e-2);
  c.weight_decay = 0.5;
  Optimizer o = makeOptimizer(c);
  const std::vector<double> init = {0.5, -1.5, 3.0};
  REQUIRE(o.AddParam(init, LowpFormat::kBF16).ok());
  std::vector<double> w = init, m(3, 0.0), v(3, 0.0);
  for (int t = 1; t <= 5; ++t) {
    const std::vector<float> g = {0.1f * t, -0.2f, 1.0f / t};
    REQUIRE(o.Step(one(g)).ok());
    const double stepSize = 1e-2 / (1.0 - std::pow(0.9, t));
    const double c2 = std::sqrt(1.0 - std::pow(0.999, t));
    for (int i = 0; i < 3; ++i) {
      w[i] *= 1.0 - 1e-2 * 0.5;
      const double gi = g[i];
      m[i] += (1.0 - 0.9) * (gi - m[i]);
      v[i] = 0.999 * v[i] + (1.0 - 0.999) * gi * gi;
      w[i] -= stepSize * (m[i] / (std::sqrt(v[i]) / c2 + 1e-8));
    }
    for (int i = 0; i < 3; ++i) {
      REQUIRE(o.master(0)[i] == w[i]);
      REQUIRE(o.lowp_u16(0)[i] == mixrt_f64_to_bf16(w[i]));
    }
  }
  // Hand-computed first step of one element: w = 1, g = 1, lr 0.1, wd 0.5:
  // w = 0.95, m = 0.1, v = 0.001, m_hat = 1, v_hat = 1,
  // w = 0.95 - 0.1 * 1 / (1 + 1e-8).
  OptimizerConfig one1 = OptimizerConfig::AdamW(0.1);
  one1.weight_decay = 0.5;
  Optimizer o1 = makeOptimizer(one1);
  REQUIRE(o1.AddParam(std::vector<double>{1.0}, LowpFormat::kNone).ok());
  REQUIRE(o1.Step(std::vector<absl::Span<const double>>{
                      absl::MakeConstSpan(std::vector<double>{1.0})})
              .ok());
  // The same operations in the same order, written out for t = 1.
  const double m1 = 0.0 + (1.0 - 0.9) * (1.0 - 0.0);
  const double v1 = 0.999 * 0.0 + (1.0 - 0.999) * 1.0 * 1.0;
  const double want =
      1.0 * (1.0 - 0.1 * 0.5) -
      (0.1 / (1.0 - 0.9)) *
          (m1 / (std::sqrt(v1) / std::sqrt(1.0 - 0.999) + 1e-8));
  CHECK(o1.master(0)[0] == want);
  // Within an ulp or two of the closed form 0.95 - 0.1 / (1 + 1e-8).
  CHECK(std::fabs(o1.master(0)[0] - (0.95 - 0.1 / (1.0 + 1e-8))) < 1e-15);
  // Zero weight decay: AdamW equals Adam bit for bit.
  Optimizer adam = makeOptimizer(OptimizerConfig::Adam(1e-2));
  OptimizerConfig wc = OptimizerConfig::AdamW(1e-2);
  wc.weight_decay = 0.0;
  Optimizer adamw = makeOptimizer(wc);
  REQUIRE(adam.AddParam(init, LowpFormat::kNone).ok());
  REQUIRE(adamw.AddParam(init, LowpFormat::kNone).ok());
  for (int t = 1; t <= 3; ++t) {
    const std::vector<float> g = {0.3f, -0.7f * t, 2.0f};
    REQUIRE(adam.Step(one(g)).ok());
    REQUIRE(adamw.Step(one(g)).ok());
    for (int i = 0; i < 3; ++i)
      CHECK(adam.master(0)[i] == adamw.master(0)[i]);
  }
}

TEST_CASE("optim.adamw_c_api", "[optim]") {
  mixrt_optimizer_config c;
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAMW, &c);
  CHECK(c.kind == MIXRT_OPTIMIZER_ADAMW);
  CHECK(c.learning_rate == 1e-3);
  CHECK(c.beta1 == 0.9);
  CHECK(c.beta2 == 0.999);
  CHECK(c.epsilon == 1e-8);
  CHECK(c.weight_decay == 1e-2);
  mixrt_optimizer *o = nullptr;
  REQUIRE(mixrt_optimizer_create(&c, &o) == MIXRT_STATUS_OK);
  mixrt_optimizer_destroy(o);
  c.beta2 = 1.0;
  CHECK(mixrt_optimizer_create(&c, &o) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "optimizer_create: beta2 (1) must be in [0, 1)");
  c.kind = static_cast<mixrt_optimizer_kind>(3);
  CHECK(mixrt_optimizer_create(&c, &o) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "optimizer_create: config->kind (3) is not a valid "
        "mixrt_optimizer_kind");
}
