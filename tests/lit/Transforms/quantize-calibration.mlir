// RUN: mix-opt %s --mix-quantize=calibration=%S/Inputs/calibration.json | FileCheck %s
// RUN: not mix-opt %s --mix-quantize=calibration=%S/Inputs/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING

// Static scales from the calibration file, keyed by layer path + operand:
//   dense#0: symmetric, max(|-1.0|, 2.54) / 127 = 0.02
//   dense#1: asymmetric, (2.55 - -1.0) / 255 = 0.0139215686 and zero point
//            round(-128 - -1.0 / scale) = round(-56.17) = -56
// CHECK-LABEL: mix.network @static
// CHECK: mix.quantize %{{.*}} symmetric static(scale = 2.000000e-02, zero_point = 0) checked
// CHECK: mix.qdense
// CHECK: mix.quantize %{{.*}} asymmetric static(scale = 0.0139215682, zero_point = -56) checked
// CHECK: mix.qdense
// MISSING: missing.json
mix.network @static precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %y = mix.block @head precision(int8) (%a = %x) : (tensor<1x2xf32>) -> tensor<1x2xf32> {
    %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
    %h = mix.dense %a, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %z = mix.dense %h, %w precision(int8, activations = int8<asymmetric>) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    mix.yield %z : tensor<1x2xf32>
  }
  mix.return %y : tensor<1x2xf32>
}
