//===-- train_test.cpp - Training steps (mixrt_train_*) -------------------===//
//
// Drives the trainer as the header of `mixc --train` does (prepare, initial
// weights, start; per step begin, a gradient function, finish) with a
// hand-written gradient function: linear least squares, whose gradient the
// test computes. The trajectory is compared bit for bit with a hand-driven
// mixrt_optimizer + mixrt_loss_scaler (+ mixrt_clip_grad_norm).
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

// Counts the operator new calls of the whole test binary, to check that
// prepare, start, begin and finish allocate nothing (not under ASan, whose
// own operator new checks every other test).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MIXRT_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MIXRT_TEST_ASAN 1
#endif

#ifndef MIXRT_TEST_ASAN
// GCC pairs the replaced operator new with its free() as a mismatch.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
std::atomic<int64_t> newCalls{0};
} // namespace
void *operator new(size_t n) {
  ++newCalls;
  if (void *p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
#endif

namespace {

std::string lastError() { return mixrt_last_error_message(); }

/// 64-byte aligned memory for a state.
class StateMemory {
public:
  explicit StateMemory(int64_t bytes)
      : size_(static_cast<size_t>((bytes + 63) / 64 * 64)),
        p_(std::aligned_alloc(64, size_ ? size_ : 64)) {
    std::memset(p_, 0xAB, size_);
  }
  ~StateMemory() { std::free(p_); }
  StateMemory(const StateMemory &) = delete;
  StateMemory &operator=(const StateMemory &) = delete;
  void *get() const { return p_; }
  int64_t size() const { return static_cast<int64_t>(size_); }

private:
  size_t size_;
  void *p_;
};

/// A scratch directory removed at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string tmpl = "/tmp/mixrt_train_test.XXXXXX";
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    const std::string cmd = "rm -rf '" + path_ + "'";
    (void)std::system(cmd.c_str());
  }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool fileExists(const std::string &path) {
  return access(path.c_str(), F_OK) == 0;
}

/// A safetensors file with `json` as header (padded to 8) and `data`.
std::string safetensorsFile(std::string json, const std::string &data) {
  while (json.size() % 8)
    json += ' ';
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((json.size() >> (8 * i)) & 0xFF);
  return out + json + data;
}

template <class T> std::string bytesOf(const std::vector<T> &v) {
  return std::string(reinterpret_cast<const char *>(v.data()),
                     v.size() * sizeof(T));
}

double loadAt(const void *p, bool f64, int64_t i) {
  return f64 ? static_cast<const double *>(p)[i]
             : static_cast<double>(static_cast<const float *>(p)[i]);
}

//===----------------------------------------------------------------------===//
// The model: y ~ X w + b (least squares) with a batch statistic.
//===----------------------------------------------------------------------===//

constexpr int kRows = 4;
constexpr int kCols = 3;
const double kX[kRows][kCols] = {
    {1.0, 0.5, -1.0}, {0.25, -2.0, 1.5}, {-1.0, 1.0, 0.75}, {2.0, 0.125, -0.5}};
const double kY[kRows] = {1.5, -0.75, 2.0, 0.25};

const int64_t kShapeW[1] = {3};
const int64_t kShapeStat[1] = {2};

struct Model {
  mixrt_train_param params[2];
  mixrt_train_stat stats[1];
  mixrt_train_layout layout;

  /// w [3] and b (rank 0) with buffer type f64 or f32; one statistic [2].
  Model(bool f64, mixrt_lowp_format working = MIXRT_LOWP_NONE) {
    const int32_t e = f64 ? 1 : 0;
    params[0] = {"w", 1, kShapeW, e, working};
    params[1] = {"b", 0, nullptr, e, working};
    stats[0] = {"bn.running_mean", 1, kShapeStat, e};
    layout = {"lsq", 2, params, 1, stats, 256};
  }
};

/// The gradient function: reads the working copies (w, b) and
/// *loss_scale, writes the loss, the scaled gradients and the batch
/// statistic (the column means of the first two features times `step`).
/// `poison` >= 0 writes inf into that element of dw.
template <class T>
void gradient(const T *w, const T *b, float lossScale, float *loss, T *dw,
              T *db, T *batch, int step, int poison = -1) {
  double l = 0.0, gw[kCols] = {0, 0, 0}, gb = 0.0;
  for (int r = 0; r < kRows; ++r) {
    double pred = static_cast<double>(b[0]);
    for (int c = 0; c < kCols; ++c)
      pred += kX[r][c] * static_cast<double>(w[c]);
    const double res = pred - kY[r];
    l += res * res / kRows;
    for (int c = 0; c < kCols; ++c)
      gw[c] += 2.0 * res * kX[r][c] / kRows;
    gb += 2.0 * res / kRows;
  }
  *loss = static_cast<float>(l);
  for (int c = 0; c < kCols; ++c)
    dw[c] = static_cast<T>(gw[c] * lossScale);
  db[0] = static_cast<T>(gb * lossScale);
  if (poison >= 0)
    dw[poison] = static_cast<T>(INFINITY);
  batch[0] = static_cast<T>(0.5 * step);
  batch[1] = static_cast<T>(-0.25 + 0.125 * step);
}

/// Prepares and starts a trainer with w = {0.5, -0.25, 1}, b = 0.125 and
/// running statistic {1, -1}.
struct Trainer {
  Model model;
  std::unique_ptr<StateMemory> memory;
  mixrt_train_buffers buffers{};
  bool f64;

  Trainer(bool f64_, const mixrt_train_config &config,
          mixrt_lowp_format working = MIXRT_LOWP_NONE, bool start = true)
      : model(f64_, working), f64(f64_) {
    const int64_t size = mixrt_train_state_size(&model.layout);
    REQUIRE(size > 0);
    memory = std::make_unique<StateMemory>(size);
    INFO(lastError());
    REQUIRE(mixrt_train_prepare(state(), size, &model.layout, &config,
                                &buffers) == MIXRT_STATUS_OK);
    const double w0[3] = {0.5, -0.25, 1.0}, b0 = 0.125, r0[2] = {1.0, -1.0};
    for (int i = 0; i < 3; ++i)
      set(buffers.weights[0], i, w0[i]);
    set(buffers.weights[1], 0, b0);
    set(buffers.running[0], 0, r0[0]);
    set(buffers.running[0], 1, r0[1]);
    if (start) {
      INFO(lastError());
      REQUIRE(mixrt_train_start(state()) == MIXRT_STATUS_OK);
    }
  }
  void *state() const { return memory->get(); }
  void set(void *p, int64_t i, double v) const {
    if (f64)
      static_cast<double *>(p)[i] = v;
    else
      static_cast<float *>(p)[i] = static_cast<float>(v);
  }
  double working(int p, int64_t i) const {
    return loadAt(buffers.weights[p], f64, i);
  }
  double running(int64_t i) const { return loadAt(buffers.running[0], f64, i); }
  double master(int p, int64_t i) const {
    mixrt_master_format format = MIXRT_MASTER_MAX_ENUM;
    const void *m = mixrt_train_master(state(), p, &format);
    REQUIRE(m != nullptr);
    return loadAt(m, format == MIXRT_MASTER_F64, i);
  }
  /// begin + the gradient function; returns the scale passed.
  float runGradient(int step, int poison = -1) {
    mixrt_train_buffers b{};
    REQUIRE(mixrt_train_begin(state(), &b) == MIXRT_STATUS_OK);
    REQUIRE(b.loss_scale == buffers.loss_scale);
    if (f64)
      gradient(static_cast<const double *>(b.weights[0]),
               static_cast<const double *>(b.weights[1]), *b.loss_scale, b.loss,
               static_cast<double *>(b.grads[0]),
               static_cast<double *>(b.grads[1]),
               static_cast<double *>(b.batch_stats[0]), step, poison);
    else
      gradient(static_cast<const float *>(b.weights[0]),
               static_cast<const float *>(b.weights[1]), *b.loss_scale, b.loss,
               static_cast<float *>(b.grads[0]),
               static_cast<float *>(b.grads[1]),
               static_cast<float *>(b.batch_stats[0]), step, poison);
    return *b.loss_scale;
  }
  /// The state bytes after the header, gradients masked (they are scratch:
  /// finish unscales them in place).
  std::string snapshot() const {
    const char *base = static_cast<const char *>(state());
    const char *from = reinterpret_cast<const char *>(buffers.weights);
    std::string bytes(from, base + memory->size());
    for (int p = 0; p < 2; ++p) {
      const char *g = static_cast<const char *>(buffers.grads[p]);
      const size_t n = (p == 0 ? 3 : 1) * (f64 ? 8 : 4);
      std::memset(&bytes[static_cast<size_t>(g - from)], 0, n);
    }
    return bytes;
  }
};

mixrt_train_config defaultConfig() {
  mixrt_train_config c;
  mixrt_train_config_init(&c);
  return c;
}

} // namespace

TEST_CASE("train.config_init", "[train]") {
  mixrt_train_config c;
  std::memset(&c, 0x5A, sizeof(c));
  mixrt_train_config_init(&c);
  CHECK(c.optimizer.kind == MIXRT_OPTIMIZER_ADAM);
  CHECK(c.optimizer.learning_rate == 1e-3);
  CHECK(c.master_format == MIXRT_MASTER_F64);
  CHECK(c.loss_scaler.initial_scale == 65536.0);
  CHECK(c.max_grad_norm == 0.0);
  CHECK(c.batch_norm_momentum == 0.1);
  CHECK(c.initial_weights == nullptr);
  mixrt_train_config_init(nullptr); // no crash
}

namespace {

/// Runs 12 steps with the trainer and with a hand-driven optimizer + loss
/// scaler (+ clipping) and compares every master bit for bit. Step 4 has an
/// inf gradient, step 7 reports OUT_OF_RANGE from the gradient function.
void checkTrajectory(mixrt_optimizer_kind kind, double maxGradNorm) {
  mixrt_train_config config = defaultConfig();
  mixrt_optimizer_config_init(kind, &config.optimizer);
  config.optimizer.learning_rate = 0.05;
  if (kind == MIXRT_OPTIMIZER_SGD) {
    config.optimizer.momentum = 0.9;
    config.optimizer.weight_decay = 0.01;
  }
  if (kind == MIXRT_OPTIMIZER_ADAM)
    config.optimizer.weight_decay = 0.02;
  config.loss_scaler.initial_scale = 1024.0;
  config.loss_scaler.growth_interval = 3;
  config.max_grad_norm = maxGradNorm;
  config.batch_norm_momentum = 0.25;
  Trainer t(/*f64=*/false, config);

  // The reference: one optimizer over w (3) and b (1), f32 gradients.
  mixrt_optimizer *opt = nullptr;
  REQUIRE(mixrt_optimizer_create(&config.optimizer, &opt) == MIXRT_STATUS_OK);
  const double w0[3] = {0.5, -0.25, 1.0}, b0 = 0.125;
  REQUIRE(mixrt_optimizer_add_param(opt, w0, 3, MIXRT_LOWP_NONE, nullptr) ==
          MIXRT_STATUS_OK);
  REQUIRE(mixrt_optimizer_add_param(opt, &b0, 1, MIXRT_LOWP_NONE, nullptr) ==
          MIXRT_STATUS_OK);
  mixrt_loss_scaler *scaler = nullptr;
  REQUIRE(mixrt_loss_scaler_create(&config.loss_scaler, &scaler) ==
          MIXRT_STATUS_OK);
  double running[2] = {1.0, -1.0};
  int64_t updates = 0;

  for (int step = 1; step <= 12; ++step) {
    INFO("step " << step);
    const int poison = step == 4 ? 1 : -1;
    const bool gradFails = step == 7;
    // Reference gradient at the reference's working copies (f32).
    const double scale = mixrt_loss_scaler_scale(scaler);
    float rw[3], rb[1], dw[3], db[1], batch[2], loss;
    for (int i = 0; i < 3; ++i)
      rw[i] = static_cast<float>(mixrt_optimizer_master(opt, 0)[i]);
    rb[0] = static_cast<float>(mixrt_optimizer_master(opt, 1)[0]);
    gradient(rw, rb, static_cast<float>(scale), &loss, dw, db, batch, step,
             poison);

    // The trainer.
    const float usedScale = t.runGradient(step, poison);
    CHECK(usedScale == static_cast<float>(scale));
    CHECK(*t.buffers.loss == loss);
    const std::string before = t.snapshot();
    mixrt_train_step_result result;
    REQUIRE(mixrt_train_finish(t.state(),
                               gradFails ? MIXRT_STATUS_OUT_OF_RANGE
                                         : MIXRT_STATUS_OK,
                               &result) == MIXRT_STATUS_OK);

    // The reference step.
    float *grads[2] = {dw, db};
    const int64_t sizes[2] = {3, 1};
    int32_t foundInf = 1;
    if (!gradFails)
      REQUIRE(mixrt_loss_scaler_unscale_f32(scaler, grads, sizes, 2,
                                            &foundInf) == MIXRT_STATUS_OK);
    double norm = NAN;
    if (!foundInf) {
      if (maxGradNorm > 0)
        REQUIRE(mixrt_clip_grad_norm_f32(grads, sizes, 2, maxGradNorm,
                                         MIXRT_CLIP_DEFAULT_EPS, &norm,
                                         nullptr) == MIXRT_STATUS_OK);
      else
        REQUIRE(mixrt_grad_norm_f32(grads, sizes, 2, &norm) == MIXRT_STATUS_OK);
      const float *cgrads[2] = {dw, db};
      REQUIRE(mixrt_optimizer_step_f32(opt, cgrads, sizes, 2) ==
              MIXRT_STATUS_OK);
      for (int i = 0; i < 2; ++i)
        running[i] = static_cast<double>(static_cast<float>(
            (1.0 - 0.25) * running[i] + 0.25 * static_cast<double>(batch[i])));
      ++updates;
    }
    REQUIRE(mixrt_loss_scaler_update(scaler, foundInf) == MIXRT_STATUS_OK);

    CHECK(result.skipped == foundInf);
    CHECK(result.loss == static_cast<double>(loss));
    CHECK(result.scale == scale);
    CHECK(result.next_scale == mixrt_loss_scaler_scale(scaler));
    CHECK(result.updates == updates);
    if (foundInf) {
      CHECK(std::isnan(result.grad_norm));
      CHECK(result.next_scale == scale / 2);
      // Every byte of masters, moments, working copies and running
      // statistics is unchanged.
      CHECK(t.snapshot() == before);
    } else {
      CHECK(result.grad_norm == norm);
    }
    for (int i = 0; i < 3; ++i) {
      CHECK(t.master(0, i) == mixrt_optimizer_master(opt, 0)[i]);
      CHECK(t.working(0, i) == static_cast<double>(static_cast<float>(
                                   mixrt_optimizer_master(opt, 0)[i])));
    }
    CHECK(t.master(1, 0) == mixrt_optimizer_master(opt, 1)[0]);
    CHECK(t.running(0) == running[0]);
    CHECK(t.running(1) == running[1]);
  }
  CHECK(updates == 10);
  mixrt_optimizer_destroy(opt);
  mixrt_loss_scaler_destroy(scaler);
}

} // namespace

TEST_CASE("train.trajectory_matches_optimizer_and_scaler", "[train]") {
  for (mixrt_optimizer_kind kind :
       {MIXRT_OPTIMIZER_SGD, MIXRT_OPTIMIZER_ADAM, MIXRT_OPTIMIZER_ADAMW})
    for (double clip : {0.0, 0.05}) {
      INFO("kind " << kind << " clip " << clip);
      checkTrajectory(kind, clip);
    }
}

TEST_CASE("train.clipping_matches_clip_grad_norm", "[train]") {
  // f64 buffers: the trainer's norm and clipped update equal
  // mixrt_clip_grad_norm_f64 on the unscaled gradients.
  mixrt_train_config config = defaultConfig();
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config.optimizer);
  config.optimizer.learning_rate = 0.5;
  config.loss_scaler.initial_scale = 8.0;
  config.max_grad_norm = 0.01;
  Trainer t(/*f64=*/true, config);
  t.runGradient(1);
  double g[4];
  std::memcpy(g, t.buffers.grads[0], 3 * sizeof(double));
  std::memcpy(g + 3, t.buffers.grads[1], sizeof(double));
  for (double &x : g)
    x = x * (1.0 / 8.0);
  double *grads[2] = {g, g + 3};
  const int64_t sizes[2] = {3, 1};
  double norm = 0, coef = 0;
  REQUIRE(mixrt_clip_grad_norm_f64(grads, sizes, 2, 0.01,
                                   MIXRT_CLIP_DEFAULT_EPS, &norm,
                                   &coef) == MIXRT_STATUS_OK);
  REQUIRE(coef < 1.0);
  mixrt_train_step_result result;
  REQUIRE(mixrt_train_finish(t.state(), MIXRT_STATUS_OK, &result) ==
          MIXRT_STATUS_OK);
  CHECK(result.grad_norm == norm);
  const double w0[3] = {0.5, -0.25, 1.0};
  for (int i = 0; i < 3; ++i) {
    CHECK(static_cast<const double *>(t.buffers.grads[0])[i] == g[i]);
    CHECK(t.master(0, i) == w0[i] - 0.5 * g[i]);
    CHECK(t.working(0, i) == t.master(0, i));
  }
  CHECK(t.master(1, 0) == 0.125 - 0.5 * g[3]);
}

TEST_CASE("train.f64_trajectory_is_bit_identical", "[train]") {
  // f64 buffers and masters, Adam: against mixrt_optimizer_step_f64.
  mixrt_train_config config = defaultConfig();
  config.optimizer.learning_rate = 0.01;
  config.loss_scaler.initial_scale = 4.0;
  Trainer t(/*f64=*/true, config);
  mixrt_optimizer *opt = nullptr;
  REQUIRE(mixrt_optimizer_create(&config.optimizer, &opt) == MIXRT_STATUS_OK);
  const double w0[3] = {0.5, -0.25, 1.0}, b0 = 0.125;
  REQUIRE(mixrt_optimizer_add_param(opt, w0, 3, MIXRT_LOWP_NONE, nullptr) ==
          MIXRT_STATUS_OK);
  REQUIRE(mixrt_optimizer_add_param(opt, &b0, 1, MIXRT_LOWP_NONE, nullptr) ==
          MIXRT_STATUS_OK);
  for (int step = 1; step <= 20; ++step) {
    double dw[3], db[1], batch[2];
    float loss;
    gradient(mixrt_optimizer_master(opt, 0), mixrt_optimizer_master(opt, 1),
             4.0f, &loss, dw, db, batch, step);
    for (double &x : dw)
      x *= 1.0 / 4.0;
    db[0] *= 1.0 / 4.0;
    const double *grads[2] = {dw, db};
    const int64_t sizes[2] = {3, 1};
    REQUIRE(mixrt_optimizer_step_f64(opt, grads, sizes, 2) == MIXRT_STATUS_OK);
    t.runGradient(step);
    REQUIRE(mixrt_train_finish(t.state(), MIXRT_STATUS_OK, nullptr) ==
            MIXRT_STATUS_OK);
    for (int i = 0; i < 3; ++i) {
      REQUIRE(t.master(0, i) == mixrt_optimizer_master(opt, 0)[i]);
      REQUIRE(t.working(0, i) == t.master(0, i));
    }
    REQUIRE(t.master(1, 0) == mixrt_optimizer_master(opt, 1)[0]);
  }
  mixrt_optimizer_destroy(opt);
}

TEST_CASE("train.grad_status_errors_pass_through", "[train]") {
  Trainer t(/*f64=*/false, defaultConfig());
  t.runGradient(1);
  const std::string before = t.snapshot();
  std::vector<char> grads(static_cast<const char *>(t.buffers.grads[0]),
                          static_cast<const char *>(t.buffers.grads[0]) + 12);
  // The gradient function's failure with its own message.
  mixrt_check_reset();
  mixrt_check_fail(MIXRT_STATUS_INVALID_ARGUMENT, "m.mlir:3:4",
                   "non-finite value reaches an int8 quantize", 2, NAN);
  REQUIRE(mixrt_check_status() == MIXRT_STATUS_INVALID_ARGUMENT);
  mixrt_check_reset();
  const std::string message = lastError();
  for (mixrt_status_code code :
       {MIXRT_STATUS_INVALID_ARGUMENT, MIXRT_STATUS_INTERNAL,
        MIXRT_STATUS_RESOURCE_EXHAUSTED, MIXRT_STATUS_UNIMPLEMENTED,
        MIXRT_STATUS_DATA_LOSS}) {
    mixrt_train_step_result result;
    result.updates = -5;
    CHECK(mixrt_train_finish(t.state(), code, &result) == code);
    CHECK(result.updates == -5);
    CHECK(lastError() == message);
  }
  // Nothing changed, not even the gradients (no unscale) or the scale.
  CHECK(t.snapshot() == before);
  CHECK(std::memcmp(grads.data(), t.buffers.grads[0], 12) == 0);
  mixrt_train_buffers b;
  REQUIRE(mixrt_train_begin(t.state(), &b) == MIXRT_STATUS_OK);
  CHECK(*b.loss_scale == 65536.0f);
  // A value that is no status code.
  CHECK(mixrt_train_finish(t.state(), static_cast<mixrt_status_code>(7),
                           nullptr) == MIXRT_STATUS_INTERNAL);
  CHECK(lastError() == "train_finish: network 'lsq': grad_status (7) is not a "
                       "mixrt_status_code");
}

TEST_CASE("train.f16_bf16_working_copies", "[train]") {
  for (mixrt_master_format mf : {MIXRT_MASTER_F64, MIXRT_MASTER_F32})
    for (bool f64 : {false, true})
      for (mixrt_lowp_format working : {MIXRT_LOWP_F16, MIXRT_LOWP_BF16}) {
        INFO("master " << mf << " f64 " << f64 << " working " << working);
        mixrt_train_config config = defaultConfig();
        config.master_format = mf;
        config.optimizer.learning_rate = 0.003;
        Trainer t(f64, config, working);
        for (int step = 0; step <= 5; ++step) {
          if (step > 0) {
            t.runGradient(step);
            REQUIRE(mixrt_train_finish(t.state(), MIXRT_STATUS_OK, nullptr) ==
                    MIXRT_STATUS_OK);
          }
          for (int p = 0; p < 2; ++p)
            for (int i = 0; i < (p == 0 ? 3 : 1); ++i) {
              const double m = t.master(p, i);
              // One rounding from the master (an f32 master is exact in
              // f64, so rounding its f64 value is rounding it).
              const double want = working == MIXRT_LOWP_F16
                                      ? mixrt_f16_to_f64(mixrt_f64_to_f16(m))
                                      : mixrt_bf16_to_f64(mixrt_f64_to_bf16(m));
              CHECK(t.working(p, i) == want);
              if (mf == MIXRT_MASTER_F32)
                CHECK(m == static_cast<double>(static_cast<float>(m)));
            }
        }
        // The masters moved below the f16/bf16 resolution: the master is
        // not the working copy.
        CHECK(t.master(0, 0) != t.working(0, 0));
      }
}

TEST_CASE("train.f32_master_loses_small_updates", "[train]") {
  // w = 1, SGD lr 1, gradient -2^-26 (scale 1): the f64 master gains
  // 2^-26 a step; the f32 master stays 1 (half an ulp above 1 is 2^-24).
  for (mixrt_master_format mf : {MIXRT_MASTER_F64, MIXRT_MASTER_F32}) {
    INFO("master " << mf);
    mixrt_train_config config = defaultConfig();
    mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config.optimizer);
    config.optimizer.learning_rate = 1.0;
    config.master_format = mf;
    config.loss_scaler.initial_scale = 1.0;
    config.loss_scaler.growth_interval = INT64_MAX;
    static const mixrt_train_param param = {"w", 0, nullptr, 1,
                                            MIXRT_LOWP_NONE};
    const mixrt_train_layout layout = {"tiny", 1, &param, 0, nullptr, 0};
    StateMemory memory(mixrt_train_state_size(&layout));
    mixrt_train_buffers b;
    REQUIRE(mixrt_train_prepare(memory.get(), memory.size(), &layout, &config,
                                &b) == MIXRT_STATUS_OK);
    CHECK(b.batch_stats != nullptr);
    static_cast<double *>(b.weights[0])[0] = 1.0;
    REQUIRE(mixrt_train_start(memory.get()) == MIXRT_STATUS_OK);
    for (int step = 0; step < 1000; ++step) {
      REQUIRE(mixrt_train_begin(memory.get(), &b) == MIXRT_STATUS_OK);
      CHECK(*b.loss_scale == 1.0f);
      static_cast<double *>(b.grads[0])[0] = -0x1p-26;
      REQUIRE(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, nullptr) ==
              MIXRT_STATUS_OK);
    }
    mixrt_master_format format;
    const void *m = mixrt_train_master(memory.get(), 0, &format);
    REQUIRE(m != nullptr);
    CHECK(format == mf);
    if (mf == MIXRT_MASTER_F32) {
      CHECK(*static_cast<const float *>(m) == 1.0f);
      CHECK(static_cast<double *>(b.weights[0])[0] == 1.0);
    } else {
      CHECK(*static_cast<const double *>(m) == 1.0 + 1000 * 0x1p-26);
      CHECK(static_cast<double *>(b.weights[0])[0] == 1.0 + 1000 * 0x1p-26);
    }
  }
}

TEST_CASE("train.adamw_f32_master_rounds_once", "[train]") {
  // f32 masters: the update is computed in f64 from the f32 master and
  // moments and rounded once (RNE) to f32.
  mixrt_train_config config = defaultConfig();
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAMW, &config.optimizer);
  config.optimizer.learning_rate = 0.01;
  config.master_format = MIXRT_MASTER_F32;
  config.loss_scaler.initial_scale = 2.0;
  Trainer t(/*f64=*/false, config);
  mixrt::OptimizerConfig c = mixrt::OptimizerConfig::AdamW(0.01);
  float w[3] = {0.5f, -0.25f, 1.0f}, m[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  for (int step = 1; step <= 6; ++step) {
    float dw[3], db[1], batch[2], loss,
        b[1] = {static_cast<float>(t.master(1, 0))};
    gradient(w, b, 2.0f, &loss, dw, db, batch, step);
    t.runGradient(step);
    REQUIRE(mixrt_train_finish(t.state(), MIXRT_STATUS_OK, nullptr) ==
            MIXRT_STATUS_OK);
    const double stepSize = c.learning_rate / (1.0 - std::pow(c.beta1, step));
    const double c2 = std::sqrt(1.0 - std::pow(c.beta2, step));
    for (int i = 0; i < 3; ++i) {
      const double g = static_cast<double>(dw[i]) * (1.0 / 2.0);
      double wi = w[i], mi = m[i], vi = v[i];
      wi *= 1.0 - c.learning_rate * c.weight_decay;
      mi += (1.0 - c.beta1) * (g - mi);
      vi = c.beta2 * vi + (1.0 - c.beta2) * g * g;
      wi -= stepSize * (mi / (std::sqrt(vi) / c2 + c.epsilon));
      w[i] = static_cast<float>(wi);
      m[i] = static_cast<float>(mi);
      v[i] = static_cast<float>(vi);
      CHECK(t.master(0, i) == static_cast<double>(w[i]));
    }
  }
}

TEST_CASE("train.export_bytes_and_round_trip", "[train]") {
  TempDir dir;
  // A tiny layout: "a" f32 [2], "s" (a statistic) f64 scalar.
  static const int64_t shapeA[1] = {2};
  static const mixrt_train_param param = {"a", 1, shapeA, 0, MIXRT_LOWP_NONE};
  static const mixrt_train_stat stat = {"s", 0, nullptr, 1};
  const mixrt_train_layout layout = {"tiny", 1, &param, 1, &stat, 0};
  StateMemory memory(mixrt_train_state_size(&layout));
  mixrt_train_buffers b;
  REQUIRE(mixrt_train_prepare(memory.get(), memory.size(), &layout, nullptr,
                              &b) == MIXRT_STATUS_OK);
  static_cast<float *>(b.weights[0])[0] = 1.0f;
  static_cast<float *>(b.weights[0])[1] = -2.0f;
  static_cast<double *>(b.running[0])[0] = 0.5;
  REQUIRE(mixrt_train_start(memory.get()) == MIXRT_STATUS_OK);
  const std::string path = dir.file("tiny.safetensors");
  REQUIRE(mixrt_train_export(memory.get(), path.c_str()) == MIXRT_STATUS_OK);
  const std::string want = safetensorsFile(
      "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
      "\"s\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[8,16]}}",
      bytesOf(std::vector<float>{1.0f, -2.0f}) +
          bytesOf(std::vector<double>{0.5}));
  CHECK(readFile(path) == want);
  CHECK((readFile(path).size() - 8) % 8 == 0);
  CHECK_FALSE(fileExists(path + ".tmp." + std::to_string(getpid())));

  // Round trip, F32 and F64 buffers: train a few steps, export, load into a
  // new state: working copies and running statistics are bit-identical.
  for (bool f64 : {false, true}) {
    INFO("f64 " << f64);
    mixrt_train_config config = defaultConfig();
    config.optimizer.learning_rate = 0.01;
    Trainer t(f64, config);
    for (int step = 1; step <= 3; ++step) {
      t.runGradient(step);
      REQUIRE(mixrt_train_finish(t.state(), MIXRT_STATUS_OK, nullptr) ==
              MIXRT_STATUS_OK);
    }
    const std::string out =
        dir.file(f64 ? "f64.safetensors" : "f32.safetensors");
    REQUIRE(mixrt_train_export(t.state(), out.c_str()) == MIXRT_STATUS_OK);
    config.initial_weights = out.c_str();
    Trainer u(f64, config, MIXRT_LOWP_NONE, /*start=*/false);
    // The buffers' contents are ignored when a file is named.
    u.set(u.buffers.weights[0], 0, NAN);
    INFO(lastError());
    REQUIRE(mixrt_train_start(u.state()) == MIXRT_STATUS_OK);
    const size_t e = f64 ? 8 : 4;
    CHECK(std::memcmp(t.buffers.weights[0], u.buffers.weights[0], 3 * e) == 0);
    CHECK(std::memcmp(t.buffers.weights[1], u.buffers.weights[1], e) == 0);
    CHECK(std::memcmp(t.buffers.running[0], u.buffers.running[0], 2 * e) == 0);
    for (int i = 0; i < 3; ++i)
      CHECK(u.master(0, i) == u.working(0, i));
    // Exporting the loaded state gives the same file.
    const std::string again = dir.file("again.safetensors");
    REQUIRE(mixrt_train_export(u.state(), again.c_str()) == MIXRT_STATUS_OK);
    CHECK(readFile(again) == readFile(out));
  }
}

TEST_CASE("train.load_f16_bf16_exactly", "[train]") {
  TempDir dir;
  // w as F16 {1, -2^-24 (subnormal), 65504}, b as BF16 3.0, stat as F64.
  std::string data;
  const uint16_t w16[3] = {0x3c00, 0x8001, 0x7bff};
  data.append(reinterpret_cast<const char *>(w16), 6);
  const uint16_t b16 = 0x4040;
  data.append(reinterpret_cast<const char *>(&b16), 2);
  const double stat[2] = {0.1, -7.0};
  data.append(reinterpret_cast<const char *>(stat), 16);
  const std::string path = dir.file("w.safetensors");
  writeFile(path,
            safetensorsFile(
                "{\"__metadata__\":{\"format\":\"pt\"},"
                "\"w\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,6]}"
                ",\"b\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[6,"
                "8]},\"bn.running_mean\":{\"dtype\":\"F64\",\"shape\":[2],"
                "\"data_offsets\":[8,24]},\"other\":{\"dtype\":\"I32\","
                "\"shape\":[0],\"data_offsets\":[24,24]}}",
                data));
  mixrt_train_config config = defaultConfig();
  config.initial_weights = path.c_str();
  Trainer t(/*f64=*/true, config, MIXRT_LOWP_NONE, /*start=*/false);
  INFO(lastError());
  REQUIRE(mixrt_train_start(t.state()) == MIXRT_STATUS_OK);
  CHECK(t.master(0, 0) == 1.0);
  CHECK(t.master(0, 1) == -0x1p-24);
  CHECK(t.master(0, 2) == 65504.0);
  CHECK(t.master(1, 0) == 3.0);
  CHECK(t.running(0) == 0.1);
  CHECK(t.running(1) == -7.0);
  // Into f32 buffers the F64 statistic is rounded once.
  Trainer u(/*f64=*/false, config, MIXRT_LOWP_NONE, /*start=*/false);
  REQUIRE(mixrt_train_start(u.state()) == MIXRT_STATUS_OK);
  CHECK(u.running(0) == static_cast<double>(0.1f));
}

TEST_CASE("train.load_errors", "[train]") {
  TempDir dir;
  const std::string good =
      "\"b\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[12,16]},"
      "\"bn.running_mean\":{\"dtype\":\"F32\",\"shape\":[2],"
      "\"data_offsets\":[16,24]}";
  const std::string data(24, '\0');
  struct Case {
    const char *name;
    std::string bytes;
    mixrt_status_code code;
    std::vector<std::string> words;
  };
  const std::string wEntry =
      "\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}";
  std::vector<Case> cases = {
      {"ok",
       safetensorsFile("{" + wEntry + "," + good + "}", data),
       MIXRT_STATUS_OK,
       {}},
      {"missing", "", MIXRT_STATUS_NOT_FOUND, {"cannot open", "No such file"}},
      {"truncated",
       std::string("\x10\0\0", 3),
       MIXRT_STATUS_DATA_LOSS,
       {"truncated", "byte offset 0"}},
      {"header_too_long",
       safetensorsFile("{" + wEntry + "," + good + "}", data).substr(0, 40),
       MIXRT_STATUS_DATA_LOSS,
       {"header length", "exceeds"}},
      {"bad_json",
       safetensorsFile("{" + wEntry + "," + good + ",}", data),
       MIXRT_STATUS_DATA_LOSS,
       {"malformed", "byte offset", "string key"}},
      {"bad_json_float",
       safetensorsFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[3.0],"
                       "\"data_offsets\":[0,12]}," +
                           good + "}",
                       data),
       MIXRT_STATUS_DATA_LOSS,
       {"malformed", "expected an integer"}},
      {"bad_json_trailing",
       safetensorsFile("{" + wEntry + "," + good + "}x", data),
       MIXRT_STATUS_DATA_LOSS,
       {"after the JSON object"}},
      {"duplicate_key",
       safetensorsFile("{" + wEntry + "," + wEntry + "," + good + "}", data),
       MIXRT_STATUS_DATA_LOSS,
       {"duplicate key \"w\""}},
      {"missing_key",
       safetensorsFile("{" + good + "}", data),
       MIXRT_STATUS_NOT_FOUND,
       {"weight 'w' is not in", ".safetensors'"}},
      {"wrong_shape",
       safetensorsFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,3],"
                       "\"data_offsets\":[0,12]}," +
                           good + "}",
                       data),
       MIXRT_STATUS_INVALID_ARGUMENT,
       {"weight 'w' has shape [1, 3]", "expects [3]"}},
      {"wrong_dtype",
       safetensorsFile("{\"w\":{\"dtype\":\"I32\",\"shape\":[3],"
                       "\"data_offsets\":[0,12]}," +
                           good + "}",
                       data),
       MIXRT_STATUS_INVALID_ARGUMENT,
       {"dtype I32", "F64, F32, F16 or BF16"}},
      {"offsets_outside",
       safetensorsFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],"
                       "\"data_offsets\":[20,32]}," +
                           good + "}",
                       data),
       MIXRT_STATUS_DATA_LOSS,
       {"outside the data area"}},
      {"size_mismatch",
       safetensorsFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],"
                       "\"data_offsets\":[0,8]}," +
                           good + "}",
                       data),
       MIXRT_STATUS_DATA_LOSS,
       {"needs 12 bytes", "span 8"}},
      {"not_finite",
       "",
       MIXRT_STATUS_INVALID_ARGUMENT,
       {"train_start: network 'lsq': weight 'w' element 1 is not finite "
        "(nan) in '"}},
  };
  {
    // A NaN in the file's w.
    std::string nanData = data;
    const float nan = NAN;
    std::memcpy(&nanData[4], &nan, 4);
    cases.back().bytes =
        safetensorsFile("{" + wEntry + "," + good + "}", nanData);
  }
  for (const Case &c : cases) {
    INFO(c.name);
    const std::string path = dir.file(std::string(c.name) + ".safetensors");
    if (std::string(c.name) != "missing")
      writeFile(path, c.bytes);
    mixrt_train_config config = defaultConfig();
    config.initial_weights = path.c_str();
    Trainer t(/*f64=*/false, config, MIXRT_LOWP_NONE, /*start=*/false);
    const std::string snapshot = t.snapshot();
    CHECK(mixrt_train_start(t.state()) == c.code);
    for (const std::string &w : c.words)
      CHECK_THAT(lastError(), Catch::Contains(w));
    if (c.code != MIXRT_STATUS_OK) {
      CHECK_THAT(lastError(), Catch::Contains(path));
      // Nothing was loaded; the state is still only prepared.
      CHECK(t.snapshot() == snapshot);
      mixrt_train_buffers b;
      CHECK(mixrt_train_begin(t.state(), &b) ==
            MIXRT_STATUS_FAILED_PRECONDITION);
    }
  }
}

TEST_CASE("train.export_errors_leave_no_file", "[train]") {
  TempDir dir;
  Trainer t(/*f64=*/false, defaultConfig());
  // A missing directory.
  const std::string missing = dir.file("no/such/dir/w.safetensors");
  CHECK(mixrt_train_export(t.state(), missing.c_str()) ==
        MIXRT_STATUS_UNAVAILABLE);
  CHECK_THAT(lastError(), Catch::Contains("train_export: network 'lsq': "
                                          "cannot write '" +
                                          missing + "'"));
  CHECK_THAT(lastError(), Catch::Contains("No such file or directory"));
  // The target is a directory: the temporary file is written, the rename
  // fails and the temporary file is removed.
  const std::string target = dir.file("adir");
  REQUIRE(mkdir(target.c_str(), 0700) == 0);
  CHECK(mixrt_train_export(t.state(), target.c_str()) ==
        MIXRT_STATUS_UNAVAILABLE);
  CHECK_THAT(lastError(), Catch::Contains(target));
  CHECK_FALSE(fileExists(target + ".tmp." + std::to_string(getpid())));
  CHECK(mixrt_train_export(t.state(), nullptr) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  // Only the directory is left.
  const std::string listing = dir.file("listing");
  CHECK(std::system(
            ("ls -A '" + dir.path() + "' > '" + listing + "'").c_str()) == 0);
  CHECK(readFile(listing) == "adir\nlisting\n");
}

TEST_CASE("train.prepare_errors", "[train]") {
  Model model(false);
  const int64_t size = mixrt_train_state_size(&model.layout);
  REQUIRE(size > 0);
  StateMemory memory(size + 64);
  void *state = memory.get();
  mixrt_train_buffers b;
  auto prepare = [&](const mixrt_train_config &c) {
    return mixrt_train_prepare(state, size, &model.layout, &c, &b);
  };
  struct Case {
    const char *what;
    void (*edit)(mixrt_train_config &);
    const char *message;
  };
  const Case cases[] = {
      {"nan lr", [](mixrt_train_config &c) { c.optimizer.learning_rate = NAN; },
       "train_prepare: optimizer.learning_rate (nan) must be positive and "
       "finite"},
      {"kind",
       [](mixrt_train_config &c) {
         c.optimizer.kind = static_cast<mixrt_optimizer_kind>(7);
       },
       "train_prepare: optimizer.kind (7) is not a valid mixrt_optimizer_kind"},
      {"beta1", [](mixrt_train_config &c) { c.optimizer.beta1 = 1.0; },
       "train_prepare: optimizer.beta1 (1) must be in [0, 1)"},
      {"master",
       [](mixrt_train_config &c) {
         c.master_format = static_cast<mixrt_master_format>(2);
       },
       "train_prepare: master_format (2) is not a valid mixrt_master_format"},
      {"scaler", [](mixrt_train_config &c) { c.loss_scaler.growth_factor = 1; },
       "train_prepare: loss_scaler.growth_factor (1) must be finite and > 1"},
      {"clip", [](mixrt_train_config &c) { c.max_grad_norm = -1; },
       "train_prepare: max_grad_norm (-1) must be finite and >= 0"},
      {"clip inf", [](mixrt_train_config &c) { c.max_grad_norm = INFINITY; },
       "train_prepare: max_grad_norm (inf) must be finite and >= 0"},
      {"bn", [](mixrt_train_config &c) { c.batch_norm_momentum = 1.5; },
       "train_prepare: batch_norm_momentum (1.5) must be in [0, 1]"},
      {"bn nan", [](mixrt_train_config &c) { c.batch_norm_momentum = NAN; },
       "train_prepare: batch_norm_momentum (nan) must be in [0, 1]"},
  };
  for (const Case &c : cases) {
    INFO(c.what);
    mixrt_train_config config = defaultConfig();
    c.edit(config);
    CHECK(prepare(config) == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == c.message);
  }
  const mixrt_train_config config = defaultConfig();
  CHECK(mixrt_train_prepare(nullptr, size, &model.layout, &config, &b) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "train_prepare: state is null");
  CHECK(mixrt_train_prepare(static_cast<char *>(state) + 8, size, &model.layout,
                            &config, &b) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(lastError(), Catch::Contains("is not 64-byte aligned"));
  CHECK(mixrt_train_prepare(state, size - 1, &model.layout, &config, &b) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "train_prepare: network 'lsq': state_bytes (" +
                           std::to_string(size - 1) +
                           ") is smaller than mixrt_train_state_size (" +
                           std::to_string(size) + ")");
  CHECK(mixrt_train_prepare(state, size, nullptr, &config, &b) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "train_prepare: layout is null");
  // NULL config: the defaults; NULL out_buffers is allowed.
  CHECK(mixrt_train_prepare(state, size, &model.layout, nullptr, nullptr) ==
        MIXRT_STATUS_OK);

  // Invalid layouts: state_size says -1 with the same message.
  struct LayoutCase {
    const char *what;
    void (*edit)(Model &);
    const char *message;
  };
  static const int64_t zeroDim[1] = {0};
  const LayoutCase layouts[] = {
      {"int8", [](Model &m) { m.params[0].working = MIXRT_LOWP_INT8; },
       "network 'lsq': weight 'w': working format INT8 is refused (an int8 "
       "layer quantizes its f32 copy itself)"},
      {"working enum",
       [](Model &m) {
         m.params[0].working = static_cast<mixrt_lowp_format>(9);
       },
       "network 'lsq': weight 'w': working (9) is not a valid "
       "mixrt_lowp_format"},
      {"rank", [](Model &m) { m.params[1].rank = 9; },
       "network 'lsq': weight 'b': rank (9) must be in 0..8"},
      {"dim", [](Model &m) { m.stats[0].shape = zeroDim; },
       "network 'lsq': statistic 'bn.running_mean': shape[0] (0) must be "
       ">= 1"},
      {"element_f64", [](Model &m) { m.params[0].element_f64 = 2; },
       "network 'lsq': weight 'w': element_f64 (2) must be 0 or 1"},
      {"no params", [](Model &m) { m.layout.num_params = 0; },
       "network 'lsq': num_params (0) must be >= 1"},
      {"null name", [](Model &m) { m.params[1].name = nullptr; },
       "network 'lsq': params[1].name is null"},
      {"null network", [](Model &m) { m.layout.network = nullptr; },
       "layout->network is null"},
      {"workspace", [](Model &m) { m.layout.workspace_bytes = -1; },
       "network 'lsq': workspace_bytes (-1) is negative"},
      {"duplicate", [](Model &m) { m.stats[0].name = "w"; },
       "network 'lsq': the name 'w' is used twice"},
      {"overflow", [](Model &m) { m.layout.workspace_bytes = INT64_MAX - 10; },
       "network 'lsq': the state size overflows PTRDIFF_MAX"},
  };
  for (const LayoutCase &c : layouts) {
    INFO(c.what);
    Model bad(false);
    c.edit(bad);
    CHECK(mixrt_train_state_size(&bad.layout) == -1);
    CHECK(lastError() == std::string("train_state_size: ") + c.message);
    CHECK(mixrt_train_prepare(state, size, &bad.layout, &config, &b) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == std::string("train_prepare: ") + c.message);
  }
  CHECK(mixrt_train_state_size(nullptr) == -1);
  CHECK(lastError() == "train_state_size: layout is null");
}

TEST_CASE("train.stage_errors", "[train]") {
  Model model(false);
  const int64_t size = mixrt_train_state_size(&model.layout);
  StateMemory memory(size);
  mixrt_train_buffers b;
  // Not prepared.
  CHECK(mixrt_train_start(memory.get()) == MIXRT_STATUS_FAILED_PRECONDITION);
  CHECK(lastError() == "train_start: the state is not prepared (call "
                       "mixrt_train_prepare first)");
  CHECK(mixrt_train_begin(memory.get(), &b) ==
        MIXRT_STATUS_FAILED_PRECONDITION);
  CHECK(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, nullptr) ==
        MIXRT_STATUS_FAILED_PRECONDITION);
  CHECK(mixrt_train_export(memory.get(), "/tmp/x") ==
        MIXRT_STATUS_FAILED_PRECONDITION);
  CHECK(mixrt_train_begin(nullptr, &b) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_train_master(memory.get(), 0, nullptr) == nullptr);
  CHECK(mixrt_train_master(nullptr, 0, nullptr) == nullptr);
  // Prepared, not started.
  REQUIRE(mixrt_train_prepare(memory.get(), size, &model.layout, nullptr, &b) ==
          MIXRT_STATUS_OK);
  CHECK(mixrt_train_begin(memory.get(), &b) ==
        MIXRT_STATUS_FAILED_PRECONDITION);
  CHECK(lastError() == "train_begin: network 'lsq': the state is not started "
                       "(call mixrt_train_start first)");
  CHECK(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, nullptr) ==
        MIXRT_STATUS_FAILED_PRECONDITION);
  CHECK(mixrt_train_master(memory.get(), 0, nullptr) == nullptr);
  // A non-finite initial weight.
  static_cast<float *>(b.weights[0])[2] = NAN;
  CHECK(mixrt_train_start(memory.get()) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "train_start: network 'lsq': weight 'w' element 2 is not finite (nan)");
  static_cast<float *>(b.weights[0])[2] = 1.0f;
  static_cast<float *>(b.running[0])[1] = -INFINITY;
  CHECK(mixrt_train_start(memory.get()) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "train_start: network 'lsq': statistic "
                       "'bn.running_mean' element 1 is not finite (-inf)");
  static_cast<float *>(b.running[0])[1] = 0.0f;
  REQUIRE(mixrt_train_start(memory.get()) == MIXRT_STATUS_OK);
  CHECK(mixrt_train_start(memory.get()) == MIXRT_STATUS_FAILED_PRECONDITION);
  CHECK(lastError() ==
        "train_start: network 'lsq': the state was already started");
  CHECK(mixrt_train_master(memory.get(), 2, nullptr) == nullptr);
  CHECK(mixrt_train_master(memory.get(), -1, nullptr) == nullptr);
  CHECK(mixrt_train_master(memory.get(), 1, nullptr) != nullptr);
}

TEST_CASE("train.overflowing_working_copies", "[train]") {
  // An initial weight above the f16 range: start refuses it.
  Model model(false, MIXRT_LOWP_F16);
  const int64_t size = mixrt_train_state_size(&model.layout);
  StateMemory memory(size);
  mixrt_train_buffers b;
  mixrt_train_config config = defaultConfig();
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config.optimizer);
  config.optimizer.learning_rate = 1.0;
  config.loss_scaler.initial_scale = 1.0;
  REQUIRE(mixrt_train_prepare(memory.get(), size, &model.layout, &config, &b) ==
          MIXRT_STATUS_OK);
  static_cast<float *>(b.weights[0])[1] = 70000.0f;
  CHECK(mixrt_train_start(memory.get()) == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK(lastError() ==
        "train_start: network 'lsq': weight 'w' element 1 (70000) overflows "
        "f16");
  static_cast<float *>(b.weights[0])[1] = 65000.0f;
  REQUIRE(mixrt_train_start(memory.get()) == MIXRT_STATUS_OK);
  // A step taking w[1] beyond f16: OUT_OF_RANGE, nothing changes.
  REQUIRE(mixrt_train_begin(memory.get(), &b) == MIXRT_STATUS_OK);
  std::memset(b.grads[0], 0, 12);
  static_cast<float *>(b.grads[0])[1] = -1000.0f;
  static_cast<float *>(b.grads[1])[0] = 1.0f;
  const std::string w(static_cast<const char *>(b.weights[0]), 12);
  const double m1 = *static_cast<const double *>(
      mixrt_train_master(memory.get(), 1, nullptr));
  mixrt_train_step_result r;
  CHECK(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, &r) ==
        MIXRT_STATUS_OUT_OF_RANGE);
  CHECK_THAT(lastError(), Catch::Contains("train_finish: network 'lsq': "
                                          "weight 'w' element 1"));
  CHECK_THAT(lastError(), Catch::Contains("nothing was changed"));
  CHECK(std::string(static_cast<const char *>(b.weights[0]), 12) == w);
  // b (earlier in the check pass than nothing; later in order) unchanged.
  CHECK(*static_cast<const double *>(
            mixrt_train_master(memory.get(), 1, nullptr)) == m1);
}

TEST_CASE("train.state_size_and_alignment", "[train]") {
  Model model(true);
  const int64_t size = mixrt_train_state_size(&model.layout);
  StateMemory memory(size);
  mixrt_train_buffers b;
  REQUIRE(mixrt_train_prepare(memory.get(), size, &model.layout, nullptr, &b) ==
          MIXRT_STATUS_OK);
  const char *lo = static_cast<const char *>(memory.get());
  const char *hi = lo + size;
  auto inside = [&](const void *p, int64_t bytes) {
    const char *c = static_cast<const char *>(p);
    return reinterpret_cast<uintptr_t>(p) % 64 == 0 && c >= lo &&
           c + bytes <= hi;
  };
  CHECK(inside(b.loss_scale, 4));
  CHECK(inside(b.loss, 4));
  CHECK(inside(b.weights, 16));
  CHECK(inside(b.grads, 16));
  CHECK(inside(b.batch_stats, 8));
  CHECK(inside(b.running, 8));
  CHECK(inside(b.workspace, 256));
  CHECK(inside(b.weights[0], 24));
  CHECK(inside(b.weights[1], 8));
  CHECK(inside(b.grads[0], 24));
  CHECK(inside(b.grads[1], 8));
  CHECK(inside(b.batch_stats[0], 16));
  CHECK(inside(b.running[0], 16));
  // f32 buffers take no more room (64-byte rounding may make it equal).
  Model small(false);
  CHECK(mixrt_train_state_size(&small.layout) <= size);
}

#ifndef MIXRT_TEST_ASAN
TEST_CASE("train.step_path_allocates_nothing", "[train]") {
  Model model(/*f64=*/false, MIXRT_LOWP_F16);
  mixrt_train_config config = defaultConfig();
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAMW, &config.optimizer);
  config.max_grad_norm = 0.5;
  config.loss_scaler.growth_interval = 2;
  const int64_t size = mixrt_train_state_size(&model.layout);
  StateMemory memory(size);
  mixrt_status_code codes[64];
  int n = 0;
  const int64_t before = newCalls.load();
  mixrt_train_buffers b;
  codes[n++] =
      mixrt_train_prepare(memory.get(), size, &model.layout, &config, &b);
  for (int i = 0; i < 3; ++i)
    static_cast<float *>(b.weights[0])[i] = 0.25f * static_cast<float>(i);
  static_cast<float *>(b.weights[1])[0] = 0.0f;
  codes[n++] = mixrt_train_start(memory.get());
  for (int step = 1; step <= 20; ++step) {
    codes[n++] = mixrt_train_begin(memory.get(), &b);
    gradient(static_cast<const float *>(b.weights[0]),
             static_cast<const float *>(b.weights[1]), *b.loss_scale, b.loss,
             static_cast<float *>(b.grads[0]), static_cast<float *>(b.grads[1]),
             static_cast<float *>(b.batch_stats[0]), step,
             step % 7 == 0 ? 0 : -1);
    mixrt_train_step_result r;
    codes[n++] = mixrt_train_finish(
        memory.get(),
        step % 9 == 0 ? MIXRT_STATUS_OUT_OF_RANGE : MIXRT_STATUS_OK, &r);
  }
  const int64_t after = newCalls.load();
  CHECK(after == before);
  for (int i = 0; i < n; ++i)
    CHECK(codes[i] == MIXRT_STATUS_OK);
  // The counter works: export (allowed to allocate) is seen.
  const int64_t beforeExport = newCalls.load();
  CHECK(mixrt_train_export(memory.get(), "/nonexistent-dir/x") ==
        MIXRT_STATUS_UNAVAILABLE);
  CHECK(newCalls.load() > beforeExport);
}
#endif

//===----------------------------------------------------------------------===//
// The specialized update loops (one per optimizer rule, vectorized, AVX2
// and portable builds; trainer.cpp) against mixrt_optimizer.
//===----------------------------------------------------------------------===//

namespace {

constexpr int64_t kBigCount = 1037; // Vector bodies, tails, two tiles.

/// Masters and working copies of a run, as f64 values, step after step.
struct Run {
  std::vector<double> values;
};

/// Runs 6 steps of a layout {w: 1037, b: 5} with deterministic gradients
/// of varied magnitudes (written scaled by 4, the loss scale) and returns
/// every master and working copy after every step; `reference` (if not
/// null) is a mixrt_optimizer fed the trainer's unscaled gradients, whose
/// masters must equal the trainer's f64 masters bit for bit.
Run runRule(const mixrt_optimizer_config &optimizer, bool f64Buffers,
            mixrt_master_format masterFormat, mixrt_lowp_format working,
            mixrt_optimizer *reference) {
  const int64_t shapes[2] = {kBigCount, 5};
  const mixrt_train_param params[2] = {
      {"w", 1, &shapes[0], f64Buffers ? 1 : 0, working},
      {"b", 1, &shapes[1], f64Buffers ? 1 : 0, MIXRT_LOWP_NONE}};
  mixrt_train_layout layout{"rules", 2, params, 0, nullptr, 0};
  mixrt_train_config config = defaultConfig();
  config.optimizer = optimizer;
  config.master_format = masterFormat;
  config.loss_scaler.initial_scale = 4.0;
  const int64_t size = mixrt_train_state_size(&layout);
  REQUIRE(size > 0);
  StateMemory memory(size);
  mixrt_train_buffers b;
  REQUIRE(mixrt_train_prepare(memory.get(), size, &layout, &config, &b) ==
          MIXRT_STATUS_OK);
  auto store = [&](void *p, int64_t i, double v) {
    if (f64Buffers)
      static_cast<double *>(p)[i] = v;
    else
      static_cast<float *>(p)[i] = static_cast<float>(v);
  };
  for (int p = 0; p < 2; ++p)
    for (int64_t i = 0; i < shapes[p]; ++i)
      store(b.weights[p], i, 0.5 * std::cos(0.7 * static_cast<double>(i + p)));
  REQUIRE(mixrt_train_start(memory.get()) == MIXRT_STATUS_OK);
  Run run;
  for (int step = 1; step <= 6; ++step) {
    INFO("step " << step);
    REQUIRE(mixrt_train_begin(memory.get(), &b) == MIXRT_STATUS_OK);
    for (int p = 0; p < 2; ++p)
      for (int64_t i = 0; i < shapes[p]; ++i) {
        const double magnitude = i % 7 == 0 ? 30.0 : i % 5 == 0 ? 1e-6 : 0.1;
        store(b.grads[p], i,
              4.0 * magnitude *
                  std::sin(0.37 * static_cast<double>(i) + step + 3 * p));
      }
    mixrt_train_step_result r;
    REQUIRE(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, &r) ==
            MIXRT_STATUS_OK);
    REQUIRE(r.skipped == 0);
    if (reference) {
      const int64_t sizes[2] = {shapes[0], shapes[1]};
      if (f64Buffers) {
        const double *g[2] = {static_cast<const double *>(b.grads[0]),
                              static_cast<const double *>(b.grads[1])};
        REQUIRE(mixrt_optimizer_step_f64(reference, g, sizes, 2) ==
                MIXRT_STATUS_OK);
      } else {
        const float *g[2] = {static_cast<const float *>(b.grads[0]),
                             static_cast<const float *>(b.grads[1])};
        REQUIRE(mixrt_optimizer_step_f32(reference, g, sizes, 2) ==
                MIXRT_STATUS_OK);
      }
    }
    for (int p = 0; p < 2; ++p) {
      mixrt_master_format format;
      const void *master = mixrt_train_master(memory.get(), p, &format);
      REQUIRE(master != nullptr);
      for (int64_t i = 0; i < shapes[p]; ++i) {
        const double m = loadAt(master, format == MIXRT_MASTER_F64, i);
        run.values.push_back(m);
        run.values.push_back(loadAt(b.weights[p], f64Buffers, i));
        if (reference) {
          INFO("param " << p << " element " << i);
          REQUIRE(m == mixrt_optimizer_master(reference, p)[i]);
        }
      }
    }
  }
  return run;
}

} // namespace

TEST_CASE("train.specialized_rules_match_optimizer", "[train]") {
  struct Case {
    mixrt_optimizer_kind kind;
    double weightDecay, momentum, dampening;
    bool nesterov;
  };
  const Case cases[] = {
      {MIXRT_OPTIMIZER_SGD, 0.0, 0.0, 0.0, false},
      {MIXRT_OPTIMIZER_SGD, 0.01, 0.0, 0.0, false},
      {MIXRT_OPTIMIZER_SGD, 0.0, 0.9, 0.0, false},
      {MIXRT_OPTIMIZER_SGD, 0.01, 0.9, 0.1, false},
      {MIXRT_OPTIMIZER_SGD, 0.0, 0.9, 0.0, true},
      {MIXRT_OPTIMIZER_SGD, 0.01, 0.9, 0.0, true},
      {MIXRT_OPTIMIZER_ADAM, 0.0, 0.0, 0.0, false},
      {MIXRT_OPTIMIZER_ADAM, 0.02, 0.0, 0.0, false},
      {MIXRT_OPTIMIZER_ADAMW, 0.0, 0.0, 0.0, false},
      {MIXRT_OPTIMIZER_ADAMW, 0.02, 0.0, 0.0, false},
  };
  const mixrt_simd_level saved = mixrt_get_simd_level();
  for (const Case &c : cases)
    for (bool f64Buffers : {false, true}) {
      INFO("kind " << c.kind << " wd " << c.weightDecay << " momentum "
                   << c.momentum << " nesterov " << c.nesterov
                   << " f64 buffers " << f64Buffers);
      mixrt_optimizer_config opt;
      mixrt_optimizer_config_init(c.kind, &opt);
      opt.learning_rate = 0.01;
      opt.weight_decay = c.weightDecay;
      if (c.kind == MIXRT_OPTIMIZER_SGD) {
        opt.momentum = c.momentum;
        opt.dampening = c.dampening;
        opt.nesterov = c.nesterov ? 1 : 0;
      }
      Run runs[2][2]; // [simd level][master f32]
      for (mixrt_simd_level level : {MIXRT_SIMD_PORTABLE, MIXRT_SIMD_AVX2}) {
        if (mixrt_set_simd_level(level) != MIXRT_STATUS_OK)
          continue; // No AVX2 here: both runs take the portable loops.
        INFO("simd level " << level);
        // f64 masters: bit for bit mixrt_optimizer.
        mixrt_optimizer *ref = nullptr;
        REQUIRE(mixrt_optimizer_create(&opt, &ref) == MIXRT_STATUS_OK);
        for (int p = 0; p < 2; ++p) {
          std::vector<double> init(p == 0 ? kBigCount : 5);
          for (size_t i = 0; i < init.size(); ++i) {
            const double v = 0.5 * std::cos(0.7 * static_cast<double>(i + p));
            init[i] =
                f64Buffers ? v : static_cast<double>(static_cast<float>(v));
          }
          REQUIRE(mixrt_optimizer_add_param(
                      ref, init.data(), static_cast<int64_t>(init.size()),
                      MIXRT_LOWP_NONE, nullptr) == MIXRT_STATUS_OK);
        }
        runs[level][0] =
            runRule(opt, f64Buffers, MIXRT_MASTER_F64, MIXRT_LOWP_NONE, ref);
        mixrt_optimizer_destroy(ref);
        // f32 masters: the AVX2 loops equal the portable ones.
        runs[level][1] = runRule(opt, f64Buffers, MIXRT_MASTER_F32,
                                 MIXRT_LOWP_NONE, nullptr);
      }
      if (!runs[1][0].values.empty()) {
        CHECK(runs[1][0].values == runs[0][0].values);
        CHECK(runs[1][1].values == runs[0][1].values);
      }
      // F16 / BF16 working copies: the working copy is the master rounded
      // once, on both paths.
      for (mixrt_lowp_format working : {MIXRT_LOWP_F16, MIXRT_LOWP_BF16}) {
        Run lowp[2];
        for (mixrt_simd_level level : {MIXRT_SIMD_PORTABLE, MIXRT_SIMD_AVX2}) {
          if (mixrt_set_simd_level(level) != MIXRT_STATUS_OK)
            continue;
          lowp[level] =
              runRule(opt, f64Buffers, MIXRT_MASTER_F64, working, nullptr);
        }
        if (!lowp[1].values.empty())
          CHECK(lowp[1].values == lowp[0].values);
        // The working copy of w is the master rounded once (the public
        // scalar conversion), b's is NONE.
        for (int l = 0; l < 2; ++l)
          for (size_t i = 0; i < lowp[l].values.size(); i += 2) {
            const size_t element = (i / 2) % (kBigCount + 5);
            if (element >= static_cast<size_t>(kBigCount))
              continue;
            const double master = lowp[l].values[i];
            const double expected =
                working == MIXRT_LOWP_F16
                    ? mixrt_f16_to_f64(mixrt_f64_to_f16(master))
                    : mixrt_bf16_to_f64(mixrt_f64_to_bf16(master));
            const double got = lowp[l].values[i + 1];
            INFO("level " << l << " value " << i);
            REQUIRE(std::memcmp(&got, &expected, sizeof(double)) == 0);
          }
        // Masters as with NONE working copies (the update ignores them).
        for (size_t i = 0; i < lowp[0].values.size(); i += 2)
          REQUIRE(lowp[0].values[i] == runs[0][0].values[i]);
      }
    }
  REQUIRE(mixrt_set_simd_level(saved) == MIXRT_STATUS_OK);
}

TEST_CASE("train.overflowing_f32_master_changes_nothing", "[train]") {
  // f64 buffers, f32 masters, SGD lr 1: w[1] = 3e38 - (-1e38) overflows the
  // f32 master (the bound of the check cannot prove it finite, the exact
  // check names the element); a later harmless step commits.
  Model model(/*f64=*/true, MIXRT_LOWP_NONE);
  const int64_t size = mixrt_train_state_size(&model.layout);
  StateMemory memory(size);
  mixrt_train_buffers b;
  mixrt_train_config config = defaultConfig();
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config.optimizer);
  config.optimizer.learning_rate = 1.0;
  config.master_format = MIXRT_MASTER_F32;
  config.loss_scaler.initial_scale = 1.0;
  REQUIRE(mixrt_train_prepare(memory.get(), size, &model.layout, &config, &b) ==
          MIXRT_STATUS_OK);
  static_cast<double *>(b.weights[0])[0] = 1.0;
  static_cast<double *>(b.weights[0])[1] = 3e38;
  static_cast<double *>(b.weights[0])[2] = -2.0;
  static_cast<double *>(b.weights[1])[0] = 0.5;
  REQUIRE(mixrt_train_start(memory.get()) == MIXRT_STATUS_OK);
  REQUIRE(mixrt_train_begin(memory.get(), &b) == MIXRT_STATUS_OK);
  static_cast<double *>(b.grads[0])[0] = 0.25;
  static_cast<double *>(b.grads[0])[1] = -1e38;
  static_cast<double *>(b.grads[0])[2] = 0.0;
  static_cast<double *>(b.grads[1])[0] = 0.125;
  const std::string w(static_cast<const char *>(b.weights[0]), 24);
  const std::string m(
      static_cast<const char *>(mixrt_train_master(memory.get(), 0, nullptr)),
      12);
  mixrt_train_step_result r;
  CHECK(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, &r) ==
        MIXRT_STATUS_OUT_OF_RANGE);
  CHECK_THAT(lastError(), Catch::Contains("weight 'w' element 1"));
  CHECK(std::string(static_cast<const char *>(b.weights[0]), 24) == w);
  CHECK(std::string(static_cast<const char *>(
                        mixrt_train_master(memory.get(), 0, nullptr)),
                    12) == m);
  // A harmless step: committed, w = w - g.
  REQUIRE(mixrt_train_begin(memory.get(), &b) == MIXRT_STATUS_OK);
  static_cast<double *>(b.grads[0])[0] = 0.25;
  static_cast<double *>(b.grads[0])[1] = 1e38;
  static_cast<double *>(b.grads[0])[2] = 0.0;
  static_cast<double *>(b.grads[1])[0] = 0.125;
  REQUIRE(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, &r) ==
          MIXRT_STATUS_OK);
  const float *master =
      static_cast<const float *>(mixrt_train_master(memory.get(), 0, nullptr));
  CHECK(master[0] == 0.75f);
  CHECK(master[1] == static_cast<float>(static_cast<double>(3e38f) - 1e38));
  CHECK(static_cast<const double *>(b.weights[0])[1] ==
        static_cast<double>(master[1]));
}

TEST_CASE("train.lowp_working_copies_round_like_narrow", "[train]") {
  // Zero gradients: the update keeps every master, and the commit loop's
  // branch-free f16/bf16 rounding must give the public conversions' bits
  // on zeros, subnormals, ties and the ends of the range.
  const std::vector<double> f16Values = {
      0.0,       -0.0,      0x1p-25,   0x3p-25,           -0x1p-25,
      0x1.8p-24, 0x1.002p0, 0x1.006p0, -0x1.002p0,        65504.0,
      65519.99,  -65519.0,  0x1p-14,   0x1p-14 - 0x1p-26, 1e-300,
      0.1,       1.0 / 3.0, 5e-8,      -7.7e-6,           0x1.ffdp-15};
  const std::vector<double> bf16Values = {0.0,
                                          -0.0,
                                          0x1p-134,
                                          0x3p-134,
                                          0x1.01p0,
                                          0x1.03p0,
                                          0x1p-126 - 0x1p-140,
                                          1e-40,
                                          3e38,
                                          -3e38,
                                          0.1,
                                          1.0 / 3.0,
                                          1e-300,
                                          -0x1.fep127,
                                          0x1.fdp127};
  const mixrt_simd_level saved = mixrt_get_simd_level();
  // f64 buffers, so the initial values are the masters exactly.
  for (mixrt_lowp_format working : {MIXRT_LOWP_F16, MIXRT_LOWP_BF16})
    for (mixrt_master_format masterFormat :
         {MIXRT_MASTER_F64, MIXRT_MASTER_F32})
      for (mixrt_simd_level level : {MIXRT_SIMD_PORTABLE, MIXRT_SIMD_AVX2}) {
        if (mixrt_set_simd_level(level) != MIXRT_STATUS_OK)
          continue;
        const std::vector<double> &values =
            working == MIXRT_LOWP_F16 ? f16Values : bf16Values;
        INFO("working " << working << " master " << masterFormat << " level "
                        << level);
        const int64_t shape[1] = {static_cast<int64_t>(values.size())};
        const mixrt_train_param param = {"w", 1, shape, 1, working};
        mixrt_train_layout layout{"lowp", 1, &param, 0, nullptr, 0};
        mixrt_train_config config = defaultConfig();
        mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config.optimizer);
        config.optimizer.learning_rate = 0.5;
        config.loss_scaler.initial_scale = 1.0;
        config.master_format = masterFormat;
        const int64_t size = mixrt_train_state_size(&layout);
        StateMemory memory(size);
        mixrt_train_buffers b;
        REQUIRE(mixrt_train_prepare(memory.get(), size, &layout, &config, &b) ==
                MIXRT_STATUS_OK);
        for (size_t i = 0; i < values.size(); ++i)
          static_cast<double *>(b.weights[0])[i] = values[i];
        REQUIRE(mixrt_train_start(memory.get()) == MIXRT_STATUS_OK);
        REQUIRE(mixrt_train_begin(memory.get(), &b) == MIXRT_STATUS_OK);
        std::memset(b.weights[0], 0x5A, values.size() * sizeof(double));
        std::memset(b.grads[0], 0, values.size() * sizeof(double));
        mixrt_train_step_result r;
        REQUIRE(mixrt_train_finish(memory.get(), MIXRT_STATUS_OK, &r) ==
                MIXRT_STATUS_OK);
        REQUIRE(r.skipped == 0);
        for (size_t i = 0; i < values.size(); ++i) {
          INFO("element " << i << " value " << values[i]);
          // The master (the value, or it rounded to f32) rounded once.
          const double master =
              masterFormat == MIXRT_MASTER_F64
                  ? values[i]
                  : static_cast<double>(static_cast<float>(values[i]));
          const double expected =
              working == MIXRT_LOWP_F16
                  ? mixrt_f16_to_f64(mixrt_f64_to_f16(master))
                  : mixrt_bf16_to_f64(mixrt_f64_to_bf16(master));
          const double got = static_cast<const double *>(b.weights[0])[i];
          CHECK(std::memcmp(&got, &expected, sizeof(double)) == 0);
        }
      }
  REQUIRE(mixrt_set_simd_level(saved) == MIXRT_STATUS_OK);
}
