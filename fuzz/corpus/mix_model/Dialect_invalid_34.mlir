// expected-error @+1 {{'mix.network' op requires attribute 'precision'}}
"mix.network"() <{function_type = () -> (), sym_name = "n"}> ({
  "mix.return"() : () -> ()
}) : () -> ()
