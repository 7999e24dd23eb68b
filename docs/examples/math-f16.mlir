// A squeeze-excite gate in f16: hard_swish and sigmoid are elementwise math
// layers; exp inside sigmoid is a policy warning in f16 (docs/precision.md).
mix.network @gate precision(f32) (%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %y = mix.block @se precision(f16) (%a = %x) : (tensor<1x16xf32>) -> tensor<1x16xf32> {
    %h = mix.hard_swish %a : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %s = mix.sigmoid %h : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %g = mix.mul %a, %s : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
    mix.yield %g : tensor<1x16xf32>
  }
  mix.return %y : tensor<1x16xf32>
}
