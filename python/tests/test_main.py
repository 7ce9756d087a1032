"""python -m clik: the distribution name and version, every OpenCL device
the package lists, and the CPU path."""
import subprocess
import sys

import clik


def test_python_m_clik():
    run = subprocess.run([sys.executable, "-m", "clik"], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(f"clik-opencl {clik.__version__} "), lines[0]
    for d in clik.devices():
        assert any(d["name"] in line and line.split()[0] == d["spec"] for line in lines), \
            f"{d['name']} ({d['spec']}) missing from:\n{run.stdout}"
    if not clik.devices():
        assert "no OpenCL device" in run.stdout
    with clik.Context(device="none") as ctx:
        assert lines[-1] == f"CPU path: {ctx.cpu_backend}"
