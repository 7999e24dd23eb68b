// Edge INT8 image classifier: int8 convolutions and dense layers, f32 for
// everything that is not a GEMM.
//
//   network @edge          f32
//   ├─ block @features     int8  conv2d layers in int8 (weights and activations
//   │                            int8, accumulator i32, output rescaled to f32);
//   │                            batch_norm, relu and pooling forced to f32
//   │                            (int8 is only for GEMM-like layers)
//   └─ block @classifier         inherits f32; its two dense layers override
//                                it with precision(int8); relu and softmax f32
//
// Weights of int8 layers are quantized symmetric per output channel by
// default when the model is compiled: the weights take about a quarter of
// the bytes of an all-f32 build (mixc --report shows the numbers).
// Try: mix-lint examples/edge_int8.mlir --explain

mix.network @edge precision(f32) (%image: tensor<1x1x28x28xf32>) -> tensor<1x10xf32> {
  %features = mix.block @features precision(int8) (%x = %image)
      : (tensor<1x1x28x28xf32>) -> tensor<1x32x7x7xf32> {
    %w1 = mix.weight external "features.conv1.weight" : tensor<16x1x3x3xf32>
    %b1 = mix.weight external "features.conv1.bias" : tensor<16xf32>
    %c1 = mix.conv2d %x, %w1, %b1 {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x1x28x28xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x28x28xf32>
    %s1 = mix.weight external "features.bn1.scale" : tensor<16xf32>
    %o1 = mix.weight external "features.bn1.bias" : tensor<16xf32>
    %m1 = mix.weight external "features.bn1.mean" : tensor<16xf32>
    %v1 = mix.weight external "features.bn1.var" : tensor<16xf32>
    %n1 = mix.batch_norm %c1, %s1, %o1, %m1, %v1 precision(f32)
        : (tensor<1x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x28x28xf32>
    %r1 = mix.relu %n1 precision(f32) : (tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
    %p1 = mix.max_pool2d %r1 precision(f32) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x16x28x28xf32>) -> tensor<1x16x14x14xf32>

    %w2 = mix.weight external "features.conv2.weight" : tensor<32x16x3x3xf32>
    %b2 = mix.weight external "features.conv2.bias" : tensor<32xf32>
    %c2 = mix.conv2d %p1, %w2, %b2 {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x16x14x14xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x14x14xf32>
    %s2 = mix.weight external "features.bn2.scale" : tensor<32xf32>
    %o2 = mix.weight external "features.bn2.bias" : tensor<32xf32>
    %m2 = mix.weight external "features.bn2.mean" : tensor<32xf32>
    %v2 = mix.weight external "features.bn2.var" : tensor<32xf32>
    %n2 = mix.batch_norm %c2, %s2, %o2, %m2, %v2 precision(f32)
        : (tensor<1x32x14x14xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x32x14x14xf32>
    %r2 = mix.relu %n2 precision(f32) : (tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
    %p2 = mix.max_pool2d %r2 precision(f32) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x32x14x14xf32>) -> tensor<1x32x7x7xf32>
    mix.yield %p2 : tensor<1x32x7x7xf32>
  }

  // The block inherits f32; the dense layers override it with int8.
  %probs = mix.block @classifier (%x = %features) : (tensor<1x32x7x7xf32>) -> tensor<1x10xf32> {
    %flat = mix.flatten %x : (tensor<1x32x7x7xf32>) -> tensor<1x1568xf32>
    %w1 = mix.weight external "classifier.fc1.weight" : tensor<1568x64xf32>
    %b1 = mix.weight external "classifier.fc1.bias" : tensor<64xf32>
    %h = mix.dense %flat, %w1, %b1 precision(int8)
        : (tensor<1x1568xf32>, tensor<1568x64xf32>, tensor<64xf32>) -> tensor<1x64xf32>
    %r = mix.relu %h : (tensor<1x64xf32>) -> tensor<1x64xf32>
    %w2 = mix.weight external "classifier.fc2.weight" : tensor<64x10xf32>
    %b2 = mix.weight external "classifier.fc2.bias" : tensor<10xf32>
    %z = mix.dense %r, %w2, %b2 precision(int8)
        : (tensor<1x64xf32>, tensor<64x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
    %p = mix.softmax %z : (tensor<1x10xf32>) -> tensor<1x10xf32>
    mix.yield %p : tensor<1x10xf32>
  }
  mix.return %probs : tensor<1x10xf32>
}
