/* Trains the transformer example (embedding, attention, layer_norm, gelu,
 * f16 blocks) and the ResNet example (convolutions, batch_norm with running
 * statistics, f16 stages) with the training steps mixc --train compiled,
 * on one fixed batch each, and checks that the loss falls below a quarter
 * of its first value with no step skipped (Adam, lr 3e-3, loss scale 2^16,
 * f64 masters). Prints the first and last loss. */
#include "resnet.h"
#include "transformer.h"

#include <stdio.h>
#include <stdlib.h>

static void *aligned_state(size_t bytes) {
  /* 64-byte aligned without C11's aligned_alloc. */
  char *block = (char *)malloc(bytes + 64 + sizeof(void *));
  char *state;
  if (block == NULL)
    return NULL;
  state = (char *)(((uintptr_t)block + sizeof(void *) + 63) & ~(uintptr_t)63);
  ((void **)state)[-1] = block;
  return state;
}

static void free_state(void *state) { free(((void **)state)[-1]); }

static int report(const char *name, double first, double last, int skipped) {
  int ok = last < 0.25 * first && skipped == 0;
  printf("%s: loss %.3f -> %.3f, %d skipped: %s\n", name, first, last, skipped,
         ok ? "trained" : "FAILED");
  return ok ? 0 : 1;
}

int main(void) {
  static int32_t tokens[16], targets[16], labels[2] = {3, 7};
  static float image[2 * 3 * 16 * 16];
  mixrt_train_config config;
  mixrt_train_step_result r;
  double first = 0;
  int i, step, skipped = 0, failed = 0;
  void *state;
  for (i = 0; i < 16; ++i) {
    tokens[i] = (i * 7) % 50;
    targets[i] = (i * 7 + 1) % 50;
  }
  for (i = 0; i < 2 * 3 * 16 * 16; ++i)
    image[i] = (float)((i * 37) % 17) / 17.0f - 0.5f;
  mixrt_train_config_init(&config);
  config.optimizer.learning_rate = 3e-3;

  state = aligned_state(transformer_train_state_size());
  if (state == NULL ||
      transformer_train_init(state, &config) != MIXRT_STATUS_OK)
    return printf("transformer init: %s\n", mixrt_last_error_message()), 1;
  for (step = 0; step < 60; ++step) {
    if (transformer_train_step(state, tokens, targets, &r) != MIXRT_STATUS_OK)
      return printf("transformer step: %s\n", mixrt_last_error_message()), 1;
    if (step == 0)
      first = r.loss;
    skipped += r.skipped;
  }
  failed |= report("transformer", first, r.loss, skipped);
  free_state(state);

  skipped = 0;
  state = aligned_state(resnet_train_state_size());
  if (state == NULL || resnet_train_init(state, &config) != MIXRT_STATUS_OK)
    return printf("resnet init: %s\n", mixrt_last_error_message()), 1;
  for (step = 0; step < 40; ++step) {
    if (resnet_train_step(state, image, labels, &r) != MIXRT_STATUS_OK)
      return printf("resnet step: %s\n", mixrt_last_error_message()), 1;
    if (step == 0)
      first = r.loss;
    skipped += r.skipped;
  }
  failed |= report("resnet", first, r.loss, skipped);
  free_state(state);
  return failed;
}
