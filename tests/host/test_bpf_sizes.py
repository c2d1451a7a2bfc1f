#!/usr/bin/python3
"""What fibtrace allocates per traced task, from the BPF object's BTF (make unit).

Every task that enters a traced function gets a struct ft_task in BPF task
storage, allocated from the probe (GFP_ATOMIC): a run watching every reader
of the world-readable device gives that much to each of them, so it holds
only the read's figures (issue 50: at most a few hundred bytes). The call
stack (struct ft_stack, 7.6 KB) comes from a pool allocated at load (an
array map) and goes back when the task's outermost call returns. The -e
counters' state (struct ft_task_cnt, 13 KB) lives in a map of its own,
allocated only when counting. Prints PASS/FAIL lines for tests/run.sh.
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

TASK_MAX = 256  # bytes of struct ft_task: the read's state, the depth, which stack it holds


def main():
    bpftool = os.environ.get("BPFTOOL") or shutil.which("bpftool") or "/usr/sbin/bpftool"
    out = subprocess.run([bpftool, "btf", "dump", "file", OBJ, "format", "raw"],
                         capture_output=True, text=True, timeout=60).stdout
    size = {m.group(1): int(m.group(2))
            for m in re.finditer(r"STRUCT '(\w+)' size=(\d+)", out)}
    task, cnt, stack = size.get("ft_task"), size.get("ft_task_cnt"), size.get("ft_stack")
    gtest.check("host/bpf.task_storage.per_task", task is not None and task <= TASK_MAX,
                f"struct ft_task {task} bytes (at most {TASK_MAX})")
    gtest.check("host/bpf.task_storage.stack_pooled", stack is not None and stack > 64 * 80,
                f"struct ft_stack {stack} bytes: 64 frames, in the pool")
    gtest.check("host/bpf.task_storage.counters_apart", cnt is not None and cnt > 8 * 1024,
                f"struct ft_task_cnt {cnt} bytes, allocated only with -e")
    print(f"# per traced task: {task} bytes, and {cnt} more with -e; "
          f"per task inside traced calls, from the pool: {stack} bytes")


if __name__ == "__main__":
    gtest.run(main)
