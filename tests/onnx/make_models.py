#!/usr/bin/env python3
"""Builds the ONNX models of the importer's tests with Debian's python3-onnx.

    make_models.py NAME OUT_DIR

writes OUT_DIR/NAME.onnx and, for the models that are run,
OUT_DIR/NAME.inputs.safetensors (tensor `input0`, as mix-run reads it) and
OUT_DIR/NAME.expected.txt: the outputs computed here with numpy (float64
from the same float32 weights), one line `output I [shape]: values...`,
which compare_outputs.py compares with mix-run's (tolerance stated there).
The weights are fixed pseudo-random numbers (seeded), so runs are
reproducible.
"""
import json
import math
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
rng = np.random.default_rng(1234)


def weight(name, *shape, scale=0.5):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale).astype(np.float32), name)


def model(nodes, inputs, outputs, initializers, opset=OPSET, name="graph"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="mixc-tests")
    m.ir_version = 8
    return m


def value(name, *shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def write_expected(path, outputs):
    with open(path, "w") as f:
        for i, out in enumerate(outputs):
            shape = ", ".join(str(d) for d in out.shape)
            values = " ".join("%.9g" % v for v in out.reshape(-1))
            f.write(f"output {i} [{shape}]: {values}\n")


def arr(init):
    return numpy_helper.to_array(init).astype(np.float64)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# --------------------------------------------------------------------------
# Models that are run
# --------------------------------------------------------------------------

def mlp(out):
    """Gemm (transB) + Relu + MatMul + Add + Softmax, dynamic batch."""
    w1, b1 = weight("fc1.weight", 16, 8), weight("fc1.bias", 16)
    w2, b2 = weight("fc2.weight", 16, 4), weight("fc2.bias", 4)
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"],
                         name="/fc1/Gemm", transB=1),
        helper.make_node("Relu", ["h"], ["r"], name="/act/Relu"),
        helper.make_node("MatMul", ["r", "fc2.weight"], ["m"],
                         name="/fc2/MatMul"),
        helper.make_node("Add", ["m", "fc2.bias"], ["z"], name="/fc2/Add"),
        helper.make_node("Softmax", ["z"], ["y"], name="/head/Softmax",
                         axis=-1),
    ]
    m = model(nodes, [value("x", "batch", 8)], [value("y", "batch", 4)],
              [w1, b1, w2, b2])
    x = rng.standard_normal((3, 8)).astype(np.float32)
    h = np.maximum(x.astype(np.float64) @ arr(w1).T + arr(b1), 0)
    y = softmax(h @ arr(w2) + arr(b2))
    return m, {"input0": x}, [y]


def cnn(out):
    """Conv + BatchNormalization + Relu + MaxPool + GlobalAveragePool +
    Flatten + Gemm, blocks from module paths."""
    cw, cb = weight("conv1.weight", 8, 3, 3, 3), weight("conv1.bias", 8)
    scale = numpy_helper.from_array(
        (1 + 0.1 * rng.standard_normal(8)).astype(np.float32), "bn1.weight")
    bias = weight("bn1.bias", 8, scale=0.1)
    mean = weight("bn1.running_mean", 8, scale=0.1)
    var = numpy_helper.from_array(
        (1 + 0.2 * rng.random(8)).astype(np.float32), "bn1.running_var")
    fw, fb = weight("fc.weight", 10, 8), weight("fc.bias", 10)
    nodes = [
        helper.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["c"],
                         name="/features/conv1/Conv", pads=[1, 1, 1, 1],
                         kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization",
                         ["c", "bn1.weight", "bn1.bias", "bn1.running_mean",
                          "bn1.running_var"], ["n"],
                         name="/features/bn1/BatchNormalization", epsilon=1e-5),
        helper.make_node("Relu", ["n"], ["r"], name="/features/relu/Relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="/features/pool/MaxPool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"],
                         name="/classifier/GlobalAveragePool"),
        helper.make_node("Flatten", ["g"], ["f"], name="/classifier/Flatten",
                         axis=1),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["y"],
                         name="/classifier/fc/Gemm", transB=1),
    ]
    m = model(nodes, [value("x", 1, 3, 8, 8)], [value("y", 1, 10)],
              [cw, cb, scale, bias, mean, var, fw, fb])
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    xd = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    w = arr(cw)
    c = np.zeros((1, 8, 8, 8))
    for f in range(8):
        for i in range(8):
            for j in range(8):
                c[0, f, i, j] = (xd[0, :, i:i + 3, j:j + 3] * w[f]).sum()
    c += arr(cb)[None, :, None, None]
    n = (arr(scale)[None, :, None, None] * (c - arr(mean)[None, :, None, None])
         / np.sqrt(arr(var)[None, :, None, None] + 1e-5)
         + arr(bias)[None, :, None, None])
    r = np.maximum(n, 0)
    p = r.reshape(1, 8, 4, 2, 4, 2).max(axis=(3, 5))
    g = p.mean(axis=(2, 3))
    y = g @ arr(fw).T + arr(fb)
    return m, {"input0": x}, [y]


def encoder(out):
    """A transformer-style block exported with module paths: an embedding
    (Gather of a table), LayerNormalization, a projection, MatMuls of two
    activations, Softmax, a residual Add, Dropout, and a Reshape whose shape
    is computed by a Shape -> Gather -> Unsqueeze -> Concat subgraph."""
    table = weight("embed.weight", 20, 8)
    g, b = weight("ln.weight", 8), weight("ln.bias", 8)
    wq = weight("q.weight", 8, 8)
    wo = weight("out.weight", 8, 8)
    idx0 = numpy_helper.from_array(np.array(0, dtype=np.int64), "zero")
    axes = numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0")
    rest = numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus1")
    path = "/encoder/layer.0"
    nodes = [
        helper.make_node("Gather", ["embed.weight", "ids"], ["e"],
                         name="/embed/Gather"),
        helper.make_node("Add", ["e", "e"], ["e2"], name="/embed/Add"),
        helper.make_node("LayerNormalization", ["e2", "ln.weight", "ln.bias"],
                         ["n"], name=path + "/ln/LayerNormalization",
                         epsilon=1e-5, axis=-1),
        helper.make_node("MatMul", ["n", "q.weight"], ["q"],
                         name=path + "/attn/q/MatMul"),
        # Scores of two activations: q [1, 6, 8] x nT [1, 8, 6].
        helper.make_node("MatMul", ["q", "nT"], ["s"],
                         name=path + "/attn/MatMul"),
        helper.make_node("Softmax", ["s"], ["p"], name=path + "/attn/Softmax",
                         axis=-1),
        helper.make_node("MatMul", ["p", "n"], ["a"],
                         name=path + "/attn/MatMul_1"),
        helper.make_node("MatMul", ["a", "out.weight"], ["o"],
                         name=path + "/attn/out/MatMul"),
        helper.make_node("Add", ["o", "n"], ["res"], name=path + "/Add"),
        helper.make_node("Dropout", ["res"], ["d"], name=path + "/Dropout"),
        helper.make_node("Shape", ["d"], ["shape"], name="/head/Shape"),
        helper.make_node("Gather", ["shape", "zero"], ["d0"],
                         name="/head/Gather"),
        helper.make_node("Unsqueeze", ["d0", "axes0"], ["d0u"],
                         name="/head/Unsqueeze"),
        helper.make_node("Concat", ["d0u", "minus1"], ["newshape"],
                         name="/head/Concat", axis=0),
        helper.make_node("Reshape", ["d", "newshape"], ["y"],
                         name="/head/Reshape"),
    ]
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 6])
    nt = value("nT", 1, 8, 6)
    m = model(nodes, [ids, nt], [value("y", 1, 48)],
              [table, g, b, wq, wo, idx0, axes, rest])
    ids_v = np.array([[1, 5, 7, 0, 19, 3]], dtype=np.int64)
    nT = rng.standard_normal((1, 8, 6)).astype(np.float32)
    t = arr(table)
    e = t[ids_v] * 2
    mu = e.mean(-1, keepdims=True)
    var = ((e - mu) ** 2).mean(-1, keepdims=True)
    n = (e - mu) / np.sqrt(var + 1e-5) * arr(g) + arr(b)
    q = n @ arr(wq)
    s = q @ nT.astype(np.float64)
    p = softmax(s)
    a = p @ n
    o = a @ arr(wo) + n
    return m, {"input0": ids_v, "input1": nT}, [o.reshape(1, 48)]


def flat(out):
    """The MLP with the node names of older exporters (`Gemm_0`): no module
    paths, so no blocks."""
    m, inputs, outputs = mlp(out)
    for i, node in enumerate(m.graph.node):
        node.name = f"{node.op_type}_{i}"
    return m, inputs, outputs


def gelu(out):
    """GELU as exporters write it below opset 20, in both orders of the two
    Muls: 0.5 * x * (1 + Erf(x / sqrt(2))); and a lone Erf (an error)."""
    w1, w2 = weight("fc1.weight", 8, 8), weight("fc2.weight", 8, 4)
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    consts = [c("sqrt2", 1.4142135381698608), c("one", 1.0), c("half", 0.5)]
    nodes = [
        helper.make_node("MatMul", ["x", "fc1.weight"], ["h"], name="/fc1/MatMul"),
        # ((1 + erf(h / sqrt 2)) * h) * 0.5
        helper.make_node("Div", ["h", "sqrt2"], ["d"], name="/act1/Div"),
        helper.make_node("Erf", ["d"], ["e"], name="/act1/Erf"),
        helper.make_node("Add", ["e", "one"], ["a"], name="/act1/Add"),
        helper.make_node("Mul", ["h", "a"], ["m"], name="/act1/Mul"),
        helper.make_node("Mul", ["m", "half"], ["g"], name="/act1/Mul_1"),
        # (g * 0.5) * (1 + erf(g / sqrt 2))
        helper.make_node("Mul", ["g", "half"], ["gh"], name="/act2/Mul"),
        helper.make_node("Div", ["g", "sqrt2"], ["d2"], name="/act2/Div"),
        helper.make_node("Erf", ["d2"], ["e2"], name="/act2/Erf"),
        helper.make_node("Add", ["one", "e2"], ["a2"], name="/act2/Add"),
        helper.make_node("Mul", ["gh", "a2"], ["g2"], name="/act2/Mul_1"),
        helper.make_node("MatMul", ["g2", "fc2.weight"], ["y"], name="/fc2/MatMul"),
    ]
    m = model(nodes, [value("x", "batch", 8)], [value("y", "batch", 4)],
              [w1, w2] + consts)
    x = rng.standard_normal((2, 8)).astype(np.float32)
    erf = np.vectorize(math.erf)
    g = lambda v: 0.5 * v * (1 + erf(v / math.sqrt(2)))
    y = g(g(x.astype(np.float64) @ arr(w1))) @ arr(w2)
    return m, {"input0": x}, [y]


def gelu_tanh(out):
    """The tanh GELU as PyTorch (approximate='tanh') and GPT-2's gelu_new
    export it below opset 20, both orders of every product:
    0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * Pow(x, 3))))."""
    w1, w2 = weight("fc1.weight", 8, 8), weight("fc2.weight", 8, 4)
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    consts = [c("three", 3.0), c("k", 0.044715), c("s", math.sqrt(2 / math.pi)),
              c("one", 1.0), c("half", 0.5)]
    nodes = [
        helper.make_node("MatMul", ["x", "fc1.weight"], ["h"], name="/fc1/MatMul"),
        # ((1 + tanh(s * (h + k * h^3))) * h) * 0.5
        helper.make_node("Pow", ["h", "three"], ["p"], name="/act1/Pow"),
        helper.make_node("Mul", ["p", "k"], ["a"], name="/act1/Mul"),
        helper.make_node("Add", ["h", "a"], ["b"], name="/act1/Add"),
        helper.make_node("Mul", ["b", "s"], ["t_in"], name="/act1/Mul_1"),
        helper.make_node("Tanh", ["t_in"], ["t"], name="/act1/Tanh"),
        helper.make_node("Add", ["t", "one"], ["d"], name="/act1/Add_1"),
        helper.make_node("Mul", ["d", "h"], ["m"], name="/act1/Mul_2"),
        helper.make_node("Mul", ["m", "half"], ["g"], name="/act1/Mul_3"),
        # (0.5 * g) * (1 + tanh(s * (k * g^3 + g)))
        helper.make_node("Mul", ["half", "g"], ["gh"], name="/act2/Mul"),
        helper.make_node("Pow", ["g", "three"], ["p2"], name="/act2/Pow"),
        helper.make_node("Mul", ["k", "p2"], ["a2"], name="/act2/Mul_1"),
        helper.make_node("Add", ["a2", "g"], ["b2"], name="/act2/Add"),
        helper.make_node("Mul", ["s", "b2"], ["t2_in"], name="/act2/Mul_2"),
        helper.make_node("Tanh", ["t2_in"], ["t2"], name="/act2/Tanh"),
        helper.make_node("Add", ["one", "t2"], ["d2"], name="/act2/Add_1"),
        helper.make_node("Mul", ["gh", "d2"], ["g2"], name="/act2/Mul_3"),
        # A Tanh of its own stays a mix.tanh.
        helper.make_node("Tanh", ["g2"], ["t3"], name="/act3/Tanh"),
        helper.make_node("MatMul", ["t3", "fc2.weight"], ["y"], name="/fc2/MatMul"),
    ]
    m = model(nodes, [value("x", "batch", 8)], [value("y", "batch", 4)],
              [w1, w2] + consts)
    x = rng.standard_normal((2, 8)).astype(np.float32)
    g = lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
    y = np.tanh(g(g(x.astype(np.float64) @ arr(w1)))) @ arr(w2)
    return m, {"input0": x}, [y]


def lone_erf(out):
    """An Erf that is not part of a GELU: a mix.erf of its own."""
    nodes = [helper.make_node("Erf", ["x"], ["y"], name="/e/Erf")]
    x = np.array([-1.5, 0.25], np.float32)
    y = np.vectorize(math.erf)(x.astype(np.float64))
    return model(nodes, [value("x", 2)], [value("y", 2)], []), {"input0": x}, [y]


def math_ops(out):
    """Every elementwise math op the importer translates, one output each,
    on inputs spread over [-4, 4] (Log, Sqrt and Pow read |x| + 0.5; Asin,
    Acos and Atanh read tanh(x), Acosh cosh(x))."""
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    w = weight("w", 6, scale=1.0)
    consts = [w, c("lo", -0.5), c("hi", 0.5), c("six", 6.0), c("half", 0.5),
              c("e", 2.5)]
    n = lambda op, ins, out, **kw: helper.make_node(
        op, ins, [out], name="/math/" + out, **kw)
    nodes = [
        n("Abs", ["x"], "abs"),
        n("Add", ["abs", "half"], "pos"),
        n("Sigmoid", ["x"], "sigmoid"),
        n("Tanh", ["x"], "tanh"),
        n("HardSigmoid", ["x"], "hard_sigmoid", alpha=0.3, beta=0.4),
        n("HardSwish", ["x"], "hard_swish"),
        n("LeakyRelu", ["x"], "leaky_relu", alpha=0.2),
        n("Elu", ["x"], "elu", alpha=0.7),
        n("Clip", ["x", "lo", "hi"], "clip"),
        n("Clip", ["x", "", "six"], "clip_max"),
        n("Exp", ["x"], "exp"),
        n("Log", ["pos"], "log"),
        n("Sqrt", ["pos"], "sqrt"),
        n("Neg", ["x"], "neg"),
        n("Erf", ["x"], "erf"),
        n("Reciprocal", ["x"], "reciprocal"),
        n("Floor", ["x"], "floor"),
        n("Ceil", ["x"], "ceil"),
        n("Round", ["x"], "round"),
        n("Sign", ["x"], "sign"),
        n("Sin", ["x"], "sin"),
        n("Cos", ["x"], "cos"),
        n("Tan", ["x"], "tan"),
        n("Asin", ["tanh"], "asin"),
        n("Acos", ["tanh"], "acos"),
        n("Atan", ["x"], "atan"),
        n("Sinh", ["x"], "sinh"),
        n("Cosh", ["x"], "cosh"),
        n("Asinh", ["x"], "asinh"),
        n("Acosh", ["cosh"], "acosh"),
        n("Atanh", ["tanh"], "atanh"),
        n("Sub", ["x", "w"], "sub"),
        n("Div", ["x", "w"], "div"),
        n("Pow", ["pos", "e"], "pow"),
        n("Max", ["x", "tanh", "sigmoid"], "max"),
        n("Min", ["x", "w"], "min"),
    ]
    outs = [nd.output[0] for nd in nodes if nd.output[0] not in ("pos",)]
    m = model(nodes, [value("x", "batch", 6)],
              [value(o, "batch", 6) for o in outs], consts)
    # No zeros: Reciprocal(0) = inf would not compare with a tolerance.
    x = (rng.uniform(-4, 4, (2, 6))).astype(np.float32)
    v, wv = x.astype(np.float64), arr(w)
    pos = np.abs(v) + 0.5
    sig = 1 / (1 + np.exp(-v))
    erf = np.vectorize(math.erf)
    ref = {
        "abs": np.abs(v), "sigmoid": sig, "tanh": np.tanh(v),
        "hard_sigmoid": np.clip(0.3 * v + 0.4, 0, 1),
        "hard_swish": v * np.clip(v / 6 + 0.5, 0, 1),
        "leaky_relu": np.where(v >= 0, v, 0.2 * v),
        "elu": np.where(v > 0, v, 0.7 * (np.exp(v) - 1)),
        "clip": np.clip(v, -0.5, 0.5), "clip_max": np.minimum(v, 6.0),
        "exp": np.exp(v), "log": np.log(pos), "sqrt": np.sqrt(pos),
        "neg": -v, "erf": erf(v), "reciprocal": 1 / v, "sub": v - wv,
        "div": v / wv, "pow": pos ** 2.5,
        "max": np.maximum(np.maximum(v, np.tanh(v)), sig),
        "min": np.minimum(v, wv), "floor": np.floor(v), "ceil": np.ceil(v),
        "round": np.round(v), "sign": np.sign(v), "sin": np.sin(v),
        "cos": np.cos(v), "tan": np.tan(v), "asin": np.arcsin(np.tanh(v)),
        "acos": np.arccos(np.tanh(v)), "atan": np.arctan(v),
        "sinh": np.sinh(v), "cosh": np.cosh(v), "asinh": np.arcsinh(v),
        "acosh": np.arccosh(np.cosh(v)), "atanh": np.arctanh(np.tanh(v)),
    }
    return m, {"input0": x}, [ref[o] for o in outs]


def conv2d(x, w, b=None, stride=1, pad=0, groups=1):
    """NCHW convolution in float64 (the reference of the conv models)."""
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, f, oh, ow))
    fg = f // groups
    for o in range(f):
        g = o // fg
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(oh):
            for j in range(ow):
                patch = xs[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                y[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b[None, :, None, None]
    return y


def hard_sigmoid(v, alpha=0.2, beta=0.5):
    return np.clip(alpha * v + beta, 0, 1)


def data_ops(out):
    """Transpose, Concat, Slice, Pad (three modes), the five reductions and
    AveragePool on activations, one output each."""
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    consts = [c("starts", [1, 0]), c("ends", [5, 2**62]), c("axes", [2, 3]),
              c("steps", [2, 1]), c("pads", [0, 0, 1, 2, 0, 0, 2, 1]),
              c("sum_axes", [1]),
              numpy_helper.from_array(np.array(0.5, np.float32), "padv")]
    n = lambda op, ins, o, **kw: helper.make_node(op, ins, [o], name="/data/" + o, **kw)
    nodes = [
        n("Transpose", ["x"], "transpose", perm=[0, 2, 3, 1]),
        n("Concat", ["x", "transpose_back"], "concat", axis=1),
        n("Transpose", ["transpose"], "transpose_back", perm=[0, 3, 1, 2]),
        n("Slice", ["x", "starts", "ends", "axes", "steps"], "slice"),
        n("Pad", ["x", "pads", "padv"], "pad_constant", mode="constant"),
        n("Pad", ["x", "pads"], "pad_reflect", mode="reflect"),
        n("Pad", ["x", "pads"], "pad_edge", mode="edge"),
        n("ReduceMean", ["x"], "mean", axes=[2, 3], keepdims=1),
        n("ReduceSum", ["x", "sum_axes"], "sum", keepdims=0),
        n("ReduceMax", ["x"], "max", axes=[-1], keepdims=0),
        n("ReduceMin", ["x"], "min", axes=[1, 3], keepdims=1),
        n("ReduceL2", ["x"], "l2", axes=[2], keepdims=1),
        n("AveragePool", ["x"], "avg", kernel_shape=[3, 3], strides=[2, 2],
          pads=[1, 1, 1, 1], count_include_pad=0),
        n("AveragePool", ["x"], "avg_incl", kernel_shape=[2, 3], strides=[1, 2],
          pads=[1, 0, 0, 1], count_include_pad=1),
    ]
    # Topological order: transpose_back before concat.
    nodes[1], nodes[2] = nodes[2], nodes[1]
    outs = ["transpose", "concat", "slice", "pad_constant", "pad_reflect",
            "pad_edge", "mean", "sum", "max", "min", "l2", "avg", "avg_incl"]
    shapes = {"transpose": ["batch", 6, 6, 4], "concat": ["batch", 8, 6, 6],
              "slice": ["batch", 4, 2, 6], "pad_constant": ["batch", 4, 9, 9],
              "pad_reflect": ["batch", 4, 9, 9], "pad_edge": ["batch", 4, 9, 9],
              "mean": ["batch", 4, 1, 1], "sum": ["batch", 6, 6],
              "max": ["batch", 4, 6], "min": ["batch", 1, 6, 1],
              "l2": ["batch", 4, 1, 6], "avg": ["batch", 4, 3, 3],
              "avg_incl": ["batch", 4, 6, 3]}
    m = model(nodes, [value("x", "batch", 4, 6, 6)],
              [value(o, *shapes[o]) for o in outs], consts)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    v = x.astype(np.float64)
    pads = ((0, 0), (0, 0), (1, 2), (2, 1))

    def avg(v, k, s, p, include):
        (t, l, b, r) = p
        vp = np.pad(v, ((0, 0), (0, 0), (t, b), (l, r)))
        ones = np.pad(np.ones_like(v), ((0, 0), (0, 0), (t, b), (l, r)))
        oh = (vp.shape[2] - k[0]) // s[0] + 1
        ow = (vp.shape[3] - k[1]) // s[1] + 1
        y = np.zeros(v.shape[:2] + (oh, ow))
        for i in range(oh):
            for j in range(ow):
                win = (slice(None), slice(None), slice(i * s[0], i * s[0] + k[0]),
                       slice(j * s[1], j * s[1] + k[1]))
                cnt = k[0] * k[1] if include else ones[win].sum(axis=(2, 3))
                y[:, :, i, j] = vp[win].sum(axis=(2, 3)) / cnt
        return y

    ref = {
        "transpose": v.transpose(0, 2, 3, 1),
        "concat": np.concatenate([v, v], axis=1),
        "slice": v[:, :, 1:5:2, :],
        "pad_constant": np.pad(v, pads, constant_values=0.5),
        "pad_reflect": np.pad(v, pads, mode="reflect"),
        "pad_edge": np.pad(v, pads, mode="edge"),
        "mean": v.mean(axis=(2, 3), keepdims=True),
        "sum": v.sum(axis=1),
        "max": v.max(axis=-1),
        "min": v.min(axis=(1, 3), keepdims=True),
        "l2": np.sqrt((v * v).sum(axis=2, keepdims=True)),
        "avg": avg(v, (3, 3), (2, 2), (1, 1, 1, 1), False),
        "avg_incl": avg(v, (2, 3), (1, 2), (1, 0, 0, 1), True),
    }
    return m, {"input0": x}, [ref[o] for o in outs]


def norm_ops(out):
    """LogSoftmax on two axes, LayerNormalization over two trailing axes
    with its Mean and InvStdDev outputs, InstanceNormalization."""
    ln_w, ln_b = weight("ln.w", 6, 6), weight("ln.b", 6, 6)
    in_s, in_b = weight("in.s", 4), weight("in.b", 4)
    n = lambda op, ins, outs, **kw: helper.make_node(
        op, ins, outs, name="/norm/" + outs[0], **kw)
    nodes = [
        n("LogSoftmax", ["x"], ["logsm"], axis=1),
        n("LogSoftmax", ["x"], ["logsm_last"]),
        n("LayerNormalization", ["x", "ln.w", "ln.b"],
          ["ln", "ln_mean", "ln_inv"], axis=2, epsilon=1e-3),
        n("InstanceNormalization", ["x", "in.s", "in.b"], ["inorm"],
          epsilon=1e-3),
    ]
    outs = {"logsm": ["batch", 4, 6, 6], "logsm_last": ["batch", 4, 6, 6],
            "ln": ["batch", 4, 6, 6], "ln_mean": ["batch", 4, 1, 1],
            "ln_inv": ["batch", 4, 1, 1], "inorm": ["batch", 4, 6, 6]}
    m = model(nodes, [value("x", "batch", 4, 6, 6)],
              [value(o, *s) for o, s in outs.items()], [ln_w, ln_b, in_s, in_b])
    x = (rng.standard_normal((2, 4, 6, 6)) * 3).astype(np.float32)
    v = x.astype(np.float64)

    def log_softmax(v, axis):
        d = v - v.max(axis=axis, keepdims=True)
        return d - np.log(np.exp(d).sum(axis=axis, keepdims=True))

    mean = v.mean(axis=(2, 3), keepdims=True)
    var = ((v - mean) ** 2).mean(axis=(2, 3), keepdims=True)
    inv = 1 / np.sqrt(var + 1e-3)
    # Instance norm normalizes over (2, 3) too: per sample and channel.
    s4 = arr(in_s).reshape(1, 4, 1, 1)
    b4 = arr(in_b).reshape(1, 4, 1, 1)
    ref = {
        "logsm": log_softmax(v, 1),
        "logsm_last": log_softmax(v, -1),
        "ln": (v - mean) * inv * arr(ln_w) + arr(ln_b),
        "ln_mean": mean,
        "ln_inv": inv,
        "inorm": (v - mean) * inv * s4 + b4,
    }
    return m, {"input0": x}, [ref[o] for o in outs]


def norm_broadcast(out):
    """LayerNormalization whose scale broadcasts ([6] for [6, 6]): refused."""
    nodes = [helper.make_node("LayerNormalization", ["x", "w"], ["y"], axis=2,
                              name="/norm/LayerNormalization")]
    return model(nodes, [value("x", 1, 4, 6, 6)], [value("y", 1, 4, 6, 6)],
                 [weight("w", 6)]), None, None


def mobilenet(out):
    """A MobileNetV3-style inverted residual block: 1x1 expansion + batch
    norm + HardSwish, 3x3 depthwise conv + HardSwish, squeeze-excite
    (GlobalAveragePool, 1x1 convs, Relu, HardSigmoid, Mul), 1x1 projection
    and the residual Add; module paths give the blocks."""
    c_in, c_mid, c_se = 8, 16, 4
    ew, eb = weight("expand.weight", c_mid, c_in, 1, 1), weight("expand.bias", c_mid)
    scale = numpy_helper.from_array(
        (1 + 0.1 * rng.standard_normal(c_mid)).astype(np.float32), "bn.weight")
    bias = weight("bn.bias", c_mid, scale=0.1)
    mean = weight("bn.running_mean", c_mid, scale=0.1)
    var = numpy_helper.from_array(
        (1 + 0.2 * rng.random(c_mid)).astype(np.float32), "bn.running_var")
    dw, db = weight("dw.weight", c_mid, 1, 3, 3), weight("dw.bias", c_mid)
    s1w, s1b = weight("se.fc1.weight", c_se, c_mid, 1, 1), weight("se.fc1.bias", c_se)
    s2w, s2b = weight("se.fc2.weight", c_mid, c_se, 1, 1), weight("se.fc2.bias", c_mid)
    pw = weight("project.weight", c_in, c_mid, 1, 1)
    n = lambda op, ins, o, path, **kw: helper.make_node(op, ins, [o], name=path, **kw)
    nodes = [
        n("Conv", ["x", "expand.weight", "expand.bias"], "e", "/block/expand/Conv",
          kernel_shape=[1, 1]),
        n("BatchNormalization", ["e", "bn.weight", "bn.bias", "bn.running_mean",
                                 "bn.running_var"], "eb",
          "/block/expand/bn/BatchNormalization", epsilon=1e-5),
        n("HardSwish", ["eb"], "ea", "/block/expand/act/HardSwish"),
        n("Conv", ["ea", "dw.weight", "dw.bias"], "d", "/block/dw/Conv",
          kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=c_mid),
        n("HardSwish", ["d"], "da", "/block/dw/act/HardSwish"),
        n("GlobalAveragePool", ["da"], "sq", "/block/se/GlobalAveragePool"),
        n("Conv", ["sq", "se.fc1.weight", "se.fc1.bias"], "s1", "/block/se/fc1/Conv",
          kernel_shape=[1, 1]),
        n("Relu", ["s1"], "s1r", "/block/se/Relu"),
        n("Conv", ["s1r", "se.fc2.weight", "se.fc2.bias"], "s2", "/block/se/fc2/Conv",
          kernel_shape=[1, 1]),
        n("HardSigmoid", ["s2"], "gate", "/block/se/HardSigmoid", alpha=1 / 6,
          beta=0.5),
        n("Mul", ["da", "gate"], "se", "/block/se/Mul"),
        n("Conv", ["se", "project.weight"], "p", "/block/project/Conv",
          kernel_shape=[1, 1]),
        n("Add", ["x", "p"], "y", "/block/Add"),
    ]
    m = model(nodes, [value("x", 1, c_in, 8, 8)], [value("y", 1, c_in, 8, 8)],
              [ew, eb, scale, bias, mean, var, dw, db, s1w, s1b, s2w, s2b, pw])
    x = rng.standard_normal((1, c_in, 8, 8)).astype(np.float32)
    v = x.astype(np.float64)
    hswish = lambda t: t * hard_sigmoid(t, 1 / 6, 0.5)
    col = lambda a: arr(a)[None, :, None, None]
    e = conv2d(v, arr(ew), arr(eb))
    e = col(scale) * (e - col(mean)) / np.sqrt(col(var) + 1e-5) + col(bias)
    d = hswish(conv2d(hswish(e), arr(dw), arr(db), pad=1, groups=c_mid))
    sq = d.mean(axis=(2, 3), keepdims=True)
    s1 = np.maximum(conv2d(sq, arr(s1w), arr(s1b)), 0)
    gate = hard_sigmoid(conv2d(s1, arr(s2w), arr(s2b)), 1 / 6, 0.5)
    y = v + conv2d(d * gate, arr(pw))
    return m, {"input0": x}, [y]


def conv_transpose2d(x, w, b=None, stride=1, pad=(0, 0, 0, 0), out_pad=(0, 0)):
    """ONNX ConvTranspose (groups 1, dilation 1) in float64, scatter form."""
    n, c, h, wd = x.shape
    _, f, kh, kw = w.shape
    full = np.zeros((n, f, (h - 1) * stride + kh + out_pad[0],
                     (wd - 1) * stride + kw + out_pad[1]))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += \
                np.einsum("nc,cfij->nfij", x[:, :, i, j], w)
    t, l, bt, r = pad
    y = full[:, :, t:full.shape[2] - bt, l:full.shape[3] - r]
    if b is not None:
        y = y + b[None, :, None, None]
    return y


def unet(out):
    """A U-Net-style decoder step: the low-resolution features go up by a
    ConvTranspose (stride 2) and, in a second path, by a bilinear Resize;
    both are concatenated with the skip connection, then a 3x3 Conv, Relu,
    and a nearest Resize to the output size."""
    low, skip_c = 8, 4
    tw, tb = weight("up.weight", low, 4, 3, 3), weight("up.bias", 4)
    cw, cb = weight("fuse.weight", 4, 4 + low + skip_c, 3, 3), weight("fuse.bias", 4)
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    consts = [tw, tb, cw, cb, c("scales2", [1, 1, 2, 2]), c("scales15", [1, 1, 1.5, 1.5])]
    n = lambda op, ins, o, path, **kw: helper.make_node(op, ins, [o], name=path, **kw)
    nodes = [
        n("ConvTranspose", ["low", "up.weight", "up.bias"], "up", "/decoder/up/ConvTranspose",
          strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1], kernel_shape=[3, 3]),
        n("Resize", ["low", "", "scales2"], "lin", "/decoder/resize/Resize", mode="linear"),
        n("Concat", ["up", "lin", "skip"], "cat", "/decoder/Concat", axis=1),
        n("Conv", ["cat", "fuse.weight", "fuse.bias"], "f", "/decoder/fuse/Conv",
          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n("Relu", ["f"], "r", "/decoder/fuse/Relu"),
        n("Resize", ["r", "", "scales15"], "y", "/head/Resize", mode="nearest",
          coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
    ]
    m = model(nodes, [value("low", 1, low, 4, 4), value("skip", 1, skip_c, 8, 8)],
              [value("y", 1, 4, 12, 12)], consts)
    lo = rng.standard_normal((1, low, 4, 4)).astype(np.float32)
    sk = rng.standard_normal((1, skip_c, 8, 8)).astype(np.float32)
    v, s = lo.astype(np.float64), sk.astype(np.float64)
    up = conv_transpose2d(v, arr(tw), arr(tb), stride=2, pad=(1, 1, 1, 1), out_pad=(1, 1))

    def bilinear2(x):  # half_pixel, scale 2
        h = x.shape[2]
        coords = np.clip((np.arange(2 * h) + 0.5) / 2 - 0.5, 0, h - 1)
        i0 = np.floor(coords).astype(int)
        i1 = np.minimum(i0 + 1, h - 1)
        f = coords - i0
        rows = x[:, :, i0, :] * (1 - f)[None, None, :, None] + x[:, :, i1, :] * f[None, None, :, None]
        return rows[:, :, :, i0] * (1 - f) + rows[:, :, :, i1] * f

    cat = np.concatenate([up, bilinear2(v), s], axis=1)
    r = np.maximum(conv2d(cat, arr(cw), arr(cb), pad=1), 0)
    idx = np.floor(np.arange(12) / 1.5).astype(int)
    y = r[:, :, idx, :][:, :, :, idx]
    return m, {"input0": lo, "input1": sk}, [y]


def old_opset(out):
    """The MLP of opset 11: converted to 17 by ONNX's version converter."""
    m, inputs, outputs = mlp(out)
    m.opset_import[0].version = 11
    return m, inputs, outputs


# --------------------------------------------------------------------------
# Models for the diagnostics
# --------------------------------------------------------------------------

def unsupported(out):
    nodes = [
        helper.make_node("Bernoulli", ["x"], ["a"], name="/act/Bernoulli"),
        helper.make_node("Relu", ["a"], ["b"], name="/act/Relu"),
        helper.make_node("LpNormalization", ["b"], ["c"], name="/t/LpNorm"),
        helper.make_node("Bernoulli", ["c"], ["y"]),
    ]
    return model(nodes, [value("x", 2, 3)], [value("y", 2, 3)], []), None, None


def int_max(out):
    """Max of two int32 activations: mix layers compute on floats."""
    nodes = [helper.make_node("Max", ["a", "b"], ["y"], name="/m/Max")]
    i32 = lambda n: helper.make_tensor_value_info(n, TensorProto.INT32, [2, 3])
    return model(nodes, [i32("a"), i32("b")], [i32("y")], []), None, None


def dynamic(out):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="/Relu")]
    return model(nodes, [value("x", "batch", "seq", 4)],
                 [value("y", "batch", "seq", 4)], []), None, None


def opset18(out):
    m, _, _ = mlp(out)
    m.opset_import[0].version = 18
    return m, None, None


def external(out):
    """The MLP with its weights in external data; the data file is removed
    afterwards by the test."""
    m, _, _ = mlp(out)
    return m, None, None


def badattr(out):
    """A supported op with an output mix cannot express."""
    nodes = [helper.make_node("MaxPool", ["x"], ["y", "i"], name="/pool/MaxPool",
                              kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)]
    indices = helper.make_tensor_value_info("i", TensorProto.INT64, [1, 2, 3, 3])
    return model(nodes, [value("x", 1, 2, 5, 5)],
                 [value("y", 1, 2, 3, 3), indices], []), None, None


def lstm_nodes(out):
    """LSTMs the importer translates (forward with bias and initial states,
    bidirectional batch-first) and a GRU (linear_before_reset), next to ones
    it refuses: clip, input_forget, non-default activations,
    sequence_lens."""
    s, b, i, h = 5, 2, 3, 4
    w1, r1, b1 = weight("W1", 1, 4 * h, i), weight("R1", 1, 4 * h, h), weight("B1", 1, 8 * h)
    w2, r2 = weight("W2", 2, 4 * h, i), weight("R2", 2, 4 * h, h)
    h0 = weight("h0", 1, b, h)
    lens = numpy_helper.from_array(np.full([b], s, dtype=np.int32), "lens")
    wg, rg, bg = weight("Wg", 1, 3 * h, i), weight("Rg", 1, 3 * h, h), weight("Bg", 1, 6 * h)
    common = dict(hidden_size=h)
    nodes = [
        helper.make_node("LSTM", ["x", "W1", "R1", "B1", "", "h0", "h0"],
                         ["y1", "yh1", ""], name="/rnn/LSTM", **common),
        helper.make_node("Transpose", ["x"], ["xb"], name="/rnn/T", perm=[1, 0, 2]),
        helper.make_node("LSTM", ["xb", "W2", "R2"], ["y2"], name="/rnn/LSTM_bi",
                         direction="bidirectional", layout=1, **common),
        helper.make_node("LSTM", ["x", "W1", "R1"], ["y3"], name="/bad/clip",
                         clip=3.0, **common),
        helper.make_node("LSTM", ["x", "W1", "R1"], ["y4"], name="/bad/forget",
                         input_forget=1, **common),
        helper.make_node("LSTM", ["x", "W1", "R1"], ["y5"], name="/bad/act",
                         activations=["Sigmoid", "Relu", "Tanh"], **common),
        helper.make_node("LSTM", ["x", "W1", "R1", "", "lens"], ["y6"],
                         name="/bad/lens", **common),
        helper.make_node("GRU", ["x", "Wg", "Rg", "Bg"], ["y7"], name="/rnn/GRU",
                         linear_before_reset=1, **common),
        helper.make_node("GRU", ["x", "Wg", "Rg"], ["y8"], name="/bad/gru",
                         clip=1.0, **common),
    ]
    outs = [value("y1", s, 1, b, h), value("yh1", 1, b, h),
            value("y2", b, s, 2, h), value("y3", s, 1, b, h),
            value("y4", s, 1, b, h), value("y5", s, 1, b, h),
            value("y6", s, 1, b, h), value("y7", s, 1, b, h),
            value("y8", s, 1, b, h)]
    return (model(nodes, [value("x", s, b, i)], outs,
                  [w1, r1, b1, w2, r2, h0, lens, wg, rg, bg]), None, None)


def lstm_ok(out):
    """The LSTMs and the GRU of lstm_nodes the importer translates."""
    m, _, _ = lstm_nodes(out)
    g = m.graph
    keep = [n for n in g.node if not n.name.startswith("/bad/")]
    del g.node[:]
    g.node.extend(keep)
    outs = [o for o in g.output if o.name in ("y1", "yh1", "y2", "y7")]
    del g.output[:]
    g.output.extend(outs)
    inits = [t for t in g.initializer if t.name != "lens"]
    del g.initializer[:]
    g.initializer.extend(inits)
    return m, None, None


def mask_ops(out):
    """Gather of an activation by constant indices (a scalar, negative
    ones), by indices computed at run time (the int64 input `ids`, one
    negative) and of a constant, Expand of an activation and of a constant,
    MaxPool with dilations and with ceil_mode."""
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    table = (rng.standard_normal((6, 1)) * 0.5).astype(np.float32)
    wide = (rng.standard_normal((6, 7)) * 0.5).astype(np.float32)
    consts = [c("i0", 0), c("i2", [-1, 2]), c("shape3", [1, 4, 6, 3]),
              c("shape66", [6, 6]), c("mean_axes", [3]),
              c("i6", [6, 5, 4, 3, 2, -7]),
              numpy_helper.from_array(table, "col"),
              numpy_helper.from_array(wide, "wide")]
    n = lambda op, ins, o, **kw: helper.make_node(op, ins, [o], name="/mask/" + o, **kw)
    nodes = [
        n("Gather", ["x", "i0"], "cls", axis=1),
        n("Gather", ["x", "i2"], "cols", axis=-1),
        n("ReduceMean", ["x"], "mean", axes=[3], keepdims=1),
        n("Expand", ["mean", "shape3"], "expanded"),
        n("Expand", ["col", "shape66"], "grid"),
        n("Add", ["x", "grid"], "shifted"),
        n("Gather", ["wide", "i6"], "columns", axis=1),
        n("Add", ["x", "columns"], "picked"),
        n("MaxPool", ["x"], "dilated", kernel_shape=[2, 2], dilations=[2, 2]),
        n("MaxPool", ["x"], "ceil", kernel_shape=[3, 3], strides=[2, 2],
          ceil_mode=1),
        n("Gather", ["x", "ids"], "rows", axis=2),
    ]
    outs = ["cls", "cols", "expanded", "shifted", "picked", "dilated", "ceil",
            "rows"]
    shapes = {"cls": ["batch", 6, 6], "cols": ["batch", 4, 6, 2], "rows": ["batch", 4, 3, 6],
              "expanded": ["batch", 4, 6, 3], "shifted": ["batch", 4, 6, 6],
              "picked": ["batch", 4, 6, 6],
              "dilated": ["batch", 4, 4, 4], "ceil": ["batch", 4, 3, 3]}
    ids_info = helper.make_tensor_value_info("ids", TensorProto.INT64, [3])
    m = model(nodes, [value("x", "batch", 4, 6, 6), ids_info],
              [value(o, *shapes[o]) for o in outs], consts)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    ids = np.array([5, -6, 2], np.int64)
    v = x.astype(np.float64)
    dilated = np.zeros((2, 4, 4, 4))
    for i in range(4):
        for j in range(4):
            dilated[:, :, i, j] = v[:, :, i:i + 3:2, j:j + 3:2].max(axis=(2, 3))
    ceil = np.zeros((2, 4, 3, 3))
    for i in range(3):
        for j in range(3):
            ceil[:, :, i, j] = v[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max(axis=(2, 3))
    ref = {
        "cls": v[:, 0],
        "cols": v[:, :, :, [5, 2]],
        "expanded": np.broadcast_to(v.mean(axis=3, keepdims=True), (2, 4, 6, 3)),
        "shifted": v + np.broadcast_to(table.astype(np.float64), (6, 6)),
        "picked": v + wide.astype(np.float64)[:, [6, 5, 4, 3, 2, 0]],
        "dilated": dilated,
        "ceil": ceil,
        "rows": v[:, :, [5, 0, 2]],
    }
    # mix-run runs one sample at a time: each of x's two samples with its
    # own copy of ids (the file holds [S, ...] per input).
    return m, {"input0": x, "input1": np.stack([ids, ids])}, \
        [ref[o] for o in outs]


def where_mask(out):
    """The transformer attention mask: Where(Equal(mask, 0), -1e4, scores)
    then Softmax; Where of -inf by Not(Equal); Where by Greater; Where by a
    constant bool (causal) tensor."""
    f = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    causal = np.tril(np.ones((8, 8), dtype=bool))
    consts = [f("zero", 0.0), f("big", -1e4), f("ninf", -np.inf),
              f("half", 0.5), numpy_helper.from_array(causal, "causal")]
    n = lambda op, ins, o, **kw: helper.make_node(op, ins, [o], name="/attn/" + o, **kw)
    nodes = [
        n("Equal", ["mask", "zero"], "pad"),
        n("Where", ["pad", "big", "scores"], "masked"),
        n("Softmax", ["masked"], "probs", axis=-1),
        n("Not", ["pad"], "keep"),
        n("Where", ["keep", "scores", "ninf"], "kept"),
        n("Greater", ["scores", "half"], "high"),
        n("Where", ["high", "scores", "zero"], "relu_half"),
        n("Where", ["causal", "scores", "big"], "causal_scores"),
    ]
    outs = ["probs", "kept", "relu_half", "causal_scores"]
    m = model(nodes, [value("scores", "batch", 4, 8, 8),
                      value("mask", "batch", 1, 1, 8)],
              [value(o, "batch", 4, 8, 8) for o in outs], consts)
    scores = rng.standard_normal((2, 4, 8, 8)).astype(np.float32)
    mask = np.ones((2, 1, 1, 8), np.float32)
    mask[0, ..., 5:] = 0
    mask[1, ..., 7:] = 0
    v = scores.astype(np.float64)
    masked = np.where(mask == 0, -1e4, v)
    e = np.exp(masked - masked.max(axis=-1, keepdims=True))
    ref = {
        "probs": e / e.sum(axis=-1, keepdims=True),
        "kept": np.where(mask != 0, v, -np.inf),
        "relu_half": np.where(v > np.float32(0.5), v, 0.0),
        "causal_scores": np.where(causal, v, np.float64(np.float32(-1e4))),
    }
    return m, {"input0": scores, "input1": mask}, [ref[o] for o in outs]


def mask_logic(out):
    """Masks combined as exporters combine them: Not of Less and of
    GreaterOrEqual (exact with NaN: not `x < y` holds where x is NaN), And,
    Or, Xor of comparisons and of a constant bool tensor, Not of an And.
    Each mask is an output as Where(mask, 1, 0)."""
    f = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    keep = np.array([True, False, True, True, False, True, False, True])
    consts = [f("zero", 0.0), f("one", 1.0), numpy_helper.from_array(keep, "keep")]
    n = lambda op, ins, o: helper.make_node(op, ins, [o], name="/mask/" + o)
    masks = ["nlt", "nge", "both", "either", "flip", "nboth"]
    nodes = [
        n("Less", ["x", "y"], "lt"), n("Not", ["lt"], "nlt"),
        n("GreaterOrEqual", ["x", "zero"], "ge"), n("Not", ["ge"], "nge"),
        n("Greater", ["x", "zero"], "pos"), n("Less", ["y", "zero"], "neg"),
        n("And", ["pos", "neg"], "both"), n("Or", ["pos", "neg"], "either"),
        n("Xor", ["pos", "keep"], "flip"), n("Not", ["both"], "nboth"),
    ] + [n("Where", [m, "one", "zero"], m + "_f") for m in masks]
    m = model(nodes, [value("x", "batch", 8), value("y", "batch", 8)],
              [value(k + "_f", "batch", 8) for k in masks], consts)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    y = rng.standard_normal((3, 8)).astype(np.float32)
    x[0, 1] = np.nan
    x[2, 6] = np.nan
    y[1, 3] = np.nan
    with np.errstate(invalid="ignore"):
        pos, neg = x > 0, y < 0
        ref = [~(x < y), ~(x >= 0), pos & neg, pos | neg, pos ^ keep,
               ~(pos & neg)]
    return m, {"input0": x, "input1": y}, [r.astype(np.float64) for r in ref]


def attention_variant(kind):
    """A BERT-style self-attention layer (B=2, S=5, E=8, H=2) exported with
    module paths, the form exporters write: projections MatMul + Add,
    Reshape [B, S, H, D], Transpose, MatMul(q, k^T), a scale, the additive
    mask of a float attention_mask input ((1 - m[:, None, None, :]) * min),
    Softmax, MatMul(p, v), Transpose, Reshape, the output projection with
    its bias, a residual Add and LayerNormalization. `kind`:
    - "fused": one [E, 3E] projection + Split, scores Div by sqrt(D);
    - "separate": q/k/v projections, k transposed twice, Mul of q by
      1/sqrt(D) before the scores MatMul;
    - "badscale": as "separate" but the scores divided by 3 (not sqrt(D)):
      not an attention mix.attention computes, imported op by op."""
    B, S, E, H = 2, 5, 8, 2
    D = E // H
    f = lambda name, v, t=np.float32: numpy_helper.from_array(np.array(v, t), name)
    base = "/layer/attention/"
    n = lambda op, ins, out, name, **kw: helper.make_node(
        op, ins, [out] if isinstance(out, str) else out, name=name, **kw)
    inits = [f("heads_shape", [B, S, H, D], np.int64),
             f("merged_shape", [B, S, E], np.int64),
             f("one", 1.0), f("neg", np.finfo(np.float32).min),
             f("mask_axes", [1, 2], np.int64)]
    nodes = [
        n("Unsqueeze", ["attention_mask", "mask_axes"], "m4", "/mask/Unsqueeze"),
        n("Sub", ["one", "m4"], "inv", "/mask/Sub"),
        n("Mul", ["inv", "neg"], "ext", "/mask/Mul"),
    ]
    wo, bo = weight("out.weight", E, E), weight("out.bias", E)
    inits += [wo, bo]
    if kind == "fused":
        wqkv, bqkv = weight("qkv.weight", E, 3 * E), weight("qkv.bias", 3 * E)
        inits += [wqkv, bqkv, f("split_sizes", [E, E, E], np.int64)]
        nodes += [
            n("MatMul", ["x", "qkv.weight"], "qkv_mm", base + "qkv/MatMul"),
            n("Add", ["qkv_mm", "qkv.bias"], "qkv", base + "qkv/Add"),
            n("Split", ["qkv", "split_sizes"], ["q", "k", "v"], base + "Split",
              axis=-1),
        ]
        W = arr(wqkv)
        Bv = arr(bqkv)
        wq, wk, wv = W[:, :E], W[:, E:2 * E], W[:, 2 * E:]
        bq, bk, bv = Bv[:E], Bv[E:2 * E], Bv[2 * E:]
    else:
        ws = {}
        for p in "qkv":
            w, b = weight(p + ".weight", E, E), weight(p + ".bias", E)
            inits += [w, b]
            ws[p] = (arr(w), arr(b))
            nodes += [
                n("MatMul", ["x", p + ".weight"], p + "_mm", base + p + "/MatMul"),
                n("Add", [p + ".bias", p + "_mm"], p, base + p + "/Add"),
            ]
        (wq, bq), (wk, bk), (wv, bv) = ws["q"], ws["k"], ws["v"]
    nodes += [
        n("Reshape", ["q", "heads_shape"], "q4", base + "Reshape"),
        n("Transpose", ["q4"], "qh", base + "Transpose", perm=[0, 2, 1, 3]),
        n("Reshape", ["k", "heads_shape"], "k4", base + "Reshape_1"),
        n("Reshape", ["v", "heads_shape"], "v4", base + "Reshape_2"),
        n("Transpose", ["v4"], "vh", base + "Transpose_2", perm=[0, 2, 1, 3]),
    ]
    if kind == "fused":
        nodes += [
            n("Transpose", ["k4"], "kt", base + "Transpose_1", perm=[0, 2, 3, 1]),
            n("MatMul", ["qh", "kt"], "raw", base + "MatMul"),
            n("Div", ["raw", "sqrt_d"], "scores", base + "Div"),
        ]
        inits.append(f("sqrt_d", float(np.sqrt(D))))
        score_scale = 1 / np.sqrt(D)
    else:
        q_scale = 1 / np.sqrt(D)
        nodes += [
            n("Transpose", ["k4"], "kh", base + "Transpose_1", perm=[0, 2, 1, 3]),
            n("Transpose", ["kh"], "kt", base + "Transpose_3", perm=[0, 1, 3, 2]),
        ]
        if kind == "separate":
            inits.append(f("q_scale", q_scale))
            nodes += [
                n("Mul", ["qh", "q_scale"], "qs", base + "Mul"),
                n("MatMul", ["qs", "kt"], "scores", base + "MatMul"),
            ]
            score_scale = float(np.float32(q_scale))
        else:
            inits.append(f("three", 3.0))
            nodes += [
                n("MatMul", ["qh", "kt"], "raw", base + "MatMul"),
                n("Div", ["raw", "three"], "scores", base + "Div"),
            ]
            score_scale = 1 / 3
    g, b = weight("ln.weight", E), weight("ln.bias", E)
    inits += [g, b]
    nodes += [
        n("Add", ["scores", "ext"], "masked", base + "Add"),
        n("Softmax", ["masked"], "probs", base + "Softmax", axis=-1),
        n("MatMul", ["probs", "vh"], "ctx", base + "MatMul_1"),
        n("Transpose", ["ctx"], "ctx_t", base + "Transpose_4", perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "merged_shape"], "merged", base + "Reshape_3"),
        n("MatMul", ["merged", "out.weight"], "o_mm", base + "out/MatMul"),
        n("Add", ["o_mm", "out.bias"], "o", base + "out/Add"),
        n("Add", ["o", "x"], "res", "/layer/Add"),
        n("LayerNormalization", ["res", "ln.weight", "ln.bias"], "y",
          "/layer/ln/LayerNormalization", epsilon=1e-5, axis=-1),
    ]
    m = model(nodes, [value("x", B, S, E), value("attention_mask", B, S)],
              [value("y", B, S, E)], inits)
    x = rng.standard_normal((B, S, E)).astype(np.float32)
    mask = np.ones((B, S), np.float32)
    mask[1, 3:] = 0
    xv = x.astype(np.float64)
    heads = lambda t: t.reshape(B, S, H, D).transpose(0, 2, 1, 3)
    q, k, v = heads(xv @ wq + bq), heads(xv @ wk + bk), heads(xv @ wv + bv)
    ext = (1 - mask[:, None, None, :].astype(np.float64)) * float(np.finfo(np.float32).min)
    p = softmax(q @ k.transpose(0, 1, 3, 2) * score_scale + ext)
    ctx = (p @ v).transpose(0, 2, 1, 3).reshape(B, S, E)
    res = ctx @ arr(wo) + arr(bo) + xv
    mu = res.mean(-1, keepdims=True)
    var = ((res - mu) ** 2).mean(-1, keepdims=True)
    y = (res - mu) / np.sqrt(var + 1e-5) * arr(g) + arr(b)
    return m, {"input0": x, "input1": mask}, [y]


def attention_bert(out):
    """Fused QKV (Split), scores / sqrt(D), a padding mask: one mix.attention."""
    return attention_variant("fused")


def attention_separate(out):
    """Separate q/k/v with biases, q * 1/sqrt(D): one mix.attention."""
    return attention_variant("separate")


def attention_badscale(out):
    """Scores / 3 (not sqrt(D)): no fusion, the nodes imported one by one."""
    return attention_variant("badscale")


def attention_cross(out):
    """Cross-attention (a decoder's): queries from x [B, S, E], keys and
    values from a second input, memory [B, T, E] with T != S, 2 heads,
    scores / sqrt(D), no mask, output projection and LayerNormalization.
    mix.attention is self-attention only, so it is imported op by op
    (mix.dense, mix.reshape, mix.transpose, mix.matmul, mix.softmax)."""
    B, S, T, E, H = 2, 5, 3, 8, 2
    D = E // H
    f = lambda name, v, t=np.float32: numpy_helper.from_array(np.array(v, t), name)
    base = "/decoder/cross_attn/"
    n = lambda op, ins, out, name, **kw: helper.make_node(
        op, ins, [out], name=name, **kw)
    wq, wk, wv, wo = (weight(name + ".weight", E, E)
                      for name in ("q", "k", "v", "out"))
    g, b = weight("ln.weight", E), weight("ln.bias", E)
    inits = [wq, wk, wv, wo, g, b, f("q_shape", [B, S, H, D], np.int64),
             f("kv_shape", [B, T, H, D], np.int64),
             f("merged_shape", [B, S, E], np.int64), f("sqrt_d", math.sqrt(D))]
    nodes = [
        n("MatMul", ["x", "q.weight"], "q", base + "q/MatMul"),
        n("MatMul", ["memory", "k.weight"], "k", base + "k/MatMul"),
        n("MatMul", ["memory", "v.weight"], "v", base + "v/MatMul"),
        n("Reshape", ["q", "q_shape"], "q4", base + "Reshape"),
        n("Reshape", ["k", "kv_shape"], "k4", base + "Reshape_1"),
        n("Reshape", ["v", "kv_shape"], "v4", base + "Reshape_2"),
        n("Transpose", ["q4"], "qh", base + "Transpose", perm=[0, 2, 1, 3]),
        n("Transpose", ["k4"], "kt", base + "Transpose_1", perm=[0, 2, 3, 1]),
        n("Transpose", ["v4"], "vh", base + "Transpose_2", perm=[0, 2, 1, 3]),
        n("MatMul", ["qh", "kt"], "raw", base + "MatMul"),
        n("Div", ["raw", "sqrt_d"], "scores", base + "Div"),
        n("Softmax", ["scores"], "probs", base + "Softmax", axis=-1),
        n("MatMul", ["probs", "vh"], "ctx", base + "MatMul_1"),
        n("Transpose", ["ctx"], "ctx_t", base + "Transpose_3", perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "merged_shape"], "merged", base + "Reshape_3"),
        n("MatMul", ["merged", "out.weight"], "o", base + "out/MatMul"),
        n("LayerNormalization", ["o", "ln.weight", "ln.bias"], "y",
          "/decoder/ln/LayerNormalization", epsilon=1e-5, axis=-1),
    ]
    m = model(nodes, [value("x", B, S, E), value("memory", B, T, E)],
              [value("y", B, S, E)], inits)
    x = rng.standard_normal((B, S, E)).astype(np.float32)
    mem = rng.standard_normal((B, T, E)).astype(np.float32)
    xv, mv = x.astype(np.float64), mem.astype(np.float64)
    heads = lambda t, L: t.reshape(B, L, H, D).transpose(0, 2, 1, 3)
    q, k, v = heads(xv @ arr(wq), S), heads(mv @ arr(wk), T), heads(mv @ arr(wv), T)
    p = softmax(q @ k.transpose(0, 1, 3, 2) / float(np.float32(math.sqrt(D))))
    o = (p @ v).transpose(0, 2, 1, 3).reshape(B, S, E) @ arr(wo)
    mu = o.mean(-1, keepdims=True)
    var = ((o - mu) ** 2).mean(-1, keepdims=True)
    y = (o - mu) / np.sqrt(var + 1e-5) * arr(g) + arr(b)
    return m, {"input0": x, "input1": mem}, [y]


def gemm_attrs(out):
    """Gemm with every attribute: alpha * A^T B^T + beta * C, A an
    activation (transposed), B and C constants."""
    w, c = weight("w", 3, 4), weight("c", 3)
    nodes = [helper.make_node("Gemm", ["x", "w", "c"], ["y"], name="/fc/Gemm",
                              alpha=0.5, beta=2.0, transA=1, transB=1)]
    m = model(nodes, [value("x", 4, 2)], [value("y", 2, 3)], [w, c])
    x = rng.standard_normal((4, 2)).astype(np.float32)
    y = 0.5 * x.astype(np.float64).T @ arr(w).T + 2.0 * arr(c)
    return m, {"input0": x}, [y]


def casts(out):
    """Cast of an activation f32 -> f16 -> f32: two mix.cast ops; each
    rounds to nearest even once, 1e5 overflows f16 to inf (unchecked, as
    ONNX's Cast)."""
    nodes = [helper.make_node("Cast", ["x"], ["h"], name="/c/Cast", to=TensorProto.FLOAT16),
             helper.make_node("Relu", ["h"], ["r"], name="/c/Relu"),
             helper.make_node("Cast", ["r"], ["y"], name="/c/Cast_1", to=TensorProto.FLOAT)]
    m = model(nodes, [value("x", 2, 4)], [value("y", 2, 4)], [])
    x = np.array([[1 / 3, -2.5, 1e5, 65504.0], [0.1, 2049.0, 1e-8, 3.14159]], dtype=np.float32)
    with np.errstate(over="ignore"):
        y = np.maximum(x.astype(np.float16), 0).astype(np.float64)
    return m, {"input0": x}, [y]


def int_mask(out):
    """A BERT-style mask from a run-time int64 attention_mask: Cast to float,
    (1 - m) * -10000 added to the scores (output 0); int64 and int32
    comparisons (Greater against a constant 0, Less against a constant 3)
    And-ed into a Where (output 1); the bool Greater cast to float (output
    2); a third int64 input cast to float (output 3: one RNE rounding,
    inexact above 2^24). Static shapes [2, 4]; inputs scores (f32),
    attention_mask (int64), ids (int32), big (int64). Every f32 operation of
    outputs 0-2 is exact, so the f64 interpreter matches too."""
    f = lambda name, v, t=np.float32: numpy_helper.from_array(np.array(v, t), name)
    consts = [f("one", 1.0), f("neg", -10000.0), f("big_neg", -1e9),
              f("zero64", 0, np.int64), f("three32", 3, np.int32)]
    n = lambda op, ins, o, **kw: helper.make_node(op, ins, [o], name="/mask/" + o, **kw)
    nodes = [
        n("Cast", ["attention_mask"], "mf", to=TensorProto.FLOAT),
        n("Sub", ["one", "mf"], "inv"),
        n("Mul", ["inv", "neg"], "ext"),
        n("Add", ["scores", "ext"], "masked"),
        n("Greater", ["attention_mask", "zero64"], "pos"),
        n("Less", ["ids", "three32"], "small"),
        n("And", ["pos", "small"], "both"),
        n("Where", ["both", "scores", "big_neg"], "selected"),
        n("Cast", ["pos"], "pos_f", to=TensorProto.FLOAT),
        n("Cast", ["big"], "big_f", to=TensorProto.FLOAT),
    ]
    ints = lambda name, t: helper.make_tensor_value_info(name, t, [2, 4])
    m = model(nodes, [value("scores", 2, 4), ints("attention_mask", TensorProto.INT64),
                      ints("ids", TensorProto.INT32), ints("big", TensorProto.INT64)],
              [value(k, 2, 4) for k in ["masked", "selected", "pos_f", "big_f"]],
              consts)
    scores = np.array([[0.5, -1.25, 2.0, 3.0], [1.5, -0.75, 0.25, 4.0]], np.float32)
    mask = np.array([[1, 1, 0, 2], [1, -3, 1, 0]], np.int64)
    ids = np.array([[0, 5, 2, 1], [3, 2, -7, 1]], np.int32)
    big = np.array([[16777217, 16777219, -16777221, 2**40 + 2**16 + 1],
                    [2**62 + 2**38 + 2**10, -(2**62 + 2**38), 123456789, 0]], np.int64)
    mf = mask.astype(np.float32)
    masked = scores + (np.float32(1) - mf) * np.float32(-10000)
    both = (mask > 0) & (ids < 3)
    selected = np.where(both, scores, np.float32(-1e9))
    ref = [masked, selected, (mask > 0).astype(np.float32), big.astype(np.float32)]
    return m, {"input0": scores, "input1": mask, "input2": ids, "input3": big}, \
        [r.astype(np.float64) for r in ref]


def int8_cast(out):
    """An int8 graph input (signless i8, read signed): Cast to float, and
    Equal against a constant int8 -128 selecting 1 or 0 with Where."""
    consts = [numpy_helper.from_array(np.array(-128, np.int8), "lowest"),
              numpy_helper.from_array(np.array(1.0, np.float32), "one"),
              numpy_helper.from_array(np.array(0.0, np.float32), "zero")]
    n = lambda op, ins, o, **kw: helper.make_node(op, ins, [o], name="/q/" + o, **kw)
    nodes = [n("Cast", ["q"], "qf", to=TensorProto.FLOAT),
             n("Equal", ["q", "lowest"], "low"),
             n("Where", ["low", "one", "zero"], "low_f")]
    m = model(nodes, [helper.make_tensor_value_info("q", TensorProto.INT8, [6])],
              [value("qf", 6), value("low_f", 6)], consts)
    q = np.array([-128, -1, 0, 1, 127, -128], np.int8)
    return m, {"input0": q}, [q.astype(np.float64),
                              (q == -128).astype(np.float64)]


def matmul_bcast(out):
    """MatMul of two activations with numpy batch broadcasting: [2, 1, 4, 5]
    x [3, 5, 6] -> [2, 3, 4, 6], each side expanded."""
    nodes = [helper.make_node("MatMul", ["a", "b"], ["ab"], name="/m1/MatMul")]
    m = model(nodes, [value("a", 2, 1, 4, 5), value("b", 3, 5, 6)],
              [value("ab", 2, 3, 4, 6)], [])
    a = rng.standard_normal((2, 1, 4, 5)).astype(np.float32)
    b = rng.standard_normal((3, 5, 6)).astype(np.float32)
    f = lambda v: v.astype(np.float64)
    return m, {"input0": a, "input1": b}, [np.matmul(f(a), f(b))]


def matmul_heads(out):
    """Attention-style [batch, 2, 4, 6] x [batch, 1, 6, 4]: the dynamic batch
    meets itself, the head dimension broadcasts."""
    nodes = [helper.make_node("MatMul", ["q", "k"], ["qk"], name="/m2/MatMul")]
    m = model(nodes, [value("q", "batch", 2, 4, 6), value("k", "batch", 1, 6, 4)],
              [value("qk", "batch", 2, 4, 4)], [])
    q = rng.standard_normal((3, 2, 4, 6)).astype(np.float32)
    k = rng.standard_normal((3, 1, 6, 4)).astype(np.float32)
    f = lambda v: v.astype(np.float64)
    return m, {"input0": q, "input1": k}, [np.matmul(f(q), f(k))]


def matmul_vec(out):
    """numpy's 1-D MatMul operands: a computed [2, 3, 4] x a computed vector
    [4] -> [2, 3]; a computed vector [4] x [2, 4, 5] -> [2, 5]; and [3, 4] x
    a constant vector [4] -> [3] (a one-column dense layer)."""
    v = weight("v", 4)
    nodes = [
        helper.make_node("MatMul", ["a", "b"], ["ab"], name="/mv/MatMul"),
        helper.make_node("MatMul", ["b", "c"], ["bc"], name="/vm/MatMul"),
        helper.make_node("MatMul", ["x", "v"], ["xv"], name="/xw/MatMul"),
    ]
    m = model(nodes, [value("a", 2, 3, 4), value("b", 4), value("c", 2, 4, 5),
                      value("x", 3, 4)],
              [value("ab", 2, 3), value("bc", 2, 5), value("xv", 3)], [v])
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4,)).astype(np.float32)
    c = rng.standard_normal((2, 4, 5)).astype(np.float32)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    f = lambda t: t.astype(np.float64)
    vv = numpy_helper.to_array(v)
    return m, {"input0": a, "input1": b, "input2": c, "input3": x}, [
        np.matmul(f(a), f(b)), np.matmul(f(b), f(c)), np.matmul(f(x), f(vv))]


def matmul_vec_batch(out):
    """[batch, 4] x a constant vector [4] -> [batch]: a score head."""
    v = weight("v", 4)
    nodes = [helper.make_node("MatMul", ["x", "v"], ["s"], name="/head/MatMul")]
    m = model(nodes, [value("x", "batch", 4)], [value("s", "batch")], [v])
    x = rng.standard_normal((5, 4)).astype(np.float32)
    vv = numpy_helper.to_array(v)
    return m, {"input0": x}, [np.matmul(x.astype(np.float64), vv)]


def matmul_nobcast(out):
    """Batch dimensions that do not broadcast: [2, 4, 5] x [3, 5, 6]."""
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"], name="/m/MatMul")]
    return (model(nodes, [value("a", 2, 4, 5), value("b", 3, 5, 6)],
                  [value("y", 2, 4, 6)], []), None, None)


def zerostride(out):
    """A stride of 0: libonnx's shape inference would divide by it."""
    w = weight("w", 2, 1, 3, 3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="/c/Conv",
                              strides=[0, 0], auto_pad="SAME_UPPER")]
    return (model(nodes, [value("x", 1, 1, 4, 4)], [value("y", 1, 2, 4, 4)],
                  [w]), None, None)


def shortdata(out):
    """An initializer with fewer bytes than its shape needs."""
    t = TensorProto()
    t.name, t.data_type = "w", TensorProto.FLOAT
    t.dims.extend([4, 3])
    t.raw_data = b"\0" * 5
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="/m/MatMul")]
    return model(nodes, [value("x", 2, 4)], [value("y", 2, 3)], [t]), None, None


def dropouts(training_ratio):
    """x -> Dropout(ratio 0.3, training_mode false) -> Relu -> Dropout(ratio 0,
    training_mode true) -> Dropout(ratio `training_ratio`, training_mode
    true) -> y: only the last one drops at random (unless its ratio is 0)."""
    inits = [
        numpy_helper.from_array(np.array(0.3, dtype=np.float32), "r_infer"),
        numpy_helper.from_array(np.array(False), "t_false"),
        numpy_helper.from_array(np.array(0.0, dtype=np.float32), "r_zero"),
        numpy_helper.from_array(np.array(True), "t_true"),
        numpy_helper.from_array(np.array(training_ratio, dtype=np.float32),
                                "r_train"),
    ]
    nodes = [
        helper.make_node("Dropout", ["x", "r_infer", "t_false"], ["a"],
                         name="/d/infer"),
        helper.make_node("Relu", ["a"], ["b"], name="/act/Relu"),
        helper.make_node("Dropout", ["b", "r_zero", "t_true"], ["c"],
                         name="/d/zero"),
        helper.make_node("Dropout", ["c", "r_train", "t_true"], ["y"],
                         name="/d/train"),
    ]
    return model(nodes, [value("x", 2, 3)], [value("y", 2, 3)], inits)


def dropout_training(out):
    return dropouts(0.5), None, None


def dropout_ratio_zero(out):
    return dropouts(0.0), None, None


def fold_int32(out):
    """Shape computations on int32 constants keep int32 (they became int64):
    a Squeeze, a Mul, a Concat and a Cast of a Shape, all network outputs."""
    c = numpy_helper.from_array(np.array([[1, 2, 3]], dtype=np.int32), "c")
    d = numpy_helper.from_array(np.array([4, 5, 6], dtype=np.int32), "d")
    axes = numpy_helper.from_array(np.array([0], dtype=np.int64), "axes")
    nodes = [
        helper.make_node("Relu", ["x"], ["y"]),
        helper.make_node("Squeeze", ["c", "axes"], ["s"]),
        helper.make_node("Mul", ["s", "d"], ["m"]),
        helper.make_node("Concat", ["s", "d"], ["j"], axis=0),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Cast", ["shape"], ["k"], to=TensorProto.INT32),
    ]
    i32 = lambda name, n: helper.make_tensor_value_info(name, TensorProto.INT32, [n])
    return (model(nodes, [value("x", 2, 3)],
                  [value("y", 2, 3), i32("s", 3), i32("m", 3), i32("j", 6),
                   i32("k", 2)], [c, d, axes]), None, None)


def fold_int32_overflow(out):
    """65536 * 65536 does not fit int32: not folded (and not imported)."""
    c = numpy_helper.from_array(np.array([65536], dtype=np.int32), "c")
    nodes = [helper.make_node("Relu", ["x"], ["y"]),
             helper.make_node("Mul", ["c", "c"], ["m"], name="/m/Mul")]
    return (model(nodes, [value("x", 2, 3)],
                  [value("y", 2, 3),
                   helper.make_tensor_value_info("m", TensorProto.INT32, [1])],
                  [c]), None, None)


def fold_size(out):
    """Size of a static activation and of a constant: int64 scalars folded
    at import; of a tensor with a dynamic batch: not folded (refused)."""
    c = numpy_helper.from_array(np.zeros((4, 5), dtype=np.float32), "c")
    nodes = [
        helper.make_node("Relu", ["x"], ["y"]),
        helper.make_node("Size", ["x"], ["n"], name="/s/x"),
        helper.make_node("Size", ["c"], ["m"], name="/s/c"),
    ]
    i64 = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, [])
    return (model(nodes, [value("x", 2, 3)],
                  [value("y", 2, 3), i64("n"), i64("m")], [c]), None, None)


def fold_fill(out):
    """ConstantOfShape with an integer value on a folded shape (the shape
    the expanded LayerNormalization builds: Size(x) - [1] ones), Neg of an
    integer constant, and the scalar - [1] broadcast to [1]."""
    one = numpy_helper.from_array(np.array([1], dtype=np.int64), "one")
    c = numpy_helper.from_array(np.array([2, -3], dtype=np.int64), "c")
    fill = numpy_helper.from_array(np.array([1], dtype=np.int64), "value")
    nodes = [
        helper.make_node("Relu", ["x"], ["y"]),
        helper.make_node("Size", ["x"], ["n"]),
        helper.make_node("Sub", ["n", "one"], ["n1"]),
        helper.make_node("ConstantOfShape", ["n1"], ["ones"], value=fill),
        helper.make_node("Neg", ["c"], ["neg"]),
    ]
    i64 = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.INT64, list(shape))
    return (model(nodes, [value("x", 2, 3)],
                  [value("y", 2, 3), i64("n1", 1), i64("ones", 5), i64("neg", 2)],
                  [one, c]), None, None)


def fold_fill_refused(out):
    """ConstantOfShape of a float value (no shape: refused), and of an
    integer one larger than 65536 elements (refused, not folded)."""
    big = numpy_helper.from_array(np.array([70000], dtype=np.int64), "big")
    small = numpy_helper.from_array(np.array([3], dtype=np.int64), "small")
    f = numpy_helper.from_array(np.array([1.5], dtype=np.float32), "value")
    i = numpy_helper.from_array(np.array([7], dtype=np.int64), "value")
    nodes = [
        helper.make_node("Relu", ["x"], ["y"]),
        helper.make_node("ConstantOfShape", ["small"], ["f"], name="/c/float", value=f),
        helper.make_node("ConstantOfShape", ["big"], ["b"], name="/c/big", value=i),
    ]
    return (model(nodes, [value("x", 2, 3)],
                  [value("y", 2, 3), value("f", 3),
                   helper.make_tensor_value_info("b", TensorProto.INT64, [70000])],
                  [big, small]), None, None)


def size_dynamic(out):
    nodes = [helper.make_node("Relu", ["x"], ["y"]),
             helper.make_node("Size", ["x"], ["n"], name="/s/Size")]
    return (model(nodes, [value("x", "batch", 3)],
                  [value("y", "batch", 3),
                   helper.make_tensor_value_info("n", TensorProto.INT64, [])],
                  []), None, None)


# --------------------------------------------------------------------------
# Cases for mix-onnx-conformance, laid out as ONNX's backend node tests
# --------------------------------------------------------------------------

def write_case(root, name, m, inputs, outputs):
    """ROOT/NAME/model.onnx and ROOT/NAME/test_data_set_I/{input,output}_J.pb
    for each (inputs, outputs) pair of lists of numpy arrays."""
    case = os.path.join(root, name)
    os.makedirs(case, exist_ok=True)
    onnx.save_model(m, os.path.join(case, "model.onnx"))
    for i, (ins, outs) in enumerate(zip(inputs, outputs)):
        data = os.path.join(case, "test_data_set_%d" % i)
        os.makedirs(data, exist_ok=True)
        for kind, arrays in (("input", ins), ("output", outs)):
            for j, a in enumerate(arrays):
                with open(os.path.join(data, "%s_%d.pb" % (kind, j)), "wb") as f:
                    f.write(numpy_helper.from_array(a).SerializeToString())


def conformance(out):
    """OUT_DIR/cases: Relu cases whose expected outputs are right, within
    ONNX's tolerance (rtol 1e-3, atol 1e-7), deliberately wrong, of the
    wrong shape or NaN where the result is a number, and a case of an op the
    importer does not claim (Det), an Add of two inputs, a MatMul with batch
    broadcasting and a known deviation (Cast to bfloat16)."""
    root = os.path.join(out, "cases")
    relu = model([helper.make_node("Relu", ["x"], ["y"])], [value("x", 3, 4)],
                 [value("y", 3, 4)], [])
    xs = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2)]
    ys = [np.maximum(x, 0) for x in xs]
    x, y = xs[0], ys[0]
    # Element 5 is positive (so Relu passes it through) in every variant.
    x[1, 1] = 1.5
    y[1, 1] = 1.5
    write_case(root, "test_relu_good", relu, [[x], [xs[1]]], [[y], [ys[1]]])
    inside = y.copy()
    inside[1, 1] = 1.5 * (1 + 0.9e-3)
    write_case(root, "test_relu_within_tolerance", relu, [[x]], [[inside]])
    outside = y.copy()
    outside[1, 1] = 1.5 * (1 + 1.1e-3)
    write_case(root, "test_relu_wrong", relu, [[x]], [[outside]])
    # The second data set is the wrong one.
    write_case(root, "test_relu_wrong_second_set", relu, [[x], [xs[1]]],
               [[y], [ys[1] + 1]])
    write_case(root, "test_relu_wrong_shape", relu, [[x]], [[y.reshape(4, 3)]])
    nan = y.copy()
    nan[1, 1] = np.nan
    write_case(root, "test_relu_nan_expected", relu, [[x]], [[nan]])
    # Two inputs: the case and its constant-input variant (test_add+const,
    # b an initializer) pass; both are mismatches with a wrong output.
    add = model([helper.make_node("Add", ["x", "b"], ["y"])],
                [value("x", 3, 4), value("b", 4)], [value("y", 3, 4)], [])
    b = rng.standard_normal(4).astype(np.float32)
    write_case(root, "test_add", add, [[x, b]], [[x + b]])
    write_case(root, "test_add_wrong", add, [[x, b]], [[x - b]])
    # MatMul of two inputs with broadcast batch dimensions (and its
    # constant-input variant): both pass.
    mm = model([helper.make_node("MatMul", ["p", "q"], ["r"])],
               [value("p", 2, 1, 3, 4), value("q", 3, 4, 2)], [value("r", 2, 3, 3, 2)], [])
    p = rng.standard_normal((2, 1, 3, 4)).astype(np.float32)
    q = rng.standard_normal((3, 4, 2)).astype(np.float32)
    write_case(root, "test_matmul_bcast", mm, [[p, q]], [[np.matmul(p, q)]])
    # A case the runner lists as a known deviation, laid out as ONNX 1.12
    # does: bfloat16 stored as UINT16, the expected values truncated where
    # mix rounds to nearest even (1 + 2^-8 + 2^-9 rounds up, truncates down).
    cast = model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.BFLOAT16)],
                 [value("x", 2)],
                 [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2])], [])
    cx = np.array([1 + 2 ** -8 + 2 ** -9, -2.0], np.float32)
    truncated = (cx.view(np.uint32) >> 16).astype(np.uint16)
    write_case(root, "test_cast_FLOAT_to_BFLOAT16", cast, [[cx]], [[truncated]])
    det = model([helper.make_node("Det", ["m"], ["d"])], [value("m", 3, 3)],
                [value("d")], [])
    m = rng.standard_normal((3, 3)).astype(np.float32)
    write_case(root, "test_det", det, [[m]],
               [[np.array(np.linalg.det(m), dtype=np.float32)]])
    return None, None, None


MODELS = {f.__name__: f for f in
          [mlp, cnn, encoder, flat, gelu, gelu_tanh, lone_erf, math_ops, data_ops, norm_ops,
           norm_broadcast, mobilenet, unet, old_opset,
           unsupported, casts, int_max, lstm_nodes, lstm_ok, dynamic, opset18, external, badattr, mask_ops, where_mask, mask_logic, attention_bert, attention_separate, attention_badscale, attention_cross, matmul_bcast, matmul_heads, matmul_nobcast, matmul_vec, matmul_vec_batch, gemm_attrs, zerostride,
           shortdata,
           dropout_training, dropout_ratio_zero, fold_int32, fold_int32_overflow, fold_size, fold_fill, fold_fill_refused,
           size_dynamic,
           int_mask, int8_cast,
           conformance]}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in MODELS:
        sys.exit("usage: make_models.py {%s} OUT_DIR" % ",".join(MODELS))
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    m, inputs, outputs = MODELS[name](out)
    if m is None:  # the generator wrote its own files
        return
    path = os.path.join(out, name + ".onnx")
    if name == "external":
        onnx.save_model(m, path, save_as_external_data=True,
                        all_tensors_to_one_file=True, location="external.bin",
                        size_threshold=0)
    else:
        onnx.save_model(m, path)
    if inputs is not None:
        write_safetensors_mixed(os.path.join(out, name + ".inputs.safetensors"),
                                inputs)
        write_expected(os.path.join(out, name + ".expected.txt"), outputs)
        # The first input as raw f32, for the compiled model (run_model.c).
        first = inputs["input0"]
        if first.dtype == np.float32:
            first.astype("<f4").tofile(os.path.join(out, name + ".input0.f32"))


def write_safetensors_mixed(path, tensors):
    header, data, offset = {}, b"", 0
    for name, array in tensors.items():
        if array.dtype == np.int64:
            raw, dtype = np.ascontiguousarray(array, dtype="<i8").tobytes(), "I64"
        elif array.dtype == np.int32:
            raw, dtype = np.ascontiguousarray(array, dtype="<i4").tobytes(), "I32"
        elif array.dtype == np.int8:
            raw, dtype = np.ascontiguousarray(array, dtype="i1").tobytes(), "I8"
        else:
            raw, dtype = np.ascontiguousarray(array, dtype="<f4").tobytes(), "F32"
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main()
