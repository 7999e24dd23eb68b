// Every parser and verifier diagnostic of the mix dialect.
// RUN: mix-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

//===----------------------------------------------------------------------===//
// Precision attribute syntax
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
module attributes {t.p = #mix.precision<f8>} {}

// -----

// Builtin types other than the precision types are not precisions.
// expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
module attributes {t.p = #mix.precision<i16>} {}

// -----

// expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
module attributes {t.p = #mix.precision<int4>} {}

// -----

// expected-error @+1 {{expected 'symmetric', 'asymmetric' or 'axis = N', got 'affine'}}
module attributes {t.p = #mix.precision<int8<affine>>} {}

// -----

// The scheme may only come first.
// expected-error @+1 {{expected 'symmetric', 'asymmetric' or 'axis = N', got 'asymmetric'}}
module attributes {t.p = #mix.precision<int8<axis = 0, asymmetric>>} {}

// -----

// expected-error @+1 {{expected '='}}
module attributes {t.p = #mix.precision<int8<axis 0>>} {}

// -----

// expected-error @+1 {{expected integer value}}
module attributes {t.p = #mix.precision<int8<axis = x>>} {}

// -----

// expected-error @+1 {{int8 quantization axis must be >= 0, got -2}}
module attributes {t.p = #mix.precision<int8<axis = -2>>} {}

// -----

// expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not f16}}
module attributes {t.p = #mix.precision<f16<asymmetric>>} {}

// -----

// expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not f32}}
module attributes {t.p = #mix.precision<f32<axis = 0>>} {}

// -----

// expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not i32}}
module attributes {t.p = #mix.precision<i32<symmetric, axis = 1>>} {}

// -----

//===----------------------------------------------------------------------===//
// Decision and resolved attribute syntax
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected 'from'}}
module attributes {t.d = #mix.decision<f16 block @b>} {}

// -----

// expected-error @+1 {{expected a precision source (network, block, layer, property, derived), got 'scope'}}
module attributes {t.d = #mix.decision<f16 from scope @b>} {}

// -----

// expected-error @+1 {{unknown precision property 'bias'}}
module attributes {t.r = #mix.resolved<bias = f16 from layer, activations = f16 from layer, accumulator = f32 from derived, output = f16 from layer>} {}

// -----

// expected-error @+1 {{property 'accumulator' given twice}}
module attributes {t.r = #mix.resolved<activations = f16 from layer, accumulator = f32 from derived, accumulator = f32 from derived, output = f16 from layer>} {}

// -----

// expected-error @+1 {{resolved precisions lack 'activations'}}
module attributes {t.r = #mix.resolved<weights = f16 from layer, accumulator = f32 from derived, output = f16 from layer>} {}

// -----

// expected-error @+1 {{resolved precisions lack 'accumulator'}}
module attributes {t.r = #mix.resolved<activations = f16 from layer, output = f16 from layer>} {}

// -----

// expected-error @+1 {{resolved precisions lack 'output'}}
module attributes {t.r = #mix.resolved<activations = f16 from layer, accumulator = f32 from derived>} {}

// -----

// expected-error @+1 {{expected '='}}
module attributes {t.r = #mix.resolved<activations f16 from layer>} {}

// -----

//===----------------------------------------------------------------------===//
// precision(...) clauses of layers
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
  %0 = mix.relu %x precision(fp16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'activations' precision given twice}}
  %0 = mix.relu %x precision(activations = f16, output = f32, activations = bf16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'output' precision given twice}}
  %0 = mix.relu %x precision(output = f16, output = f16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{the layer precision must come first in precision(...)}}
  %0 = mix.relu %x precision(output = f32, f16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // Two layer precisions: the second one is not first either.
  // expected-error @+1 {{the layer precision must come first in precision(...)}}
  %0 = mix.relu %x precision(f16, bf16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not bf16}}
  %0 = mix.relu %x precision(activations = bf16<asymmetric>) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not f64}}
  %0 = mix.relu %x precision(f64<axis = 0>) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{expected ')'}}
  %0 = mix.relu %x precision(f16 : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{expected '='}}
  %0 = mix.relu %x precision(weights int8) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.network
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected 'precision(...)': a network must set its default precision}}
mix.network @n (%x: tensor<4xf32>) {
  mix.return
}

// -----

// expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
mix.network @n precision() (%x: tensor<4xf32>) {
  mix.return
}

// -----

// expected-error @+1 {{expected valid '@'-identifier for symbol name}}
mix.network precision(f32) (%x: tensor<4xf32>) {
  mix.return
}

// -----

// expected-error @+1 {{'mix.network' op precision cannot be i32 (i32 is only an accumulator precision)}}
mix.network @n precision(i32) (%x: tensor<4xf32>) {
  mix.return
}

// -----

// The FunctionOpInterface verifier checks the entry block against the signature.
// expected-error @+1 {{'mix.network' op entry block must have 1 arguments to match function signature}}
"mix.network"() <{function_type = (tensor<4xf32>) -> (), precision = #mix.precision<f32>, sym_name = "n"}> ({
  "mix.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'mix.network' op type of entry block argument #1('tensor<4xf16>') must match the type of the corresponding argument in function signature('tensor<4xf32>')}}
"mix.network"() <{function_type = (tensor<4xf32>, tensor<4xf32>) -> (), precision = #mix.precision<f32>, sym_name = "n"}> ({
^bb0(%a: tensor<4xf32>, %b: tensor<4xf16>):
  "mix.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'mix.network' op requires attribute 'precision'}}
"mix.network"() <{function_type = () -> (), sym_name = "n"}> ({
  "mix.return"() : () -> ()
}) : () -> ()

// -----

//===----------------------------------------------------------------------===//
// mix.return
//===----------------------------------------------------------------------===//

// expected-note @+1 {{network declared here}}
mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.return' op returns 0 value(s), but the network declares 1 output(s)}}
  mix.return
}

// -----

// expected-note @+1 {{network declared here}}
mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.return' op returns 2 value(s), but the network declares 1 output(s)}}
  mix.return %x, %x : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-note @+1 {{network declared here}}
mix.network @n precision(f32) (%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'mix.return' op output #1 has type 'tensor<2xf32>', but the network declares 'tensor<4xf32>'}}
  mix.return %x, %y : tensor<4xf32>, tensor<2xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  mix.block () : () -> () {
    // expected-error @+1 {{'mix.return' op expects parent op 'mix.network'}}
    mix.return
  }
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.block and mix.yield
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op precision cannot be i32 (i32 is only an accumulator precision)}}
  mix.block @b precision(i32) (%a = %x) : (tensor<4xf32>) -> () {
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op block name cannot be empty}}
  mix.block @"" (%a = %x) : (tensor<4xf32>) -> () {
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{block binds 1 value(s) but its type has 2 input(s)}}
  mix.block (%a = %x) : (tensor<4xf32>, tensor<4xf32>) -> () {
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{block binds 0 value(s) but its type has 1 input(s)}}
  mix.block () : (tensor<4xf32>) -> () {
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // The type given for the bound value must be the value's type.
  // expected-error @+2 {{use of value '%x' expects different type than prior uses: 'tensor<4xf16>' vs 'tensor<4xf32>'}}
  // expected-note @-3 {{prior use here}}
  mix.block (%a = %x) : (tensor<4xf16>) -> () {
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // Blocks are isolated from above: values enter through their bindings.
  // expected-note @+1 {{required by region isolation constraints}}
  mix.block @b () : () -> () {
    // expected-error @+1 {{using value defined outside the region}}
    %0 = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.block' op has 1 result(s), but its body yields 0 value(s)}}
  %0 = mix.block @b (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    // expected-note @+1 {{yield is here}}
    mix.yield
  }
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op has 0 result(s), but its body yields 1 value(s)}}
  mix.block (%a = %x) : (tensor<4xf32>) -> () {
    // expected-note @+1 {{yield is here}}
    mix.yield %a : tensor<4xf32>
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{'mix.block' op result #1 has type 'tensor<2x2xf32>', but its body yields 'tensor<4xf32>'}}
  %0:2 = mix.block @b (%a = %x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
    // expected-note @+1 {{yield is here}}
    mix.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  mix.return %0#0, %0#1 : tensor<4xf32>, tensor<2x2xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op body has 0 arguments, but the block binds 1 value(s)}}
  "mix.block"(%x) ({
    "mix.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op body argument #0 has type 'tensor<4xf16>', but is bound to a value of type 'tensor<4xf32>'}}
  "mix.block"(%x) ({
  ^bb0(%a: tensor<4xf16>):
    "mix.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op body must end with 'mix.yield'}}
  mix.block (%a = %x) : (tensor<4xf32>) -> () {
    "test.terminator"() : () -> ()
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.yield' op expects parent op 'mix.block'}}
  mix.yield
}

// -----

//===----------------------------------------------------------------------===//
// mix.weight
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) () {
  // expected-error @+1 {{expected inline tensor data (e.g. dense<...> : tensor<...>) or 'external "name"'}}
  %0 = mix.weight 1.0 : f32
  mix.return
}

// -----

mix.network @n precision(f32) () {
  // expected-error @+1 {{expected string}}
  %0 = mix.weight external fc : tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op external weight reference cannot be empty}}
  %0 = mix.weight external "" : tensor<4xf32>
  mix.return
}

// -----

// Inline data in a resource the file does not define (it failed only when
// the lowered module was translated to LLVM IR).
mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op inline data dense_resource<missing> has no blob: the file's dialect_resources section does not define 'missing'}}
  %0 = mix.weight dense_resource<missing> : tensor<2xf32>
  mix.return
}

// -----

// The same blob defined: accepted.
mix.network @n precision(f32) () -> tensor<2xf32> {
  %0 = mix.weight dense_resource<present> : tensor<2xf32>
  mix.return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      present: "0x040000000000803F00000040"
    }
  }
#-}

// -----

mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op must have exactly one of inline data or an external reference}}
  %0 = "mix.weight"() : () -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op must have exactly one of inline data or an external reference}}
  %0 = "mix.weight"() <{ref = "w", value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op inline data of type 'tensor<4xf32>' does not match the result type 'tensor<2x2xf32>'}}
  %0 = "mix.weight"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<2x2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = mix.weight external "w" : tensor<?xf32>
  mix.return
}

// -----
//===----------------------------------------------------------------------===//
// Precision legality shared by all layers (LayerOpInterface)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.relu' op layer precision cannot be i32 (i32 is only an accumulator precision)}}
  %0 = mix.relu %x precision(i32) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op weights precision cannot be i32 (i32 is only an accumulator precision)}}
  %0 = mix.dense %x, %w precision(weights = i32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.gelu' op activations precision cannot be i32 (i32 is only an accumulator precision)}}
  %0 = mix.gelu %x precision(activations = i32) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.relu' op output precision cannot be i32 (i32 is only an accumulator precision)}}
  %0 = mix.relu %x precision(output = i32) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op accumulator precision cannot be int8 (int8 products accumulate in i32)}}
  %0 = mix.dense %x, %w precision(int8, accumulator = int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.relu' op has no weights, but sets a weights precision (f16)}}
  %0 = mix.relu %x precision(weights = f16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // matmul multiplies two activations: it has no weights either.
  // expected-error @+1 {{'mix.matmul' op has no weights, but sets a weights precision (int8<asymmetric, axis = 1>)}}
  %0 = mix.matmul %a, %b precision(weights = int8<asymmetric, axis = 1>) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op weights precision int8<symmetric, axis = 2> quantizes along axis 2, but the weights tensor has rank 2}}
  %0 = mix.dense %x, %w precision(weights = int8<axis = 2>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<8xf32>) {
  // expected-error @+1 {{'mix.relu' op activations precision int8<asymmetric, axis = 1> quantizes along axis 1, but the activations tensor has rank 1}}
  %0 = mix.relu %x precision(activations = int8<asymmetric, axis = 1>) : (tensor<8xf32>) -> tensor<8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // A layer precision's axis applies to the weights ...
  // expected-error @+1 {{'mix.dense' op weights precision int8<symmetric, axis = 3> quantizes along axis 3, but the weights tensor has rank 2}}
  %0 = mix.dense %x, %w precision(int8<axis = 3>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // ... and to the activations.
  // expected-error @+1 {{'mix.dense' op activations precision int8<symmetric, axis = 1> quantizes along axis 1, but the activations tensor has rank 1}}
  %0 = mix.dense %x, %w precision(int8<axis = 1>) : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op weights precision int8<asymmetric, axis = 4> quantizes along axis 4, but the weights tensor has rank 4}}
  %0 = mix.conv2d %x, %w precision(f16, weights = int8<asymmetric, axis = 4>) : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// Operand and attribute constraints (ODS)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4xi32>) {
  // expected-error @+1 {{'mix.relu' op operand #0 must be tensor with static dimensions (the leading, batch dimension may be `?`) of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = mix.relu %x : (tensor<4xi32>) -> tensor<4xi32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.relu' op result #0 must be tensor with static dimensions (the leading, batch dimension may be `?`)}}
  %0 = mix.relu %x : (tensor<4xf32>) -> tensor<4x?xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%ids: tensor<4xf32>) {
  %t = mix.weight external "t" : tensor<10x3xf32>
  // expected-error @+1 {{'mix.embedding' op operand #0 must be tensor with static dimensions (the leading, batch dimension may be `?`) of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mix.embedding %ids, %t : (tensor<4xf32>, tensor<10x3xf32>) -> tensor<4x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%p: tensor<4xf32>) {
  // expected-error @+1 {{'mix.mse_loss' op result #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1xf32>'}}
  %0 = mix.mse_loss %p, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x2x4xf32>) {
  %w = mix.weight external "w" : tensor<4x4xf32>
  // expected-error @+1 {{'mix.attention' op requires attribute 'num_heads'}}
  %0 = mix.attention %x, %w, %w, %w, %w : (tensor<1x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op requires attribute 'kernel'}}
  %0 = mix.max_pool2d %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {precision = "f16"} for op mix.relu: Invalid attribute `precision` in property conversion: "f16"}}
  %0 = "mix.relu"(%x) <{precision = "f16"}> : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.dense
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<f32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op expects input of rank >= 1, got rank 0}}
  %0 = mix.dense %x, %w : (tensor<f32>, tensor<8x4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<8x4x1xf32>
  // expected-error @+1 {{'mix.dense' op expects weight of rank 2, got rank 3 [8, 4, 1]}}
  %0 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<8x4x1xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<4x8xf32>
  // expected-error @+1 {{'mix.dense' op input features (8) do not match the weight's rows (4); the weight is [in_features, out_features]}}
  %0 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  mix.return
}

// -----

// A weight passed in as a block argument has no defining op: no note.
mix.network @n precision(f32) (%x: tensor<2x8xf32>, %w: tensor<7x4xf32>) {
  // expected-error @+1 {{'mix.dense' op input features (8) do not match the weight's rows (7)}}
  %0 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<7x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight dense<0.0> : tensor<8xf32>
  // expected-error @+1 {{'mix.dense' op expects bias of shape [4] (out_features), got [8]}}
  %0 = mix.dense %x, %w, %b : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<3x2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op result shape [3, 4] does not match the expected shape [3, 2, 4]}}
  %0 = mix.dense %x, %w : (tensor<3x2x8xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.matmul
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%a: tensor<8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'mix.matmul' op expects lhs of rank >= 2, got rank 1}}
  %0 = mix.matmul %a, %b : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mix.matmul' op expects rhs of rank >= 2, got rank 1}}
  %0 = mix.matmul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<2x4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{'mix.matmul' op operands have different ranks (3 and 2)}}
  %0 = mix.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x3xf32>) -> tensor<2x4x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<2x4x8xf32>, %b: tensor<3x8x3xf32>) {
  // expected-error @+1 {{'mix.matmul' op batch dimensions differ: [2] and [3]}}
  %0 = mix.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x3xf32>) -> tensor<2x4x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) {
  // expected-error @+1 {{'mix.matmul' op contraction dimensions differ: lhs has K = 8, rhs has K = 7}}
  %0 = mix.matmul %a, %b : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{'mix.matmul' op result shape [3, 4] does not match the expected shape [4, 3]}}
  %0 = mix.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<3x4xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.conv2d
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects input of rank 4, got rank 3 [4, 8, 8]}}
  %0 = mix.conv2d %x, %w : (tensor<4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<8x4x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects weight of rank 4, got rank 3 [8, 4, 3]}}
  %0 = mix.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects 'strides' to have 2 values, got 1}}
  %0 = mix.conv2d %x, %w {strides = array<i64: 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x3x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects every 'strides' value >= 1, got [1, 0]}}
  %0 = mix.conv2d %x, %w {strides = array<i64: 1, 0>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects 'dilations' to have 2 values, got 3}}
  %0 = mix.conv2d %x, %w {dilations = array<i64: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects every 'dilations' value >= 1, got [0, 1]}}
  %0 = mix.conv2d %x, %w {dilations = array<i64: 0, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects 'padding' to have 4 values, got 2}}
  %0 = mix.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects every 'padding' value >= 0, got [0, -1, 0, 0]}}
  %0 = mix.conv2d %x, %w {padding = array<i64: 0, -1, 0, 0>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects groups >= 1, got 0}}
  %0 = mix.conv2d %x, %w {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<9x1x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op input channels (4) are not divisible by groups (3)}}
  %0 = mix.conv2d %x, %w {groups = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<9x1x3x3xf32>) -> tensor<1x9x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x6x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x2x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op output channels (8) are not divisible by groups (3)}}
  %0 = mix.conv2d %x, %w {groups = 3 : i64} : (tensor<1x6x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<8x3x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op channel mismatch: the input has 4 channels, but the weight expects 3 per group x 1 group(s)}}
  %0 = mix.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op channel mismatch: the input has 4 channels, but the weight expects 4 per group x 2 group(s)}}
  %0 = mix.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight dense<0.0> : tensor<4xf32>
  // expected-error @+1 {{'mix.conv2d' op expects bias of shape [8] (output channels), got [4]}}
  %0 = mix.conv2d %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op window of extent 3 does not fit the height dimension (2 + padding 0)}}
  %0 = mix.conv2d %x, %w : (tensor<1x4x2x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x1x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x4xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // Dilation 2 widens the 3-wide kernel to 5; padding 0 + 0 on the width.
  // expected-error @+1 {{'mix.conv2d' op window of extent 5 does not fit the width dimension (4 + padding 0)}}
  %0 = mix.conv2d %x, %w {dilations = array<i64: 1, 2>, padding = array<i64: 1, 0, 1, 0>} : (tensor<1x4x8x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x1xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op result shape [1, 8, 8, 8] does not match the expected shape [1, 8, 3, 3]}}
  %0 = mix.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.batch_norm and mix.layer_norm
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<16xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects input of rank >= 2, got rank 1}}
  %0 = mix.batch_norm %x, %p, %p, %p, %p : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{scale defined here}}
  %s = mix.weight external "s" : tensor<4xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects scale of shape [16] (channels), got [4]}}
  %0 = mix.batch_norm %x, %s, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight external "b" : tensor<1x16xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects bias of shape [16] (channels), got [1, 16]}}
  %0 = mix.batch_norm %x, %p, %b, %p, %p : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<1x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{mean defined here}}
  %m = mix.weight external "m" : tensor<4xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects mean of shape [16] (channels), got [4]}}
  %0 = mix.batch_norm %x, %p, %p, %m, %p : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<4xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{variance defined here}}
  %v = mix.weight external "v" : tensor<17xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects variance of shape [16] (channels), got [17]}}
  %0 = mix.batch_norm %x, %p, %p, %p, %v : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<17xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects epsilon > 0}}
  %0 = mix.batch_norm %x, %p, %p, %p, %p {epsilon = 0.0 : f64} : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-error @+1 {{'mix.batch_norm' op result shape [1, 16, 4] differs from the input shape [1, 16, 4, 4]}}
  %0 = mix.batch_norm %x, %p, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<f32>) {
  %p = mix.weight external "p" : tensor<1xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects input of rank >= 1, got rank 0}}
  %0 = mix.layer_norm %x, %p, %p : (tensor<f32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x5x64xf32>) {
  %b = mix.weight external "b" : tensor<64xf32>
  // expected-note @+1 {{gamma defined here}}
  %g = mix.weight external "g" : tensor<5xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects gamma of shape [64] (last dimension), got [5]}}
  %0 = mix.layer_norm %x, %g, %b : (tensor<2x5x64xf32>, tensor<5xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x5x64xf32>) {
  %g = mix.weight external "g" : tensor<64xf32>
  // expected-note @+1 {{beta defined here}}
  %b = mix.weight external "b" : tensor<5x64xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects beta of shape [64] (last dimension), got [5, 64]}}
  %0 = mix.layer_norm %x, %g, %b : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<5x64xf32>) -> tensor<2x5x64xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x5x64xf32>) {
  %g = mix.weight external "g" : tensor<64xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects epsilon > 0}}
  %0 = mix.layer_norm %x, %g, %g {epsilon = -1.0e-5 : f64} : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x5x64xf32>) {
  %g = mix.weight external "g" : tensor<64xf32>
  // expected-error @+1 {{'mix.layer_norm' op result shape [10, 64] differs from the input shape [2, 5, 64]}}
  %0 = mix.layer_norm %x, %g, %g : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<10x64xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.softmax, mix.relu, mix.gelu, mix.add, mix.mul
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.softmax' op axis 2 is out of range for rank 2}}
  %0 = mix.softmax %x {axis = 2 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.softmax' op axis -3 is out of range for rank 2}}
  %0 = mix.softmax %x {axis = -3 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.softmax' op result shape [10, 4] differs from the input shape [4, 10]}}
  %0 = mix.softmax %x : (tensor<4x10xf32>) -> tensor<10x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.relu' op result shape [40] differs from the input shape [4, 10]}}
  %0 = mix.relu %x : (tensor<4x10xf32>) -> tensor<40xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.gelu' op result shape [4, 1] differs from the input shape [4, 10]}}
  %0 = mix.gelu %x {approximate = true} : (tensor<4x10xf32>) -> tensor<4x1xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mix.add' op operand shapes [4, 3] and [4] are not broadcastable}}
  %0 = mix.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'mix.add' op result shape [4, 1] does not match the expected shape [4, 3]}}
  %0 = mix.add %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'mix.mul' op operand shapes [2, 3] and [3, 3] are not broadcastable}}
  %0 = mix.mul %a, %b : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<2x1x3xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+1 {{'mix.mul' op result shape [2, 1, 3] does not match the expected shape [2, 4, 3]}}
  %0 = mix.mul %a, %b : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x1x3xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.embedding, mix.global_avg_pool, mix.max_pool2d
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%ids: tensor<2x16xi32>) {
  // expected-note @+1 {{table defined here}}
  %t = mix.weight external "t" : tensor<100xf32>
  // expected-error @+1 {{'mix.embedding' op expects table of rank 2, got rank 1 [100]}}
  %0 = mix.embedding %ids, %t : (tensor<2x16xi32>, tensor<100xf32>) -> tensor<2x16xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%ids: tensor<2x16xi64>) {
  %t = mix.weight external "t" : tensor<100x64xf32>
  // expected-error @+1 {{'mix.embedding' op result shape [2, 64] does not match the expected shape [2, 16, 64]}}
  %0 = mix.embedding %ids, %t : (tensor<2x16xi64>, tensor<100x64xf32>) -> tensor<2x64xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x64x8xf32>) {
  // expected-error @+1 {{'mix.global_avg_pool' op expects input of rank 4, got rank 3 [1, 64, 8]}}
  %0 = mix.global_avg_pool %x : (tensor<1x64x8xf32>) -> tensor<1x64xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x64x8x8xf32>) {
  // expected-error @+1 {{'mix.global_avg_pool' op result shape [1, 64, 1, 1] does not match the expected shape [1, 64]}}
  %0 = mix.global_avg_pool %x : (tensor<1x64x8x8xf32>) -> tensor<1x64x1x1xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects input of rank 4, got rank 3 [16, 8, 8]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<16x8x8xf32>) -> tensor<16x7x7xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects 'kernel' to have 2 values, got 1}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x7xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects every 'kernel' value >= 1, got [0, 2]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 0, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x7xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects 'strides' to have 2 values, got 4}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2, 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects every 'strides' value >= 1, got [-1, 2]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: -1, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects 'padding' to have 4 values, got 2}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects every 'padding' value >= 0, got [0, 0, 0, -1]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, -1>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x7xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op padding [0, 0, 0, 2] must be smaller than the kernel [2, 2]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x9xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x2xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op window of extent 3 does not fit the width dimension (2 + padding 0)}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 1, 3>} : (tensor<1x16x8x2xf32>) -> tensor<1x16x8x1xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op window of extent 4 does not fit the height dimension (2 + padding 1)}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 4, 1>, padding = array<i64: 1, 0, 0, 0>} : (tensor<1x16x2x8xf32>) -> tensor<1x16x1x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op result shape [1, 16, 7, 7] does not match the expected shape [1, 16, 4, 4]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x7xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.reshape, mix.flatten
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'mix.reshape' op cannot reshape [2, 8] (16 elements) into [4, 5] (20 elements)}}
  %0 = mix.reshape %x : (tensor<2x8xf32>) -> tensor<4x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'mix.flatten' op start_dim 4 is out of range for rank 4}}
  %0 = mix.flatten %x {start_dim = 4 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'mix.flatten' op start_dim -1 is out of range for rank 4}}
  %0 = mix.flatten %x {start_dim = -1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'mix.flatten' op result shape [6, 20] does not match the expected shape [2, 60]}}
  %0 = mix.flatten %x : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// mix.attention
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects input of rank 3, got rank 2 [10, 8]}}
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 2 : i64} : (tensor<10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<10x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects num_heads >= 1, got 0}}
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 0 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op embedding size 8 is not divisible by num_heads (3)}}
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 3 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wq defined here}}
  %q = mix.weight external "q" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.attention' op expects wq of shape [8, 8], got [8, 4]}}
  %0 = mix.attention %x, %q, %w, %w, %w {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wk defined here}}
  %k = mix.weight external "k" : tensor<4x8xf32>
  // expected-error @+1 {{'mix.attention' op expects wk of shape [8, 8], got [4, 8]}}
  %0 = mix.attention %x, %w, %k, %w, %w {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wv defined here}}
  %v = mix.weight external "v" : tensor<8x8x1xf32>
  // expected-error @+1 {{'mix.attention' op expects wv of shape [8, 8], got [8, 8, 1]}}
  %0 = mix.attention %x, %w, %w, %v, %w {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wo defined here}}
  %o = mix.weight external "o" : tensor<16x16xf32>
  // expected-error @+1 {{'mix.attention' op expects wo of shape [8, 8], got [16, 16]}}
  %0 = mix.attention %x, %w, %w, %w, %o {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<16x16xf32>) -> tensor<1x10x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op result shape [1, 8, 10] differs from the input shape [1, 10, 8]}}
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x8x10xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%l: tensor<40xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'mix.cross_entropy_loss' op expects logits of rank 2, got rank 1 [40]}}
  %0 = mix.cross_entropy_loss %l, %y : (tensor<40xf32>, tensor<4xi32>) -> tensor<f32>
  mix.return
}

// -----

mix.network @n precision(f32) (%l: tensor<4x10xf32>, %y: tensor<4x1xi32>) {
  // expected-error @+1 {{'mix.cross_entropy_loss' op expects labels of rank 1, got rank 2 [4, 1]}}
  %0 = mix.cross_entropy_loss %l, %y : (tensor<4x10xf32>, tensor<4x1xi32>) -> tensor<f32>
  mix.return
}

// -----

mix.network @n precision(f32) (%l: tensor<4x10xf32>, %y: tensor<3xi64>) {
  // expected-error @+1 {{'mix.cross_entropy_loss' op has 4 rows of logits but 3 labels}}
  %0 = mix.cross_entropy_loss %l, %y : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<f32>
  mix.return
}

// -----

mix.network @n precision(f32) (%p: tensor<4x3xf32>, %t: tensor<4x2xf32>) {
  // expected-error @+1 {{'mix.mse_loss' op prediction shape [4, 3] differs from the target shape [4, 2]}}
  %0 = mix.mse_loss %p, %t : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<f32>
  mix.return
}

// -----

// expected-error @+1 {{only network and block decisions name an origin, not 'layer'}}
module attributes {t.d = #mix.decision<f16 from layer @x>} {}

// -----

// expected-error @+1 {{a network decision must name its network}}
module attributes {t.d = #mix.decision<f32 from network>} {}

// -----

// expected-error @+1 {{i32 is only an accumulator precision}}
module attributes {t.r = #mix.resolved<activations = i32 from layer, accumulator = i32 from derived, output = f32 from derived>} {}

// -----

// expected-error @+1 {{the accumulator cannot be int8}}
module attributes {t.r = #mix.resolved<activations = int8 from layer, accumulator = int8 from derived, output = f32 from derived>} {}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{'mix.cast' op requires the same shape for all operands and results}}
  %0 = mix.cast %x : tensor<4xf32> to tensor<2x2xf16>
  mix.return %0 : tensor<2x2xf16>
}

// -----

// A weight too large to hold is rejected before anything materializes it.
mix.network @huge_splat precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.weight' op weight of type 'tensor<4x4000000000000xf32>' needs 64000000000000 bytes; a weight holds at most 17179869184 bytes}}
  %w = mix.weight dense<1.0> : tensor<4x4000000000000xf32>
  mix.return %x : tensor<1x4xf32>
}

// -----

// 2^64 elements: the count itself overflows.
mix.network @overflowing precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.weight' op weight of type 'tensor<4294967296x4294967296xf32>' has more elements than 64 bits can count}}
  %w = mix.weight external "w" : tensor<4294967296x4294967296xf32>
  mix.return %x : tensor<1x4xf32>
}
