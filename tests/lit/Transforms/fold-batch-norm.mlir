// RUN: mix-opt %s --mix-resolve-precision --mix-fold-batch-norm=report=true -verify-diagnostics --split-input-file | FileCheck %s
// A batch_norm after a conv2d becomes part of the conv2d's weights and bias
// (s = scale / sqrt(variance + epsilon); w' = w * s; b' = (b - mean) * s +
// bias) where that loses nothing the resolved precisions promise. The
// values below are chosen so that every folded number is exact.

// s = 4 / sqrt(3 + 1) = 2 and 3 / sqrt(8 + 1) = 1:
// w' = [[2, 4], [3, 4]], b' = (0.5 - 1) * 2 + 0.25 = -0.75 and
// (-1 - 2) * 1 + 0 = -3. The weights nothing uses any more are gone.
// CHECK-LABEL: mix.network @f32
// CHECK-NOT:   mix.batch_norm
// CHECK-DAG:   %[[W:.*]] = mix.weight dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG:   %[[B:.*]] = mix.weight dense<[-7.500000e-01, -3.000000e+00]> : tensor<2xf32>
// CHECK:       %[[C:.*]] = mix.conv2d %{{.*}}, %[[W]], %[[B]] {mix.folded_batch_norm = #loc{{[0-9]*}}, resolved =
// CHECK-NEXT:  mix.return %[[C]]
// CHECK-NOT:   mix.weight
mix.network @f32 precision(f32) (%x: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %w = mix.weight dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = mix.weight dense<[0.5, -1.0]> : tensor<2xf32>
  %s = mix.weight dense<[4.0, 3.0]> : tensor<2xf32>
  %o = mix.weight dense<[0.25, 0.0]> : tensor<2xf32>
  %m = mix.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %v = mix.weight dense<[3.0, 8.0]> : tensor<2xf32>
  %c = mix.conv2d %x, %w, %b : (tensor<1x2x1x1xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf32>
  // expected-remark @below {{batch_norm folded into the conv2d at}}
  %n = mix.batch_norm %c, %s, %o, %m, %v {epsilon = 1.0 : f64} : (tensor<1x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf32>
  mix.return %n : tensor<1x2x1x1xf32>
}

// -----

// Without a conv bias, the folded conv2d gets one: b' = -mean * s + bias
// = -1 * 2 + 0.25 and -2 * 1 + 0.
// The weights come into the block through bindings, which are dropped.
// CHECK-LABEL: mix.network @nobias
// CHECK:       mix.block @body (%{{[^ ]*}} = %{{[^ ]*}}) :
// CHECK-DAG:   mix.weight dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}-3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG:   mix.weight dense<[-1.750000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK:       mix.conv2d
// CHECK-NOT:   mix.batch_norm
mix.network @nobias precision(f32) (%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = mix.weight dense<[[[[1.0]]], [[[-3.0]]]]> : tensor<2x1x1x1xf32>
  %s = mix.weight dense<[4.0, 3.0]> : tensor<2xf32>
  %o = mix.weight dense<[0.25, 0.0]> : tensor<2xf32>
  %m = mix.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %v = mix.weight dense<[3.0, 8.0]> : tensor<2xf32>
  %y = mix.block @body (%a = %x, %kw = %w, %ks = %s, %ko = %o, %km = %m, %kv = %v) : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32> {
    %c = mix.conv2d %a, %kw : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
    // expected-remark @below {{batch_norm folded into the conv2d at}}
    %n = mix.batch_norm %c, %ks, %ko, %km, %kv {epsilon = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
    mix.yield %n : tensor<1x2x2x2xf32>
  }
  mix.return %y : tensor<1x2x2x2xf32>
}

// -----

// As mix-import-onnx writes a model: the conv2d and the batch_norm in
// sibling blocks (one per module). The batch_norm's block passes its input
// through; its parameters and bindings are gone.
// CHECK-LABEL: mix.network @siblings
// CHECK:       mix.block @conv1 (%{{[^ ]*}} = %{{[^ ]*}}) :
// CHECK-DAG:   mix.weight dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}-3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG:   mix.weight dense<[-1.750000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK:       mix.conv2d {{.*}}mix.folded_batch_norm
// CHECK:       mix.block @bn1 (%[[A:[^ ]*]] = %{{[^ ]*}}) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    mix.yield %[[A]]
mix.network @siblings precision(f32) (%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = mix.block @conv1 (%a = %x) : (tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
    %w = mix.weight dense<[[[[1.0]]], [[[-3.0]]]]> : tensor<2x1x1x1xf32>
    %y = mix.conv2d %a, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
    mix.yield %y : tensor<1x2x2x2xf32>
  }
  %n = mix.block @bn1 (%a = %c) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
    %s = mix.weight dense<[4.0, 3.0]> : tensor<2xf32>
    %o = mix.weight dense<[0.25, 0.0]> : tensor<2xf32>
    %m = mix.weight dense<[1.0, 2.0]> : tensor<2xf32>
    %v = mix.weight dense<[3.0, 8.0]> : tensor<2xf32>
    // expected-remark @below {{batch_norm folded into the conv2d at}}
    %y = mix.batch_norm %a, %s, %o, %m, %v {epsilon = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
    mix.yield %y : tensor<1x2x2x2xf32>
  }
  mix.return %n : tensor<1x2x2x2xf32>
}

// -----

// An f16 conv2d with its batch_norm in f16 too: the folded weights are
// rounded once to f16 (3 * 0.1 / sqrt(0.75 + 0.25) = 0.3 -> 0.300048828125, f16's nearest), kept in
// their declared f32 type for mix-insert-casts.
// CHECK-LABEL: mix.network @half
// CHECK:       mix.weight dense<0.300048828> : tensor<1x1x1x1xf32>
// CHECK-NOT:   mix.batch_norm
mix.network @half precision(f16) (%x: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> {
  %w = mix.weight dense<3.0> : tensor<1x1x1x1xf32>
  %s = mix.weight dense<0.1> : tensor<1xf32>
  %o = mix.weight dense<0.0> : tensor<1xf32>
  %m = mix.weight dense<0.0> : tensor<1xf32>
  %v = mix.weight dense<0.75> : tensor<1xf32>
  %c = mix.conv2d %x, %w : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  // expected-remark @below {{batch_norm folded into the conv2d at}}
  %n = mix.batch_norm %c, %s, %o, %m, %v {epsilon = 0.25 : f64} : (tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  mix.return %n : tensor<1x1x1x1xf32>
}

// -----

// What stays a batch_norm, and why.
// CHECK-LABEL: mix.network @kept
// CHECK-COUNT-6: mix.batch_norm
mix.network @kept precision(f32) (%x: tensor<1x1x1x1xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) {
  %w = mix.weight dense<3.0> : tensor<1x1x1x1xf32>
  %e = mix.weight external "w" : tensor<1x1x1x1xf32>
  %s = mix.weight dense<1.0> : tensor<1xf32>
  %z = mix.weight dense<0.0> : tensor<1xf32>
  %neg = mix.weight dense<-2.0> : tensor<1xf32>
  // The block runs in f16 but its batch_norm is kept in f32, as the
  // precision hierarchy invites.
  %h = mix.block @half precision(f16) (%a = %x, %kw = %w, %ks = %s, %kz = %z) : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32> {
    %c = mix.conv2d %a, %kw : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
    // expected-remark @below {{batch_norm not folded: the batch_norm computes or stores at a wider precision than the conv2d}}
    %n = mix.batch_norm %c, %ks, %kz, %kz, %ks precision(f32) : (tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
    mix.yield %n : tensor<1x1x1x1xf32>
  }
  // The conv2d's result is also returned.
  %c2 = mix.conv2d %x, %w : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  // expected-remark @below {{batch_norm not folded: the conv2d's result has other uses}}
  %n2 = mix.batch_norm %c2, %s, %z, %z, %s : (tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  // The weight is only known when mixc binds the weights file.
  %c3 = mix.conv2d %x, %e : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  // expected-remark @below {{batch_norm not folded: a weight is not bound to data}}
  %n3 = mix.batch_norm %c3, %s, %z, %z, %s : (tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  // variance + epsilon < 0: the compiled code's checks report the NaN.
  %c4 = mix.conv2d %x, %w : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  // expected-remark @below {{batch_norm not folded: a folded weight or bias would not be finite}}
  %n4 = mix.batch_norm %c4, %s, %z, %z, %neg : (tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  // Through a block whose result is read twice.
  %b6 = mix.block @twice (%a = %x, %kw = %w) : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> {
    %c6 = mix.conv2d %a, %kw : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
    mix.yield %c6 : tensor<1x1x1x1xf32>
  }
  // expected-remark @below {{batch_norm not folded: the conv2d's result has other uses}}
  %n6 = mix.batch_norm %b6, %s, %z, %z, %s : (tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  // Not after a conv2d: nothing to say.
  %n5 = mix.batch_norm %x, %s, %z, %z, %s : (tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  mix.return %h, %c2, %n2, %n3, %n4, %n5, %b6, %n6 : tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>
}
