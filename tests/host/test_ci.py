#!/usr/bin/python3
"""The GitHub workflows (.github/workflows/*.yml), checked and run here as far
as they can be without GitHub.

- actionlint on every workflow (SKIP, saying how to get it, when it is not
  installed).
- Rules (docs/ci.md): no ${{ }} expression inside a run: line (data goes
  through env:), no pull_request_target, no self-hosted runner, no sudo,
  read-only token, every job in a debian:bookworm container with /dev/kvm.
- Every run: step is classified below; a step that is not fails the test, so
  a new step cannot go unchecked. Those that can run here run with bash as
  GitHub runs them (bash -e -o pipefail), with the job's env:
  `user` steps as an unprivileged user (nobody: make deps cannot install
  as nobody, so it passes only when everything is there), `local` steps as
  they are, `dry` steps under make -n (make test and the gate boot guests
  for many minutes: make test itself is their test), `verdict` with a made-up
  gate result of each kind. `root` steps (they install, add a user or change
  a device in the container) are not run.
Prints PASS/FAIL/SKIP lines.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402

WORKFLOWS = sorted(glob.glob(os.path.join(TOP, ".github", "workflows", "*.yml")))
# (workflow, step name) -> how this test runs it.
STEPS = {
    ("test", "Install git, keep apt's downloads"): "root",
    ("test", "A user for the tests, owning the checkout"): "root",
    ("test", "Install what make test needs (make deps, root)"): "user",
    ("test", "KVM for the test user"): "root",
    ("test", "make deps as the test user (returns at once)"): "user",
    ("test", "Build (-Werror)"): "local",
    ("test", "make test"): "dry",
    ("perf-gate", "Install git, keep apt's downloads"): "root",
    ("perf-gate", "A user for the gate, owning the checkout"): "root",
    ("perf-gate", "Install what the gate needs (root)"): "user",
    ("perf-gate", "KVM for the gate's user"): "root",
    ("perf-gate", "Performance gate against the target branch"): "dry",
    ("perf-gate", "Verdict"): "verdict",
}


def result(ok, name, detail=""):
    return gtest.check(f"host/ci.{name}", ok, detail)


def skip(name, why):
    gtest.skip(f"host/ci.{name}", why)


def actionlint():
    exe = shutil.which("actionlint") or next(
        (p for p in (os.path.expanduser("~/go/bin/actionlint"),
                     os.path.join(os.environ.get("GOPATH", "/nonexistent"), "bin/actionlint"))
         if os.access(p, os.X_OK)), None)
    if not exe:
        skip("actionlint", "actionlint is not installed (go install "
             "github.com/rhysd/actionlint/cmd/actionlint@latest)")
        return
    p = subprocess.run([exe, *WORKFLOWS], cwd=TOP, capture_output=True, text=True, timeout=120)
    result(p.returncode == 0, "actionlint", (p.stdout + p.stderr).strip()[-600:])


def rules(name, doc):
    on = doc.get("on", doc.get(True, {}))  # YAML 1.1 reads a bare "on" as true
    result("pull_request_target" not in on, f"{name}.no_pull_request_target", str(on))
    result(doc.get("permissions") == {"contents": "read"}, f"{name}.read_only_token",
           str(doc.get("permissions")))
    for jname, job in doc["jobs"].items():
        runs_on = str(job.get("runs-on"))
        cont = job.get("container", {})
        result("self-hosted" not in runs_on and runs_on.startswith("ubuntu-"),
               f"{name}.{jname}.hosted", runs_on)
        result(cont.get("image") == "debian:bookworm" and "--device /dev/kvm" in
               cont.get("options", ""), f"{name}.{jname}.container", str(cont))
        runs = [s["run"] for s in job["steps"] if "run" in s]
        expr = [r for r in runs if "${{" in r]
        result(not expr, f"{name}.{jname}.no_expressions_in_run", str(expr)[:300])
        sudo = [r for r in runs if re.search(r"\bsudo\b", r)]
        result(not sudo, f"{name}.{jname}.no_sudo", str(sudo)[:300])


def as_nobody(cmd):
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + cmd


def bash(script, env, cwd=TOP, nobody=False, timeout=900):
    cmd = ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script]
    p = subprocess.run(as_nobody(cmd) if nobody else cmd, cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def verdict(script, env, key):
    """The verdict step on a made-up gate result: 0 (summary only), 8 (an error line)."""
    for status, want_error in (("0", False), ("8", True)):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(f"{d}/build/perf-gate")
            text = f"perf-gate: {'REGRESSION' if want_error else 'PASS'} (made up by test_ci)"
            for f, v in (("verdict.txt", text), ("status", status), ("result.txt", "table")):
                with open(f"{d}/build/perf-gate/{f}", "w") as fh:
                    fh.write(v + "\n")
            summary = f"{d}/summary"
            rc, out = bash(script, dict(env, GITHUB_STEP_SUMMARY=summary), cwd=d)
            got = open(summary).read() if os.path.exists(summary) else ""
            ok = (rc == 0 and text in got and "table" in got and
                  ("::error::" in out) == want_error)
            result(ok, f"{key}.status{status}", f"exit {rc}, output {out!r}, summary {got!r}")


def steps(name, doc):
    for jname, job in doc["jobs"].items():
        for step in job["steps"]:
            if "run" not in step:
                continue
            sname = step.get("name", "")
            key = f"{name}.{jname}.step." + re.sub(r"[^a-z0-9]+", "_", sname.lower()).strip("_")
            mode = STEPS.get((name, sname))
            if not result(mode is not None, f"{key}.classified",
                          "a run: step tests/host/test_ci.py does not know: add it to STEPS"):
                continue
            env = dict(os.environ, **{k: str(v) for k, v in job.get("env", {}).items()
                                      if "${{" not in str(v)}, GITHUB_WORKSPACE=TOP,
                       BASE_REF="main")
            env["AS_USER"] = ""  # the job's user: nobody here where it matters (user steps)
            script = step["run"]
            if mode == "root":
                skip(key, "installs, adds a user or changes a device: root in the CI container only")
            elif mode == "user":
                rc, out = bash(script, env, nobody=True)
                result(rc == 0, key, f"as nobody: exit {rc}: {out.strip()[-300:]}")
            elif mode == "local":
                rc, out = bash(script, env)
                result(rc == 0, key, f"exit {rc}: {out.strip()[-300:]}")
            elif mode == "dry":
                rc, out = bash(script, dict(env, MAKEFLAGS="n"))
                result(rc == 0 and out.strip() != "", key, f"make -n: exit {rc}: {out.strip()[-300:]}")
            elif mode == "verdict":
                verdict(script, env, key)


def main():
    try:
        import yaml
    except ImportError:
        skip("workflows", "python3-yaml is not installed (make deps installs it)")
        actionlint()
        return
    result(len(WORKFLOWS) >= 2, "workflows", str(WORKFLOWS))
    actionlint()
    for path in WORKFLOWS:
        name = os.path.basename(path)[:-4]
        with open(path) as f:
            doc = yaml.safe_load(f)
        rules(name, doc)
        steps(name, doc)
    gate = open(os.path.join(TOP, ".github/workflows/perf-gate.yml")).read()
    result("--for gate" in gate and "inferno" not in gate, "perf-gate.only_what_it_needs",
           "the gate job installs the gate profile only, without inferno")


if __name__ == "__main__":
    gtest.run(main)
