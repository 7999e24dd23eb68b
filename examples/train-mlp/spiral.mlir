// Two spirals, classified by a small MLP (2 -> 24 -> 24 -> 2, relu) whose
// hidden layers run in f16 while the network stays f32.
//
// @spiral ends in a cross-entropy loss: `mixc --train --entry=spiral`
// compiles its training step (examples/train-mlp/train.c drives it).
// @classify is the same network without the loss: the inference build,
// compiled with the trained weights (`--entry=classify --weights=...`).
mix.network @spiral precision(f32) (%x: tensor<96x2xf32>, %labels: tensor<96xi32>) -> tensor<f32> {
  %h = mix.block @body precision(f16) (%a = %x) : (tensor<96x2xf32>) -> tensor<96x24xf32> {
    %w1 = mix.weight external "fc1.weight" : tensor<2x24xf32>
    %b1 = mix.weight external "fc1.bias" : tensor<24xf32>
    %d1 = mix.dense %a, %w1, %b1 : (tensor<96x2xf32>, tensor<2x24xf32>, tensor<24xf32>) -> tensor<96x24xf32>
    %r1 = mix.relu %d1 : (tensor<96x24xf32>) -> tensor<96x24xf32>
    %w2 = mix.weight external "fc2.weight" : tensor<24x24xf32>
    %b2 = mix.weight external "fc2.bias" : tensor<24xf32>
    %d2 = mix.dense %r1, %w2, %b2 : (tensor<96x24xf32>, tensor<24x24xf32>, tensor<24xf32>) -> tensor<96x24xf32>
    %r2 = mix.relu %d2 : (tensor<96x24xf32>) -> tensor<96x24xf32>
    mix.yield %r2 : tensor<96x24xf32>
  }
  %w3 = mix.weight external "out.weight" : tensor<24x2xf32>
  %b3 = mix.weight external "out.bias" : tensor<2xf32>
  %z = mix.dense %h, %w3, %b3 : (tensor<96x24xf32>, tensor<24x2xf32>, tensor<2xf32>) -> tensor<96x2xf32>
  %l = mix.cross_entropy_loss %z, %labels : (tensor<96x2xf32>, tensor<96xi32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

mix.network @classify precision(f32) (%x: tensor<96x2xf32>) -> tensor<96x2xf32> {
  %h = mix.block @body precision(f16) (%a = %x) : (tensor<96x2xf32>) -> tensor<96x24xf32> {
    %w1 = mix.weight external "fc1.weight" : tensor<2x24xf32>
    %b1 = mix.weight external "fc1.bias" : tensor<24xf32>
    %d1 = mix.dense %a, %w1, %b1 : (tensor<96x2xf32>, tensor<2x24xf32>, tensor<24xf32>) -> tensor<96x24xf32>
    %r1 = mix.relu %d1 : (tensor<96x24xf32>) -> tensor<96x24xf32>
    %w2 = mix.weight external "fc2.weight" : tensor<24x24xf32>
    %b2 = mix.weight external "fc2.bias" : tensor<24xf32>
    %d2 = mix.dense %r1, %w2, %b2 : (tensor<96x24xf32>, tensor<24x24xf32>, tensor<24xf32>) -> tensor<96x24xf32>
    %r2 = mix.relu %d2 : (tensor<96x24xf32>) -> tensor<96x24xf32>
    mix.yield %r2 : tensor<96x24xf32>
  }
  %w3 = mix.weight external "out.weight" : tensor<24x2xf32>
  %b3 = mix.weight external "out.bias" : tensor<2xf32>
  %logits = mix.dense %h, %w3, %b3 : (tensor<96x24xf32>, tensor<24x2xf32>, tensor<2xf32>) -> tensor<96x2xf32>
  mix.return %logits : tensor<96x2xf32>
}
