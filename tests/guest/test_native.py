#!/usr/bin/python3
"""The native path in the guest, as on a user's machine: /boot hidden under an
empty tmpfs, fibdrv built for the running kernel by fibdrv/Makefile (what
make install puts in $(PREFIX)/share/fibtrace/fibdrv) into a scratch
directory, its module BTF generated against /sys/kernel/btf/vmlinux; then
that build loaded in place of the suite's fibdrv and traced with fentry
(which needs the module's BTF), counting exact reads.

The suite's own build (build/KVER/fibdrv.ko) is loaded again at the end, and
/boot uncovered, whatever happened in between. Runs as root in the test VM
with fibdrv loaded (tests/guest/run.sh).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import check, skip  # noqa: E402

FIBTRACE = "build/fibtrace"
KVER = os.uname().release
SUITE_KO = f"build/{KVER}/fibdrv.ko"
FIRST, LAST, REPEAT = 0, 92, 3
READS = (LAST - FIRST + 1) * REPEAT  # 279


def sh(args, timeout=1500):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def loaded():
    return os.path.exists("/sys/module/fibdrv")


def build(out):
    """fibdrv/Makefile for the running kernel into @out; the .ko path or None."""
    rc, log = sh(["make", "-j2", "-f", "fibdrv/Makefile", f"OUT={out}"])
    ko = os.path.join(out, "fibdrv.ko")
    print("# native.build: " + " | ".join(log.strip().splitlines()[-3:]), flush=True)
    if not check("native.build", rc == 0 and os.path.isfile(ko), f"exit {rc}: {log[-600:]}"):
        return None
    check("native.build.btf_from_sysfs", "with BTF from /sys/kernel/btf/vmlinux" in log,
          f"build-module did not use the running kernel's BTF: {log[-300:]}")
    rc, sections = sh(["readelf", "-S", ko])
    check("native.build.btf_section", rc == 0 and ".BTF" in sections, "no .BTF section in the .ko")
    # The no-headers error names the package (here: the Debian one).
    rc, log = sh(["make", "-f", "fibdrv/Makefile", f"OUT={out}", "KVER=0.0.0-none"], timeout=60)
    check("native.build.no_headers", rc != 0 and "linux-headers-0.0.0-none" in log,
          f"exit {rc}: {log[-300:]}")
    return ko


def trace(ko):
    """The native build in place of the suite's: loaded, its BTF, an exact sweep under fentry."""
    rc, log = sh(["rmmod", "fibdrv"], timeout=60)
    if not check("native.unload_suite_build", rc == 0 and not loaded(), log.strip()):
        return
    rc, log = sh(["insmod", ko], timeout=60)
    if not check("native.load", rc == 0 and loaded(), log.strip()):
        return
    check("native.module_btf", os.path.exists("/sys/kernel/btf/fibdrv"),
          "/sys/kernel/btf/fibdrv missing: the kernel did not take the module's BTF")
    with open(gtest.DEV, "rb", buffering=0) as f:
        os.lseek(f.fileno(), 92, os.SEEK_SET)
        got = f.read(64).decode()
    check("native.read", got == str(gtest.fib(92)), f"F(92) read {got!r}")
    p = subprocess.run([FIBTRACE, "--json", "--attach", "fentry", "--no-discover",
                        "--sweep", f"{FIRST}:{LAST}", "--repeat", str(REPEAT)],
                       capture_output=True, text=True, timeout=600)
    if not check("native.fibtrace.exit", p.returncode == 0,
                 f"exit {p.returncode}: {p.stderr[-600:]}"):
        return
    doc = json.loads(p.stdout)
    fr = next((f for f in doc.get("functions", []) if f["name"] == "fib_read"), {})
    check("native.fibtrace.fentry", doc.get("meta", {}).get("attach") == "fentry",
          f"attach {doc.get('meta', {}).get('attach')}")
    check("native.fibtrace.count", fr.get("count") == READS,
          f"fib_read counted {fr.get('count')}, issued {READS}")


def restore():
    """The suite's build loaded again, as tests/guest/run.sh left it."""
    if loaded():
        sh(["rmmod", "fibdrv"], timeout=60)
    rc, log = sh(["insmod", SUITE_KO], timeout=60)
    check("native.restore_suite_build", rc == 0 and loaded(), f"insmod {SUITE_KO}: {log.strip()}")


def main():
    if os.geteuid() != 0:
        skip("native", "needs root in the guest (mount, insmod)")
        return
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        skip("native", "this kernel has no /sys/kernel/btf/vmlinux")
        return
    if not os.path.isdir(f"/lib/modules/{KVER}/build"):
        skip("native", f"no headers for {KVER} in the shared root file system")
        return
    rc, log = sh(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "fibtrace-noboot", "/boot"],
                 timeout=30)
    if not check("native.hide_boot", rc == 0 and os.listdir("/boot") == [], log.strip()):
        return
    try:
        with tempfile.TemporaryDirectory(prefix="fibdrv-native-") as out:
            ko = build(out)
            if ko:
                try:
                    trace(ko)
                finally:
                    restore()
    finally:
        rc, log = sh(["umount", "/boot"], timeout=30)
        check("native.uncover_boot", rc == 0, log.strip())


if __name__ == "__main__":
    gtest.run(main)
