//===----------------------------------------------------------------------===//
// redundant-override (warning)
//===----------------------------------------------------------------------===//

// expected-note @+1 {{f32 inherited from network @n}}
mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-warning @+1 {{[redundant-override] block @same sets precision f32, which it already inherits from network @n}}
  mix.block @same precision(f32) (%a = %x) : (tensor<2x4xf32>) -> () {
    mix.yield
  }
  // expected-note @+1 {{f16 inherited from block @outer}}
  mix.block @outer precision(f16) (%a = %x) : (tensor<2x4xf32>) -> () {
    // Through a block without precision, unnamed.
    mix.block @plain (%b = %a) : (tensor<2x4xf32>) -> () {
      // expected-warning @+1 {{[redundant-override] block <unnamed> sets precision f16, which it already inherits from block @outer}}
      mix.block precision(f16) (%c = %b) : (tensor<2x4xf32>) -> () {
        mix.yield
      }
      // expected-warning @+1 {{[redundant-override] 'mix.relu' sets precision f16, which it already inherits from block @outer}}
      %0 = mix.relu %b precision(f16) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      mix.yield
    }
    // Different int8 schemes or axes are different precisions.
    mix.block @q precision(int8) (%b = %a) : (tensor<2x4xf32>) -> () {
      mix.block @q2 precision(int8<asymmetric>) (%c = %b) : (tensor<2x4xf32>) -> () {
        mix.yield
      }
      mix.block @q3 precision(int8<axis = 1>) (%c = %b) : (tensor<2x4xf32>) -> () {
        mix.yield
      }
      mix.yield
    }
    mix.yield
  }
  mix.return
}
