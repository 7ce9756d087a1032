# SPDX-License-Identifier: BSD-2-Clause
"""python -m clik: the package's version, the OpenCL devices it sees and
the CPU path it falls back to."""
import sys

import clik


def main():
    print(f"clik-opencl {clik.__version__} (import clik; {clik.__path__[0]})")
    devices = clik.devices()
    if not devices:
        print("no OpenCL device: operations run on the CPU path")
    else:
        print("OpenCL devices (--device / Context(device=...) spec, name, type, version):")
    for d in devices:
        print(f"  {d['spec']}  {d['name']} ({d['type']}, {d['platform']}, {d['device_version']})")
    with clik.Context(device="none") as ctx:
        print(f"CPU path: {ctx.cpu_backend}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
