// ResNet-style image classifier with hierarchical precision.
//
//   network @resnet        f32   (default for everything below)
//   ├─ block @stem               inherits f32
//   ├─ block @stage1       f16   residual stage; batch_norm layers back in f32
//   ├─ block @stage2       f16   strided residual stage with a 1x1 shortcut
//   └─ block @classifier         inherits f32: global_avg_pool, dense, loss
//
// Weights are external references, resolved against a weights file when the
// model is compiled. Try: mix-lint examples/resnet.mlir --explain

mix.network @resnet precision(f32) (%image: tensor<2x3x16x16xf32>, %labels: tensor<2xi32>)
    -> (tensor<2x10xf32>, tensor<f32>) {
  %stem = mix.block @stem (%x = %image) : (tensor<2x3x16x16xf32>) -> tensor<2x16x16x16xf32> {
    %w = mix.weight external "stem.conv.weight" : tensor<16x3x3x3xf32>
    %c = mix.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<2x3x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x16x16xf32>
    %s = mix.weight external "stem.bn.scale" : tensor<16xf32>
    %b = mix.weight external "stem.bn.bias" : tensor<16xf32>
    %m = mix.weight external "stem.bn.mean" : tensor<16xf32>
    %v = mix.weight external "stem.bn.var" : tensor<16xf32>
    %n = mix.batch_norm %c, %s, %b, %m, %v
        : (tensor<2x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x16x16xf32>
    %r = mix.relu %n : (tensor<2x16x16x16xf32>) -> tensor<2x16x16x16xf32>
    mix.yield %r : tensor<2x16x16x16xf32>
  }

  %stage1 = mix.block @stage1 precision(f16) (%x = %stem) : (tensor<2x16x16x16xf32>) -> tensor<2x16x16x16xf32> {
    %w1 = mix.weight external "stage1.conv1.weight" : tensor<16x16x3x3xf32>
    %c1 = mix.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<2x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x16x16xf32>
    %s1 = mix.weight external "stage1.bn1.scale" : tensor<16xf32>
    %b1 = mix.weight external "stage1.bn1.bias" : tensor<16xf32>
    %m1 = mix.weight external "stage1.bn1.mean" : tensor<16xf32>
    %v1 = mix.weight external "stage1.bn1.var" : tensor<16xf32>
    %n1 = mix.batch_norm %c1, %s1, %b1, %m1, %v1 precision(f32)
        : (tensor<2x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x16x16xf32>
    %r1 = mix.relu %n1 : (tensor<2x16x16x16xf32>) -> tensor<2x16x16x16xf32>
    %w2 = mix.weight external "stage1.conv2.weight" : tensor<16x16x3x3xf32>
    %c2 = mix.conv2d %r1, %w2 {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<2x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x16x16xf32>
    %s2 = mix.weight external "stage1.bn2.scale" : tensor<16xf32>
    %b2 = mix.weight external "stage1.bn2.bias" : tensor<16xf32>
    %m2 = mix.weight external "stage1.bn2.mean" : tensor<16xf32>
    %v2 = mix.weight external "stage1.bn2.var" : tensor<16xf32>
    %n2 = mix.batch_norm %c2, %s2, %b2, %m2, %v2 precision(f32)
        : (tensor<2x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x16x16xf32>
    %sum = mix.add %n2, %x : (tensor<2x16x16x16xf32>, tensor<2x16x16x16xf32>) -> tensor<2x16x16x16xf32>
    %out = mix.relu %sum : (tensor<2x16x16x16xf32>) -> tensor<2x16x16x16xf32>
    mix.yield %out : tensor<2x16x16x16xf32>
  }

  %stage2 = mix.block @stage2 precision(f16) (%x = %stage1) : (tensor<2x16x16x16xf32>) -> tensor<2x32x8x8xf32> {
    %w1 = mix.weight external "stage2.conv1.weight" : tensor<32x16x3x3xf32>
    %c1 = mix.conv2d %x, %w1 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
        : (tensor<2x16x16x16xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x8x8xf32>
    %s1 = mix.weight external "stage2.bn1.scale" : tensor<32xf32>
    %b1 = mix.weight external "stage2.bn1.bias" : tensor<32xf32>
    %m1 = mix.weight external "stage2.bn1.mean" : tensor<32xf32>
    %v1 = mix.weight external "stage2.bn1.var" : tensor<32xf32>
    %n1 = mix.batch_norm %c1, %s1, %b1, %m1, %v1 precision(f32)
        : (tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x32x8x8xf32>
    %r1 = mix.relu %n1 : (tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
    %w2 = mix.weight external "stage2.conv2.weight" : tensor<32x32x3x3xf32>
    %c2 = mix.conv2d %r1, %w2 {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<2x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<2x32x8x8xf32>
    %s2 = mix.weight external "stage2.bn2.scale" : tensor<32xf32>
    %b2 = mix.weight external "stage2.bn2.bias" : tensor<32xf32>
    %m2 = mix.weight external "stage2.bn2.mean" : tensor<32xf32>
    %v2 = mix.weight external "stage2.bn2.var" : tensor<32xf32>
    %n2 = mix.batch_norm %c2, %s2, %b2, %m2, %v2 precision(f32)
        : (tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x32x8x8xf32>
    %ws = mix.weight external "stage2.shortcut.weight" : tensor<32x16x1x1xf32>
    %sc = mix.conv2d %x, %ws {strides = array<i64: 2, 2>}
        : (tensor<2x16x16x16xf32>, tensor<32x16x1x1xf32>) -> tensor<2x32x8x8xf32>
    %sum = mix.add %n2, %sc : (tensor<2x32x8x8xf32>, tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
    %out = mix.relu %sum : (tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
    mix.yield %out : tensor<2x32x8x8xf32>
  }

  // No precision override: the classifier runs at the network's f32.
  %logits, %loss = mix.block @classifier (%x = %stage2, %y = %labels)
      : (tensor<2x32x8x8xf32>, tensor<2xi32>) -> (tensor<2x10xf32>, tensor<f32>) {
    %pooled = mix.global_avg_pool %x : (tensor<2x32x8x8xf32>) -> tensor<2x32xf32>
    %w = mix.weight external "fc.weight" : tensor<32x10xf32>
    %b = mix.weight external "fc.bias" : tensor<10xf32>
    %z = mix.dense %pooled, %w, %b : (tensor<2x32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
    %l = mix.cross_entropy_loss %z, %y : (tensor<2x10xf32>, tensor<2xi32>) -> tensor<f32>
    mix.yield %z, %l : tensor<2x10xf32>, tensor<f32>
  }
  mix.return %logits, %loss : tensor<2x10xf32>, tensor<f32>
}
