// RUN: mix-opt %s --mix-distinct-results -verify-diagnostics
//
// A buffer returned twice whose layout (a static offset) no identity-layout
// buffer can be cast to: an error, not an invalid cast.

func.func @offset(%a: memref<2xf32, strided<[1], offset: 3>>) -> (memref<2xf32, strided<[1], offset: 3>>, memref<2xf32, strided<[1], offset: 3>>) {
  // expected-error @+1 {{'func.return' op returns a buffer twice with the layout 'memref<2xf32, strided<[1], offset: 3>>', which no new buffer can be cast to}}
  return %a, %a : memref<2xf32, strided<[1], offset: 3>>, memref<2xf32, strided<[1], offset: 3>>
}
