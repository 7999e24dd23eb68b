// The default policy's gradient-precision rule: the layer computing a
// weight gradient (an output named grad.<weight>, as mix-differentiate
// names them) must output it in f32 or wider, wherever the narrower
// precision comes from.
// RUN: mix-opt %s -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null

mix.network @fit_grad precision(f32) (%xt: tensor<3x4xf32>, %dy: tensor<4x2xf32>, %s: tensor<f32> {mix.name = "loss_scale"}) -> (tensor<3x2xf32> {mix.name = "grad.w"}, tensor<3x2xf32> {mix.name = "grad.v"}, tensor<3x2xf32> {mix.name = "grad.u"}, tensor<3x2xf32> {mix.name = "other"}) {
  // expected-error @+2 {{[gradient-precision] 'mix.matmul' returns the gradient of weight 'w' in f16 (output); weight gradients are kept in f32 or wider: small gradients flush to zero and updates lose bits in a narrower format}}
  // expected-note @+1 {{f16 set by the layer's own precision}}
  %g = mix.matmul %xt, %dy precision(f16) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  // expected-note @+1 {{bf16 inherited from block @back}}
  %h = mix.block @back precision(bf16) (%a = %xt, %b = %dy) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32> {
    // expected-error @+3 {{[gradient-precision] 'mix.matmul' returns the gradient of weight 'v' in bf16 (output)}}
    // expected-error @+2 {{[accumulator-precision] 'mix.matmul' accumulates in bf16; floating-point accumulation must be f32 or wider}}
    // expected-note @+1 {{bf16 set by a property override}}
    %m = mix.matmul %a, %b precision(accumulator = bf16) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    mix.yield %m : tensor<3x2xf32>
  }
  // f32 (inherited): fine. An f16 output not named grad.*: not this rule.
  %k = mix.matmul %xt, %dy : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %o = mix.matmul %xt, %dy precision(f16) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  mix.return %g, %h, %k, %o : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}
