# SPDX-License-Identifier: BSD-2-Clause
"""The LAPAR network as an ONNX graph, built from the released npz weights
for benchmarks/lapar_net_peers.py (onnxruntime and OpenCV DNN run it; needs
numpy and onnx, which its virtual environment has)."""
import os

OPSET = 13
IR_VERSION = 8




def keys_w(s):
    """Keys cubic weights (a = -0.75) of the s output phases on the source
    offsets -2..+2 around floor(o / s), as PyTorch's bicubic upsample with
    align_corners=False uses them (half-pixel source positions, the tap
    indices clamped at the borders: an edge pad of 2 gives exactly that)."""
    import numpy as np
    a = -0.75

    def kern(d):
        d = abs(d)
        if d <= 1.0:
            return (a + 2.0) * d ** 3 - (a + 3.0) * d ** 2 + 1.0
        if d < 2.0:
            return a * d ** 3 - 5.0 * a * d ** 2 + 8.0 * a * d - 4.0 * a
        return 0.0

    w = np.zeros((s, 5), np.float64)
    for i in range(s):
        src = (i + 0.5) / s - 0.5
        f = int(np.floor(src))
        t = src - f
        for k, d in enumerate((t + 1.0, t, 1.0 - t, 2.0 - t)):
            w[i, f - 1 + k + 2] = kern(d)
    return w


def lapar_graph(weights, scale, h, w, with_phi=False):
    """The ONNX model (onnx.ModelProto) of a LAPAR network from its npz
    weights, for a 1x3xhxw input."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    z = np.load(weights)
    nodes, inits = [], []
    names = set()

    def const(name, arr):
        assert name not in names, name
        names.add(name)
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    counter = [0]

    def tmp(tag):
        counter[0] += 1
        return f"{tag}_{counter[0]}"

    def node(op, inputs, tag, **attrs):
        out = tmp(tag)
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv(x, key, group=1, bias=True, weight=None, pad=None):
        wt = z[key + ".weight"] if weight is None else weight
        k = wt.shape[-1]
        p = k // 2 if pad is None else pad
        ins = [x, const(key + ".weight", wt.astype(np.float32))]
        if bias:
            ins.append(const(key + ".bias", z[key + ".bias"].astype(np.float32)))
        return node("Conv", ins, key.replace(".", "_"), kernel_shape=[k, k],
                    pads=[p, p, p, p], strides=[1, 1], dilations=[1, 1], group=group)

    def scaled(x, key):
        return node("Mul", [x, const(key, z[key].reshape(1).astype(np.float32))], "scaled")

    def relu(x):
        return node("Relu", [x], "relu")

    def add(a, b):
        return node("Add", [a, b], "add")

    nf = z["w_conv.head.0.weight"].shape[0]
    blocks = sum(1 for k in z.files if k.startswith("w_conv.body.") and
                 k.endswith(".reduction.weight"))
    units = sum(1 for k in z.files if k.startswith("w_conv.body.0.b") and
                k.endswith(".body.0.weight"))
    atoms = z["decom_conv.weight"]  # (72, 1, 5, 5)
    na = atoms.shape[0]
    assert z["w_conv.up.0.weight"].shape[0] == nf * scale * scale, "weights of another scale"
    assert z["w_conv.tail.w_conv.weight"].shape[0] == na
    s, sh, sw = scale, scale * h, scale * w

    # WeightNet: phi
    x = "input"
    t = node("Sub", [x, const("w_conv.rgb_mean", z["w_conv.rgb_mean"].astype(np.float32))],
             "sub_mean")
    t = relu(conv(t, "w_conv.head.0"))
    for k in range(blocks):
        kept, u = [], t
        for j in range(units):
            p = f"w_conv.body.{k}.b{j}"
            r = conv(relu(conv(u, p + ".body.0")), p + ".body.2")
            u = add(scaled(r, p + ".res_scale.scale"), scaled(u, p + ".x_scale.scale"))
            kept.append(u)
        p = f"w_conv.body.{k}"
        cat = node("Concat", kept, "concat", axis=1)
        r = conv(cat, p + ".reduction")
        t = add(scaled(r, p + ".res_scale.scale"), scaled(t, p + ".x_scale.scale"))
    t = relu(conv(t, "w_conv.up.0"))
    t = node("DepthToSpace", [t], "pixel_shuffle", blocksize=s, mode="CRD")
    k3 = scaled(conv(t, "w_conv.tail.tail_k3"), "w_conv.tail.scale_k3.scale")
    k5 = scaled(conv(t, "w_conv.tail.tail_k5"), "w_conv.tail.scale_k5.scale")
    t = relu(conv(add(k3, k5), "w_conv.tail.fuse"))
    phi = conv(t, "w_conv.tail.w_conv")

    # U: bicubic upsample of the input (not mean-subtracted)
    pads2 = const("pads2", np.array([0, 0, 2, 2, 0, 0, 2, 2], np.int64))
    xp = node("Pad", [x, pads2], "pad_edge", mode="edge")
    ph = keys_w(s)
    bw = np.zeros((3 * s * s, 1, 5, 5), np.float32)
    for c in range(3):
        for i in range(s):
            for j in range(s):
                bw[c * s * s + i * s + j, 0] = np.outer(ph[i], ph[j]).astype(np.float32)
    up = conv(xp, "bicubic_phases", group=3, bias=False, weight=bw, pad=0)
    up = node("DepthToSpace", [up], "bicubic", blocksize=s, mode="CRD")

    # the filter: out_c = sum_l phi_l * (D_l (*) pad_reflect101(U_c))
    upp = node("Pad", [up, pads2], "pad_reflect", mode="reflect")
    aw = np.tile(atoms.astype(np.float32), (3, 1, 1, 1))  # channel c * 72 + l
    resp = conv(upp, "atoms", group=3, bias=False, weight=aw, pad=0)
    phi3 = node("Concat", [phi, phi, phi], "phi3", axis=1)
    prod = node("Mul", [resp, phi3], "weighted")
    sw_ = np.zeros((3, 3 * na, 1, 1), np.float32)
    for c in range(3):
        sw_[c, c * na:(c + 1) * na] = 1.0
    out = conv(prod, "sum_atoms", bias=False, weight=sw_, pad=0)
    nodes.append(helper.make_node("Identity", [out], ["output"], name="output"))
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 3, sh, sw])]
    if with_phi:
        nodes.append(helper.make_node("Identity", [phi], ["phi"], name="phi"))
        outputs.append(helper.make_tensor_value_info("phi", TensorProto.FLOAT, [1, na, sh, sw]))
    graph = helper.make_graph(
        nodes, f"LAPAR_nf{nf}_n{blocks}_x{s}", [
            helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, h, w])],
        outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="clik benchmarks/lapar_net_peers.py")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def weights_path(lapar, model, scale):
    return os.path.join(lapar, "weights", f"LAPAR_{model}_x{scale}.npz")
