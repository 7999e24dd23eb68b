//===-- loss_scaler_test.cpp - Loss scaler tests --------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace mixrt;

namespace {

/// A scaler from the defaults with the given initial scale, growth interval,
/// maximum and (optionally) minimum scale; creation must succeed.
LossScaler makeScaler(double initial, int64_t interval, double max,
                      double min = LossScalerConfig{}.min_scale) {
  LossScalerConfig config;
  config.initial_scale = initial;
  config.growth_interval = interval;
  config.max_scale = max;
  config.min_scale = min;
  absl::StatusOr<LossScaler> s = LossScaler::Create(config);
  REQUIRE(s.ok());
  return *s;
}

/// The status of LossScaler::Create for the defaults changed by `mutate`.
template <class Mutate> absl::Status createStatus(Mutate mutate) {
  LossScalerConfig c;
  mutate(c);
  return LossScaler::Create(c).status();
}

/// Gradient tensors as the C++ API takes them: one span per vector.
template <class T, class... More>
std::vector<absl::Span<T>> spans(std::vector<T> &first, More &...more) {
  return {absl::MakeSpan(first), absl::MakeSpan(more)...};
}

/// A C scaler made from mixrt_loss_scaler_config_init's defaults changed by
/// `mutate` (creation must succeed), destroyed at scope exit.
class CScaler {
public:
  CScaler() : CScaler([](mixrt_loss_scaler_config &) {}) {}
  template <class Mutate> explicit CScaler(Mutate mutate) {
    mixrt_loss_scaler_config_init(&config_);
    mutate(config_);
    REQUIRE(mixrt_loss_scaler_create(&config_, &handle_) == MIXRT_STATUS_OK);
    REQUIRE(handle_ != nullptr);
  }
  CScaler(const CScaler &) = delete;
  CScaler &operator=(const CScaler &) = delete;
  ~CScaler() { mixrt_loss_scaler_destroy(handle_); }

  mixrt_loss_scaler *get() const { return handle_; }
  const mixrt_loss_scaler_config &config() const { return config_; }
  double scale() const { return mixrt_loss_scaler_scale(handle_); }

private:
  mixrt_loss_scaler_config config_;
  mixrt_loss_scaler *handle_ = nullptr;
};

/// One f32 gradient tensor with the (tensors, sizes) arrays of the C API.
struct CGrads {
  explicit CGrads(std::vector<float> init) : values(std::move(init)) {
    tensors[0] = values.data();
    sizes[0] = static_cast<int64_t>(values.size());
  }
  /// mixrt_loss_scaler_step_f32 over this tensor.
  mixrt_status_code step(const CScaler &scaler, mixrt_optimizer_callback apply,
                         void *user, int32_t *skipped) {
    return mixrt_loss_scaler_step_f32(scaler.get(), tensors, sizes, 1, apply,
                                      user, skipped);
  }

  std::vector<float> values; ///< never resized (tensors[0] points into it)
  float *tensors[1];
  int64_t sizes[1];
};

} // namespace

TEST_CASE("loss_scaler.defaults", "[loss_scaler]") {
  mixrt_loss_scaler_config c;
  mixrt_loss_scaler_config_init(&c);
  CHECK(c.initial_scale == 65536.0);
  CHECK(c.growth_factor == 2.0);
  CHECK(c.backoff_factor == 0.5);
  CHECK(c.growth_interval == 2000);
  CHECK(c.max_scale == 16777216.0);
}

TEST_CASE("loss_scaler.exact_trajectory", "[loss_scaler]") {
  LossScaler s = makeScaler(1024.0, 3, 8192.0);
  // Growth after 3 finite steps.
  s.Update(false);
  s.Update(false);
  CHECK(s.scale() == 1024.0);
  CHECK(s.growth_tracker() == 2);
  s.Update(false);
  CHECK(s.scale() == 2048.0);
  CHECK(s.growth_tracker() == 0);
  // Backoff on inf resets the counter.
  s.Update(false);
  s.Update(false);
  s.Update(true);
  CHECK(s.scale() == 1024.0);
  CHECK(s.growth_tracker() == 0);
  // Three more finite steps are needed after the reset.
  s.Update(false);
  s.Update(false);
  CHECK(s.scale() == 1024.0);
  s.Update(false);
  CHECK(s.scale() == 2048.0);
  // Grow to the maximum, then stay there (counter still resets).
  for (int i = 0; i < 6; ++i)
    s.Update(false);
  CHECK(s.scale() == 8192.0);
  for (int i = 0; i < 3; ++i)
    s.Update(false);
  CHECK(s.scale() == 8192.0);
  CHECK(s.growth_tracker() == 0);
  // Consecutive backoffs.
  s.Update(true);
  s.Update(true);
  CHECK(s.scale() == 2048.0);
}

TEST_CASE("loss_scaler.growth_never_reaches_inf", "[loss_scaler]") {
  const double max = std::numeric_limits<double>::max();
  LossScaler s = makeScaler(0x1p1023, 1, max);
  s.Update(false); // 2^1024 is inf: the scale stays.
  CHECK(s.scale() == 0x1p1023);
  CHECK(s.growth_tracker() == 0);
}

TEST_CASE("loss_scaler.nan_and_inf_gradients_skip_the_step", "[loss_scaler]") {
  LossScaler s = makeScaler(8.0, 2, 1024.0);
  std::vector<float> g1 = {8.0f, -16.0f}, g2 = {4.0f};
  const std::vector<absl::Span<float>> grads = spans(g1, g2);
  int applied = 0;
  auto apply = [&] {
    ++applied;
    return absl::OkStatus();
  };
  absl::StatusOr<bool> skipped = s.Step(grads, apply);
  REQUIRE(skipped.ok());
  CHECK_FALSE(*skipped);
  CHECK(applied == 1);
  CHECK(g1 == std::vector<float>{1.0f, -2.0f});
  CHECK(g2 == std::vector<float>{0.5f});
  CHECK(s.growth_tracker() == 1);

  g1 = {std::numeric_limits<float>::quiet_NaN(), 1.0f};
  skipped = s.Step(grads, apply);
  REQUIRE(skipped.ok());
  CHECK(*skipped);
  CHECK(applied == 1); // Never applied on a skipped step.
  CHECK(s.scale() == 4.0);
  CHECK(s.growth_tracker() == 0);

  g1 = {1.0f, 1.0f};
  g2 = {-std::numeric_limits<float>::infinity()};
  skipped = s.Step(grads, apply);
  CHECK(*skipped);
  CHECK(applied == 1);
  CHECK(s.scale() == 2.0);

  // A finite value that overflows after unscaling (scale < 1) also skips.
  LossScaler small = makeScaler(0.25, 5, 1.0);
  std::vector<float> g3 = {3e38f};
  skipped = small.Step(spans(g3), apply);
  CHECK(*skipped);
  CHECK(small.scale() == 0.125);

  // A failing update propagates and leaves the scaler unchanged.
  g1 = {1.0f, 1.0f};
  g2 = {1.0f};
  const int64_t tracker = s.growth_tracker();
  skipped = s.Step(grads, [] { return absl::InternalError("boom"); });
  CHECK(skipped.status().code() == absl::StatusCode::kInternal);
  CHECK(s.growth_tracker() == tracker);
}

TEST_CASE("loss_scaler.unscale_uses_the_f64_reciprocal", "[loss_scaler]") {
  // scale 3: 1/3 in f64, the product rounded once to f32.
  LossScaler s = makeScaler(3.0, 10, 100.0);
  std::vector<float> g = {1.0f, 7.0f, 1e-40f};
  REQUIRE(s.Unscale(spans(g)).ok());
  const double r = 1.0 / 3.0;
  CHECK(g[0] == static_cast<float>(1.0 * r));
  CHECK(g[1] == static_cast<float>(7.0 * r));
  CHECK(g[2] == static_cast<float>(double{1e-40f} * r));
  std::vector<double> d = {1.0};
  REQUIRE(s.Unscale(spans(d)).ok());
  CHECK(d[0] == r);
}

TEST_CASE("loss_scaler.scale_loss", "[loss_scaler]") {
  LossScaler s = makeScaler(65536.0, 10, 65536.0);
  CHECK(*s.ScaleLoss(0.5f) == 32768.0f);
  CHECK(*s.ScaleLoss(0.5) == 32768.0);
  CHECK(s.ScaleLoss(1e34f).status().code() == absl::StatusCode::kOutOfRange);
  CHECK(s.ScaleLoss(std::nanf("")).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("loss_scaler.invalid_configs", "[loss_scaler]") {
  auto bad = [](auto mutate) {
    return createStatus(mutate).code() == absl::StatusCode::kInvalidArgument;
  };
  CHECK(bad([](LossScalerConfig &c) { c.initial_scale = 0; }));
  CHECK(bad([](LossScalerConfig &c) { c.initial_scale = INFINITY; }));
  CHECK(bad([](LossScalerConfig &c) { c.growth_factor = 1.0; }));
  CHECK(bad([](LossScalerConfig &c) { c.backoff_factor = 1.0; }));
  CHECK(bad([](LossScalerConfig &c) { c.backoff_factor = 0.0; }));
  CHECK(bad([](LossScalerConfig &c) { c.growth_interval = 0; }));
  CHECK(bad([](LossScalerConfig &c) { c.max_scale = 1024; }));
  CHECK(bad([](LossScalerConfig &c) { c.max_scale = NAN; }));
}

namespace {
struct CallbackState {
  int calls = 0;
  mixrt_status_code result = MIXRT_STATUS_OK;
};
mixrt_status_code countingCallback(void *user) {
  auto *state = static_cast<CallbackState *>(user);
  ++state->calls;
  return state->result;
}
} // namespace

TEST_CASE("loss_scaler.c_api", "[loss_scaler]") {
  mixrt_loss_scaler_config c;
  {
    const CScaler s([](mixrt_loss_scaler_config &config) {
      config.initial_scale = 4.0;
      config.growth_interval = 1;
    });
    c = s.config();
    float loss = 0;
    REQUIRE(mixrt_loss_scaler_scale_loss_f32(s.get(), 1.5f, &loss) ==
            MIXRT_STATUS_OK);
    CHECK(loss == 6.0f);

    CGrads grads({4.0f, 8.0f});
    std::vector<float> &g = grads.values;
    CallbackState state;
    int32_t skipped = -1;
    REQUIRE(grads.step(s, countingCallback, &state, &skipped) ==
            MIXRT_STATUS_OK);
    CHECK(skipped == 0);
    CHECK(state.calls == 1);
    CHECK((g[0] == 1.0f && g[1] == 2.0f));
    CHECK(s.scale() == 8.0);

    g[1] = NAN;
    REQUIRE(grads.step(s, countingCallback, &state, &skipped) ==
            MIXRT_STATUS_OK);
    CHECK(skipped == 1);
    CHECK(state.calls == 1);
    CHECK(s.scale() == 4.0);

    g[1] = 1.0f;
    state.result = MIXRT_STATUS_OUT_OF_RANGE;
    CHECK(grads.step(s, countingCallback, &state, &skipped) ==
          MIXRT_STATUS_OUT_OF_RANGE);
    CHECK_THAT(mixrt_last_error_message(), Catch::Contains("callback failed"));
    CHECK(s.scale() == 4.0);

    int32_t found = -1;
    g[0] = INFINITY;
    REQUIRE(mixrt_loss_scaler_unscale_f32(s.get(), grads.tensors, grads.sizes,
                                          1, &found) == MIXRT_STATUS_OK);
    CHECK(found == 1);
    REQUIRE(mixrt_loss_scaler_update(s.get(), found) == MIXRT_STATUS_OK);
    CHECK(s.scale() == 2.0);
    CHECK(mixrt_loss_scaler_growth_tracker(s.get()) == 0);

    const int64_t badSizes[] = {-1};
    CHECK(mixrt_loss_scaler_unscale_f32(s.get(), grads.tensors, badSizes, 1,
                                        &found) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(mixrt_loss_scaler_unscale_f32(s.get(), grads.tensors, grads.sizes, 1,
                                        nullptr) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(grads.step(s, nullptr, nullptr, &skipped) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(mixrt_loss_scaler_update(nullptr, 0) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
  }

  mixrt_loss_scaler *s = nullptr;
  c.backoff_factor = 2.0;
  CHECK(mixrt_loss_scaler_create(&c, &s) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(s == nullptr);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("backoff_factor"));
  REQUIRE(mixrt_loss_scaler_create(nullptr, &s) == MIXRT_STATUS_OK);
  CHECK(mixrt_loss_scaler_scale(s) == 65536.0);
  mixrt_loss_scaler_destroy(s);
}

TEST_CASE("loss_scaler.min_scale_floor", "[loss_scaler]") {
  // Power-of-two floor: 8 -> 4 -> 2 -> 1, then the scale stays at 1.
  LossScaler s = makeScaler(8.0, 2, 64.0, 1.0);
  const double expected[] = {4.0, 2.0, 1.0, 1.0, 1.0, 1.0};
  for (double e : expected) {
    s.Update(true);
    CHECK(s.scale() == e);
    CHECK(s.growth_tracker() == 0);
  }
  // Growth resumes from the floor: interval 2.
  s.Update(false);
  CHECK(s.scale() == 1.0);
  CHECK(s.growth_tracker() == 1);
  s.Update(false);
  CHECK(s.scale() == 2.0);
  s.Update(false);
  s.Update(false);
  CHECK(s.scale() == 4.0);

  // A floor that is not on the backoff grid clamps: 10 -> 5 -> 3 (not 2.5).
  LossScaler t = makeScaler(10.0, 1, 100.0, 3.0);
  t.Update(true);
  CHECK(t.scale() == 5.0);
  t.Update(true);
  CHECK(t.scale() == 3.0);
  t.Update(true);
  CHECK(t.scale() == 3.0);
  t.Update(false);
  CHECK(t.scale() == 6.0);

  // min == initial is allowed: backoff never moves the scale.
  LossScaler u = makeScaler(4.0, 1, 4.0, 4.0);
  u.Update(true);
  CHECK(u.scale() == 4.0);
}

TEST_CASE("loss_scaler.default_floor_after_5000_backoffs", "[loss_scaler]") {
  absl::StatusOr<LossScaler> created = LossScaler::Create({});
  REQUIRE(created.ok());
  LossScaler s = *created;
  CHECK(s.config().min_scale == 0x1p-24);
  // 2^16 halved 39 times is 2^-23, the 40th backoff reaches the floor.
  for (int i = 0; i < 39; ++i)
    s.Update(true);
  CHECK(s.scale() == 0x1p-23);
  s.Update(true);
  CHECK(s.scale() == 0x1p-24);
  for (int i = 40; i < 5000; ++i)
    s.Update(true);
  CHECK(s.scale() == 0x1p-24); // Before the floor: exactly 0, for ever.
  // Unscaling with the floor stays finite: 1 / 2^-24 = 2^24 exactly.
  std::vector<float> g = {0x1p-20f};
  absl::StatusOr<bool> found = s.Unscale(spans(g));
  REQUIRE(found.ok());
  CHECK_FALSE(*found);
  CHECK(g[0] == 16.0f);
  // Growth resumes from the floor after growth_interval (2000) steps.
  for (int i = 0; i < 1999; ++i)
    s.Update(false);
  CHECK(s.scale() == 0x1p-24);
  s.Update(false);
  CHECK(s.scale() == 0x1p-23);
}

TEST_CASE("loss_scaler.min_scale_validation", "[loss_scaler]") {
  auto status = [](double min, double initial) {
    return createStatus([&](LossScalerConfig &c) {
      c.min_scale = min;
      c.initial_scale = initial;
    });
  };
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity(), 0x1p17}) {
    INFO(bad);
    absl::Status s = status(bad, 0x1p16);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(s.message()),
               Catch::StartsWith("loss_scaler_create: min_scale ("));
  }
  CHECK(status(0x1p16, 0x1p16).ok());
  CHECK(status(4.9e-324, 1.0).ok());

  mixrt_loss_scaler_config c;
  mixrt_loss_scaler_config_init(&c);
  CHECK(c.min_scale == 0x1p-24);
  c.min_scale = 2.0;
  c.initial_scale = 1.0;
  mixrt_loss_scaler *scaler = nullptr;
  CHECK(mixrt_loss_scaler_create(&c, &scaler) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "loss_scaler_create: min_scale (2) must be positive, finite and <= "
        "initial_scale (1)");
  CHECK(scaler == nullptr);
  const CScaler floored([](mixrt_loss_scaler_config &config) {
    config.min_scale = 0.25;
    config.initial_scale = 1.0;
    config.backoff_factor = 0.5;
    config.growth_interval = 1;
  });
  for (int i = 0; i < 4; ++i)
    REQUIRE(mixrt_loss_scaler_update(floored.get(), 1) == MIXRT_STATUS_OK);
  CHECK(floored.scale() == 0.25);
  REQUIRE(mixrt_loss_scaler_update(floored.get(), 0) == MIXRT_STATUS_OK);
  CHECK(floored.scale() == 0.5);
}

namespace {

/// A callback failing with a fixed code; optionally it first calls a
/// failing mixrt function (setting a fresh last error message).
struct FailingCallback {
  mixrt_status_code code = MIXRT_STATUS_INVALID_ARGUMENT;
  bool callMixrt = false;
  std::string longLocation; ///< nonempty: fail through mixrt_check_status
};

mixrt_status_code failingCallback(void *user) {
  auto *cb = static_cast<FailingCallback *>(user);
  if (cb->callMixrt)
    return mixrt_optimizer_step_f32(nullptr, nullptr, nullptr, 0);
  if (!cb->longLocation.empty()) {
    mixrt_check_reset();
    mixrt_check_fail(MIXRT_STATUS_OUT_OF_RANGE, cb->longLocation.c_str(),
                     "checked cast overflows", 0, 1.0);
    const mixrt_status_code code = mixrt_check_status();
    mixrt_check_reset();
    return code;
  }
  return cb->code;
}

/// Runs `steps` failing steps and returns the final message.
std::string failSteps(const CScaler &scaler, FailingCallback &cb, int steps) {
  CGrads grads({1.0f});
  int32_t skipped = -1;
  for (int i = 0; i < steps; ++i) {
    grads.values[0] = 1.0f;
    REQUIRE(grads.step(scaler, failingCallback, &cb, &skipped) !=
            MIXRT_STATUS_OK);
  }
  CHECK(skipped == -1);
  return mixrt_last_error_message();
}

} // namespace

TEST_CASE("loss_scaler.callback_failure_message_is_bounded", "[loss_scaler]") {
  const CScaler scaler;

  // The callback sets no message: the earlier step's is not quoted.
  FailingCallback plain;
  const std::string one = failSteps(scaler, plain, 1);
  CHECK(one == "loss_scaler_step_f32: optimizer callback failed with "
               "INVALID_ARGUMENT");
  CHECK(failSteps(scaler, plain, 999) == one);  // after 1,000
  CHECK(failSteps(scaler, plain, 9000) == one); // after 10,000
  CHECK(scaler.scale() == 65536.0);             // never updated

  // The callback's own message is quoted, once per step, not nested.
  FailingCallback viaMixrt;
  viaMixrt.callMixrt = true;
  const std::string quoted = failSteps(scaler, viaMixrt, 1);
  CHECK(quoted == "loss_scaler_step_f32: optimizer callback failed with "
                  "INVALID_ARGUMENT (last error: optimizer_step_f32: "
                  "optimizer is null)");
  CHECK(failSteps(scaler, viaMixrt, 999) == quoted);
  CHECK(failSteps(scaler, viaMixrt, 9000) == quoted);

  // A huge message of the callback is cut to 256 bytes + "...".
  FailingCallback huge;
  huge.longLocation = std::string(10000, 'x');
  const std::string cut = failSteps(scaler, huge, 1);
  CHECK(cut == "loss_scaler_step_f32: optimizer callback failed with "
               "OUT_OF_RANGE (last error: " +
                   std::string(256, 'x') + "...)");
  CHECK(cut.size() <= 400);
  CHECK(failSteps(scaler, huge, 999) == cut);
}
