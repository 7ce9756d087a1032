#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Exports the training photographs of clik's default LAPAR model.

Writes the high-resolution training images, as PNG, into OUT (created if
needed): license-clear photographs that Debian's python3-skimage ships in
/usr/lib/python3/dist-packages/skimage/data, each licence as scikit-image
states it in skimage/data/_fetchers.py. The held-out photographs of
benchmarks/quality.py (camera, chelsea, rocket, hubble_deep_field) are
never among them. The files are copied byte for byte (PNG sources) or
decoded and re-encoded losslessly (none here), so the training input is the
same on every machine with the same scikit-image data files.

Example (the recipe of lib/models/lapar_default.clikm, README.md):
    /usr/bin/python3 benchmarks/lapar_model_data.py /tmp/lapar-train
    build/apps/clik lapar-train /tmp/lapar-train lib/models/lapar_default.clikm \\
        --scale 2,3,4 --kernel 7 --phases 1 --symmetry 8 --window 7 --buckets 16,3,4 \\
        --device none
"""

import argparse
import hashlib
import os
import shutil
import sys

DEFAULT_DATA = "/usr/lib/python3/dist-packages/skimage/data"

# (file, licence as skimage/data/_fetchers.py states it)
TRAINING = [
    ("astronaut.png", "public domain: NASA photograph (Eileen Collins), no known copyright "
     "restrictions"),
    ("coffee.png", "CC0 (photographer Rachel Michetti)"),
    ("brick.png", "CC0 (CC0Textures, Bricks25)"),
    ("grass.png", "CC0 (DeviantArt, linolafett, Grass-01)"),
    ("gravel.png", "CC0 (CC0Textures, Gravel04)"),
    ("coins.png", "no known copyright restrictions (Brooklyn Museum collection, Greek coins "
     "from Pompeii)"),
    ("ihc.png", "no known copyright restrictions (immunohistochemistry, Center for Microscopy "
     "And Molecular Imaging)"),
]

# Held out for benchmarks/quality.py: never trained on.
HELD_OUT = ["camera.png", "chelsea.png", "rocket.jpg", "hubble_deep_field.jpg"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="folder for the training PNG files")
    ap.add_argument("--data", default=DEFAULT_DATA, help="scikit-image's data folder")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, licence in TRAINING:
        assert name not in HELD_OUT
        src = os.path.join(args.data, name)
        if not os.path.exists(src):
            print(f"lapar_model_data: {src} is missing", file=sys.stderr)
            return 1
        dst = os.path.join(args.out, name)
        shutil.copyfile(src, dst)
        with open(dst, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        print(f"{name}: sha256 {digest}...: {licence}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
