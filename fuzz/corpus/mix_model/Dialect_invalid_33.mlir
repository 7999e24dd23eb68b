// expected-error @+1 {{'mix.network' op type of entry block argument #1('tensor<4xf16>') must match the type of the corresponding argument in function signature('tensor<4xf32>')}}
"mix.network"() <{function_type = (tensor<4xf32>, tensor<4xf32>) -> (), precision = #mix.precision<f32>, sym_name = "n"}> ({
^bb0(%a: tensor<4xf32>, %b: tensor<4xf16>):
  "mix.return"() : () -> ()
}) : () -> ()
