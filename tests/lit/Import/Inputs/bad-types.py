# Builds the models of tests/lit/Import/element-types.test: a uint8 graph
# input (uint8.onnx), a uint32 constant a Pow reads (uint32-const.onnx), and
# a cubic Resize with cubic_coeff_a = -0.5 next to a Clip whose max is a
# run-time tensor of rank 1 (cubic-a.onnx).
import sys

from onnx import TensorProto, helper

out = sys.argv[1]
f = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    open(out + "/" + name + ".onnx", "wb").write(m.SerializeToString())


save("uint8",
     [helper.make_node("Cast", ["px"], ["y"], name="/in/cast", to=TensorProto.FLOAT)],
     [helper.make_tensor_value_info("px", TensorProto.UINT8, [4])], [f("y", 4)])
save("uint32-const",
     [helper.make_node("Pow", ["x", "e"], ["y"], name="/p/pow")],
     [f("x", 4)], [f("y", 4)],
     [helper.make_tensor("e", TensorProto.UINT32, [1], [2])])
save("cubic-a",
     [helper.make_node("Resize", ["img", "", "scales"], ["up"], name="/m/up",
                       mode="cubic", cubic_coeff_a=-0.5),
      helper.make_node("Clip", ["img", "", "hi"], ["c"], name="/m/clip")],
     [f("img", 1, 1, 2, 2), f("hi", 1)], [f("up", 1, 1, 4, 4), f("c", 1, 1, 2, 2)],
     [helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, 2, 2])])
