#!/usr/bin/env python3
"""Converts released LAPAR weights (.npz) into a clik network file (.clikn).

    lapar_net_convert.py IN.npz OUT.clikn [--f16] [--name NAME]
    lapar_net_convert.py --check FILE.clikn IN.npz

The .npz holds the folded float32 tensors of the LAPAR network under the
module paths of the official model (w_conv.head.0.weight, ...). The network's
size (scale, features, blocks, units per block, atoms) is read from the array
shapes, every shape is checked against it, and anything inconsistent is
refused (exit status 1) without touching OUT. The file is written to a
temporary file beside OUT, read back and compared with the weights, and only
then renamed to OUT.

--check reads an existing .clikn on its own terms (header, length, CRC-32,
payload laid out from the header) and compares every tensor with the .npz:
bit for bit for binary32, and against the binary16 rounding of the weights
for a --f16 file.

The format (version 1, little-endian) is described in lib/ops/lapar_net_file.c.

SPDX-License-Identifier: BSD-2-Clause
"""
import argparse
import os
import re
import struct
import sys
import tempfile
import zlib

try:
    import numpy as np
except ImportError:
    sys.exit("lapar_net_convert.py: needs NumPy")

MAGIC = b"CLIKLPN\0"
VERSION = 1
HEADER = 64
NAME_BYTES = 24
TAPS = 25  # 5 x 5 atoms

# Ranges the reader accepts (lib/ops/lapar_net_file.c).
RANGES = {"scale": (2, 4), "features": (1, 256), "blocks": (1, 32), "units": (1, 16),
          "atoms": (1, 128)}

# The released models: variant -> (features, blocks); every one has 4 units.
VARIANTS = {"A": (32, 4), "B": (24, 3), "C": (16, 2)}


class Refused(Exception):
    """The input cannot be converted; the message says why."""


def layout(scale, nf, blocks, units, atoms):
    """The payload in file order: (key, shape, kind) with kind "w" (a
    convolution weight, in the file's weight type) or "f" (binary32)."""
    items = [("w_conv.rgb_mean", (1, 3, 1, 1), "f")]

    def conv(key, cout, cin, k):
        items.append((key + ".weight", (cout, cin, k, k), "w"))
        items.append((key + ".bias", (cout,), "f"))

    def scalar(key):
        items.append((key + ".scale", (1,), "f"))

    conv("w_conv.head.0", nf, 3, 3)
    for k in range(blocks):
        for j in range(units):
            unit = "w_conv.body.%d.b%d" % (k, j)
            conv(unit + ".body.0", nf, nf, 3)
            conv(unit + ".body.2", nf, nf, 3)
            scalar(unit + ".res_scale")
            scalar(unit + ".x_scale")
        conv("w_conv.body.%d.reduction" % k, nf, units * nf, 3)
        scalar("w_conv.body.%d.res_scale" % k)
        scalar("w_conv.body.%d.x_scale" % k)
    conv("w_conv.up.0", nf * scale * scale, nf, 3)
    conv("w_conv.tail.tail_k3", nf, nf, 3)
    conv("w_conv.tail.tail_k5", nf, nf, 5)
    scalar("w_conv.tail.scale_k3")
    scalar("w_conv.tail.scale_k5")
    conv("w_conv.tail.fuse", nf, nf, 3)
    conv("w_conv.tail.w_conv", atoms, nf, 3)
    items.append(("decom_conv.weight", (atoms, 1, 5, 5), "f"))
    return items


def file_length(scale, nf, blocks, units, atoms, f16):
    """The length the header implies, counted without layout() (as the C
    reader counts it)."""
    w = 3 * nf * 9 + blocks * (units * 2 * nf * nf * 9 + nf * units * nf * 9)
    w += nf * scale * scale * nf * 9 + nf * nf * 9 + nf * nf * 25 + nf * nf * 9 + atoms * nf * 9
    f = 3 + nf + blocks * (units * (2 * nf + 2) + nf + 2)
    f += nf * scale * scale + nf + nf + 2 + nf + atoms + atoms * TAPS
    return HEADER + w * (2 if f16 else 4) + f * 4 + 4


def model_from_file_name(path):
    """("A", 2) for .../LAPAR_A_x2.npz, else None."""
    m = re.fullmatch(r"LAPAR_([A-Za-z])_x(\d+)\.npz", os.path.basename(path))
    return (m.group(1).upper(), int(m.group(2))) if m else None


def load_npz(path):
    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise Refused("cannot read %s as an .npz file: %s" % (path, e))
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise Refused("%s is a single array, not an .npz file of named arrays" % path)
    try:
        with z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as e:
        raise Refused("cannot read %s: %s" % (path, e))


def infer(arrays):
    """(scale, nf, blocks, units, atoms) from the shapes; refuses shapes that
    leave them undetermined. The full check is check_arrays()."""
    def shape(key):
        if key not in arrays:
            raise Refused("no array %r: not LAPAR weights?" % key)
        return arrays[key].shape

    head = shape("w_conv.head.0.weight")
    if len(head) != 4 or head[1:] != (3, 3, 3):
        raise Refused("w_conv.head.0.weight has shape %s, not (nf, 3, 3, 3)" % (head,))
    nf = head[0]
    up = shape("w_conv.up.0.weight")
    if len(up) != 4 or nf == 0 or up[0] % nf != 0:
        raise Refused("w_conv.up.0.weight has shape %s, not (nf*s*s, %d, 3, 3)" % (up, nf))
    ss = up[0] // nf
    scale = int(round(ss ** 0.5))
    if scale * scale != ss:
        raise Refused("w_conv.up.0.weight has %d output channels: %d features times %d, "
                      "which is not a square" % (up[0], nf, ss))
    last = shape("w_conv.tail.w_conv.weight")
    if len(last) != 4:
        raise Refused("w_conv.tail.w_conv.weight has shape %s, not (atoms, nf, 3, 3)" % (last,))
    atoms = last[0]

    def indices(pattern):
        found = sorted({int(m.group(1)) for m in map(re.compile(pattern).fullmatch, arrays) if m})
        return found

    block_ids = indices(r"w_conv\.body\.(\d+)\..*")
    blocks = len(block_ids)
    if block_ids != list(range(blocks)):
        raise Refused("the blocks are numbered %s, not 0..%d" % (block_ids, blocks - 1))
    unit_ids = indices(r"w_conv\.body\.0\.b(\d+)\..*")
    units = len(unit_ids)
    if unit_ids != list(range(units)):
        raise Refused("the units of block 0 are numbered %s, not 0..%d" % (unit_ids, units - 1))

    values = {"scale": scale, "features": nf, "blocks": blocks, "units": units, "atoms": atoms}
    for what, (lo, hi) in RANGES.items():
        if not lo <= values[what] <= hi:
            raise Refused("%d %s: a clik network has %d..%d" % (values[what], what, lo, hi))
    return scale, nf, blocks, units, atoms


def check_arrays(arrays, items):
    """Every array of the layout, with its shape, and nothing else; all
    finite floating point."""
    problems = []
    expected = {key: shp for key, shp, _ in items}
    for key in sorted(set(expected) - set(arrays)):
        problems.append("missing %s %s" % (key, expected[key]))
    for key in sorted(set(arrays) - set(expected)):
        problems.append("unexpected array %s %s" % (key, arrays[key].shape))
    for key, shp, _ in items:
        a = arrays.get(key)
        if a is None:
            continue
        if a.shape != shp:
            problems.append("%s has shape %s, expected %s" % (key, a.shape, shp))
        elif a.dtype.kind != "f":
            problems.append("%s has type %s, not floating point" % (key, a.dtype))
        elif not np.all(np.isfinite(a.astype(np.float32))):
            problems.append("%s has values that are not finite in binary32" % key)
    if problems:
        raise Refused("the weights do not make a consistent LAPAR network:\n  "
                      + "\n  ".join(problems))


def check_name(name):
    raw = name.encode("ascii", "replace")
    if not name or len(raw) > NAME_BYTES - 1 or any(c < 32 or c > 126 for c in raw) \
            or not name.isascii():
        raise Refused("name %r: 1..%d printable ASCII characters" % (name, NAME_BYTES - 1))
    return raw


def encode(arrays, dims, f16, name):
    scale, nf, blocks, units, atoms = dims
    items = layout(*dims)
    head = MAGIC + struct.pack("<8I", VERSION, file_length(*dims, f16), scale, nf, blocks, units,
                               atoms, 1 if f16 else 0)
    head += name.ljust(NAME_BYTES, b"\0")
    assert len(head) == HEADER
    parts = [head]
    for key, _, kind in items:
        a = np.ascontiguousarray(arrays[key], dtype=np.float32)
        if kind == "w" and f16:
            with np.errstate(over="ignore"):
                h = a.astype("<f2")
            if not np.all(np.isfinite(h)):
                raise Refused("%s has values beyond binary16's range (max |w| = %g)"
                              % (key, float(np.max(np.abs(a)))))
            parts.append(h.tobytes())
        else:
            parts.append(a.astype("<f4").tobytes())
    body = b"".join(parts)
    data = body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)
    if len(data) != file_length(*dims, f16):
        raise AssertionError("layout and length disagree: %d, %d"
                             % (len(data), file_length(*dims, f16)))
    return data


def decode(data):
    """Reads a .clikn on its own terms: (header dict, {key: array})."""
    if len(data) < HEADER + 4 or data[:8] != MAGIC:
        raise Refused("not a clik network file (no CLIKLPN magic)")
    version, length, scale, nf, blocks, units, atoms, wtype = struct.unpack_from("<8I", data, 8)
    if version != VERSION:
        raise Refused("version %d, not %d" % (version, VERSION))
    if length != len(data):
        raise Refused("the header says %d bytes, the file has %d" % (length, len(data)))
    stored, = struct.unpack_from("<I", data, len(data) - 4)
    computed = zlib.crc32(data[:-4]) & 0xFFFFFFFF
    if stored != computed:
        raise Refused("CRC-32 %08x stored, %08x computed" % (stored, computed))
    dims = (scale, nf, blocks, units, atoms)
    for (what, (lo, hi)), v in zip(RANGES.items(), dims):
        if not lo <= v <= hi:
            raise Refused("%d %s, out of %d..%d" % (v, what, lo, hi))
    if wtype not in (0, 1):
        raise Refused("weight type %d" % wtype)
    raw = data[40:64]
    if b"\0" not in raw:
        raise Refused("the name has no NUL")
    name = raw[:raw.index(b"\0")]
    if raw[len(name):] != b"\0" * (NAME_BYTES - len(name)) or \
            any(c < 32 or c > 126 for c in name):
        raise Refused("the name is not NUL-padded printable ASCII: %r" % raw)
    if file_length(*dims, wtype == 1) != len(data):
        raise Refused("the header implies %d bytes, the file has %d"
                      % (file_length(*dims, wtype == 1), len(data)))
    tensors = {}
    pos = HEADER
    for key, shp, kind in layout(*dims):
        dtype = "<f2" if kind == "w" and wtype == 1 else "<f4"
        count = int(np.prod(shp))
        a = np.frombuffer(data, dtype=dtype, count=count, offset=pos)
        pos += a.nbytes
        tensors[key] = a.reshape(shp)
    if pos != len(data) - 4:
        raise Refused("the payload ends at %d, the checksum is at %d" % (pos, len(data) - 4))
    header = {"scale": scale, "features": nf, "blocks": blocks, "units": units, "atoms": atoms,
              "f16": wtype == 1, "name": name.decode("ascii"), "length": length}
    return header, tensors


def compare(data, arrays):
    """Re-reads data and compares every tensor with the weights; returns
    (header, largest difference from the binary32 weights)."""
    header, tensors = decode(data)
    dims = (header["scale"], header["features"], header["blocks"], header["units"],
            header["atoms"])
    if infer(arrays) != dims:
        raise Refused("the file holds a x%d network of %d features, %d blocks of %d units and "
                      "%d atoms; the weights are x%d, %d, %d, %d, %d" % (dims + infer(arrays)))
    items = layout(*dims)
    check_arrays(arrays, items)
    worst = 0.0
    problems = []
    for key, _, kind in items:
        want = np.asarray(arrays[key], dtype=np.float32)
        got = tensors[key]
        if got.dtype.itemsize == 2:
            exact = want.astype(np.float16)
            same = np.array_equal(got.view(np.uint16), exact.astype("<f2").view(np.uint16))
        else:
            same = np.array_equal(got.astype(np.float32).view(np.uint32), want.view(np.uint32))
        if not same:
            problems.append(key)
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))))
    if problems:
        raise Refused("tensors differ from the weights: " + ", ".join(problems))
    return header, worst


def write_atomically(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        # The read back, from the file itself.
        with open(tmp, "rb") as f:
            if f.read() != data:
                raise Refused("%s: the written file reads back differently" % tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def convert(args):
    arrays = load_npz(args.input)
    dims = infer(arrays)
    scale, nf, blocks, units, atoms = dims
    items = layout(*dims)
    check_arrays(arrays, items)
    known = model_from_file_name(args.input)
    if known:
        variant, named_scale = known
        if named_scale != scale:
            raise Refused("the file name says x%d, the weights are x%d" % (named_scale, scale))
        if variant in VARIANTS and VARIANTS[variant] != (nf, blocks):
            raise Refused("the file name says LAPAR-%s (%d features, %d blocks), the weights "
                          "have %d features and %d blocks"
                          % (variant, VARIANTS[variant][0], VARIANTS[variant][1], nf, blocks))
    if args.name is not None:
        name = args.name
    elif known:
        name = "LAPAR-%s x%d" % known
    else:
        name = "LAPAR x%d" % scale
    data = encode(arrays, dims, args.f16, check_name(name))
    header, worst = compare(data, arrays)
    try:
        write_atomically(args.output, data)
    except OSError as e:
        raise Refused("cannot write %s: %s" % (args.output, e))
    print("%s: %s, x%d, %d features, %d blocks of %d units, %d atoms, %s weights, %d bytes%s"
          % (args.output, header["name"], scale, nf, blocks, units, atoms,
             "binary16" if args.f16 else "binary32", len(data),
             ", largest rounding %.3g" % worst if args.f16 else ""))


def check(args):
    try:
        with open(args.check, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Refused(str(e))
    header, worst = compare(data, load_npz(args.input))
    print("%s: OK against %s: %s, x%d, %d features, %d blocks of %d units, %d atoms, "
          "%s weights, %d bytes, CRC-32 valid, every tensor %s"
          % (args.check, args.input, header["name"], header["scale"], header["features"],
             header["blocks"], header["units"], header["atoms"],
             "binary16" if header["f16"] else "binary32", header["length"],
             "the binary16 rounding of the weights (largest difference %.3g)" % worst
             if header["f16"] else "bit-identical"))


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Convert LAPAR weights (.npz) into a clik network file (.clikn), "
                    "or check one against them.",
        usage="%(prog)s IN.npz OUT.clikn [--f16] [--name NAME]\n"
              "       %(prog)s --check FILE.clikn IN.npz")
    p.add_argument("input", metavar="IN.npz", help="the weights")
    p.add_argument("output", metavar="OUT.clikn", nargs="?", help="the network file to write")
    p.add_argument("--f16", action="store_true",
                   help="store convolution weights as IEEE binary16 (biases, scales and atoms "
                        "stay binary32)")
    p.add_argument("--name", help="the name in the file, up to %d printable ASCII characters "
                                  "(default from IN's name, e.g. \"LAPAR-A x2\")"
                                  % (NAME_BYTES - 1))
    p.add_argument("--check", metavar="FILE.clikn",
                   help="compare FILE.clikn with IN.npz instead of converting")
    args = p.parse_args(argv)
    if args.check is not None:
        if args.output is not None or args.f16 or args.name is not None:
            p.error("--check takes FILE.clikn and IN.npz only")
    elif args.output is None:
        p.error("OUT.clikn is missing")
    try:
        if args.check is not None:
            check(args)
        else:
            convert(args)
    except Refused as e:
        print("lapar_net_convert.py: %s: %s" % (args.input if args.check is None else args.check,
                                                 e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
