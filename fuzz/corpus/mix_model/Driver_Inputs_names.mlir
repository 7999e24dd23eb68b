// Parameter names and C element types of the generated header: SSA names
// of the source, `mix.name` attributes, numbered values, names that are C or
// C++ keywords or that would shadow what the header uses, duplicates.
mix.network @types precision(f32) (%new: tensor<2xf64>, %in.put-1: tensor<3xf16>, %b: tensor<3xbf16>, %mixrt_check_reset: tensor<4xi32>, %int8_t: tensor<1x1x1xi8>, %arg: tensor<2xi64> {mix.name = "tokens"}, %_Cap: tensor<1xf32>) -> (tensor<2xf64>, tensor<2xf64>, tensor<3xf16> {mix.name = "half out"}, tensor<2xf64>, tensor<2xf64>, tensor<2xf64> {mix.name = "2nd"}) {
  %0 = mix.relu %new : (tensor<2xf64>) -> tensor<2xf64>
  %pair:2 = mix.block (%a = %new) : (tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
    %r = mix.relu %a : (tensor<2xf64>) -> tensor<2xf64>
    %s = mix.relu %r : (tensor<2xf64>) -> tensor<2xf64>
    mix.yield %r, %s : tensor<2xf64>, tensor<2xf64>
  }
  mix.return %0, %new, %in.put-1, %pair#1, %pair#0, %new : tensor<2xf64>, tensor<2xf64>, tensor<3xf16>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}
