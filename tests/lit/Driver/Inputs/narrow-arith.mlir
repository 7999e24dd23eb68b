// Layers that compute in bf16 and f16 (elementwise, normalization, softmax).
mix.network @narrow precision(f32) (%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %b = mix.block @b precision(bf16) (%u = %x, %v = %y) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> {
    %m = mix.mul %u, %v : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %a = mix.add %m, %u : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %g = mix.weight dense<1.5> : tensor<16xf32>
    %e = mix.weight dense<0.25> : tensor<16xf32>
    %n = mix.layer_norm %a, %g, %e : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %s = mix.softmax %n : (tensor<4x16xf32>) -> tensor<4x16xf32>
    mix.yield %s : tensor<4x16xf32>
  }
  %h = mix.block @h precision(f16) (%u = %x, %v = %y) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> {
    %m = mix.mul %u, %v : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %s = mix.softmax %m : (tensor<4x16xf32>) -> tensor<4x16xf32>
    mix.yield %s : tensor<4x16xf32>
  }
  mix.return %b, %h : tensor<4x16xf32>, tensor<4x16xf32>
}
