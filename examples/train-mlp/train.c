/* Trains the MLP of spiral.mlir on two spirals with the training step mixc
 * compiled (`mixc --train --entry=spiral`): Adam on f64 master weights, the
 * f16 body's working copies re-derived after every step, dynamic loss
 * scaling. Exports the trained weights for the inference build.
 *
 *   train OUT.safetensors [STEPS]
 */
#include "spiral.h"
#include "spirals.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  static float x[SPIRAL_POINTS][2];
  static int32_t y[SPIRAL_POINTS];
  spiral_train_config config;
  spiral_step_result result;
  mixrt_status_code status;
  void *block, *state;
  int step, steps = argc > 2 ? atoi(argv[2]) : 400, skipped = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: train OUT.safetensors [STEPS]\n");
    return 2;
  }
  make_spirals(x, y);

  mixrt_train_config_init(&config);
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAM, &config.optimizer);
  config.optimizer.learning_rate = 0.01;
  config.loss_scaler.growth_interval = 25;
  /* The state: spiral_train_state_size() bytes, 64-byte aligned. */
  block = malloc(spiral_train_state_size() + spiral_TRAIN_STATE_ALIGNMENT - 1);
  if (block == NULL)
    return 1;
  state = (void *)(((uintptr_t)block + spiral_TRAIN_STATE_ALIGNMENT - 1) &
                   ~(uintptr_t)(spiral_TRAIN_STATE_ALIGNMENT - 1));
  status = spiral_train_init(state, &config);
  if (status != MIXRT_STATUS_OK) {
    fprintf(stderr, "init: %s\n", mixrt_last_error_message());
    return 1;
  }
  for (step = 1; step <= steps; ++step) {
    status = spiral_train_step(state, &x[0][0], y, &result);
    if (status != MIXRT_STATUS_OK) {
      fprintf(stderr, "step %d: %s\n", step, mixrt_last_error_message());
      return 1;
    }
    skipped += result.skipped;
    if (step % 100 == 0)
      printf("step %d: loss %.4f, scale %.0f, %d skipped\n", step, result.loss,
             result.next_scale, skipped);
  }
  status = spiral_train_export(state, argv[1]);
  if (status != MIXRT_STATUS_OK) {
    fprintf(stderr, "export: %s\n", mixrt_last_error_message());
    return 1;
  }
  printf("wrote %s\n", argv[1]);
  free(block);
  return 0;
}
