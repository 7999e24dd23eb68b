// Precision resolution: property override > layer > innermost block > ... >
// network, derived accumulator/output defaults, and provenance.
// RUN: mix-opt %s --mix-resolve-precision | FileCheck %s
// Idempotence: a second run changes nothing.
// RUN: mix-opt %s --mix-resolve-precision | mix-opt --mix-resolve-precision | FileCheck %s
// RUN: mix-opt %s --mix-resolve-precision -o %t.once.mlir
// RUN: mix-opt %t.once.mlir --mix-resolve-precision -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: mix-opt %s --mix-resolve-precision --mix-resolve-precision | diff %t.once.mlir -
// The resolved IR still round-trips through the generic form.
// RUN: mix-opt %t.once.mlir --mlir-print-op-generic | mix-opt | diff %t.once.mlir -

// Network default only; layers without weights have no `weights` entry.
// CHECK-LABEL: mix.network @network_default precision(f32)
// CHECK: mix.relu %{{.*}} {resolved = #mix.resolved<activations = f32 from network @network_default, accumulator = f32 from derived, output = f32 from network @network_default>}
// CHECK: mix.dense %{{.*}}, %{{.*}} {resolved = #mix.resolved<weights = f32 from network @network_default, activations = f32 from network @network_default, accumulator = f32 from derived, output = f32 from network @network_default>}
mix.network @network_default precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %0 = mix.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// Blocks nested four deep, named and unnamed, with and without precision:
// the innermost block that sets a precision wins.
// CHECK-LABEL: mix.network @nesting precision(f32)
// CHECK: mix.block @l1 precision(bf16)
// CHECK:   mix.relu %{{.*}} {resolved = #mix.resolved<activations = bf16 from block @l1, accumulator = f32 from derived, output = bf16 from block @l1>}
// CHECK:   mix.block @l2 (
// CHECK:     mix.relu %{{.*}} {resolved = #mix.resolved<activations = bf16 from block @l1, accumulator = f32 from derived, output = bf16 from block @l1>}
// CHECK:     mix.block precision(f16) (
// CHECK:       mix.relu %{{.*}} {resolved = #mix.resolved<activations = f16 from block, accumulator = f32 from derived, output = f16 from block>}
// CHECK:       mix.block @l4 precision(f64) (
// CHECK:         mix.relu %{{.*}} {resolved = #mix.resolved<activations = f64 from block @l4, accumulator = f64 from derived, output = f64 from block @l4>}
// CHECK:         mix.block (
// CHECK:           mix.relu %{{.*}} {resolved = #mix.resolved<activations = f64 from block @l4, accumulator = f64 from derived, output = f64 from block @l4>}
// CHECK:           mix.relu %{{.*}} precision(f16) {resolved = #mix.resolved<activations = f16 from layer, accumulator = f32 from derived, output = f16 from layer>}
// CHECK:       mix.relu %{{.*}} {resolved = #mix.resolved<activations = f16 from block, accumulator = f32 from derived, output = f16 from block>}
// CHECK:   mix.relu %{{.*}} {resolved = #mix.resolved<activations = bf16 from block @l1, accumulator = f32 from derived, output = bf16 from block @l1>}
// CHECK: mix.relu %{{.*}} {resolved = #mix.resolved<activations = f32 from network @nesting, accumulator = f32 from derived, output = f32 from network @nesting>}
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
// CHECK-LABEL: mix.network @transparent precision(bf16)
// CHECK: mix.gelu %{{.*}} {resolved = #mix.resolved<activations = bf16 from network @transparent, accumulator = f32 from derived, output = bf16 from network @transparent>}
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
// CHECK-LABEL: mix.network @property_overrides precision(f32)
// CHECK: mix.dense {{.*}} precision(weights = bf16) {resolved = #mix.resolved<weights = bf16 from property, activations = f16 from block @s, accumulator = f32 from derived, output = f16 from block @s>}
// CHECK: mix.dense {{.*}} precision(activations = bf16) {resolved = #mix.resolved<weights = f16 from block @s, activations = bf16 from property, accumulator = f32 from derived, output = bf16 from derived>}
// CHECK: mix.dense {{.*}} precision(accumulator = f64) {resolved = #mix.resolved<weights = f16 from block @s, activations = f16 from block @s, accumulator = f64 from property, output = f16 from block @s>}
// CHECK: mix.dense {{.*}} precision(output = f32) {resolved = #mix.resolved<weights = f16 from block @s, activations = f16 from block @s, accumulator = f32 from derived, output = f32 from property>}
// CHECK: mix.dense {{.*}} precision(f64, weights = f16, activations = bf16, accumulator = f32, output = f16) {resolved = #mix.resolved<weights = f16 from property, activations = bf16 from property, accumulator = f32 from property, output = f16 from property>}
// A layer precision applies to weights and activations; output follows it.
// CHECK: mix.dense {{.*}} precision(bf16) {resolved = #mix.resolved<weights = bf16 from layer, activations = bf16 from layer, accumulator = f32 from derived, output = bf16 from layer>}
// CHECK: mix.dense {{.*}} precision(bf16, weights = f32) {resolved = #mix.resolved<weights = f32 from property, activations = bf16 from layer, accumulator = f32 from derived, output = bf16 from layer>}
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
// CHECK-LABEL: mix.network @derived precision(f32)
// CHECK: mix.dense {{.*}} precision(f16) {resolved = #mix.resolved<weights = f16 from layer, activations = f16 from layer, accumulator = f32 from derived, output = f16 from layer>}
// CHECK: mix.dense {{.*}} precision(bf16) {resolved = #mix.resolved<weights = bf16 from layer, activations = bf16 from layer, accumulator = f32 from derived, output = bf16 from layer>}
// CHECK: mix.dense {{.*}} {resolved = #mix.resolved<weights = f32 from network @derived, activations = f32 from network @derived, accumulator = f32 from derived, output = f32 from network @derived>}
// CHECK: mix.dense {{.*}} precision(f64) {resolved = #mix.resolved<weights = f64 from layer, activations = f64 from layer, accumulator = f64 from derived, output = f64 from layer>}
// CHECK: mix.dense {{.*}} precision(weights = f64) {resolved = #mix.resolved<weights = f64 from property, activations = f32 from network @derived, accumulator = f64 from derived, output = f32 from network @derived>}
// CHECK: mix.dense {{.*}} precision(f16, activations = f64) {resolved = #mix.resolved<weights = f16 from layer, activations = f64 from property, accumulator = f64 from derived, output = f64 from derived>}
// CHECK: mix.dense {{.*}} precision(int8) {resolved = #mix.resolved<weights = int8 from layer, activations = int8 from layer, accumulator = i32 from derived, output = f32 from derived>}
// CHECK: mix.dense {{.*}} precision(int8<asymmetric, axis = 1>) {resolved = #mix.resolved<weights = int8<asymmetric, axis = 1> from layer, activations = int8<asymmetric, axis = 1> from layer, accumulator = i32 from derived, output = f32 from derived>}
// CHECK: mix.dense {{.*}} precision(f16, weights = int8<symmetric, axis = 1>) {resolved = #mix.resolved<weights = int8<symmetric, axis = 1> from property, activations = f16 from layer, accumulator = f32 from derived, output = f16 from layer>}
// CHECK: mix.dense {{.*}} precision(weights = int8) {resolved = #mix.resolved<weights = int8 from property, activations = f32 from network @derived, accumulator = f32 from derived, output = f32 from network @derived>}
// CHECK: mix.dense {{.*}} precision(f64, weights = int8) {resolved = #mix.resolved<weights = int8 from property, activations = f64 from layer, accumulator = f64 from derived, output = f64 from layer>}
// CHECK: mix.dense {{.*}} precision(f16, activations = int8) {resolved = #mix.resolved<weights = f16 from layer, activations = int8 from property, accumulator = f32 from derived, output = f32 from derived>}
// CHECK: mix.matmul {{.*}} precision(int8<asymmetric>) {resolved = #mix.resolved<activations = int8<asymmetric> from layer, accumulator = i32 from derived, output = f32 from derived>}
// CHECK: mix.matmul {{.*}} precision(int8, output = f16) {resolved = #mix.resolved<activations = int8 from layer, accumulator = i32 from derived, output = f16 from property>}
// CHECK: mix.matmul {{.*}} precision(int8, accumulator = f32) {resolved = #mix.resolved<activations = int8 from layer, accumulator = f32 from property, output = f32 from derived>}
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
// CHECK-LABEL: mix.network @int8_inherited precision(int8<symmetric, axis = 1>)
// CHECK: mix.dense {{.*}} {resolved = #mix.resolved<weights = int8<symmetric, axis = 1> from network @int8_inherited, activations = int8<symmetric, axis = 1> from network @int8_inherited, accumulator = i32 from derived, output = f32 from derived>}
// CHECK: mix.block @q precision(int8<asymmetric>)
// CHECK:   mix.conv2d {{.*}} {resolved = #mix.resolved<weights = int8<asymmetric> from block @q, activations = int8<asymmetric> from block @q, accumulator = i32 from derived, output = f32 from derived>}
// CHECK:   mix.conv2d {{.*}} precision(weights = f16) {resolved = #mix.resolved<weights = f16 from property, activations = int8<asymmetric> from block @q, accumulator = f32 from derived, output = f32 from derived>}
// CHECK: mix.block precision(int8)
// CHECK:   mix.relu {{.*}} {resolved = #mix.resolved<activations = int8 from block, accumulator = i32 from derived, output = f32 from derived>}
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
// CHECK-LABEL: mix.network @weights_property precision(f16)
// CHECK: mix.batch_norm {{.*}} {resolved = #mix.resolved<weights = f16 from network @weights_property, activations = f16
// CHECK: mix.layer_norm {{.*}} {resolved = #mix.resolved<weights = f16 from network @weights_property, activations = f16
// CHECK: mix.embedding {{.*}} {resolved = #mix.resolved<weights = f16 from network @weights_property, activations = f16
// CHECK: mix.attention {{.*}} {num_heads = 2 : i64, resolved = #mix.resolved<weights = f16 from network @weights_property, activations = f16
// CHECK: mix.softmax {{.*}} {resolved = #mix.resolved<activations = f16
// CHECK: mix.add {{.*}} {resolved = #mix.resolved<activations = f16
// CHECK: mix.mul {{.*}} {resolved = #mix.resolved<activations = f16
// CHECK: mix.global_avg_pool {{.*}} {resolved = #mix.resolved<activations = f16
// CHECK: mix.max_pool2d {{.*}} {kernel = array<i64: 2, 2>, resolved = #mix.resolved<activations = f16
// CHECK: mix.reshape {{.*}} {resolved = #mix.resolved<activations = f16
// CHECK: mix.flatten {{.*}} {resolved = #mix.resolved<activations = f16
// CHECK: mix.cross_entropy_loss {{.*}} {resolved = #mix.resolved<activations = f16
// CHECK: mix.mse_loss {{.*}} {resolved = #mix.resolved<activations = f16 from network @weights_property, accumulator = f32 from derived, output = f16 from network @weights_property>}
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
// CHECK-LABEL: mix.network @stale precision(bf16)
// CHECK: mix.relu %{{.*}} {resolved = #mix.resolved<activations = bf16 from network @stale, accumulator = f32 from derived, output = bf16 from network @stale>}
mix.network @stale precision(bf16) (%x: tensor<4xf32>) {
  %0 = mix.relu %x {resolved = #mix.resolved<activations = f64 from layer, accumulator = f64 from derived, output = f64 from layer>} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
