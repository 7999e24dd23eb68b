/*===-- example.c - Using the mixrt C ABI -------------------------------===*\
|*                                                                          *|
|* The example of docs/runtime.md, built and run by CTest (runtime.example). *|
|* It converts to f16, quantizes, multiplies in INT8, and runs one loss     *|
|* scaler step, checking every result; it prints "example: all checks      *|
|* passed" and returns 0 only if all of them hold.                          *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#include <mixrt/mixrt.h>

#include <stdio.h>

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "example.c:%d: check failed: %s\n", __LINE__, #cond);    \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Every fallible call returns a status; the message explains failures. */
#define CHECK_OK(call)                                                         \
  do {                                                                         \
    mixrt_status_code code_ = (call);                                          \
    if (code_ != MIXRT_STATUS_OK) {                                            \
      fprintf(stderr, "%s failed: %s: %s\n", #call,                            \
              mixrt_status_code_name(code_), mixrt_last_error_message());      \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/* The "optimizer" run by the loss scaler step: counts its calls. */
static mixrt_status_code apply_update(void *user_data) {
  ++*(int *)user_data;
  return MIXRT_STATUS_OK;
}

int main(void) {
  /* Header and library must agree. */
  EXPECT(mixrt_api_version() == MIXRT_API_VERSION);

  /* 1. Conversions: round to nearest even, overflow to inf. */
  EXPECT(mixrt_f32_to_f16(1.0f) == 0x3c00);
  EXPECT(mixrt_f32_to_f16(65520.0f) == 0x7c00);      /* beyond max: inf */
  EXPECT(mixrt_f64_to_bf16(1.0 + 0x1p-8) == 0x3f80); /* tie: to even */
  const float acts[4] = {0.5f, -1.25f, 70000.0f, 3.0f};
  uint16_t half[4];
  CHECK_OK(mixrt_f32_to_f16_array(acts, 4, half));
  /* The checked variant names the element that overflowed. */
  EXPECT(mixrt_f32_to_f16_array_checked(acts, 4, half) ==
         MIXRT_STATUS_OUT_OF_RANGE);
  printf("checked conversion: %s\n", mixrt_last_error_message());

  /* 2. Quantization: symmetric per tensor; max |x| = 31.75 -> scale 0.25. */
  const float weights[6] = {31.75f, -16.0f, 0.0f, 0.125f, 0.375f, -31.75f};
  const int64_t shape[2] = {2, 3};
  mixrt_qtensor *qw = NULL;
  CHECK_OK(mixrt_quantize_f32(weights, shape, 2, MIXRT_QSCHEME_SYMMETRIC,
                              MIXRT_PER_TENSOR, &qw));
  const int8_t *q = mixrt_qtensor_data(qw);
  EXPECT(q[0] == 127 && q[1] == -64 && q[2] == 0 && q[5] == -127);
  /* 0.125 / 0.25 = 0.5 and 0.375 / 0.25 = 1.5 are ties: 0 and 2. */
  EXPECT(q[3] == 0 && q[4] == 2);

  /* 3. INT8 GEMM: [2x3] x [3x2] -> int32, exact. */
  const int8_t x[6] = {1, 2, 3, -1, -2, -3};
  int32_t acc[4];
  CHECK_OK(mixrt_gemm_s8s8s32(2, 2, 3, x, 3, q, 2, acc, 2));
  /* row 0 of x . columns of q (q is used as a 3x2 matrix here). */
  EXPECT(acc[0] == 1 * 127 + 2 * 0 + 3 * 2);
  EXPECT(acc[1] == 1 * -64 + 2 * 0 + 3 * -127);
  EXPECT(acc[2] == -acc[0] && acc[3] == -acc[1]);
  /* Bad arguments are reported, never undefined behaviour. */
  EXPECT(mixrt_gemm_s8s8s32(2, 2, 3, x, 2, q, 2, acc, 2) ==
         MIXRT_STATUS_INVALID_ARGUMENT);
  printf("bad lda: %s\n", mixrt_last_error_message());
  mixrt_qtensor_destroy(qw);

  /* 4. One mixed-precision training step with a loss scaler. */
  mixrt_loss_scaler *scaler = NULL;
  CHECK_OK(mixrt_loss_scaler_create(NULL, &scaler)); /* defaults: 2^16 */
  float scaled_loss = 0.0f;
  CHECK_OK(mixrt_loss_scaler_scale_loss_f32(scaler, 0.75f, &scaled_loss));
  EXPECT(scaled_loss == 49152.0f);
  float grads[2] = {65536.0f, -32768.0f}; /* d(scaled loss)/dw */
  float *tensors[1] = {grads};
  const int64_t sizes[1] = {2};
  int updates = 0;
  int32_t skipped = -1;
  CHECK_OK(mixrt_loss_scaler_step_f32(scaler, tensors, sizes, 1, apply_update,
                                      &updates, &skipped));
  EXPECT(skipped == 0 && updates == 1);
  EXPECT(grads[0] == 1.0f && grads[1] == -0.5f); /* unscaled in place */
  mixrt_loss_scaler_destroy(scaler);

  if (failures != 0) {
    printf("example: %d checks failed\n", failures);
    return 1;
  }
  printf("example: all checks passed\n");
  return 0;
}
