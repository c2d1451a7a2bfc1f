#!/usr/bin/python3
"""scripts/deps.sh without installing anything.

- As an unprivileged user (nobody, through setpriv, when this runs as root;
  else as the user running it) `make deps` returns 0 when everything is
  installed, having installed and written nothing. Unprivileged it cannot
  install: when it says something is missing, the packages it names are
  checked against dpkg (FAIL if installed), and the test SKIPs.
- Off Debian 12 (an os-release file of Ubuntu, Fedora, Arch handed to it) it
  installs nothing and names the packages of that distribution; its status
  is 0 exactly when the running kernel's headers and the tools are there.
- Bad arguments: exit 2.
Prints PASS/FAIL/SKIP lines.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402

DEPS = os.path.join(TOP, "scripts", "deps.sh")
KVER = os.uname().release
OS_RELEASES = {
    "ubuntu": ('ID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n'
               'PRETTY_NAME="Ubuntu 24.04 LTS"\n', f"linux-headers-{KVER}"),
    "fedora": ('ID=fedora\nVERSION_ID=41\nPRETTY_NAME="Fedora Linux 41"\n',
               f"kernel-devel-{KVER}"),
    "arch": ('ID=arch\nPRETTY_NAME="Arch Linux"\n', f"headers of kernel {KVER}"),
}


def result(ok, name, detail=""):
    return gtest.check(f"host/deps.{name}", ok, detail)


def skip(name, why):
    gtest.skip(f"host/deps.{name}", why)


def run(args, env=None, timeout=120):
    p = subprocess.run(args, cwd=TOP, capture_output=True, text=True, timeout=timeout,
                       env=env)
    return p.returncode, p.stdout + p.stderr


def unprivileged(args):
    """@args as nobody when root (setpriv), else as is."""
    if os.geteuid() != 0:
        return args
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + args


def as_user():
    """make deps as nobody: it cannot install, so 0 means it found everything."""
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        skip("unprivileged", "no setpriv to drop root with")
        return
    marker = tempfile.NamedTemporaryFile(delete=False)
    marker.close()
    t0 = time.monotonic()
    rc, out = run(unprivileged(["make", "--no-print-directory", "deps"]))
    secs = time.monotonic() - t0
    changed = subprocess.run(["find", "/etc/apt", "/usr/local/bin", "-newer", marker.name],
                             capture_output=True, text=True).stdout.split()
    os.unlink(marker.name)
    if rc != 0 and "installing needs root" in out:
        # What it says is missing must be: packages against dpkg's own view.
        said = out.split("packages: ", 1)[1].split(";")[0].split() if "packages: " in out else []
        there = [p for p in said if subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
            text=True).stdout == "install ok installed"]
        if there:
            result(False, "unprivileged", f"says missing but dpkg has them: {there}")
        else:
            skip("unprivileged", f"not everything is installed ({out.strip()[-200:]}): sudo make deps")
        return
    # Not a time bound (a busy host took 27.8 s in make test, 2026-12-01):
    # that it checked only, installing nothing, which run()'s timeout bounds.
    print(f"# deps as nobody: exit {rc} in {secs:.1f} s", flush=True)
    result(rc == 0 and "deps: ok" in out and "installing" not in out, "unprivileged",
           f"exit {rc} in {secs:.1f} s: {out.strip()[-300:]}")
    result(not changed, "unprivileged.wrote_nothing", f"changed meanwhile: {changed[:5]}")


def off_debian():
    have_headers = os.path.isdir(f"/lib/modules/{KVER}/build")
    for name, (text, want) in OS_RELEASES.items():
        with tempfile.NamedTemporaryFile("w", suffix=".os-release") as f:
            f.write(text)
            f.flush()
            os.chmod(f.name, 0o644)
            rc, out = run(unprivileged([DEPS]), env=dict(os.environ, FIBTRACE_OS_RELEASE=f.name))
        if have_headers:
            result(rc == 0 or "missing:" in out, f"off_debian.{name}", out.strip()[-300:])
        else:
            result(rc == 1 and want in out and "not Debian 12" in out, f"off_debian.{name}",
                   f"exit {rc}, want {want!r} named: {out.strip()[-400:]}")


def usage():
    for args in (["--for", "nope"], ["--bogus"]):
        rc, out = run(unprivileged([DEPS] + args))
        result(rc == 2 and "deps" in out, f"usage.{args[-1].strip('-')}", f"exit {rc}: {out.strip()}")


def pinned():
    """virtme-ng: the version deps.sh checks is the one its requirements file pins by hash."""
    import re
    with open(DEPS) as f:
        want = re.search(r"^VIRTME_NG_VERSION=(\S+)$", f.read(), re.M)
    with open(os.path.join(TOP, "scripts", "virtme-ng.requirements")) as f:
        reqs = [ln for ln in f.read().splitlines() if ln and not ln.startswith("#")]
    ok = (want is not None and len(reqs) == 1 and
          re.fullmatch(rf"virtme-ng=={re.escape(want.group(1))} --hash=sha256:[0-9a-f]{{64}}",
                       reqs[0]) is not None)
    result(ok, "pinned.virtme_ng", f"VIRTME_NG_VERSION {want and want.group(1)}, requirements {reqs}")


def main():
    pinned()
    usage()
    off_debian()
    as_user()


if __name__ == "__main__":
    gtest.run(main)
