// Every verifier diagnostic of integer mix.cast and integer mix.compare.
// RUN: mix-opt %s -split-input-file -verify-diagnostics

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+2 {{'mix.cast' op cannot cast 'f32' to 'i32': the result must be a float type (f16, bf16, f32 or f64)}}
  // expected-note @+1 {{float to integer casts (ONNX's Cast truncates toward zero and leaves out-of-range values undefined) are not supported}}
  %0 = mix.cast %x : tensor<4xf32> to tensor<4xi32>
  mix.return %0 : tensor<4xi32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+2 {{'mix.cast' op cannot cast 'i64' to 'i32': the result must be a float type}}
  // expected-note @+1 {{integer to integer casts are not supported}}
  %0 = mix.cast %x : tensor<4xi64> to tensor<4xi32>
  mix.return %0 : tensor<4xi32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{'mix.cast' op 'unsigned' reads an i8 input as 0 .. 255, but the input is 'f16'}}
  // expected-note @+1 {{a float input has no signedness}}
  %0 = mix.cast %x unsigned : tensor<4xf16> to tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{'mix.cast' op 'unsigned' reads an i8 input as 0 .. 255, but the input is 'i32'}}
  // expected-note @+1 {{only i8 (ONNX's uint8) has an unsigned reading}}
  %0 = mix.cast %x unsigned : tensor<4xi32> to tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{input defined here}}
  %m = mix.compare %a, %b {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // expected-error @+2 {{'mix.cast' op 'unsigned' reads an i8 input as 0 .. 255, but the input is 'i1'}}
  // expected-note @+1 {{an i1 input is always 0 or 1}}
  %0 = mix.cast %m unsigned : tensor<4xi1> to tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xi16>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.cast' op operand #0 must be tensor with static dimensions (the leading, batch dimension may be `?`) of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = mix.cast %x : tensor<4xi16> to tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%a: tensor<4xi64>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'mix.compare' op compares 'i64' with 'f32': integer operands must have the same type}}
  // expected-note @+1 {{convert the integer operand with mix.cast to compare it with a float}}
  %0 = mix.compare %a, %b {predicate = "lt"} : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xi64>, %b: tensor<4xi32>) {
  // expected-error @+2 {{'mix.compare' op compares 'i64' with 'i32': integer operands must have the same type}}
  // expected-note @+1 {{integers of different widths are not compared (ONNX's comparisons take two operands of one type)}}
  %0 = mix.compare %a, %b {predicate = "eq"} : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi1>
  mix.return
}
