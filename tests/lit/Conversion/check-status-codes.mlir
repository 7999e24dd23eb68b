// RUN: mix-opt %s --convert-mix-to-linalg | FileCheck %s

// Generated code reports a failed check with the status the entry point then
// returns: MIXRT_STATUS_OUT_OF_RANGE (11) for an overflow, and
// MIXRT_STATUS_INVALID_ARGUMENT (3) for a non-finite value reaching an int8
// quantize (runtime/include/mixrt/mixrt.h).
// CHECK-DAG: llvm.mlir.global internal constant @[[CAST:__mix_str_[0-9a-f]*]]("checked cast from f32 to f16 overflows\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[SCALE:__mix_str_[0-9a-f]*]]("int8 quantization scale is not representable in f32\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[NONFINITE:__mix_str_[0-9a-f]*]]("non-finite value reaches an int8 quantize\00")

// CHECK-LABEL: func.func @cast
// CHECK: scf.if
// CHECK-NEXT: %[[CODE:.*]] = arith.constant 11 : i32
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: %[[WHAT:.*]] = llvm.mlir.addressof @[[CAST]]
// CHECK-NEXT: func.call @mixrt_check_fail(%[[CODE]], %{{.*}}, %[[WHAT]],
mix.network @cast precision(f32) (%x: tensor<4xf32>) -> tensor<4xf16> {
  %c = mix.cast %x checked : tensor<4xf32> to tensor<4xf16>
  mix.return %c : tensor<4xf16>
}

// A dynamic quantize checks its scale (an overflow), then every element.
// CHECK-LABEL: func.func @quantize
// CHECK: scf.if
// CHECK-NEXT: %[[CODE1:.*]] = arith.constant 11 : i32
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: %[[WHAT1:.*]] = llvm.mlir.addressof @[[SCALE]]
// CHECK-NEXT: func.call @mixrt_check_fail(%[[CODE1]], %{{.*}}, %[[WHAT1]],
// CHECK: scf.if
// CHECK-NEXT: %[[CODE2:.*]] = arith.constant 3 : i32
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: %[[WHAT2:.*]] = llvm.mlir.addressof @[[NONFINITE]]
// CHECK-NEXT: func.call @mixrt_check_fail(%[[CODE2]], %{{.*}}, %[[WHAT2]],
mix.network @quantize precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %q, %s, %z = mix.quantize %x symmetric checked : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<f32>, tensor<i32>
  mix.return %x : tensor<2x4xf32>
}
