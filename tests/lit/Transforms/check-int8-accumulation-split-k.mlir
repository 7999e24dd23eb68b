// RUN: mix-opt %s -split-input-file --mix-check-int8-accumulation=split-k=true | FileCheck %s
// RUN: mix-opt %s -split-input-file --mix-check-int8-accumulation=split-k=true --mix-quantize | FileCheck %s --check-prefix=QUANT

// With split-k, a layer that could overflow is marked with the largest safe
// K instead of being rejected; mix-quantize carries it to the integer op.
// CHECK-LABEL: mix.network @sym_big
// CHECK: mix.dense {{.*}}mix.k_chunk = 133144 : i64
// QUANT-LABEL: mix.network @sym_big
// QUANT: mix.qdense {{.*}}k_chunk = 133144 : i64
mix.network @sym_big precision(int8) (%x: tensor<1x133145xf32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<133145x1xf32>
  %d = mix.dense %x, %w : (tensor<1x133145xf32>, tensor<133145x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}

// -----

// A layer that fits is left alone.
// CHECK-LABEL: mix.network @sym_ok
// CHECK-NOT: k_chunk
mix.network @sym_ok precision(int8) (%x: tensor<1x133144xf32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<133144x1xf32>
  %d = mix.dense %x, %w : (tensor<1x133144xf32>, tensor<133144x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}

// -----

// conv2d splits whole input channels: 9 products per channel, 133144 / 9.
// CHECK-LABEL: mix.network @conv
// CHECK: mix.conv2d {{.*}}mix.k_chunk = 133144 : i64
mix.network @conv precision(int8) (%x: tensor<1x14800x3x3xf32>) -> tensor<1x1x1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<1x14800x3x3xf32>
  %c = mix.conv2d %x, %w : (tensor<1x14800x3x3xf32>, tensor<1x14800x3x3xf32>) -> tensor<1x1x1x1xf32>
  mix.return %c : tensor<1x1x1x1xf32>
}
