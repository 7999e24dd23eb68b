//===- main.cpp - a C++-only application embedding a mixc model ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Built by tests/package/cxx-app/CMakeLists.txt (project(... CXX), no C)
// against an installed mixc: includes the headers mixc_add_model generated
// (tiny.h, and dsl_tiny.h from the model dsl_tiny.cpp writes with the
// DSL), calls the compiled networks and checks their results exactly. Prints
// "cxx-app: ok" and exits 0 when every check holds.
//
//===----------------------------------------------------------------------===//

#include "dsl_tiny.h"
#include "tiny.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

int failures = 0;

/// Compares `got` with `want` exactly (every value is exact in f32).
template <size_t N>
void expectEqual(const char *what, const std::array<float, N> &got,
                 const std::array<float, N> &want) {
  for (size_t i = 0; i < N; ++i) {
    if (got[i] != want[i]) {
      std::fprintf(stderr, "%s[%zu] = %.9g, expected %.9g\n", what, i,
                   static_cast<double>(got[i]), static_cast<double>(want[i]));
      ++failures;
    }
  }
}

} // namespace

int main() {
  // image = [[1, 2, 3, 4], [-1, 0.5, -2, 1]] through dense (W, b) + relu:
  //   row 0: 2.25 + 0.5 = 2.75, 1 - 1 = 0, 10.25 + 0 = 10.25
  //   row 1: 0.625 + 0.5 = 1.125, -1.25 - 1 = -2.25 -> 0, -0.5 -> 0
  const std::array<float, 8> image = {1, 2, 3, 4, -1, 0.5f, -2, 1};
  std::array<float, 6> probs{};
  mixrt_status_code status = tiny_run(image.data(), probs.data());
  if (status != MIXRT_STATUS_OK) {
    std::fprintf(stderr, "tiny_run: %s: %s\n", mixrt_status_code_name(status),
                 mixrt_last_error_message());
    return 1;
  }
  expectEqual("probs", probs, {2.75f, 0, 10.25f, 1.125f, 0, 0});

  // The same network written with mix/dsl.h (dsl_tiny.cpp).
  std::array<float, 6> dslProbs{};
  status = dsl_tiny_run(image.data(), dslProbs.data());
  if (status != MIXRT_STATUS_OK) {
    std::fprintf(stderr, "dsl_tiny_run: %s: %s\n",
                 mixrt_status_code_name(status), mixrt_last_error_message());
    return 1;
  }
  expectEqual("dsl_tiny", dslProbs, {2.75f, 0, 10.25f, 1.125f, 0, 0});

  // The f16 block: 1e6 overflows its checked input cast; the status and the
  // message name the cast's location in tiny.mlir.
  const std::array<float, 4> big = {1, -2, 1e6f, 3};
  std::array<float, 4> out{};
  status = half_run(big.data(), out.data());
  std::string message = mixrt_last_error_message();
  if (status != MIXRT_STATUS_OUT_OF_RANGE ||
      message.find("tiny.mlir:") == std::string::npos ||
      message.find("checked cast from f32 to f16 overflows at element 2") ==
          std::string::npos) {
    std::fprintf(stderr, "half_run(big): %s: %s\n",
                 mixrt_status_code_name(status), message.c_str());
    ++failures;
  }
  // The next call starts clean.
  const std::array<float, 4> small = {1, -2, 0.5f, 3};
  status = half_run(small.data(), out.data());
  if (status != MIXRT_STATUS_OK) {
    std::fprintf(stderr, "half_run(small): %s\n",
                 mixrt_status_code_name(status));
    ++failures;
  }
  expectEqual("half", out, {1, 0, 0.5f, 3});

  if (failures != 0)
    return 1;
  std::printf("cxx-app: ok\n");
  return 0;
}
