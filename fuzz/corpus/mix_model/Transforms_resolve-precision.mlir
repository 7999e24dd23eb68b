// Precision resolution: property override > layer > innermost block > ... >
// network, derived accumulator/output defaults, and provenance.
// Idempotence: a second run changes nothing.
// The resolved IR still round-trips through the generic form.

// Network default only; layers without weights have no `weights` entry.
mix.network @network_default precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %0 = mix.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// Blocks nested four deep, named and unnamed, with and without precision:
// the innermost block that sets a precision wins.
mix.network @nesting precision(f32) (%x: tensor<4xf32>) {
  mix.block @l1 precision(bf16) (%a = %x) : (tensor<4xf32>) -> () {
    %0 = mix.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    mix.block @l2 (%b = %a) : (tensor<4xf32>) -> () {
      %1 = mix.relu %b : (tensor<4xf32>) -> tensor<4xf32>
      mix.block precision(f16) (%c = %b) : (tensor<4xf32>) -> () {
        %2 = mix.relu %c : (tensor<4xf32>) -> tensor<4xf32>
        mix.block @l4 precision(f64) (%d = %c) : (tensor<4xf32>) -> () {
          %3 = mix.relu %d : (tensor<4xf32>) -> tensor<4xf32>
          mix.block (%e = %d) : (tensor<4xf32>) -> () {
            %4 = mix.relu %e : (tensor<4xf32>) -> tensor<4xf32>
            %5 = mix.relu %e precision(f16) : (tensor<4xf32>) -> tensor<4xf32>
            mix.yield
          }
          mix.yield
        }
        %6 = mix.relu %c : (tensor<4xf32>) -> tensor<4xf32>
        mix.yield
      }
      mix.yield
    }
    %7 = mix.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield
  }
  %8 = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// Blocks without a precision are transparent, named or not.
mix.network @transparent precision(bf16) (%x: tensor<4xf32>) {
  mix.block @a (%a = %x) : (tensor<4xf32>) -> () {
    mix.block (%b = %a) : (tensor<4xf32>) -> () {
      mix.block @c (%c = %b) : (tensor<4xf32>) -> () {
        %0 = mix.gelu %c : (tensor<4xf32>) -> tensor<4xf32>
        mix.yield
      }
      mix.yield
    }
    mix.yield
  }
  mix.return
}

// Every property override, alone, over a block precision.
// A layer precision applies to weights and activations; output follows it.
mix.network @property_overrides precision(f32) (%x: tensor<2x8xf32>) {
  mix.block @s precision(f16) (%a = %x) : (tensor<2x8xf32>) -> () {
    %w = mix.weight external "w" : tensor<8x4xf32>
    %0 = mix.dense %a, %w precision(weights = bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %1 = mix.dense %a, %w precision(activations = bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %2 = mix.dense %a, %w precision(accumulator = f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %3 = mix.dense %a, %w precision(output = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %4 = mix.dense %a, %w precision(f64, weights = f16, activations = bf16, accumulator = f32, output = f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %5 = mix.dense %a, %w precision(bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %6 = mix.dense %a, %w precision(bf16, weights = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  mix.return
}

// Derived accumulators: f32 for f16/bf16/f32, f64 when weights or
// activations are f64, i32 for int8 x int8, f32 for int8 weights with float
// activations. int8 activations output f32.
mix.network @derived precision(f32) (%x: tensor<2x8xf32>, %m: tensor<8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %0 = mix.dense %x, %w precision(f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = mix.dense %x, %w precision(bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %2 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %3 = mix.dense %x, %w precision(f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %4 = mix.dense %x, %w precision(weights = f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %5 = mix.dense %x, %w precision(f16, activations = f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %6 = mix.dense %x, %w precision(int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %7 = mix.dense %x, %w precision(int8<asymmetric, axis = 1>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %8 = mix.dense %x, %w precision(f16, weights = int8<axis = 1>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %9 = mix.dense %x, %w precision(weights = int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %10 = mix.dense %x, %w precision(f64, weights = int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %11 = mix.dense %x, %w precision(f16, activations = int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // matmul has no weights: int8 activations alone make it int8 x int8.
  %12 = mix.matmul %x, %m precision(int8<asymmetric>) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %13 = mix.matmul %x, %m precision(int8, output = f16) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %14 = mix.matmul %x, %m precision(int8, accumulator = f32) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  mix.return
}

// An int8 network and block: inherited int8 also derives i32 / f32.
mix.network @int8_inherited precision(int8<axis = 1>) (%x: tensor<2x8xf32>, %img: tensor<1x3x4x4xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %0 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.block @q precision(int8<asymmetric>) (%i = %img) : (tensor<1x3x4x4xf32>) -> () {
    %k = mix.weight external "k" : tensor<2x3x3x3xf32>
    %1 = mix.conv2d %i, %k : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32>
    %2 = mix.conv2d %i, %k precision(weights = f16) : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32>
    mix.yield
  }
  mix.block precision(int8) (%r = %img) : (tensor<1x3x4x4xf32>) -> () {
    %3 = mix.relu %r : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    mix.yield
  }
  mix.return
}

// Which layers have weights: dense, conv2d, batch_norm, layer_norm,
// embedding and attention do; the others do not.
mix.network @weights_property precision(f16) (%img: tensor<1x4x2x2xf32>, %seq: tensor<1x3x4xf32>, %ids: tensor<3xi32>, %l: tensor<3x4xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  %e = mix.weight external "e" : tensor<10x4xf32>
  %q = mix.weight external "q" : tensor<4x4xf32>
  %0 = mix.batch_norm %img, %p, %p, %p, %p : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  %1 = mix.layer_norm %seq, %p, %p : (tensor<1x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x3x4xf32>
  %2 = mix.embedding %ids, %e : (tensor<3xi32>, tensor<10x4xf32>) -> tensor<3x4xf32>
  %3 = mix.attention %seq, %q, %q, %q, %q {num_heads = 2 : i64} : (tensor<1x3x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %4 = mix.softmax %l : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = mix.add %l, %l : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %6 = mix.mul %l, %l : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %7 = mix.global_avg_pool %img : (tensor<1x4x2x2xf32>) -> tensor<1x4xf32>
  %8 = mix.max_pool2d %img {kernel = array<i64: 2, 2>} : (tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32>
  %9 = mix.reshape %l : (tensor<3x4xf32>) -> tensor<12xf32>
  %10 = mix.flatten %img : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  %11 = mix.cross_entropy_loss %l, %ids : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<f32>
  %12 = mix.mse_loss %l, %l : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<f32>
  mix.return
}

// A stale or hand-written `resolved` record is replaced.
mix.network @stale precision(bf16) (%x: tensor<4xf32>) {
  %0 = mix.relu %x {resolved = #mix.resolved<activations = f64 from layer, accumulator = f64 from derived, output = f64 from layer>} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
