#!/usr/bin/python3
"""make install into a scratch DESTDIR, and what the installed tool says.

Against independent truth: the file list (the programs, the module's sources
as fibdrv/ has them, the documents, the man page, the completion); the man
page rendered by man(1) without warnings, naming every option the installed
fibtrace's --help lists (argp prints them from cli.c's table) and every exit
status --help lists; -h and --help exit 0 and point into no source tree,
nor does any string of the binary (no docs/ file; each section of
fibtrace(8) it names is in the page); --version is scripts/version.sh's;
LICENSE is the GPL-2.0 text Debian ships and the sources' SPDX identifiers
name no other license than GPL-2.0 and MIT; the completion offers every
--help option; the installed fibtrace finds its helper fibcalc beside itself
(and names that path when it is missing); the installed module Makefile
lists the library make's BN_SRCS lists and builds a module for an installed
guest kernel; CFLAGS/LDFLAGS reach the compiler and -Werror only with
WERROR=1, the BPF object's too. Prints PASS/FAIL/SKIP lines.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402


def result(ok, name, detail=""):
    return gtest.check(f"host/install.{name}", ok, detail)


def skip(name, why):
    gtest.skip(f"host/install.{name}", why)


def run(args, cwd=TOP, env=None, timeout=300):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def help_options(text):
    """Every long option (--name) and short option (-x) argp lists in --help-all."""
    longs, shorts = set(), set()
    for line in text.splitlines():
        m = re.match(r"^\s+(?:(-\S), )?(--[a-z][a-z-]*)", line)
        if m:
            longs.add(m.group(2))
            if m.group(1):
                shorts.add(m.group(1))
    return longs, shorts


def exit_statuses(text):
    """{status: meaning} from --help's 'Exit status:' paragraph."""
    para = " ".join(text[text.index("Exit status:"):].split())
    return {int(n): m for n, m in re.findall(r"(\d+) ([^,.]+?)(?:,|\. )", para)}


def layout(dest, prefix):
    root = dest + prefix
    want = [f"bin/{p}" for p in ("fibtrace", "fibclient", "fibcalc")]
    want += ["share/man/man8/fibtrace.8", "share/bash-completion/completions/fibtrace",
             "share/doc/fibtrace/README.md", "share/doc/fibtrace/LICENSE",
             "share/doc/fibtrace/LICENSES/MIT", "share/doc/fibtrace/fibtrace.schema.json",
             "share/doc/fibtrace/measurement.md", "share/doc/fibtrace/native.md",
             "share/fibtrace/fibdrv/Makefile", "share/fibtrace/fibdrv/Kbuild",
             "share/fibtrace/scripts/build-module.sh",
             "share/fibtrace/scripts/extract-vmlinux.py"]
    srcs = sorted(f for f in os.listdir(os.path.join(TOP, "fibdrv")) if f.endswith((".c", ".h")))
    want += [f"share/fibtrace/fibdrv/{f}" for f in srcs]
    missing = [w for w in want if not os.path.isfile(os.path.join(root, w))]
    result(not missing, "layout", f"missing under {root}: {missing}")
    notx = [p for p in want[:3] if not os.access(os.path.join(root, p), os.X_OK)]
    result(not notx, "layout.executable", f"not executable: {notx}")
    stray = [d for d in os.listdir(dest) if d != prefix.strip("/").split("/")[0]]
    result(not stray, "layout.destdir_only", f"outside PREFIX in DESTDIR: {stray}")


def man_page(root, longs, statuses, version):
    page = os.path.join(root, "share/man/man8/fibtrace.8")
    env = dict(os.environ, MANWIDTH="80", LANG="C.UTF-8")
    if not shutil.which("man"):
        skip("man", "man is not installed (make deps installs man-db)")
        return
    rc, out, err = run(["man", "--warnings", "-l", page], env=env)
    text = re.sub(r".\x08", "", out)
    result(rc == 0 and not err.strip() and "EXIT STATUS" in text, "man.renders",
           f"exit {rc}, stderr {err.strip()[:300]!r}")
    flat = text.replace("\u2010", "-").replace("\u2011", "-")
    flat = re.sub(r"-\n\s*", "-", flat)  # hyphenated at a line end
    missing = sorted(o for o in longs if o not in flat)
    result(not missing, "man.options", f"options of --help not in the page: {missing}")
    sect = flat[flat.index("EXIT STATUS"):]
    sect = sect[:re.search(r"\n[A-Z][A-Z ]+\n", sect[12:]).start() + 12]
    absent = [s for s in statuses if not re.search(rf"^\s+{s}\s", sect, re.M)]
    result(not absent, "man.exit_statuses", f"statuses of --help not in EXIT STATUS: {absent}")
    result("@" not in re.sub(r"\S+@\S+", "", flat) and version in flat, "man.filled",
           f"placeholders left or version {version} missing")


def binary_pointers(fibtrace, root):
    """No string of the installed binary names a document of the source tree, and
    every man page section it names (fibtrace(8), NAME) is in the installed page."""
    rc, out, _ = run(["strings", "-n", "6", fibtrace])
    tree = sorted(set(re.findall(r"\bdocs/\S*", out)))
    result(rc == 0 and not tree, "binary.no_docs", f"the binary names {tree}")
    named = set(re.findall(r"fibtrace\(8\), ([A-Z][A-Z ]*[A-Z])", out))
    with open(os.path.join(root, "share/man/man8/fibtrace.8")) as f:
        sections = set(re.findall(r"^\.SH (.+)$", f.read(), re.M))
    missing = sorted(named - sections)
    result(named and not missing, "binary.man_sections",
           f"named {sorted(named)}; not a section of fibtrace.8: {missing}")


def completion(root, longs):
    comp = os.path.join(root, "share/bash-completion/completions/fibtrace")
    fibtrace = os.path.join(root, "bin/fibtrace")
    script = (f"source {comp}; COMP_WORDS=({fibtrace} --); COMP_CWORD=1; _fibtrace; "
              "printf '%s\\n' \"${COMPREPLY[@]}\"")
    rc, out, err = run(["bash", "-c", script])
    missing = sorted(longs - set(out.split()))
    result(rc == 0 and not missing, "completion.options",
           f"exit {rc} {err.strip()[:200]}; not offered: {missing}")


def helper(root):
    """The installed fibtrace runs the installed fibcalc (--cachesim: no root, no module)."""
    fibtrace = os.path.join(root, "bin/fibtrace")
    fibcalc = os.path.join(root, "bin/fibcalc")
    if not shutil.which("valgrind"):
        skip("helper", "valgrind is not installed (--cachesim runs fibcalc under it)")
        return
    args = [fibtrace, "--cachesim", "--sweep", "10:11", "--json"]
    with tempfile.TemporaryDirectory() as cwd:
        rc, out, err = run(args, cwd=cwd)
        result(rc == 0 and '"functions"' in out, "helper.found", f"exit {rc}: {err[-300:]}")
        os.rename(fibcalc, fibcalc + ".away")
        try:
            rc, out, err = run(args, cwd=cwd)
        finally:
            os.rename(fibcalc + ".away", fibcalc)
        result(rc != 0 and fibcalc in err, "helper.missing_named",
               f"exit {rc}, want the error to name {fibcalc}: {err.strip()[-300:]}")


def module_makefile(root):
    mk = os.path.join(root, "share/fibtrace/fibdrv/Makefile")
    rc, out, _ = run(["make", "-s", "-f", mk, "print-lib-objs"])
    rc2, srcs, _ = run(["make", "-s", "print-bn-srcs"])
    want = sorted(os.path.basename(s)[:-2] + ".o" for s in srcs.split())
    result(rc == 0 and rc2 == 0 and sorted(out.split()) == want, "module.lib_objs",
           f"installed Makefile {sorted(out.split())} != BN_SRCS {want}")
    rc, kernels, _ = run(["scripts/kernels.sh"])
    if not kernels.split():
        skip("module.build", "no guest kernel with headers installed (make deps)")
        return
    kver = kernels.split()[0]
    with tempfile.TemporaryDirectory() as out:
        rc, so, se = run(["make", "-f", mk, f"KVER={kver}", "NAME=fibinst"], cwd=out, timeout=600)
        ko = os.path.join(out, "fibinst.ko")
        ok = rc == 0 and os.path.isfile(ko)
        if ok:
            _, sections, _ = run(["readelf", "-S", ko])
            ok = ".BTF" in sections
        result(ok, "module.build", f"exit {rc}: {(so + se)[-400:]}")
    rc, so, se = run(["make", "-C", os.path.dirname(mk)])
    result(rc != 0 and "writable directory" in se, "module.readonly_src",
           f"exit {rc}: {se.strip()[-200:]}")


def flags():
    """CFLAGS and LDFLAGS reach the compiler; -Werror only with WERROR=1 (make -n, nothing built)."""
    obj = "build/obj/src/fibclient.o"
    rc, out, _ = run(["make", "-n", "-B", obj, "CFLAGS=-O1 -DFT_FLAG_PROBE", "WERROR="])
    result(rc == 0 and "-O1 -DFT_FLAG_PROBE" in out and "-Werror" not in out, "flags.cflags",
           out.strip()[-300:])
    rc, out, _ = run(["make", "-n", "-B", obj, "WERROR=1"])
    result(rc == 0 and "-Werror" in out, "flags.werror", out.strip()[-300:])
    bpf = "build/fibtrace.bpf.o"
    rc, out, _ = run(["make", "-n", "-B", bpf, "WERROR="])
    rc1, out1, _ = run(["make", "-n", "-B", bpf, "WERROR=1"])
    result(rc == 0 and rc1 == 0 and "-target bpf" in out and "-Werror" not in out
           and "-Werror" in out1, "flags.werror_bpf",
           f"the BPF object without WERROR: {out.strip()[-200:]}; with: {out1.strip()[-200:]}")
    rc, out, _ = run(["make", "-n", "-B", "build/fibclient", "LDFLAGS=-Wl,--as-needed"])
    link = [line for line in out.splitlines() if "-o build/fibclient" in line]
    result(rc == 0 and link and "-Wl,--as-needed" in link[0], "flags.ldflags", str(link)[-300:])


def license_text():
    ref = "/usr/share/common-licenses/GPL-2"
    if not os.path.exists(ref):
        skip("license.text", f"no {ref} to compare with")
    else:
        with open(ref) as a, open(os.path.join(TOP, "LICENSE")) as b:
            result(a.read() == b.read(), "license.text", f"LICENSE is not {ref}")
    rc, out, _ = run(["git", "grep", "-h", "-o", "SPDX-License-Identifier: .*", "--",
                      "*.c", "*.h", ":!vmlinux/"])
    ids = {re.sub(r"\s*(\*/)?\s*$", "", line.split(": ", 1)[1]) for line in out.splitlines()}
    result(rc == 0 and ids and ids <= {"GPL-2.0", "GPL-2.0 OR MIT"}, "license.spdx",
           f"identifiers in the sources: {sorted(ids)}")


def main():
    rc, version, err = run(["scripts/version.sh"])
    version = version.strip()
    with tempfile.TemporaryDirectory() as dest:
        rc, out, err = run(["make", "-s", "install", f"DESTDIR={dest}", "PREFIX=/usr"])
        if not result(rc == 0, "make_install", f"exit {rc}: {err.strip()[-400:]}"):
            return
        layout(dest, "/usr")
        root = dest + "/usr"
        fibtrace = os.path.join(root, "bin/fibtrace")
        rc, help_text, err = run([fibtrace, "--help"], cwd=dest)
        rc_h, short_help, _ = run([fibtrace, "-h"], cwd=dest)
        result(rc == 0 and rc_h == 0 and short_help == help_text, "help.h",
               f"--help exit {rc}, -h exit {rc_h}, same text {short_help == help_text}")
        tree = re.findall(r"\b(?:docs|build|scripts|tests)/\S*", help_text)
        result(not tree, "help.no_source_tree", f"--help points into the source tree: {tree}")
        rc, out, _ = run([fibtrace, "--version"], cwd=dest)
        result(rc == 0 and out.strip() == f"fibtrace {version}", "version",
               f"{out.strip()!r}, scripts/version.sh says {version!r}")
        rc, every, _ = run([fibtrace, "--help-all"], cwd=dest)
        tree = re.findall(r"\b(?:docs|build|scripts|tests)/\S*", every)
        result(rc == 0 and not tree, "help_all.no_source_tree",
               f"exit {rc}; --help-all points into the source tree: {tree}")
        binary_pointers(fibtrace, root)
        longs, _ = help_options(every)
        statuses = exit_statuses(every)
        result(len(longs) > 50 and 0 in statuses and max(statuses) >= 10, "help.parsed",
               f"{len(longs)} options, statuses {sorted(statuses)}")
        man_page(root, longs, statuses, version)
        completion(root, longs)
        helper(root)
        module_makefile(root)
    flags()
    license_text()


if __name__ == "__main__":
    gtest.run(main)
