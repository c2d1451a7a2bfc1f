#!/usr/bin/python3
"""--user's refusals, on the host (no kernel, no BPF).

--user USER runs fibtrace's helpers and -- CMD, and creates its files, as
USER (src/lib/helper.c: helper_set_user). What is no user to act for is a
usage error (exit 2) with the exact first line below, before anything runs:
an unknown name, a uid past 2^32 - 2, a uid without a passwd entry, an empty
value, and --user from anyone but root. Each run also asks for an unknown
algorithm under --cachesim, a usage error of its own with another message,
so nothing here can reach BPF, and a --user check that let a value through
shows as that other message. Prints PASS/FAIL/SKIP lines for tests/run.sh.
"""
import os
import pwd
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIBTRACE = os.path.join(TOP, "build", "fibtrace")
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402

EARLY_FAIL = ["--cachesim", "--sweep", "10:20", "--algo", "bn-nope"]
WANT = "want a user name or a uid (0..4294967294)"


def free_uid():
    """A uid with no passwd entry."""
    uid = 12345
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


def as_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def run(name, user, first, preexec=None):
    """--user USER: exit 2, the first line of stderr @first (or starting so, with "...")."""
    try:
        p = subprocess.run([FIBTRACE, "--user", user, *EARLY_FAIL], capture_output=True,
                           text=True, timeout=60, preexec_fn=preexec)
    except PermissionError as e:  # build/ out of nobody's reach (a 0700 home, say)
        gtest.skip(f"host/user.{name}", f"cannot run {FIBTRACE} as nobody: {e}")
        return
    line = p.stderr.splitlines()[0] if p.stderr else ""
    same = line.startswith(first[:-3]) if first.endswith("...") else line == first
    gtest.check(f"host/user.{name}", p.returncode == 2 and same and not p.stdout,
                f"exit {p.returncode}, stderr {p.stderr[:300]!r}")


def main():
    if not os.access(FIBTRACE, os.X_OK):
        gtest.fail("host/user.build", f"{FIBTRACE} missing (make)")
        return
    if os.getuid() != 0:
        run("needs_root", "65534",
            "fibtrace: --user needs root: only root can run programs as another user")
        gtest.skip("host/user.values", "not root (--user's values are checked as root)")
        return
    uid = free_uid()
    cases = [
        ("unknown_name", "ft-no-such-user", "fibtrace: --user 'ft-no-such-user': no such user"),
        ("uid_past_2_32_2", "4294967295", f"fibtrace: --user '4294967295': {WANT}"),
        ("uid_past_64_bits", "18446744073709551617",
         f"fibtrace: --user '18446744073709551617': {WANT}"),
        ("empty", "", f"fibtrace: --user '': {WANT}"),
        ("uid_without_entry", str(uid),
         f"fibtrace: --user '{uid}': uid {uid} has no passwd entry (no name, group or home to "
         "run programs with: add the user, or name one)"),
    ]
    for name, user, first in cases:
        run(name, user, first)
    run("needs_root", "65534",
        "fibtrace: --user needs root: only root can run programs as another user", as_nobody)
    # A valid --user passes on to the next check: the unknown algorithm.
    run("valid_passes", "65534", "fibtrace: --cachesim: unknown algorithm 'bn-nope'...")

if __name__ == "__main__":
    gtest.run(main)
