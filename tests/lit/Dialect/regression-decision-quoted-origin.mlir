// RUN: mix-opt %s --mix-resolve-precision | FileCheck %s
// RUN: mix-opt %s --mix-resolve-precision | mix-opt --mix-resolve-precision | FileCheck %s
// Regression test (found by mix_model_fuzzer): a `#mix.decision` naming a
// block (or network) whose name is not a bare identifier prints the name
// quoted, as a symbol reference, so that the printed IR parses back. It was
// printed bare (`from block @stage 1`), and every tool reading mix-opt's
// output failed on it ("expected '>'").
// CHECK-LABEL: mix.network @net
// CHECK:       mix.block @"stage 1"
// CHECK:       mix.block @"2nd"
// CHECK:       mix.relu {{.*}}activations = bf16 from block @"2nd",{{.*}}output = bf16 from block @"2nd">
// CHECK:       mix.relu {{.*}}activations = f16 from block @"stage 1",{{.*}}output = f16 from block @"stage 1">
// CHECK:       mix.relu {{.*}}activations = f32 from network @net,{{.*}}output = f32 from network @net>
mix.network @net precision(f32) (%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = mix.block @"stage 1" precision(f16) (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %i = mix.block @"2nd" precision(bf16) (%b = %a) : (tensor<2xf32>) -> tensor<2xf32> {
      %q = mix.relu %b : (tensor<2xf32>) -> tensor<2xf32>
      mix.yield %q : tensor<2xf32>
    }
    %r = mix.relu %i : (tensor<2xf32>) -> tensor<2xf32>
    mix.yield %r : tensor<2xf32>
  }
  %z = mix.relu %y : (tensor<2xf32>) -> tensor<2xf32>
  mix.return %z : tensor<2xf32>
}
