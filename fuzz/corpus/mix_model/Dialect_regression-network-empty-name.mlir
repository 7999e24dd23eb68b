// Regression test (was a bug, fixed in 323acc3): a network named `@""` is accepted (blocks reject an empty name with
// "block name cannot be empty", NetworkOp::verify has no such check,
// dialect/MixOpsVerify.cpp) and then prints as `@<<INVALID EMPTY SYMBOL>>`,
// which does not parse back.

// expected-error @+1 {{name cannot be empty}}
mix.network @"" precision(f32) () {
  mix.return
}
