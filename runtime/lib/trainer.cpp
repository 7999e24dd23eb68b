//===-- trainer.cpp - Training steps in caller memory ---------------------===//
//
// mixrt_train_*: the state of the code `mixc --train` generates, laid out in
// memory the caller provides. A header (magic, stage, layout, config, the
// loss scaler by value, the update count, the slot tables' addresses) is
// followed by 64-byte aligned arrays: the pointer tables of
// mixrt_train_buffers, loss_scale, loss, the per-parameter and per-statistic
// slot tables and the gradient views; per param the working copy, the
// gradient (both of the buffer type), the master, moment1 and moment2 (room
// for f64); per statistic the running and the batch value; the workspace.
//
// prepare, start (without a file), begin and finish allocate nothing. The
// update is the shared optimizer math (optim_math.h, specialized per rule
// so the loops vectorize): every new master and working copy is checked
// first (by a bound from the tracked maxima, else a vectorized pass, else
// element by element), then one fused pass commits them, so a failing step
// changes nothing. Export and loading a file use stdio and temporary
// buffers (safetensors.cpp).
//
//===----------------------------------------------------------------------===//

#include "float_bits.h"
#include "internal.h"
#include "optim_math.h"
#include "safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <type_traits>

namespace mixrt::detail {
namespace {

constexpr uint64_t kMagic = 0x316e727472786d6dULL; // "mmxrtrn1"
constexpr int64_t kAlign = 64;
constexpr int32_t kMaxRank = 8;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MIXRT_TRAIN_AVX2 __attribute__((target("avx2")))
#else
#define MIXRT_TRAIN_AVX2
#endif
#define MIXRT_TRAIN_INLINE inline __attribute__((always_inline))

enum class Stage : int32_t { kPrepared = 1, kStarted = 2 };

/// The arrays of one trained weight inside the state.
struct ParamSlots {
  void *working;
  void *grad;
  void *master;
  void *moment1;
  void *moment2;
  int64_t count;
  bool f64;
  /// The largest |master| and |moment1| stored (as f64; +inf if one is not
  /// finite), kept by start and every committed update: with the largest
  /// |gradient| they bound the next update (updateBound).
  double maxMaster;
  double maxMoment1;
};

/// The arrays of one running statistic.
struct StatSlots {
  void *running;
  void *batch;
  int64_t count;
  bool f64;
};

struct Header {
  uint64_t magic = 0;
  Stage stage = Stage::kPrepared;
  const mixrt_train_layout *layout = nullptr;
  /// The config as given (initial_weights is read by start).
  mixrt_train_config config{};
  OptimizerConfig optimizer;
  bool masterF32 = false;
  std::optional<LossScaler> scaler;
  int64_t updates = 0;
  mixrt_train_buffers buffers{};
  ParamSlots *params = nullptr;
  StatSlots *stats = nullptr;
  GradView *gradViews = nullptr;
};

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

std::string networkPrefix(absl::string_view op,
                          const mixrt_train_layout &layout) {
  return absl::StrCat(op, ": network '", layout.network, "'");
}

/// "<op>: network '<name>'", formatted only when a message is built (the
/// success paths allocate nothing).
struct Net {
  absl::string_view op;
  const char *network;
};

// The overloads below would hide these.
using ::mixrt::detail::failedPrecondition;
using ::mixrt::detail::invalidArgument;
using ::mixrt::detail::outOfRange;

template <class... Args>
absl::Status invalidArgument(const Net &n, const Args &...args) {
  return absl::InvalidArgumentError(
      absl::StrCat(n.op, ": network '", n.network, "'", args...));
}
template <class... Args>
absl::Status outOfRange(const Net &n, const Args &...args) {
  return absl::OutOfRangeError(
      absl::StrCat(n.op, ": network '", n.network, "'", args...));
}
template <class... Args>
absl::Status failedPrecondition(const Net &n, const Args &...args) {
  return absl::FailedPreconditionError(
      absl::StrCat(n.op, ": network '", n.network, "'", args...));
}

/// Element count of a (validated) tensor.
int64_t elementCount(int32_t rank, const int64_t *shape) {
  int64_t n = 1;
  for (int32_t i = 0; i < rank; ++i)
    n *= shape[i];
  return n;
}

std::string shapeString(int32_t rank, const int64_t *shape) {
  std::string s = "[";
  for (int32_t i = 0; i < rank; ++i)
    absl::StrAppend(&s, i ? ", " : "", shape[i]);
  return s + "]";
}

/// Checks one tensor description (`kind` "weight" or "statistic").
absl::Status checkTensor(const Net &prefix, const char *kind, const char *name,
                         int32_t rank, const int64_t *shape,
                         int32_t elementF64) {
  const auto what = [&] { return absl::StrCat(kind, " '", name, "'"); };
  if (rank < 0 || rank > kMaxRank)
    return invalidArgument(prefix, ": ", what(), ": rank (", rank,
                           ") must be in 0..", kMaxRank);
  if (rank > 0 && !shape)
    return invalidArgument(prefix, ": ", what(), ": shape is null");
  int64_t count = 1;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 1)
      return invalidArgument(prefix, ": ", what(), ": shape[", i, "] (",
                             shape[i], ") must be >= 1");
    if (__builtin_mul_overflow(count, shape[i], &count) ||
        count > PTRDIFF_MAX / 8)
      return invalidArgument(prefix, ": ", what(),
                             ": the element count overflows");
  }
  if (elementF64 != 0 && elementF64 != 1)
    return invalidArgument(prefix, ": ", what(), ": element_f64 (", elementF64,
                           ") must be 0 or 1");
  return absl::OkStatus();
}

absl::Status checkLayout(absl::string_view op,
                         const mixrt_train_layout *layout) {
  if (!layout)
    return invalidArgument(op, ": layout is null");
  if (!layout->network)
    return invalidArgument(op, ": layout->network is null");
  const Net prefix{op, layout->network};
  if (layout->num_params < 1)
    return invalidArgument(prefix, ": num_params (", layout->num_params,
                           ") must be >= 1");
  if (!layout->params)
    return invalidArgument(prefix, ": params is null");
  if (layout->num_stats < 0)
    return invalidArgument(prefix, ": num_stats (", layout->num_stats,
                           ") is negative");
  if (layout->num_stats > 0 && !layout->stats)
    return invalidArgument(prefix, ": stats is null");
  if (layout->workspace_bytes < 0)
    return invalidArgument(prefix, ": workspace_bytes (",
                           layout->workspace_bytes, ") is negative");
  if (layout->num_params > PTRDIFF_MAX / 1024 ||
      layout->num_stats > PTRDIFF_MAX / 1024)
    return invalidArgument(prefix, ": too many params or stats");
  for (int64_t p = 0; p < layout->num_params; ++p) {
    const mixrt_train_param &param = layout->params[p];
    if (!param.name)
      return invalidArgument(prefix, ": params[", p, "].name is null");
    if (absl::Status s = checkTensor(prefix, "weight", param.name, param.rank,
                                     param.shape, param.element_f64);
        !s.ok())
      return s;
    const int32_t working = enumValue(param.working);
    if (working < 0 || working > MIXRT_LOWP_INT8)
      return invalidArgument(prefix, ": weight '", param.name, "': working (",
                             working, ") is not a valid mixrt_lowp_format");
    if (working == MIXRT_LOWP_INT8)
      return invalidArgument(prefix, ": weight '", param.name, "'",
                             ": working format INT8 is refused (an int8 "
                             "layer quantizes its f32 copy itself)");
  }
  for (int64_t s = 0; s < layout->num_stats; ++s) {
    const mixrt_train_stat &stat = layout->stats[s];
    if (!stat.name)
      return invalidArgument(prefix, ": stats[", s, "].name is null");
    if (absl::Status st = checkTensor(prefix, "statistic", stat.name, stat.rank,
                                      stat.shape, stat.element_f64);
        !st.ok())
      return st;
  }
  // Names are the keys of the exported file: unique.
  const int64_t total = layout->num_params + layout->num_stats;
  auto nameAt = [&](int64_t i) {
    return i < layout->num_params ? layout->params[i].name
                                  : layout->stats[i - layout->num_params].name;
  };
  for (int64_t i = 0; i < total; ++i)
    for (int64_t j = i + 1; j < total; ++j)
      if (std::strcmp(nameAt(i), nameAt(j)) == 0)
        return invalidArgument(prefix, ": the name '", nameAt(i),
                               "' is used twice");
  return absl::OkStatus();
}

/// Walks the state layout: computes its size and, if `base` is not null,
/// the addresses of every array. The layout must have been checked.
class Planner {
public:
  explicit Planner(char *base) : base_(base) {}
  /// Reserves `bytes` (>= 0) at a 64-byte boundary.
  void *take(int64_t count, int64_t elemSize) {
    int64_t bytes = 0, end = 0;
    if (__builtin_mul_overflow(count, elemSize, &bytes) ||
        __builtin_add_overflow(offset_, bytes, &end) ||
        __builtin_add_overflow(end, kAlign - 1, &end)) {
      overflow_ = true;
      return nullptr;
    }
    void *p = base_ ? base_ + offset_ : nullptr;
    offset_ = end / kAlign * kAlign;
    return p;
  }
  int64_t size() const { return offset_; }
  bool overflow() const { return overflow_ || offset_ > PTRDIFF_MAX; }

private:
  char *base_;
  int64_t offset_ = 0;
  bool overflow_ = false;
};

/// Lays the state out (`header` null: only sizes it).
absl::StatusOr<int64_t> plan(absl::string_view op,
                             const mixrt_train_layout &layout, char *base,
                             Header *header) {
  Planner planner(base);
  planner.take(1, sizeof(Header));
  const int64_t np = layout.num_params, ns = layout.num_stats;
  void **weights = static_cast<void **>(planner.take(np, sizeof(void *)));
  void **grads = static_cast<void **>(planner.take(np, sizeof(void *)));
  void **batch = static_cast<void **>(planner.take(ns, sizeof(void *)));
  void **running = static_cast<void **>(planner.take(ns, sizeof(void *)));
  float *lossScale = static_cast<float *>(planner.take(1, sizeof(float)));
  float *loss = static_cast<float *>(planner.take(1, sizeof(float)));
  ParamSlots *params =
      static_cast<ParamSlots *>(planner.take(np, sizeof(ParamSlots)));
  StatSlots *stats =
      static_cast<StatSlots *>(planner.take(ns, sizeof(StatSlots)));
  GradView *views = static_cast<GradView *>(planner.take(np, sizeof(GradView)));
  for (int64_t p = 0; p < np; ++p) {
    const mixrt_train_param &param = layout.params[p];
    const int64_t count = elementCount(param.rank, param.shape);
    const int64_t elem = param.element_f64 ? 8 : 4;
    ParamSlots slots;
    slots.count = count;
    slots.f64 = param.element_f64 != 0;
    slots.working = planner.take(count, elem);
    slots.grad = planner.take(count, elem);
    slots.master = planner.take(count, sizeof(double));
    slots.moment1 = planner.take(count, sizeof(double));
    slots.moment2 = planner.take(count, sizeof(double));
    if (header) {
      params[p] = slots;
      weights[p] = slots.working;
      grads[p] = slots.grad;
      views[p] = GradView{slots.grad, count, slots.f64};
    }
  }
  for (int64_t s = 0; s < ns; ++s) {
    const mixrt_train_stat &stat = layout.stats[s];
    const int64_t count = elementCount(stat.rank, stat.shape);
    StatSlots slots;
    slots.count = count;
    slots.f64 = stat.element_f64 != 0;
    slots.running = planner.take(count, stat.element_f64 ? 8 : 4);
    slots.batch = planner.take(count, stat.element_f64 ? 8 : 4);
    if (header) {
      stats[s] = slots;
      running[s] = slots.running;
      batch[s] = slots.batch;
    }
  }
  void *workspace = planner.take(layout.workspace_bytes, 1);
  if (planner.overflow())
    return invalidArgument(networkPrefix(op, layout),
                           ": the state size overflows PTRDIFF_MAX");
  if (header) {
    header->params = params;
    header->stats = stats;
    header->gradViews = views;
    header->buffers.loss_scale = lossScale;
    header->buffers.loss = loss;
    header->buffers.weights = weights;
    header->buffers.grads = grads;
    header->buffers.batch_stats = batch;
    header->buffers.running = running;
    header->buffers.workspace = workspace;
  }
  return planner.size();
}

//===----------------------------------------------------------------------===//
// State access
//===----------------------------------------------------------------------===//

bool isAligned(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % kAlign == 0;
}

/// The header of a prepared state, or FAILED_PRECONDITION (INVALID_ARGUMENT
/// for a null or misaligned pointer).
absl::StatusOr<Header *> getHeader(absl::string_view op, const void *state,
                                   Stage atLeast) {
  if (!state)
    return invalidArgument(op, ": state is null");
  if (!isAligned(state))
    return invalidArgument(op, ": state (address ",
                           absl::Hex(reinterpret_cast<uintptr_t>(state)),
                           ") is not 64-byte aligned");
  Header *h = static_cast<Header *>(const_cast<void *>(state));
  if (h->magic != kMagic)
    return failedPrecondition(
        op, ": the state is not prepared (call mixrt_train_prepare first)");
  if (static_cast<int32_t>(h->stage) < static_cast<int32_t>(atLeast))
    return failedPrecondition(
        networkPrefix(op, *h->layout),
        ": the state is not started (call mixrt_train_start first)");
  return h;
}

inline double loadValue(const void *p, bool f64, int64_t i) {
  return f64 ? static_cast<const double *>(p)[i]
             : static_cast<double>(static_cast<const float *>(p)[i]);
}

/// Stores `v` rounded (RNE) to the buffer type; false if the stored value is
/// not finite.
inline bool storeValue(void *p, bool f64, int64_t i, double v, bool commit) {
  if (f64) {
    if (commit)
      static_cast<double *>(p)[i] = v;
    return std::isfinite(v);
  }
  const float f = static_cast<float>(v);
  if (commit)
    static_cast<float *>(p)[i] = f;
  return std::isfinite(f);
}

/// Derives working[i] from a master value M (double or float): NONE rounds
/// it to the buffer type, F16/BF16 round it once to that format and widen
/// it. False if the result is not finite (an overflow).
template <class M>
bool deriveWorking(const ParamSlots &slots, int32_t working, int64_t i,
                   M master, bool commit) {
  if (working == MIXRT_LOWP_F16 || working == MIXRT_LOWP_BF16) {
    const bool isF16 = working == MIXRT_LOWP_F16;
    const uint16_t h =
        isF16 ? narrow<F16Format>(master) : narrow<BF16Format>(master);
    if (isF16 ? isNonFinite16<F16Format>(h) : isNonFinite16<BF16Format>(h))
      return false;
    if (commit) {
      if (slots.f64)
        static_cast<double *>(slots.working)[i] =
            isF16 ? widen<F16Format, double>(h) : widen<BF16Format, double>(h);
      else
        static_cast<float *>(slots.working)[i] =
            isF16 ? widen<F16Format, float>(h) : widen<BF16Format, float>(h);
    }
    return true;
  }
  return storeValue(slots.working, slots.f64, i, static_cast<double>(master),
                    commit);
}

const char *workingName(int32_t working, bool f64) {
  if (working == MIXRT_LOWP_F16)
    return "f16";
  if (working == MIXRT_LOWP_BF16)
    return "bf16";
  return f64 ? "f64" : "f32";
}

//===----------------------------------------------------------------------===//
// prepare / start
//===----------------------------------------------------------------------===//

OptimizerConfig toOptimizerConfig(const mixrt_optimizer_config &c) {
  OptimizerConfig o;
  o.kind = static_cast<OptimizerKind>(enumValue(c.kind));
  o.learning_rate = c.learning_rate;
  o.weight_decay = c.weight_decay;
  o.momentum = c.momentum;
  o.dampening = c.dampening;
  o.nesterov = c.nesterov != 0;
  o.beta1 = c.beta1;
  o.beta2 = c.beta2;
  o.epsilon = c.epsilon;
  return o;
}

LossScalerConfig toScalerConfig(const mixrt_loss_scaler_config &c) {
  LossScalerConfig o;
  o.initial_scale = c.initial_scale;
  o.growth_factor = c.growth_factor;
  o.backoff_factor = c.backoff_factor;
  o.growth_interval = c.growth_interval;
  o.max_scale = c.max_scale;
  o.min_scale = c.min_scale;
  return o;
}

absl::Status checkTrainConfig(absl::string_view op,
                              const mixrt_train_config &c) {
  if (absl::Status s = checkEnum(op, "optimizer.kind", "mixrt_optimizer_kind",
                                 c.optimizer.kind, 3);
      !s.ok())
    return s;
  if (absl::Status s = checkOptimizerConfig(op, "optimizer.",
                                            toOptimizerConfig(c.optimizer));
      !s.ok())
    return s;
  if (absl::Status s = checkEnum(op, "master_format", "mixrt_master_format",
                                 c.master_format, 2);
      !s.ok())
    return s;
  if (absl::Status s = checkLossScalerConfig(op, "loss_scaler.",
                                             toScalerConfig(c.loss_scaler));
      !s.ok())
    return s;
  if (!std::isfinite(c.max_grad_norm) || c.max_grad_norm < 0.0)
    return invalidArgument(op, ": max_grad_norm (", c.max_grad_norm,
                           ") must be finite and >= 0");
  if (!(c.batch_norm_momentum >= 0.0 && c.batch_norm_momentum <= 1.0))
    return invalidArgument(op, ": batch_norm_momentum (", c.batch_norm_momentum,
                           ") must be in [0, 1]");
  return absl::OkStatus();
}

void defaultConfig(mixrt_train_config &c) {
  std::memset(&c, 0, sizeof(c));
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAM, &c.optimizer);
  c.master_format = MIXRT_MASTER_F64;
  mixrt_loss_scaler_config_init(&c.loss_scaler);
  c.max_grad_norm = 0.0;
  c.batch_norm_momentum = 0.1;
  c.initial_weights = nullptr;
}

absl::Status prepare(void *state, int64_t stateBytes,
                     const mixrt_train_layout *layout,
                     const mixrt_train_config *config,
                     mixrt_train_buffers *outBuffers) {
  constexpr absl::string_view kOp = "train_prepare";
  if (!state)
    return invalidArgument(kOp, ": state is null");
  if (!isAligned(state))
    return invalidArgument(kOp, ": state (address ",
                           absl::Hex(reinterpret_cast<uintptr_t>(state)),
                           ") is not 64-byte aligned");
  if (absl::Status s = checkLayout(kOp, layout); !s.ok())
    return s;
  absl::StatusOr<int64_t> size = plan(kOp, *layout, nullptr, nullptr);
  if (!size.ok())
    return size.status();
  if (stateBytes < *size)
    return invalidArgument(
        networkPrefix(kOp, *layout), ": state_bytes (", stateBytes,
        ") is smaller than mixrt_train_state_size (", *size, ")");
  mixrt_train_config c;
  if (config)
    c = *config;
  else
    defaultConfig(c);
  if (absl::Status s = checkTrainConfig(kOp, c); !s.ok())
    return s;
  std::memset(state, 0, static_cast<size_t>(*size));
  Header *h = new (state) Header();
  h->layout = layout;
  h->config = c;
  h->optimizer = toOptimizerConfig(c.optimizer);
  h->masterF32 = enumValue(c.master_format) == MIXRT_MASTER_F32;
  absl::StatusOr<int64_t> laidOut =
      plan(kOp, *layout, static_cast<char *>(state), h);
  if (!laidOut.ok())
    return laidOut.status();
  h->stage = Stage::kPrepared;
  h->magic = kMagic;
  if (outBuffers)
    *outBuffers = h->buffers;
  return absl::OkStatus();
}

/// The initial values of start: from the buffers, or loaded from a file.
struct InitialValues {
  /// num_params + num_stats vectors when loaded from a file, else empty.
  std::vector<std::vector<double>> loaded;
  /// The file, or null.
  const char *path = nullptr;
  /// " in '<file>'" for messages, or "".
  std::string fromFile() const {
    return path ? absl::StrCat(" in '", path, "'") : std::string();
  }
  double param(const Header &h, int64_t p, int64_t i) const {
    return loaded.empty() ? loadValue(h.params[p].working, h.params[p].f64, i)
                          : loaded[p][i];
  }
  double stat(const Header &h, int64_t s, int64_t i) const {
    return loaded.empty() ? loadValue(h.stats[s].running, h.stats[s].f64, i)
                          : loaded[h.layout->num_params + s][i];
  }
};

absl::Status loadFile(absl::string_view prefix, const Header &h,
                      const char *path, InitialValues &out) {
  absl::StatusOr<std::unique_ptr<SafetensorsReader>> reader =
      SafetensorsReader::Open(prefix, path);
  if (!reader.ok())
    return reader.status();
  const mixrt_train_layout &L = *h.layout;
  const int64_t total = L.num_params + L.num_stats;
  out.loaded.resize(total);
  // Every key is checked before any data is read.
  std::vector<const SafetensorsEntry *> entries(total);
  for (int64_t t = 0; t < total; ++t) {
    const bool isParam = t < L.num_params;
    const char *name =
        isParam ? L.params[t].name : L.stats[t - L.num_params].name;
    const int32_t rank =
        isParam ? L.params[t].rank : L.stats[t - L.num_params].rank;
    const int64_t *shape =
        isParam ? L.params[t].shape : L.stats[t - L.num_params].shape;
    const char *kind = isParam ? "weight" : "statistic";
    const SafetensorsEntry *entry = (*reader)->Find(name);
    if (!entry)
      return notFound(prefix, ": ", kind, " '", name, "' is not in '", path,
                      "'");
    const bool sameShape =
        static_cast<int64_t>(entry->shape.size()) == rank &&
        std::equal(entry->shape.begin(), entry->shape.end(), shape);
    if (!sameShape) {
      std::vector<int64_t> fileShape = entry->shape;
      return invalidArgument(
          prefix, ": ", kind, " '", name, "' has shape ",
          shapeString(static_cast<int32_t>(fileShape.size()), fileShape.data()),
          " in '", path, "', the network expects ", shapeString(rank, shape));
    }
    if (entry->dtype != "F64" && entry->dtype != "F32" &&
        entry->dtype != "F16" && entry->dtype != "BF16")
      return invalidArgument(prefix, ": ", kind, " '", name, "' in '", path,
                             "' has dtype ", entry->dtype,
                             "; expected F64, F32, F16 or BF16");
    entries[t] = entry;
  }
  for (int64_t t = 0; t < total; ++t)
    if (absl::Status s = (*reader)->ReadF64(prefix, *entries[t], out.loaded[t]);
        !s.ok())
      return s;
  return absl::OkStatus();
}

template <class S>
absl::Status startWith(const Net &prefix, Header &h,
                       const InitialValues &init) {
  const mixrt_train_layout &L = *h.layout;
  // 1. Every initial value is finite.
  for (int64_t p = 0; p < L.num_params; ++p)
    for (int64_t i = 0; i < h.params[p].count; ++i) {
      const double v = init.param(h, p, i);
      if (!std::isfinite(v))
        return invalidArgument(prefix, ": weight '", L.params[p].name,
                               "' element ", i, " is not finite (", v, ")",
                               init.fromFile());
    }
  for (int64_t s = 0; s < L.num_stats; ++s)
    for (int64_t i = 0; i < h.stats[s].count; ++i) {
      const double v = init.stat(h, s, i);
      if (!std::isfinite(v))
        return invalidArgument(prefix, ": statistic '", L.stats[s].name,
                               "' element ", i, " is not finite (", v, ")",
                               init.fromFile());
    }
  // 2. Check, then 3. commit the masters, working copies and statistics.
  for (int pass = 0; pass < 2; ++pass) {
    const bool commit = pass == 1;
    for (int64_t p = 0; p < L.num_params; ++p) {
      const ParamSlots &slots = h.params[p];
      const int32_t working = enumValue(L.params[p].working);
      S *master = static_cast<S *>(slots.master);
      double maxMaster = 0.0;
      for (int64_t i = 0; i < slots.count; ++i) {
        const double v = init.param(h, p, i);
        const S m = static_cast<S>(v);
        if (!std::isfinite(m))
          return outOfRange(prefix, ": weight '", L.params[p].name,
                            "' element ", i, " (", v,
                            ") overflows the f32 master", init.fromFile());
        if (!deriveWorking(slots, working, i, m, commit))
          return outOfRange(prefix, ": weight '", L.params[p].name,
                            "' element ", i, " (", v, ") overflows ",
                            workingName(working, slots.f64), init.fromFile());
        if (commit) {
          master[i] = m;
          static_cast<S *>(slots.moment1)[i] = S(0);
          static_cast<S *>(slots.moment2)[i] = S(0);
          maxMaster = std::max(maxMaster, std::fabs(static_cast<double>(m)));
        }
      }
      if (commit) {
        h.params[p].maxMaster = maxMaster;
        h.params[p].maxMoment1 = 0.0;
      }
    }
    for (int64_t s = 0; s < L.num_stats; ++s) {
      const StatSlots &slots = h.stats[s];
      for (int64_t i = 0; i < slots.count; ++i) {
        const double v = init.stat(h, s, i);
        if (!storeValue(slots.running, slots.f64, i, v, commit))
          return outOfRange(prefix, ": statistic '", L.stats[s].name,
                            "' element ", i, " (", v, ") overflows f32",
                            init.fromFile());
      }
    }
  }
  return absl::OkStatus();
}

absl::Status start(void *state) {
  constexpr absl::string_view kOp = "train_start";
  absl::StatusOr<Header *> header = getHeader(kOp, state, Stage::kPrepared);
  if (!header.ok())
    return header.status();
  Header &h = **header;
  const Net prefix{kOp, h.layout->network};
  if (h.stage != Stage::kPrepared)
    return failedPrecondition(prefix, ": the state was already started");
  InitialValues init;
  init.path = h.config.initial_weights;
  if (h.config.initial_weights)
    if (absl::Status s = loadFile(networkPrefix(kOp, *h.layout), h,
                                  h.config.initial_weights, init);
        !s.ok())
      return s;
  absl::Status s = h.masterF32 ? startWith<float>(prefix, h, init)
                               : startWith<double>(prefix, h, init);
  if (!s.ok())
    return s;
  absl::StatusOr<LossScaler> scaler =
      LossScaler::Create(toScalerConfig(h.config.loss_scaler));
  if (!scaler.ok())
    return scaler.status();
  h.scaler.emplace(*scaler);
  h.updates = 0;
  h.stage = Stage::kStarted;
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// The step
//===----------------------------------------------------------------------===//

absl::Status begin(void *state, mixrt_train_buffers *outBuffers) {
  absl::StatusOr<Header *> header =
      getHeader("train_begin", state, Stage::kStarted);
  if (!header.ok())
    return header.status();
  Header &h = **header;
  *h.buffers.loss_scale = static_cast<float>(h.scaler->scale());
  if (outBuffers)
    *outBuffers = h.buffers;
  return absl::OkStatus();
}

constexpr uint64_t kAbsMask64 = ~uint64_t{0} >> 1;

/// The results of a commit loop: max |master| and |moment1| as f64 bits.
struct MaxBits {
  uint64_t master = 0;
  uint64_t moment1 = 0;
};

/// The magnitude of `bits` (from MaxBits): +inf for inf and NaN.
inline double magnitudeOf(uint64_t bits) {
  return bits >= 0x7ff0000000000000ULL ? std::numeric_limits<double>::infinity()
                                       : bitCast<double>(bits);
}

/// widen<Fmt, B>(narrow<Fmt>(x)) (Fmt with kMantBits fraction bits and
/// smallest normal exponent kMinExp: f16 10, -14; bf16 7, -126) for a
/// finite x whose rounding is finite (the check pass proved it), without
/// branches so that it vectorizes: |x| is rounded (RNE) to a multiple of
/// the format's quantum at its exponent, 2^(max(e, kMinExp) - kMantBits),
/// by adding and subtracting 1.5 * 2^(that exponent + 52): the f64 sum
/// rounds (RNE) exactly at the quantum, the difference is exact, and the
/// result, a value of the format, is exact in B; the sign is put back
/// (also on a zero, as narrow keeps it).
template <int kMantBits, int kMinExp, class B>
MIXRT_TRAIN_INLINE B roundToLowp(double x) {
  const uint64_t bits = bitCast<uint64_t>(x);
  const uint64_t sign = bits & ~kAbsMask64;
  const double magnitude = bitCast<double>(bits & kAbsMask64);
  int64_t e = static_cast<int64_t>((bits >> 52) & 0x7ff) - 1023;
  e = e < kMinExp ? kMinExp : e;
  const double magic =
      bitCast<double>((static_cast<uint64_t>(e + 52 - kMantBits + 1023) << 52) |
                      (uint64_t{1} << 51));
  const double rounded = (magnitude + magic) - magic;
  return static_cast<B>(bitCast<double>(bitCast<uint64_t>(rounded) | sign));
}

/// The exact check of one param (the generic optimizer routine and
/// deriveWorking, element by element): the index of its first element
/// whose new master or working copy is not finite, or -1.
template <class S>
int64_t checkParamExact(const Header &h, int64_t p,
                        const UpdateCoefficients &k) {
  const ParamSlots &slots = h.params[p];
  const int32_t working = enumValue(h.layout->params[p].working);
  auto accept = [&](int64_t i, S w) {
    return std::isfinite(w) && deriveWorking(slots, working, i, w, false);
  };
  S *master = static_cast<S *>(slots.master);
  S *moment1 =
      usesMoment1(h.optimizer) ? static_cast<S *>(slots.moment1) : nullptr;
  S *moment2 =
      usesMoment2(h.optimizer) ? static_cast<S *>(slots.moment2) : nullptr;
  return slots.f64 ? updateParam(h.optimizer, k, master, moment1, moment2,
                                 static_cast<const double *>(slots.grad),
                                 slots.count, false, accept)
                   : updateParam(h.optimizer, k, master, moment1, moment2,
                                 static_cast<const float *>(slots.grad),
                                 slots.count, false, accept);
}

/// The fast check of one param: true if every new master (rounded to S) is
/// at most `limit` in magnitude (NaN fails). `limit` is conservative: a
/// value within it is finite as a master and as a working copy, so true
/// proves the exact check passes; false sends the param to the exact
/// check (checkParamExact), which decides. Branch-free, vectorizable.
template <Rule R, bool SgdDecay, class S, class G>
MIXRT_TRAIN_INLINE bool
checkParamBody(const FastCoefficients &c, const S *master, const S *moment1,
               const S *moment2, const G *grad, int64_t count, double limit) {
  int64_t bad = 0;
  for (int64_t i = 0; i < count; ++i) {
    double w = static_cast<double>(master[i]);
    double m = ruleUsesMoment1<R>() ? static_cast<double>(moment1[i]) : 0.0;
    double v = ruleUsesMoment2<R>() ? static_cast<double>(moment2[i]) : 0.0;
    updateElementFast<R, SgdDecay>(c, static_cast<double>(grad[i]), w, m, v);
    const double rounded = static_cast<double>(static_cast<S>(w));
    bad |= !(std::fabs(rounded) <= limit);
  }
  return bad == 0;
}

/// The committing update of one param (checked before): the new master and
/// moments rounded to S, the working copy (buffer type B) derived from the
/// master as deriveWorking does, in one fused, branch-free loop.
template <Rule R, bool SgdDecay, int32_t Working, class S, class B>
MIXRT_TRAIN_INLINE void
commitParamBody(const FastCoefficients &c, S *master, S *moment1, S *moment2,
                const B *grad, B *working, int64_t count, MaxBits &maxBits) {
  // The largest |new master| and |new moment1| as f64 bits with the sign
  // cleared (an integer max, which vectorizes; ordered as the magnitudes,
  // non-finite values above every finite one).
  uint64_t maxMaster = 0, maxMoment1 = 0;
  for (int64_t i = 0; i < count; ++i) {
    double w = static_cast<double>(master[i]);
    double m = ruleUsesMoment1<R>() ? static_cast<double>(moment1[i]) : 0.0;
    double v = ruleUsesMoment2<R>() ? static_cast<double>(moment2[i]) : 0.0;
    updateElementFast<R, SgdDecay>(c, static_cast<double>(grad[i]), w, m, v);
    const S newMaster = static_cast<S>(w);
    master[i] = newMaster;
    const uint64_t wBits =
        bitCast<uint64_t>(static_cast<double>(newMaster)) & kAbsMask64;
    maxMaster = maxMaster < wBits ? wBits : maxMaster;
    if constexpr (ruleUsesMoment1<R>()) {
      const S newMoment1 = static_cast<S>(m);
      moment1[i] = newMoment1;
      const uint64_t mBits =
          bitCast<uint64_t>(static_cast<double>(newMoment1)) & kAbsMask64;
      maxMoment1 = maxMoment1 < mBits ? mBits : maxMoment1;
    }
    if constexpr (ruleUsesMoment2<R>())
      moment2[i] = static_cast<S>(v);
    if constexpr (Working == MIXRT_LOWP_F16)
      working[i] = roundToLowp<10, -14, B>(static_cast<double>(newMaster));
    else if constexpr (Working == MIXRT_LOWP_BF16)
      working[i] = roundToLowp<7, -126, B>(static_cast<double>(newMaster));
    else
      working[i] = static_cast<B>(static_cast<double>(newMaster));
  }
  maxBits.master = maxMaster;
  maxBits.moment1 = maxMoment1;
}

// Each loop body above is compiled twice: for the baseline ISA and for
// AVX2 (the same operations, only wider vectors: "avx2" enables neither FMA
// nor any other change of the results, and the file is built with
// -ffp-contract=off), chosen at run time with the SIMD level of the
// conversions and GEMMs (useAvx2(), mixrt_set_simd_level). GCC vectorizes
// the check loop's reduction only with AVX2.
template <Rule R, bool SgdDecay, class S, class G>
bool checkParamPortable(const FastCoefficients &c, const S *master,
                        const S *moment1, const S *moment2, const G *grad,
                        int64_t count, double limit) {
  return checkParamBody<R, SgdDecay>(c, master, moment1, moment2, grad, count,
                                     limit);
}
template <Rule R, bool SgdDecay, class S, class G>
MIXRT_TRAIN_AVX2 bool
checkParamAvx2(const FastCoefficients &c, const S *master, const S *moment1,
               const S *moment2, const G *grad, int64_t count, double limit) {
  return checkParamBody<R, SgdDecay>(c, master, moment1, moment2, grad, count,
                                     limit);
}
template <Rule R, bool SgdDecay, class S, class G>
bool checkParamFast(bool avx2, const FastCoefficients &c, const S *master,
                    const S *moment1, const S *moment2, const G *grad,
                    int64_t count, double limit) {
  return avx2 ? checkParamAvx2<R, SgdDecay>(c, master, moment1, moment2, grad,
                                            count, limit)
              : checkParamPortable<R, SgdDecay>(c, master, moment1, moment2,
                                                grad, count, limit);
}

template <Rule R, bool SgdDecay, int32_t Working, class S, class B>
void commitParamPortable(const FastCoefficients &c, S *master, S *moment1,
                         S *moment2, const B *grad, B *working, int64_t count,
                         MaxBits &maxBits) {
  commitParamBody<R, SgdDecay, Working>(c, master, moment1, moment2, grad,
                                        working, count, maxBits);
}
template <Rule R, bool SgdDecay, int32_t Working, class S, class B>
MIXRT_TRAIN_AVX2 void
commitParamAvx2(const FastCoefficients &c, S *master, S *moment1, S *moment2,
                const B *grad, B *working, int64_t count, MaxBits &maxBits) {
  commitParamBody<R, SgdDecay, Working>(c, master, moment1, moment2, grad,
                                        working, count, maxBits);
}
template <Rule R, bool SgdDecay, int32_t Working, class S, class B>
void commitParamFast(bool avx2, const FastCoefficients &c, S *master,
                     S *moment1, S *moment2, const B *grad, B *working,
                     int64_t count, MaxBits &maxBits) {
  if (avx2)
    commitParamAvx2<R, SgdDecay, Working>(c, master, moment1, moment2, grad,
                                          working, count, maxBits);
  else
    commitParamPortable<R, SgdDecay, Working>(c, master, moment1, moment2, grad,
                                              working, count, maxBits);
}

/// The largest magnitude of a master of type S (rounded) that is surely
/// finite as the master and as its working copy.
template <class S> double checkLimit(int32_t working, bool bufferF64) {
  double limit = std::is_same_v<S, float>
                     ? static_cast<double>(std::numeric_limits<float>::max())
                     : std::numeric_limits<double>::max();
  if (working == MIXRT_LOWP_F16)
    limit = 65504.0; // The largest finite f16.
  else if (working == MIXRT_LOWP_BF16)
    limit = 0x1.fep127; // The largest finite bf16.
  else if (!bufferF64)
    limit =
        std::min(limit, static_cast<double>(std::numeric_limits<float>::max()));
  return limit;
}

/// A bound on |new master| of a param from max |master|, max |moment1|
/// (ParamSlots) and `gradMax`, the largest |gradient| of the step; +inf or
/// NaN if one is not finite. Each step of the update is bounded with a
/// factor 2 (or 4) of slack, far beyond the few f64 roundings it adds: SGD
/// |d| <= |g| + wd |w|, |buf'| <= momentum |buf| + (1 - dampening) |d| (or
/// |d| on the first step), |w'| <= |w| + lr |d'|; Adam |m'| <= 3 max(|m|,
/// |g'|) (m' = m + (1 - b1)(g' - m), 1 - b1 in (0, 1]), |m' / denom| <= |m'|
/// / epsilon (denom = sqrt(v') / c + epsilon >= epsilon > 0), |w'| <= |w|
/// |1 - lr wd| + step_size |m' / denom|.
double updateBound(const OptimizerConfig &o, const UpdateCoefficients &k,
                   const ParamSlots &slots, double gradMax) {
  const double w = slots.maxMaster, m = slots.maxMoment1;
  const double wd = std::fabs(o.weight_decay);
  if (o.kind == OptimizerKind::kSgd) {
    const double d = 2.0 * (gradMax + wd * w);
    double step = d;
    if (o.momentum != 0.0) {
      const double buf =
          2.0 * (o.momentum * m + std::fabs(1.0 - o.dampening) * d) + 2.0 * d;
      step = o.nesterov ? 2.0 * (d + o.momentum * buf) : buf;
    }
    return 2.0 * (w + 2.0 * o.learning_rate * step);
  }
  double g = gradMax, decay = 1.0;
  if (o.weight_decay != 0.0) {
    if (o.kind == OptimizerKind::kAdamW)
      decay = std::max(1.0, std::fabs(1.0 - o.learning_rate * o.weight_decay));
    else
      g = 2.0 * (gradMax + wd * w);
  }
  const double moment = 4.0 * std::max(m, g);
  const double update = 4.0 * k.stepSize * (moment / o.epsilon);
  return 2.0 * (2.0 * w * decay + update);
}

/// Checks the update of every param (nothing is written): the index of the
/// first param with a non-finite new master or working copy (and
/// `badElement`), or -1. A param whose updateBound is within the limit
/// passes at once; else it gets the fast conservative check, and only a
/// param that one flags is checked again exactly, so the outcome (and the
/// element named) is the one of the exact check.
template <class S>
int64_t checkAll(const Header &h, const UpdateCoefficients &k, double gradMax,
                 int64_t &badElement) {
  const FastCoefficients c = fastCoefficients(h.optimizer, k);
  const bool avx2 = useAvx2();
  const mixrt_train_layout &L = *h.layout;
  for (int64_t p = 0; p < L.num_params; ++p) {
    const ParamSlots &slots = h.params[p];
    const double limit =
        checkLimit<S>(enumValue(L.params[p].working), slots.f64);
    // The usual case: the bound proves every new master and working copy
    // finite without a pass over the param.
    if (updateBound(h.optimizer, k, slots, gradMax) <= limit)
      continue;
    const S *master = static_cast<const S *>(slots.master);
    const S *moment1 = static_cast<const S *>(slots.moment1);
    const S *moment2 = static_cast<const S *>(slots.moment2);
    const bool ok = dispatchRule(h.optimizer, [&](auto rule, auto decay) {
      constexpr Rule R = decltype(rule)::value;
      constexpr bool D = decltype(decay)::value;
      return slots.f64
                 ? checkParamFast<R, D>(avx2, c, master, moment1, moment2,
                                        static_cast<const double *>(slots.grad),
                                        slots.count, limit)
                 : checkParamFast<R, D>(avx2, c, master, moment1, moment2,
                                        static_cast<const float *>(slots.grad),
                                        slots.count, limit);
    });
    if (ok)
      continue;
    const int64_t bad = checkParamExact<S>(h, p, k);
    if (bad >= 0) {
      badElement = bad;
      return p;
    }
  }
  return -1;
}

/// Commits the update of every param (checked by checkAll).
template <class S> void commitAll(Header &h, const UpdateCoefficients &k) {
  const FastCoefficients c = fastCoefficients(h.optimizer, k);
  const bool avx2 = useAvx2();
  const mixrt_train_layout &L = *h.layout;
  for (int64_t p = 0; p < L.num_params; ++p) {
    const ParamSlots &slots = h.params[p];
    const int32_t working = enumValue(L.params[p].working);
    S *master = static_cast<S *>(slots.master);
    S *moment1 = static_cast<S *>(slots.moment1);
    S *moment2 = static_cast<S *>(slots.moment2);
    MaxBits maxBits;
    dispatchRule(h.optimizer, [&](auto rule, auto decay) {
      constexpr Rule R = decltype(rule)::value;
      constexpr bool D = decltype(decay)::value;
      auto run = [&](auto *grad, auto *work) {
        if (working == MIXRT_LOWP_F16)
          commitParamFast<R, D, MIXRT_LOWP_F16>(avx2, c, master, moment1,
                                                moment2, grad, work,
                                                slots.count, maxBits);
        else if (working == MIXRT_LOWP_BF16)
          commitParamFast<R, D, MIXRT_LOWP_BF16>(avx2, c, master, moment1,
                                                 moment2, grad, work,
                                                 slots.count, maxBits);
        else
          commitParamFast<R, D, MIXRT_LOWP_NONE>(avx2, c, master, moment1,
                                                 moment2, grad, work,
                                                 slots.count, maxBits);
      };
      if (slots.f64)
        run(static_cast<const double *>(slots.grad),
            static_cast<double *>(slots.working));
      else
        run(static_cast<const float *>(slots.grad),
            static_cast<float *>(slots.working));
    });
    h.params[p].maxMaster = magnitudeOf(maxBits.master);
    h.params[p].maxMoment1 = magnitudeOf(maxBits.moment1);
  }
}

/// The running sums of the fused unscale pass: max |g| and sum g*g in the
/// order of mixrt_grad_norm (tensor by tensor, element by element).
struct NormSums {
  double maxAbs = 0.0;
  double sum = 0.0;
};

/// Unscales `grad` in place, g = (T)((double)g * inverse) exactly as the
/// scaler's Unscale; returns true if a result is not finite. Also extends
/// `sums` with the unscaled values: max |g| and the squares summed in order,
/// which is mixrt_grad_norm's sum whenever its scaling exponent is 0 (max
/// |g| within [2^-400, 2^400]: the values are multiplied by 1.0). Tiles of
/// kTile elements: the unscale, finite check and max vectorize; the
/// in-order sum (a serial chain, as mixrt_grad_norm's) reads the tile back
/// from L1.
template <class T>
MIXRT_TRAIN_INLINE bool unscaleBody(T *grad, int64_t count, double inverse,
                                    NormSums &sums) {
  // The largest |g| as the bits of T with the sign cleared: an unsigned
  // integer max, which vectorizes (a floating-point max with its NaN rules
  // does not), ordered as the magnitudes are; a non-finite value has the
  // all-ones exponent, so the max also finds inf/NaN.
  using Bits =
      std::conditional_t<std::is_same_v<T, double>, uint64_t, uint32_t>;
  constexpr Bits kAbsMask = ~Bits{0} >> 1;
  constexpr Bits kInfBits = static_cast<Bits>(
      std::is_same_v<T, double> ? 0x7ff0000000000000ULL : 0x7f800000ULL);
  constexpr int64_t kTile = 1024;
  Bits maxBits = 0;
  double sum = sums.sum;
  for (int64_t start = 0; start < count; start += kTile) {
    const int64_t end = std::min(count, start + kTile);
    for (int64_t i = start; i < end; ++i) {
      const T g = static_cast<T>(static_cast<double>(grad[i]) * inverse);
      grad[i] = g;
      const Bits bits = bitCast<Bits>(g) & kAbsMask;
      maxBits = maxBits < bits ? bits : maxBits;
    }
    for (int64_t i = start; i < end; ++i) {
      const double x = static_cast<double>(grad[i]);
      sum += x * x;
    }
  }
  const double maxAbs = static_cast<double>(bitCast<T>(maxBits));
  if (maxBits < kInfBits && sums.maxAbs < maxAbs)
    sums.maxAbs = maxAbs;
  sums.sum = sum;
  return maxBits >= kInfBits;
}

template <class T>
bool unscalePortable(T *grad, int64_t count, double inverse, NormSums &sums) {
  return unscaleBody(grad, count, inverse, sums);
}
template <class T>
MIXRT_TRAIN_AVX2 bool unscaleAvx2(T *grad, int64_t count, double inverse,
                                  NormSums &sums) {
  return unscaleBody(grad, count, inverse, sums);
}
template <class T>
bool unscaleFused(bool avx2, T *grad, int64_t count, double inverse,
                  NormSums &sums) {
  return avx2 ? unscaleAvx2(grad, count, inverse, sums)
              : unscalePortable(grad, count, inverse, sums);
}

absl::Status finish(void *state, mixrt_status_code gradStatus,
                    mixrt_train_step_result *outResult, bool &passThrough) {
  constexpr absl::string_view kOp = "train_finish";
  passThrough = false;
  absl::StatusOr<Header *> header = getHeader(kOp, state, Stage::kStarted);
  if (!header.ok())
    return header.status();
  Header &h = **header;
  const mixrt_train_layout &L = *h.layout;
  const int32_t code = enumValue(gradStatus);
  if (!isStatusCode(code))
    return absl::InternalError(absl::StrCat(networkPrefix(kOp, L),
                                            ": grad_status (", code,
                                            ") is not a mixrt_status_code"));
  if (code != MIXRT_STATUS_OK && code != MIXRT_STATUS_OUT_OF_RANGE) {
    passThrough = true;
    return absl::OkStatus();
  }
  LossScaler &scaler = *h.scaler;
  const double scale = scaler.scale();
  absl::Span<const GradView> views(h.gradViews, L.num_params);

  // Unscale (one pass that also finds inf/NaN: the scaler's Unscale), and
  // the batch statistics must be finite.
  bool foundInf = code == MIXRT_STATUS_OUT_OF_RANGE;
  NormSums sums;
  if (!foundInf) {
    const double inverse = 1.0 / scale; // As the scaler's Unscale.
    const bool avx2 = useAvx2();
    for (int64_t p = 0; p < L.num_params; ++p) {
      const ParamSlots &slots = h.params[p];
      foundInf |= slots.f64
                      ? unscaleFused(avx2, static_cast<double *>(slots.grad),
                                     slots.count, inverse, sums)
                      : unscaleFused(avx2, static_cast<float *>(slots.grad),
                                     slots.count, inverse, sums);
    }
    for (int64_t s = 0; s < L.num_stats && !foundInf; ++s)
      for (int64_t i = 0; i < h.stats[s].count; ++i)
        if (!std::isfinite(loadValue(h.stats[s].batch, h.stats[s].f64, i))) {
          foundInf = true;
          break;
        }
  }
  double norm = std::numeric_limits<double>::quiet_NaN();
  if (!foundInf) {
    // mixrt_grad_norm's result from the fused sums when its scaling
    // exponent is 0 (norm = ldexp(sqrt(sum), 0), finite); else its own
    // two-pass computation.
    if (sums.maxAbs == 0.0) {
      norm = 0.0;
    } else if (!(sums.maxAbs < 0x1p-400 || sums.maxAbs > 0x1p400)) {
      norm = std::sqrt(sums.sum);
    } else {
      absl::StatusOr<double> n = gradNormViews(kOp, views);
      if (n.ok())
        norm = *n;
      else if (n.status().code() == absl::StatusCode::kOutOfRange)
        foundInf = true; // A norm beyond DBL_MAX: as a non-finite gradient.
      else
        return n.status();
    }
  }

  mixrt_train_step_result result;
  result.loss = static_cast<double>(*h.buffers.loss);
  result.scale = scale;
  if (foundInf) {
    scaler.Update(true);
    result.skipped = 1;
    result.grad_norm = std::numeric_limits<double>::quiet_NaN();
    result.next_scale = scaler.scale();
    result.updates = h.updates;
    if (outResult)
      *outResult = result;
    return absl::OkStatus();
  }

  if (h.config.max_grad_norm > 0.0) {
    const double coef = clipCoef(norm, h.config.max_grad_norm, kClipDefaultEps);
    if (coef < 1.0)
      scaleGradViews(views, coef);
  }

  // The update: a checking pass, then the committing pass. The check
  // recomputes the update (only the masters, nothing stored): keeping a
  // copy of the old masters and moments to roll a failed single pass back
  // would cost a copy of all of them (3x the masters) per step and the
  // state memory for it, more than this read-only pass.
  const UpdateCoefficients k = updateCoefficients(h.optimizer, h.updates + 1);
  const double mom = h.config.batch_norm_momentum;
  for (int pass = 0; pass < 2; ++pass) {
    const bool commit = pass == 1;
    if (!commit) {
      int64_t badElement = -1;
      const int64_t badParam =
          h.masterF32 ? checkAll<float>(h, k, sums.maxAbs, badElement)
                      : checkAll<double>(h, k, sums.maxAbs, badElement);
      if (badParam >= 0)
        return outOfRange(networkPrefix(kOp, L), ": weight '",
                          L.params[badParam].name, "' element ", badElement,
                          ": the update makes the master or its ",
                          workingName(enumValue(L.params[badParam].working),
                                      h.params[badParam].f64),
                          " working copy non-finite; nothing was changed");
    } else if (h.masterF32) {
      commitAll<float>(h, k);
    } else {
      commitAll<double>(h, k);
    }
    for (int64_t s = 0; s < L.num_stats; ++s) {
      const StatSlots &slots = h.stats[s];
      for (int64_t i = 0; i < slots.count; ++i) {
        const double folded =
            (1.0 - mom) * loadValue(slots.running, slots.f64, i) +
            mom * loadValue(slots.batch, slots.f64, i);
        if (!storeValue(slots.running, slots.f64, i, folded, commit))
          return outOfRange(networkPrefix(kOp, L), ": statistic '",
                            L.stats[s].name, "' element ", i,
                            ": the running value overflows; nothing was "
                            "changed");
      }
    }
  }
  ++h.updates;
  scaler.Update(false);
  result.skipped = 0;
  result.grad_norm = norm;
  result.next_scale = scaler.scale();
  result.updates = h.updates;
  if (outResult)
    *outResult = result;
  return absl::OkStatus();
}

absl::Status exportState(const void *state, const char *path) {
  constexpr absl::string_view kOp = "train_export";
  absl::StatusOr<Header *> header = getHeader(kOp, state, Stage::kStarted);
  if (!header.ok())
    return header.status();
  if (absl::Status s = checkPtr(kOp, path, "path"); !s.ok())
    return s;
  const Header &h = **header;
  const mixrt_train_layout &L = *h.layout;
  std::vector<SafetensorsTensor> tensors;
  for (int64_t p = 0; p < L.num_params; ++p) {
    const ParamSlots &slots = h.params[p];
    tensors.push_back(
        {L.params[p].name, slots.f64 ? "F64" : "F32",
         absl::Span<const int64_t>(L.params[p].shape, L.params[p].rank),
         slots.working, slots.count * (slots.f64 ? 8 : 4)});
  }
  for (int64_t s = 0; s < L.num_stats; ++s) {
    const StatSlots &slots = h.stats[s];
    tensors.push_back(
        {L.stats[s].name, slots.f64 ? "F64" : "F32",
         absl::Span<const int64_t>(L.stats[s].shape, L.stats[s].rank),
         slots.running, slots.count * (slots.f64 ? 8 : 4)});
  }
  return writeSafetensors(networkPrefix(kOp, L), path, tensors);
}

} // namespace
} // namespace mixrt::detail

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

extern "C" {

void mixrt_train_config_init(mixrt_train_config *out_config) {
  if (out_config)
    mixrt::detail::defaultConfig(*out_config);
}

int64_t mixrt_train_state_size(const mixrt_train_layout *layout) {
  int64_t size = -1;
  const mixrt_status_code code = mixrt::detail::guardC([&]() -> absl::Status {
    constexpr absl::string_view kOp = "train_state_size";
    if (absl::Status s = mixrt::detail::checkLayout(kOp, layout); !s.ok())
      return s;
    absl::StatusOr<int64_t> bytes =
        mixrt::detail::plan(kOp, *layout, nullptr, nullptr);
    if (!bytes.ok())
      return bytes.status();
    size = *bytes;
    return absl::OkStatus();
  });
  return code == MIXRT_STATUS_OK ? size : -1;
}

mixrt_status_code mixrt_train_prepare(void *state, int64_t state_bytes,
                                      const mixrt_train_layout *layout,
                                      const mixrt_train_config *config,
                                      mixrt_train_buffers *out_buffers) {
  return mixrt::detail::guardC([&] {
    return mixrt::detail::prepare(state, state_bytes, layout, config,
                                  out_buffers);
  });
}

mixrt_status_code mixrt_train_start(void *state) {
  return mixrt::detail::guardC([&] { return mixrt::detail::start(state); });
}

mixrt_status_code mixrt_train_begin(void *state,
                                    mixrt_train_buffers *out_buffers) {
  return mixrt::detail::guardC(
      [&] { return mixrt::detail::begin(state, out_buffers); });
}

mixrt_status_code mixrt_train_finish(void *state, mixrt_status_code grad_status,
                                     mixrt_train_step_result *out_result) {
  bool passThrough = false;
  const mixrt_status_code code = mixrt::detail::guardC([&] {
    return mixrt::detail::finish(state, grad_status, out_result, passThrough);
  });
  // The gradient function's own failure, returned as it is (its message,
  // e.g. of mixrt_check_status(), stays the last error).
  return code == MIXRT_STATUS_OK && passThrough ? grad_status : code;
}

mixrt_status_code mixrt_train_export(const void *state, const char *path) {
  return mixrt::detail::guardC(
      [&] { return mixrt::detail::exportState(state, path); });
}

const void *mixrt_train_master(const void *state, int64_t index,
                               mixrt_master_format *out_format) {
  using mixrt::detail::Header;
  if (!state || !mixrt::detail::isAligned(state))
    return nullptr;
  const Header *h = static_cast<const Header *>(state);
  if (h->magic != mixrt::detail::kMagic ||
      h->stage != mixrt::detail::Stage::kStarted || index < 0 ||
      index >= h->layout->num_params)
    return nullptr;
  if (out_format)
    *out_format = h->masterF32 ? MIXRT_MASTER_F32 : MIXRT_MASTER_F64;
  return h->params[index].master;
}

} // extern "C"
