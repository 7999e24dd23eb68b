#!/usr/bin/env python3
"""Writes the MobileNet-V2-style stack that docs/compiler.md times.

Three inverted residual blocks at 56x56 (24 -> 144 -> 24 with a residual
add; 24 -> 144 -> 32 with a stride-2 depthwise; 32 -> 192 -> 32 with a
residual add): 1x1 expand conv + relu, 3x3 depthwise conv + relu, 1x1
project conv. Random weights (seed 0, He scale), opset 17.

    /usr/bin/python3 bench/models/mobilenet_v2_stack.py OUT_DIR
    mix-bench OUT_DIR/mbv2.onnx [--profile]
    mix-bench OUT_DIR/mbv2.onnx --precision-plan OUT_DIR/int8.json

OUT_DIR/int8.json is the plan that makes every conv2d int8.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build():
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def weight(name, *shape, scale=None):
        fan = np.prod(shape[1:]) if len(shape) > 1 else 1
        a = rng.standard_normal(shape) * (scale or np.sqrt(2.0 / fan))
        inits.append(numpy_helper.from_array(a.astype(np.float32), name))
        return name

    def block(i, x, cin, cmid, cout, stride):
        p = f"/b{i}"
        e, d, o = f"b{i}e", f"b{i}d", f"b{i}p"
        nodes.append(helper.make_node(
            "Conv", [x, weight(f"b{i}.ew", cmid, cin, 1, 1),
                     weight(f"b{i}.eb", cmid, scale=0.1)], [e],
            name=p + "/expand/Conv", kernel_shape=[1, 1]))
        nodes.append(helper.make_node("Relu", [e], [e + "r"],
                                      name=p + "/expand/Relu"))
        nodes.append(helper.make_node(
            "Conv", [e + "r", weight(f"b{i}.dw", cmid, 1, 3, 3),
                     weight(f"b{i}.db", cmid, scale=0.1)], [d],
            name=p + "/dw/Conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
            strides=[stride, stride], group=cmid))
        nodes.append(helper.make_node("Relu", [d], [d + "r"],
                                      name=p + "/dw/Relu"))
        nodes.append(helper.make_node(
            "Conv", [d + "r", weight(f"b{i}.pw", cout, cmid, 1, 1)], [o],
            name=p + "/project/Conv", kernel_shape=[1, 1]))
        if stride == 1 and cin == cout:
            nodes.append(helper.make_node("Add", [x, o], [o + "a"],
                                          name=p + "/Add"))
            o += "a"
        return o

    x = block(0, "x", 24, 144, 24, 1)
    x = block(1, x, 24, 144, 32, 2)
    x = block(2, x, 32, 192, 32, 1)
    graph = helper.make_graph(
        nodes, "mbv2",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 24, 56, 56])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 32, 28, 28])],
        inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mobilenet_v2_stack.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(build(), os.path.join(out, "mbv2.onnx"))
    with open(os.path.join(out, "int8.json"), "w") as f:
        json.dump({"ops": {"conv2d": "int8"}}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
