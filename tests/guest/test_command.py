#!/usr/bin/python3
"""fibtrace -- CMD in the guest: who the command runs as, and how it ends
(issue 50). Under sudo (SUDO_UID/SUDO_GID) it runs as that user, --user
names one (over sudo's too), --as-root keeps root, a SUDO_UID that is no user is refused. A command that ignores
SIGTERM, with a background child that does too: SIGTERM to its process
group, then SIGKILL to the whole group 5 s (FT_CHILD_GRACE_S) after the
probes are gone, with -d and with -i; a second SIGINT during that wait ends
it at once. Nothing of the command is left. Runs as root with fibdrv loaded.
"""
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import check  # noqa: E402

FIBTRACE = os.path.abspath("build/fibtrace")
GRACE = 5.0  # FT_CHILD_GRACE_S in src/fibtrace/session/watch.h
# sh and a background sleep, both ignoring SIGTERM (ignored dispositions are inherited)
STUBBORN = ["--", "/bin/sh", "-c", "trap '' TERM; sleep 601 & exec sleep 602"]


def left():
    """The stubborn command's processes still alive (their pids)."""
    p = subprocess.run(["pgrep", "-f", "^sleep 60[12]$"], capture_output=True, text=True)
    return p.stdout.split()


def identity():
    env = dict(os.environ, SUDO_UID="65534", SUDO_GID="65534")
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o1777)
        for name, extra, uid in (("command.as_invoker", [], 65534),
                                 ("command.as_root", ["--as-root"], 0)):
            mark = os.path.join(d, name)
            p = subprocess.run([FIBTRACE, "--no-discover"] + extra + ["--", "/usr/bin/touch", mark],
                               env=env, capture_output=True, text=True, timeout=300)
            st = os.stat(mark) if os.path.exists(mark) else None
            check(name, p.returncode == 0 and st is not None and st.st_uid == uid and
                  st.st_gid == uid, f"exit {p.returncode}, owner "
                  f"{(st.st_uid, st.st_gid) if st else None}: {p.stderr.strip()[-200:]}")
    # --user: root without sudo names the user; over SUDO_UID too.
    plain = {k: v for k, v in os.environ.items() if not k.startswith("SUDO_")}
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o1777)
        for name, extra, e in (("command.user_nobody", ["--user", "nobody"], plain),
                               ("command.user_over_sudo", ["--user", "65534"],
                                dict(plain, SUDO_UID="0", SUDO_GID="0"))):
            mark = os.path.join(d, name)
            p = subprocess.run([FIBTRACE, "--no-discover"] + extra + ["--", "/usr/bin/touch", mark],
                               env=e, capture_output=True, text=True, timeout=300)
            st = os.stat(mark) if os.path.exists(mark) else None
            check(name, p.returncode == 0 and st is not None and st.st_uid == 65534,
                  f"exit {p.returncode}, owner {(st.st_uid, st.st_gid) if st else None}: "
                  f"{p.stderr.strip()[-200:]}")
    p = subprocess.run([FIBTRACE, "--no-discover", "--", "/usr/bin/true"],
                       env=dict(os.environ, SUDO_UID="root", SUDO_GID="0"),
                       capture_output=True, text=True, timeout=300)
    check("command.bad_sudo_uid", p.returncode == 7 and "SUDO_UID" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}")


def stubborn(args, interrupt):
    """fibtrace ARGS -- the stubborn command; stderr read as it comes. Its exit
    status, the seconds from the probes' detach (or, with -i, the run's end)
    to fibtrace's exit, and stderr. With @interrupt: SIGINT once the detach
    is said (the wait has begun), and the seconds counted from it."""
    p = subprocess.Popen([FIBTRACE, "--no-discover"] + args + STUBBORN,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stderr, selectors.EVENT_READ)
    err, mark, t0 = b"", None, time.monotonic()
    while time.monotonic() - t0 < 600:
        if sel.select(timeout=0.1):
            chunk = os.read(p.stderr.fileno(), 65536)
            if not chunk:
                break
            err += chunk
        if mark is None and b"probes detached in" in err:
            mark = time.monotonic()
            if interrupt:
                time.sleep(0.5)
                mark = time.monotonic()
                p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=60)
    secs = time.monotonic() - (mark if mark is not None else t0)
    gone = not left()
    text = err.decode(errors="replace")
    return rc, secs, gone, text


def ending():
    # -d: the text report, then "probes detached in", then the wait: SIGKILL after GRACE.
    rc, secs, gone, err = stubborn(["-d", "1"], False)
    check("command.ignores_term.bounded",
          rc == 0 and GRACE - 0.5 <= secs < GRACE + 5 and gone and
          "ignored SIGTERM for 5 s: SIGKILL" in err,
          f"exit {rc}, {secs:.1f} s after the detach, left {left()}: {err.strip()[-300:]}")
    # -i: the tracers detach in the one cleanup path, before the wait.
    t0 = time.monotonic()
    rc, _, gone, err = stubborn(["-i", "1", "-d", "2"], False)
    secs = time.monotonic() - t0
    check("command.ignores_term.interval", rc == 0 and secs < 120 and gone and
          "SIGKILL" in err, f"exit {rc} after {secs:.1f} s, left {left()}: {err.strip()[-300:]}")
    # A second Ctrl-C during the wait: SIGKILL at once, no 5 s.
    rc, secs, gone, err = stubborn(["-d", "1"], True)
    check("command.second_interrupt", secs < 2.5 and gone and
          "interrupted again: SIGKILL to the command" in err,
          f"exit {rc}, {secs:.1f} s after SIGINT, left {left()}: {err.strip()[-300:]}")
    for pid in left():  # a failed check above leaves nothing for the next test
        os.kill(int(pid), signal.SIGKILL)


def main():
    identity()
    ending()


if __name__ == "__main__":
    gtest.run(main)
