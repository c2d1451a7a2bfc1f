#!/usr/bin/python3
"""scripts/build-module.sh's errors, each with its fix, on the host (no module
is loaded): no headers (the package named), --if-headers going on without
them, a pahole too old for --btf_base, a pahole that fails on flags newer
than it (the kernel's pahole version named), no pahole, a bad module name.
A stub pahole first on PATH stands for the old or failing one. The guests'
kernels' headers are needed for the cases that get past kbuild (SKIP
without). Prints PASS/FAIL/SKIP lines.
"""
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402

SCRIPT = os.path.join(TOP, "scripts", "build-module.sh")


def result(ok, name, detail=""):
    return gtest.check(f"host/build_module.{name}", ok, detail)


def run(args, path_first=None, timeout=600):
    env = dict(os.environ)
    if path_first:
        env["PATH"] = path_first + ":" + env["PATH"]
    p = subprocess.run([SCRIPT] + args, cwd=TOP, capture_output=True, text=True,
                       timeout=timeout, env=env)
    return p.returncode, p.stdout + p.stderr


def stub(d, version, status):
    """A pahole that reports @version and otherwise exits @status."""
    path = os.path.join(d, "pahole")
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\n[ "$1" = --version ] && {{ echo {version}; exit 0; }}\n'
                f'echo "stub pahole: $*" >&2\nexit {status}\n')
    os.chmod(path, 0o755)


def main():
    objs = subprocess.run(["make", "-s", "print-bn-srcs"], cwd=TOP, capture_output=True,
                          text=True).stdout.split()
    lib = " ".join(os.path.basename(s)[:-2] + ".o" for s in objs)
    rc, out = run(["0.0.0-none", lib])
    result(rc == 1 and "no headers for 0.0.0-none" in out, "no_headers", out.strip()[-300:])
    rc, out = run(["--if-headers", "0.0.0-none", lib])
    result(rc == 0 and "not built" in out, "if_headers", f"exit {rc}: {out.strip()[-300:]}")
    # make's own wiring for the running kernel (NATIVE_KVER, uname -r by
    # default): built through --if-headers, so make goes on without headers.
    p = subprocess.run(["make", "--no-print-directory", "modules", "KERNELS=",
                        "NATIVE_KVER=0.0.0-none"], cwd=TOP, capture_output=True, text=True,
                       timeout=120)
    result(p.returncode == 0 and "no headers for 0.0.0-none" in p.stderr and "not built" in p.stderr,
           "make.native_without_headers", f"exit {p.returncode}: {(p.stdout + p.stderr)[-300:]}")
    kernels = subprocess.run([os.path.join(TOP, "scripts/kernels.sh")], capture_output=True,
                             text=True).stdout.split()
    if not kernels:
        gtest.skip("host/build_module.pahole", "no guest kernel's headers (make deps)")
        return
    kver = kernels[0]
    # A running kernel that is also a guest's is built once.
    p = subprocess.run(["make", "--no-print-directory", "modules", f"KERNELS={kver}",
                        f"NATIVE_KVER={kver}"], cwd=TOP, capture_output=True, text=True,
                       timeout=600)
    built = [line for line in (p.stdout + p.stderr).splitlines()
             if line.startswith("build-module: ") and line.endswith(")")]
    result(p.returncode == 0 and len(built) == 1 and f"build/{kver}/fibdrv.ko" in built[0],
           "make.native_is_a_guest_kernel", f"exit {p.returncode}: {built}")
    rc, out = run([kver, lib, "bad-name!"])
    result(rc == 1 and "bad module name" in out, "bad_name", out.strip()[-200:])
    with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as outdir:
        stub(d, "v1.19", 0)
        rc, out = run([kver, lib, "fibold", "", outdir], path_first=d)
        result(rc == 1 and "too old" in out and "1.20" in out, "pahole_too_old",
               f"exit {rc}: {out.strip()[-300:]}")
        # The kernel's own pahole version, from its configuration (124 -> 1.24).
        with open(f"/lib/modules/{kver}/build/.config") as f:
            kp = next(line.split("=")[1].strip() for line in f
                      if line.startswith("CONFIG_PAHOLE_VERSION="))
        stub(d, f"v1.{int(kp[1:]) - 1}", 1)
        rc, out = run([kver, lib, "fibfail", "", outdir], path_first=d)
        result(rc == 1 and "stub pahole" in out and
               f"install dwarves {kp[0]}.{kp[1:]} or later" in out and
               not os.path.exists(os.path.join(outdir, "fibfail.ko")), "pahole_fails_older",
               f"exit {rc}: {out.strip()[-400:]}")
        # A PATH of the basic tools alone, without pahole (it is checked
        # before kbuild runs).
        os.unlink(os.path.join(d, "pahole"))
        for tool in ("bash", "env", "uname", "dirname", "sed", "cat", "grep", "mkdir"):
            os.symlink(subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True,
                                      text=True).stdout.strip(), os.path.join(d, tool))
        p = subprocess.run([SCRIPT, kver, lib, "fibnone", "", outdir], cwd=TOP,
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, PATH=d))
        out = p.stdout + p.stderr
        result(p.returncode == 1 and "pahole not found: install dwarves" in out, "no_pahole",
               f"exit {p.returncode}: {out.strip()[-300:]}")

if __name__ == "__main__":
    gtest.run(main)
