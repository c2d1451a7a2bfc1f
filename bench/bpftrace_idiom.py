"""bpftrace's usual idiom, and two floors, for the functions fibtrace traced:
one definition for make bench-trace (scripts/bench-trace.sh) and make
bench-parts (scripts/bench-parts.sh)."""


def script(slots, floor=None, pid=None):
    """The usual bpftrace idiom per function: entry stores nsecs by tid, exit
    does hist(nsecs - start) and deletes it. fentry functions use kfunc
    probes (module:function), kprobe ones (too many arguments for a
    trampoline) kprobes, as fibtrace does. The first probe is a sentinel that
    bpftrace attaches last (it attaches in reverse order): when it fires,
    every other probe is attached. (bpftrace 0.17 warns that the syscall
    wrapper is not traceable, then attaches to it all the same.) @pid: only
    that process's getppid fires the sentinel.

    @slots: fibtrace's functions as {"mode", "module", "name"} (its JSON's
    "attach", "module" less "vmlinux", "name"); @floor: None, "empty" (what
    attaching costs with nothing done) or "clock" (the clock, summed per
    CPU). Returns the script and its probe counts by kind."""
    only = f" /pid == {pid}/" if pid else ""
    lines = [f"kprobe:__x64_sys_getppid{only} "
             "{ printf(\"bench-trace: attached\\n\"); }"]
    probes = {"fentry": 0, "kprobe": 0}
    for s in slots:
        if s["mode"] == "none":
            continue
        fn = s["name"]
        mode = "fentry" if s["mode"] == "kprobe.multi" else s["mode"]  # every one has BTF here
        if mode == "fentry":
            where = f"{s['module']}:{fn}" if s["module"] else fn
            entry, exit_ = f"kfunc:{where}", f"kretfunc:{where}"
        else:
            entry, exit_ = f"kprobe:{fn}", f"kretprobe:{fn}"
        probes[mode] += 1
        if floor == "empty":  # what attaching costs with nothing done
            lines += [f"{entry} {{ }}", f"{exit_} {{ }}"]
        elif floor == "clock":  # the cheapest timing: the clock, summed per CPU (no key)
            lines += [f"{entry} {{ @in = sum(nsecs); }}", f"{exit_} {{ @out = sum(nsecs); }}"]
        else:
            lines.append(f"{entry} {{ @start_{fn}[tid] = nsecs; }}")
            lines.append(f"{exit_} /@start_{fn}[tid]/ {{ @ns_{fn} = hist(nsecs - @start_{fn}[tid]);"
                         f" delete(@start_{fn}[tid]); }}")
    return "\n".join(lines) + "\n", probes
