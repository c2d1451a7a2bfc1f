#!/usr/bin/python3
"""Page-fault client for tests/guest/test_fibtrace_counters.py.

  pagefault_client.py FRESH TOUCHED

Maps FRESH + TOUCHED anonymous private pages, writes one byte into each of the
last TOUCHED pages, then reads F(n) for n = 0 .. FRESH + TOUCHED - 1, read i
into the start of page i (readv on a view of the mapping: Python does not
touch the page). So reads n < FRESH each fault exactly one page in, inside
fibdrv's copy to user space, and reads n >= FRESH fault none. Checks every
result against Python's F(n); prints to stderr only (stdout belongs to
fibtrace's report) and exits 1 on a wrong result.
"""
import mmap
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gtest import fib  # noqa: E402


def main():
    fresh, touched = int(sys.argv[1]), int(sys.argv[2])
    page = mmap.PAGESIZE
    total = fresh + touched
    mm = mmap.mmap(-1, total * page, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                   prot=mmap.PROT_READ | mmap.PROT_WRITE)
    mm.madvise(mmap.MADV_NOHUGEPAGE)  # one fault, one 4 KiB page
    for i in range(fresh, total):
        mm[i * page] = 1  # a write: the page is present and writable
    view = memoryview(mm)
    fd = os.open("/dev/fibonacci", os.O_RDONLY)
    got = []
    for n in range(total):
        os.lseek(fd, n, os.SEEK_SET)
        got.append(os.readv(fd, [view[n * page:(n + 1) * page]]))
    os.close(fd)
    bad = [n for n in range(total)
           if bytes(view[n * page:n * page + got[n]]) != str(fib(n)).encode()]
    print(f"pagefault_client: {total} reads ({fresh} into untouched pages), "
          f"{len(bad)} wrong", file=sys.stderr)
    view.release()
    mm.close()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
