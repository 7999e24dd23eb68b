/*===-- c_api_test.c - mixrt C ABI test, compiled as C ------------------===*\
|*                                                                          *|
|* Checks that mixrt.h is valid C and that the C entry points, handles and  *|
|* error messages behave as documented. Returns nonzero on any mismatch.    *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#include <mixrt/mixrt.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "c_api_test.c:%d: check failed: %s\n", __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#define EXPECT_ERROR(call, code, needle)                                       \
  do {                                                                         \
    EXPECT((call) == (code));                                                  \
    EXPECT(strstr(mixrt_last_error_message(), (needle)) != NULL);              \
  } while (0)

static void test_conversions(void) {
  EXPECT(mixrt_f32_to_f16(-2.0f) == 0xc000);
  EXPECT(mixrt_f16_to_f32(0x3555) == 0x1.554p-2f);
  EXPECT(mixrt_f32_to_bf16(3.0f) == 0x4040);
  EXPECT(mixrt_bf16_to_f32(0x4040) == 3.0f);
  EXPECT(mixrt_f64_to_f16(1.0 + 0x1p-11 + 0x1p-40) == 0x3c01);
  EXPECT(mixrt_f16_to_f64(0x0001) == 0x1p-24);
  EXPECT(mixrt_bf16_to_f64(0x0001) == 0x1p-133);
  const double src[3] = {1.0, NAN, 1e6};
  uint16_t dst[3];
  EXPECT_ERROR(mixrt_f64_to_f16_array_checked(src, 3, dst),
               MIXRT_STATUS_INVALID_ARGUMENT, "element 1");
  EXPECT_ERROR(mixrt_f64_to_f16_array_checked(src, -3, dst),
               MIXRT_STATUS_INVALID_ARGUMENT, "count (-3)");
}

static void test_qtensor(void) {
  const float data[4] = {-1.0f, 0.0f, 0.5f, 1.0f};
  const int64_t shape[1] = {4};
  const float scales[1] = {0.5f};
  const int32_t zps[1] = {-3};
  mixrt_qtensor *t = NULL;
  EXPECT(mixrt_quantize_f32_with_params(
             data, shape, 1, MIXRT_QSCHEME_ASYMMETRIC, MIXRT_PER_TENSOR, scales,
             zps, &t) == MIXRT_STATUS_OK);
  if (t) {
    const int8_t *q = mixrt_qtensor_data(t);
    EXPECT(q[0] == -5 && q[1] == -3 && q[2] == -2 && q[3] == -1);
    float back[4];
    EXPECT(mixrt_dequantize_f32(t, back, 4) == MIXRT_STATUS_OK);
    EXPECT(back[0] == -1.0f && back[3] == 1.0f);
    mixrt_qtensor_destroy(t);
  }
  const float bad[2] = {1.0f, INFINITY};
  const int64_t shape2[1] = {2};
  EXPECT_ERROR(mixrt_quantize_f32(bad, shape2, 1, MIXRT_QSCHEME_SYMMETRIC,
                                  MIXRT_PER_TENSOR, &t),
               MIXRT_STATUS_INVALID_ARGUMENT, "element 1");
  EXPECT(t == NULL);
  /* Accessors tolerate a NULL handle. */
  EXPECT(mixrt_qtensor_data(NULL) == NULL && mixrt_qtensor_rank(NULL) == 0);
  EXPECT(mixrt_qtensor_axis(NULL) == MIXRT_PER_TENSOR);
  mixrt_qtensor_destroy(NULL);
}

static void test_gemm(void) {
  /* A 2x2 with lda 3, B 2x3, zero points per row / column, f32 result. */
  const int8_t a[6] = {1, 2, 99, 3, 4, 99};
  const int8_t b[6] = {1, 0, -1, 2, 1, 0};
  const float sa[2] = {0.5f, 2.0f}, sb[3] = {1.0f, 1.0f, 0.25f};
  const int32_t za[2] = {1, 0}, zb[3] = {0, 0, -1};
  mixrt_gemm_s8_operand ao = {a, 3, 1, sa, za};
  mixrt_gemm_s8_operand bo = {b, 3, 1, sb, zb};
  float c[6];
  EXPECT(mixrt_gemm_s8_f32(2, 3, 2, &ao, &bo, c, 3) == MIXRT_STATUS_OK);
  /* row 0: (a - 1) = [0, 1]; col 2: (b + 1) = [0, 1] -> acc 1 * 0.5 * .25 */
  EXPECT(c[2] == 0.125f);
  /* row 1: [3, 4]; col 0: [1, 2] -> 11 * 2 * 1 */
  EXPECT(c[3] == 22.0f);
  int32_t c32[1];
  EXPECT_ERROR(mixrt_gemm_s8s8s32(1, 1, 1, a, 1, b, 1, c32, 0),
               MIXRT_STATUS_INVALID_ARGUMENT, "leading dimension of C");
  float r[1];
  const float fa[1] = {1e30f}, fb[1] = {1.0f};
  EXPECT_ERROR(
      mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 1, 1, 1, fa, 1, fb, 1, r, 1),
      MIXRT_STATUS_OUT_OF_RANGE, "not finite");
}

static void test_optimizer(void) {
  mixrt_optimizer_config config;
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config);
  config.learning_rate = 0.5;
  mixrt_optimizer *opt = NULL;
  EXPECT(mixrt_optimizer_create(&config, &opt) == MIXRT_STATUS_OK);
  const double w[2] = {1.0, 2.0};
  int64_t index = -1;
  EXPECT(mixrt_optimizer_add_param(opt, w, 2, MIXRT_LOWP_F16, &index) ==
         MIXRT_STATUS_OK);
  const float g[2] = {1.0f, -1.0f};
  const float *grads[1] = {g};
  const int64_t sizes[1] = {2};
  EXPECT(mixrt_optimizer_step_f32(opt, grads, sizes, 1) == MIXRT_STATUS_OK);
  EXPECT(mixrt_optimizer_master(opt, 0)[0] == 0.5);
  EXPECT(mixrt_optimizer_lowp_u16(opt, 0)[1] == 0x4100); /* 2.5 */
  mixrt_optimizer_destroy(opt);
}

/* The training-step API as the header of `mixc --train` drives it: one
 * weight w (f32 [2]), gradient of 0.5 * |w|^2 (= w) times the loss scale. */
static void test_train(void) {
  static const int64_t shape[1] = {2};
  static const mixrt_train_param params[1] = {
      {"w", 1, shape, 0, MIXRT_LOWP_NONE}};
  static const mixrt_train_layout layout = {"c_api", 1, params, 0, NULL, 0};
  mixrt_train_config config;
  mixrt_train_config_init(&config);
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config.optimizer);
  config.optimizer.learning_rate = 0.5;
  config.loss_scaler.initial_scale = 4.0;
  static unsigned char state[4096] __attribute__((aligned(64)));
  const int64_t size = mixrt_train_state_size(&layout);
  EXPECT(size > 0 && size <= (int64_t)sizeof(state));
  mixrt_train_buffers buffers;
  EXPECT(mixrt_train_prepare(state, size, &layout, &config, &buffers) ==
         MIXRT_STATUS_OK);
  float *w = (float *)buffers.weights[0];
  w[0] = 1.0f;
  w[1] = -2.0f;
  EXPECT(mixrt_train_start(state) == MIXRT_STATUS_OK);
  EXPECT(mixrt_train_begin(state, &buffers) == MIXRT_STATUS_OK);
  EXPECT(*buffers.loss_scale == 4.0f);
  float *g = (float *)buffers.grads[0];
  g[0] = w[0] * *buffers.loss_scale;
  g[1] = w[1] * *buffers.loss_scale;
  *buffers.loss = 2.5f;
  mixrt_train_step_result result;
  EXPECT(mixrt_train_finish(state, MIXRT_STATUS_OK, &result) ==
         MIXRT_STATUS_OK);
  EXPECT(result.skipped == 0 && result.updates == 1 && result.loss == 2.5);
  EXPECT(result.grad_norm == sqrt(5.0));
  EXPECT(w[0] == 0.5f && w[1] == -1.0f);
  mixrt_master_format format = MIXRT_MASTER_F32;
  const double *master = (const double *)mixrt_train_master(state, 0, &format);
  EXPECT(format == MIXRT_MASTER_F64 && master && master[1] == -1.0);
  /* A checked overflow in the gradient function skips the step. */
  EXPECT(mixrt_train_begin(state, &buffers) == MIXRT_STATUS_OK);
  EXPECT(mixrt_train_finish(state, MIXRT_STATUS_OUT_OF_RANGE, &result) ==
         MIXRT_STATUS_OK);
  EXPECT(result.skipped == 1 && isnan(result.grad_norm));
  EXPECT(result.next_scale == 2.0);
  EXPECT_ERROR(mixrt_train_export(state, "/nonexistent-dir/w.safetensors"),
               MIXRT_STATUS_UNAVAILABLE, "cannot write");
  config.optimizer.learning_rate = NAN;
  EXPECT_ERROR(mixrt_train_prepare(state, size, &layout, &config, &buffers),
               MIXRT_STATUS_INVALID_ARGUMENT, "optimizer.learning_rate (nan)");
  EXPECT(strcmp(mixrt_status_code_name(MIXRT_STATUS_DATA_LOSS), "DATA_LOSS") ==
         0);
}

/* Out-of-range enum values from a C caller: -1, large, INT32_MIN. */
static void test_enum_arguments(void) {
  static const int32_t bad[4] = {-1, 1000, 0x7fffffff, INT32_MIN};
  const float data[2] = {1.0f, 2.0f}, scale = 1.0f, fa[1] = {1}, fb[1] = {1};
  const double da[1] = {1}, db[1] = {1};
  const uint16_t ua[1] = {0x3c00}, ub[1] = {0x3c00};
  const int64_t shape[1] = {2};
  const double w[1] = {1.0};
  int8_t q[2];
  float c[1];
  double cd[1];
  for (int i = 0; i < 4; ++i) {
    mixrt_qtensor *t = NULL;
    mixrt_optimizer *opt = NULL;
    mixrt_optimizer_config config;
    int64_t index = -1;
    EXPECT(strcmp(mixrt_status_code_name((mixrt_status_code)bad[i]),
                  "UNKNOWN") == 0);
    EXPECT_ERROR(mixrt_set_simd_level((mixrt_simd_level)bad[i]),
                 MIXRT_STATUS_INVALID_ARGUMENT, "level");
    EXPECT_ERROR(mixrt_quantize_f32(data, shape, 1, (mixrt_qscheme)bad[i],
                                    MIXRT_PER_TENSOR, &t),
                 MIXRT_STATUS_INVALID_ARGUMENT, "scheme");
    EXPECT_ERROR(
        mixrt_quantize_f32_with_params(data, shape, 1, (mixrt_qscheme)bad[i],
                                       MIXRT_PER_TENSOR, &scale, NULL, &t),
        MIXRT_STATUS_INVALID_ARGUMENT, "scheme");
    EXPECT(t == NULL);
    EXPECT_ERROR(
        mixrt_quantize_f32_buffer(data, 2, (mixrt_qscheme)bad[i], scale, 0, q),
        MIXRT_STATUS_INVALID_ARGUMENT, "scheme");
    EXPECT_ERROR(mixrt_gemm_reduced_f32((mixrt_float16_format)bad[i], 1, 1, 1,
                                        fa, 1, fb, 1, c, 1),
                 MIXRT_STATUS_INVALID_ARGUMENT, "format");
    EXPECT_ERROR(mixrt_gemm_reduced_f64((mixrt_float16_format)bad[i], 1, 1, 1,
                                        da, 1, db, 1, cd, 1),
                 MIXRT_STATUS_INVALID_ARGUMENT, "format");
    EXPECT_ERROR(mixrt_gemm_reduced_u16_f32((mixrt_float16_format)bad[i], 1, 1,
                                            1, ua, 1, ub, 1, c, 1),
                 MIXRT_STATUS_INVALID_ARGUMENT, "format");
    mixrt_optimizer_config_init((mixrt_optimizer_kind)bad[i], &config);
    EXPECT_ERROR(mixrt_optimizer_create(&config, &opt),
                 MIXRT_STATUS_INVALID_ARGUMENT, "config->kind");
    EXPECT(opt == NULL);
    mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config);
    config.kind = (mixrt_optimizer_kind)bad[i];
    EXPECT_ERROR(mixrt_optimizer_create(&config, &opt),
                 MIXRT_STATUS_INVALID_ARGUMENT, "config->kind");
    config.kind = MIXRT_OPTIMIZER_SGD;
    EXPECT(mixrt_optimizer_create(&config, &opt) == MIXRT_STATUS_OK);
    EXPECT_ERROR(
        mixrt_optimizer_add_param(opt, w, 1, (mixrt_lowp_format)bad[i], &index),
        MIXRT_STATUS_INVALID_ARGUMENT, "lowp");
    EXPECT(index == -1 && mixrt_optimizer_num_params(opt) == 0);
    mixrt_optimizer_destroy(opt);
  }
}

int main(void) {
  EXPECT(strcmp(mixrt_last_error_message(), "") == 0);
  test_conversions();
  test_qtensor();
  test_gemm();
  test_optimizer();
  test_train();
  test_enum_arguments();
  if (failures) {
    fprintf(stderr, "c_api_test: %d failures\n", failures);
    return 1;
  }
  printf("c_api_test: OK\n");
  return 0;
}
