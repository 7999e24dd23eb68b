// Two transformer blocks (bench/compile/compile_scaling.py, 16 layers) computing
// at the network's precision; code-size.test compiles it at f32, f16 and bf16.
mix.network @transformer precision(f32) (%x: tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
  %blk0 = mix.block @block0 (%in = %x) : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
    %g1 = mix.weight dense<0.0200> : tensor<32xf32>
    %e1 = mix.weight dense<0.0300> : tensor<32xf32>
    %n1 = mix.layer_norm %in, %g1, %e1 : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
    %wq = mix.weight dense<0.0400> : tensor<32x32xf32>
    %wk = mix.weight dense<0.0500> : tensor<32x32xf32>
    %wv = mix.weight dense<0.0600> : tensor<32x32xf32>
    %wo = mix.weight dense<0.0700> : tensor<32x32xf32>
    %a = mix.attention %n1, %wq, %wk, %wv, %wo {causal = true, num_heads = 4 : i64} : (tensor<1x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<1x8x32xf32>
    %r1 = mix.add %in, %a : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
    %g2 = mix.weight dense<0.0800> : tensor<32xf32>
    %e2 = mix.weight dense<0.0900> : tensor<32xf32>
    %n2 = mix.layer_norm %r1, %g2, %e2 : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
    %w1 = mix.weight dense<0.1000> : tensor<32x64xf32>
    %c1 = mix.weight dense<0.1100> : tensor<64xf32>
    %u = mix.dense %n2, %w1, %c1 : (tensor<1x8x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
    %g = mix.gelu %u {approximate = true} : (tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %w2 = mix.weight dense<0.1200> : tensor<64x32xf32>
    %c2 = mix.weight dense<0.1300> : tensor<32xf32>
    %d = mix.dense %g, %w2, %c2 : (tensor<1x8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
    %r2 = mix.add %r1, %d : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
    mix.yield %r2 : tensor<1x8x32xf32>
  }
  %blk1 = mix.block @block1 (%in = %blk0) : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
    %g1 = mix.weight dense<0.1000> : tensor<32xf32>
    %e1 = mix.weight dense<0.1100> : tensor<32xf32>
    %n1 = mix.layer_norm %in, %g1, %e1 : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
    %wq = mix.weight dense<0.1200> : tensor<32x32xf32>
    %wk = mix.weight dense<0.1300> : tensor<32x32xf32>
    %wv = mix.weight dense<0.1400> : tensor<32x32xf32>
    %wo = mix.weight dense<0.1500> : tensor<32x32xf32>
    %a = mix.attention %n1, %wq, %wk, %wv, %wo {causal = true, num_heads = 4 : i64} : (tensor<1x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<1x8x32xf32>
    %r1 = mix.add %in, %a : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
    %g2 = mix.weight dense<0.1600> : tensor<32xf32>
    %e2 = mix.weight dense<0.1700> : tensor<32xf32>
    %n2 = mix.layer_norm %r1, %g2, %e2 : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
    %w1 = mix.weight dense<0.1800> : tensor<32x64xf32>
    %c1 = mix.weight dense<0.1900> : tensor<64xf32>
    %u = mix.dense %n2, %w1, %c1 : (tensor<1x8x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
    %g = mix.gelu %u {approximate = true} : (tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %w2 = mix.weight dense<0.2000> : tensor<64x32xf32>
    %c2 = mix.weight dense<0.2100> : tensor<32xf32>
    %d = mix.dense %g, %w2, %c2 : (tensor<1x8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
    %r2 = mix.add %r1, %d : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
    mix.yield %r2 : tensor<1x8x32xf32>
  }
  mix.return %blk1 : tensor<1x8x32xf32>
}
