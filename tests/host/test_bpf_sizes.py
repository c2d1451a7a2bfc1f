#!/usr/bin/python3
"""What fibtrace allocates per traced task, from the BPF object's BTF (make unit).

Every task that enters a traced function gets a struct ft_task in BPF task
storage, allocated from the probe (GFP_ATOMIC): a run watching every reader
of the world-readable device gives that much to each of them. The -e
counters' state (struct ft_task_cnt, 13 KB) lives in a map of its own,
allocated only when counting (issue 50). Prints PASS/FAIL lines for
tests/run.sh.
"""
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OBJ = os.path.join(TOP, "build", "fibtrace.bpf.o")
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402

TASK_MAX = 8 * 1024  # bytes of struct ft_task: the call stack (64 frames) and the read's state


def main():
    bpftool = os.environ.get("BPFTOOL") or shutil.which("bpftool") or "/usr/sbin/bpftool"
    out = subprocess.run([bpftool, "btf", "dump", "file", OBJ, "format", "raw"],
                         capture_output=True, text=True, timeout=60).stdout
    size = {m.group(1): int(m.group(2))
            for m in re.finditer(r"STRUCT '(\w+)' size=(\d+)", out)}
    task, cnt = size.get("ft_task"), size.get("ft_task_cnt")
    gtest.check("host/bpf.task_storage.per_task", task is not None and task <= TASK_MAX,
                f"struct ft_task {task} bytes (at most {TASK_MAX})")
    gtest.check("host/bpf.task_storage.counters_apart", cnt is not None and cnt > 8 * 1024,
                f"struct ft_task_cnt {cnt} bytes, allocated only with -e")
    print(f"# per traced task: {task} bytes, and {cnt} more with -e")


if __name__ == "__main__":
    gtest.run(main)
