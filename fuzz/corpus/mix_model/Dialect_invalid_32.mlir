// The FunctionOpInterface verifier checks the entry block against the signature.
// expected-error @+1 {{'mix.network' op entry block must have 1 arguments to match function signature}}
"mix.network"() <{function_type = (tensor<4xf32>) -> (), precision = #mix.precision<f32>, sym_name = "n"}> ({
  "mix.return"() : () -> ()
}) : () -> ()
