#!/usr/bin/env python3
"""What each part of a traced call costs, in instructions (make bench-parts).

    parts.py N READS "PLAN..." KVER DIR [KVER DIR...]

DIR (scripts/bench-parts.sh) holds blocks.txt, the plugin's windows (two
untraced, then one per plan, in order), and per plan NAME.syms (the
guest's /proc/kallsyms while it was attached), NAME.json (fibtrace's
report: the traced functions' exact calls; bpftrace's plans traced the
first plan's functions, and its counts stand for theirs) and NAME.lines (build/bench/
jitlines: where each source line begins in the JIT images).

Each block's instructions go to the symbol that holds its address; a
symbol's instructions in a plan's window less the fewer of the two
untraced windows' (one may have met one-off kernel work),
divided by the traced calls in the window, is what that symbol adds to a
traced call. Symbols are grouped into parts (PARTS below; the first pattern
that matches). Inside the BPF programs each instruction goes to its source
line, and lines to the part of the programs they belong to: a bpf/*.bpf.h
file (stack, call tree, histogram, read record, timeline, counters) or
fibtrace.bpf.c's function. Writes bench/results/parts.json (PARTS_RESULTS:
elsewhere) and prints the table."""
import bisect
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import results_rows  # noqa: E402

USER_END = 1 << 47
# (part, pattern on the symbol, or on "[module]" for a module's symbols)
PARTS = [
    ("fibdrv (must be 0)", r"^\[fibdrv\]"),
    ("user space", r"^\(user\)$"),
    ("BPF programs (JIT)", r"^bpf_prog_"),
    ("attach: fentry/fexit trampoline", r"^(bpf_trampoline_|__bpf_prog_(enter|exit)|__bpf_tramp_|"
     r"bpf_prog_start_time|update_prog_stats)"),
    ("attach: bsearch (kprobe.multi: its cookie's; kprobes: ftrace's records)",
     r"^(bsearch|bpf_kprobe_multi_addrs_cmp|bpf_kprobe_multi_cookie_cmp|bpf_get_attach_cookie|"
     r"ftrace_cmp_recs)"),
    ("attach: ftrace, fprobe, rethook (kprobe.multi; 6.1's kprobes)", r"^(fprobe|rethook|arch_rethook|kprobe_multi|"
     r"bpf_kprobe_multi|ftrace_|__ftrace|arch_ftrace|return_to_handler|hash_contains_ip|"
     r"get_entry_ip|objpool_|freelist_|ftrace_trampoline)"),
    ("attach: kprobe (int3 or optprobe, kretprobe)", r"^(kprobe|kretprobe|__kretprobe|arch_kprobe|"
     r"arch_prepare_kretprobe|pre_handler_kretprobe|opt_pre_handler|optimized_callback|optprobe|"
     r"optimized_kprobe|kprobe_ftrace_handler|kprobe_dispatcher|kretprobe_dispatcher|"
     r"__kprobe|get_kprobe|trace_call_bpf|kprobe_perf_func|kretprobe_perf_func|"
     r"exc_int3|do_int3|poke_int3|kretprobe_trampoline|skip_prefixes|setup_singlestep|"
     r"kprobe_post_process|resume_singlestep|bpf_prog_run_array|perf_trace_buf|aggr_pre_handler|"
     r"aggr_post_handler)"),
    ("running a program (migrate, RCU, indirect call)", r"^(migrate_(disable|enable)$|"
     r"__rcu_read_(lock|unlock)|rcu_read_unlock_strict|rcu_is_watching|__x86_indirect_thunk|"
     r"__x86_return_thunk)"),
    ("clock (bpf_ktime_get_ns)", r"^(bpf_ktime_get_ns|ktime_get_mono_fast_ns|read_tsc|"
     r"native_sched_clock|ktime_get$)"),
    ("task storage", r"^(bpf_task_storage|bpf_local_storage|task_storage|__bpf_task_storage|"
     r"bpf_selem|check_flags|bpf_pid_task_storage)"),
    ("ring buffer (records)", r"^(bpf_ringbuf|__bpf_ringbuf|ringbuf_|irq_work)"),
    ("hash map (the call tree)", r"^(htab_|__htab|lookup_nulls_elem_raw|lookup_elem_raw|memcmp$|"
     r"jhash|alloc_htab_elem|free_htab_elem|pcpu_freelist|__pcpu_freelist|___pcpu_freelist)"),
    ("other map helpers", r"^(bpf_map_|percpu_array|array_map|pcpu_|bpf_mem_|bpf_obj_)"),
    ("process filter", r"^(bpf_get_current_pid_tgid|bpf_get_ns_current_pid_tgid|"
     r"bpf_get_current_task|__task_pid_nr_ns|task_active_pid_ns)"),
]


def load_syms(path):
    """Sorted (address, name) of the code symbols of a /proc/kallsyms."""
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            name = p[2]
            if len(p) > 3 and p[3] not in ("[bpf]", "[__builtin__ftrace]", "[__builtin__kprobes]"):
                name = p[3]  # a module's symbols count as the module
            syms.append((int(p[0], 16), name))
    syms.sort()
    return [a for a, _ in syms], [s for _, s in syms]


def load_windows(path):
    """Per window, in order: ({block address: instructions}, {instruction
    address: executions} for the blocks whose instructions the plugin lists)."""
    windows, cur = [], None
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[0] == "window":
                cur = ({}, {})
                windows.append(cur)
                if p[5] != "0":
                    raise SystemExit(f"parts: {path}: the plugin's table was full ({p[5]} blocks left out)")
                continue
            if p[0] == "user":  # every process's user-space instructions, one counter
                cur[0][0] = int(p[1])
                continue
            a, execs = int(p[0], 16), int(p[2])
            cur[0][a] = cur[0].get(a, 0) + int(p[1]) * execs
            for off in (p[3].split(",") if len(p) > 3 else []):
                cur[1][a + int(off)] = cur[1].get(a + int(off), 0) + execs
    return windows


def load_lines(path):
    """Sorted JIT addresses and their "file:line" (build/bench/jitlines)."""
    recs = []
    with open(path) as f:
        for line in f:
            addr, _prog, where = line.split()
            recs.append((int(addr, 16), where))
    recs.sort()
    return [a for a, _ in recs], [w for _, w in recs]


_functions = {}


def source_part(where):
    """The part of the BPF programs a "file:line" belongs to: a header's
    name (each bpf/*.bpf.h is one part), or fibtrace.bpf.c's function."""
    path, _, line = where.rpartition(":")
    if not path:
        return where  # "(no line)": a program without line info (bpftrace's)
    base = os.path.basename(path)
    if base != "fibtrace.bpf.c":
        return base
    if base not in _functions:
        starts = []
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bpf", base)
        for i, text in enumerate(open(src), 1):
            m = re.match(r"^(?:static\s.*?|int\s.*?)\b(\w+)\(", text) or \
                re.match(r"^\s*SEC\(\"(\w+)", text)
            if m and not text.rstrip().endswith(";") and not m.group(1).isupper():
                starts.append((i, m.group(1)))  # (a macro's name: the SEC before it stands)
        _functions[base] = starts
    name = "top level"
    for start, fn in _functions[base]:
        if start > int(line):
            break
        name = fn
    return f"{base}:{name}()"


def bpf_lines(insns, syms, lines):
    """{"file:line": instructions} of the instructions inside BPF programs."""
    addrs, names = syms
    laddrs, lwhere = lines
    out = {}
    for a, execs in insns.items():
        i = bisect.bisect_right(addrs, a) - 1
        if i < 0 or not names[i].startswith("bpf_prog_"):
            continue
        j = bisect.bisect_right(laddrs, a) - 1
        where = lwhere[j] if j >= 0 and laddrs[j] >= addrs[i] else "(no line)"
        out[where] = out.get(where, 0) + execs
    return out


def by_symbol(window, syms):
    addrs, names = syms
    out = {}
    for a, ins in window.items():
        if a < USER_END:
            name = "(user)"
        else:
            i = bisect.bisect_right(addrs, a) - 1
            name = names[i] if i >= 0 else "(unknown)"
        out[name] = out.get(name, 0) + ins
    return out


def part_of(name):
    for part, pat in PARTS:
        if re.search(pat, name):
            return part
    return "other kernel"


def traced_calls(report_path, reads):
    """Traced calls per read, from fibtrace's exact counts (warm-up round + one)."""
    doc = json.load(open(report_path))
    funcs = {f["name"]: f for f in doc["functions"]}
    seen = funcs["fib_read"]["count"]
    if seen != 2 * reads:
        raise SystemExit(f"parts: {report_path}: fib_read counted {seen}, {2 * reads} reads issued")
    per_read = sum(f["count"] for f in doc["functions"] if f["attach"] != "none") / seen
    modes = sorted({f["attach"] for f in doc["functions"] if f["attach"] != "none"})
    return per_read, modes, len([f for f in doc["functions"] if f["attach"] != "none"])


def kernel_rows(kver, d, n, reads, plans):
    windows = load_windows(os.path.join(d, "blocks.txt"))
    if len(windows) != len(plans) + 2:
        raise SystemExit(f"parts: {d}: {len(windows)} windows for {len(plans)} plans and two untraced")
    syms0 = load_syms(os.path.join(d, plans[0] + ".syms"))
    u1, u2 = by_symbol(windows[0][0], syms0), by_symbol(windows[1][0], syms0)
    base = {s: min(u1.get(s, 0), u2.get(s, 0)) for s in set(u1) | set(u2)}
    windows = windows[1:]  # windows[i + 1]: plan i's
    rows = []
    for i, plan in enumerate(plans):
        # bpftrace's plans traced the first plan's functions: its counts
        report = plan if os.path.exists(os.path.join(d, plan + ".json")) else plans[0]
        per_read, modes, nfuncs = traced_calls(os.path.join(d, report + ".json"), reads)
        if report != plan:
            modes = ["bpftrace"]
        calls = per_read * reads
        syms = load_syms(os.path.join(d, plan + ".syms"))
        here = by_symbol(windows[i + 1][0], syms)
        added = {s: here.get(s, 0) - base.get(s, 0) for s in set(here) | set(base)}
        parts = {}
        for s, v in added.items():
            parts[part_of(s)] = parts.get(part_of(s), 0) + v
        top = sorted(added.items(), key=lambda kv: -abs(kv[1]))[:25]
        lines = bpf_lines(windows[i + 1][1], syms, load_lines(os.path.join(d, plan + ".lines")))
        progs = {}
        for where, v in lines.items():
            progs[source_part(where)] = progs.get(source_part(where), 0) + v
        top_lines = sorted(lines.items(), key=lambda kv: -kv[1])[:20]
        rows.append({
            "kernel": kver, "clock": "instructions", "plan": plan, "attach": modes,
            "n": n, "reads": reads, "functions": nfuncs, "calls_per_read": round(per_read, 2),
            "untraced_per_read": round(sum(base.values()) / reads, 1),
            "added_per_call": round(sum(added.values()) / calls, 1),
            "parts_per_call": {p: round(v / calls, 1) for p, v in sorted(parts.items(), key=lambda kv: -kv[1])},
            "symbols_per_call": {s: round(v / calls, 1) for s, v in top},
            "bpf_parts_per_call": {p: round(v / calls, 1) for p, v in sorted(progs.items(), key=lambda kv: -kv[1])},
            "bpf_lines_per_call": {w: round(v / calls, 1) for w, v in top_lines},
        })
    return rows


def main():
    n, reads, plans = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split()
    args = sys.argv[4:]
    rows = []
    for kver, d in zip(args[::2], args[1::2]):
        rows += kernel_rows(kver, d, n, reads, plans)
    results_rows.write_rows(os.environ.get("PARTS_RESULTS", "bench/results/parts.json"), rows)
    for r in rows:
        print(f"\n{r['kernel']} {r['plan']} ({', '.join(r['attach'])}; {r['functions']} functions, "
              f"{r['calls_per_read']} calls per read of F({n}), untraced read {r['untraced_per_read']:.0f}): "
              f"{r['added_per_call']:.0f} instructions added per traced call")
        for p, v in r["parts_per_call"].items():
            print(f"  {v:9.1f}  {p}")
        print("  top symbols: " + ", ".join(f"{s} {v:.0f}" for s, v in list(r["symbols_per_call"].items())[:12]))
        print("  inside the BPF programs:")
        for p, v in r["bpf_parts_per_call"].items():
            print(f"  {v:9.1f}  {p}")


if __name__ == "__main__":
    main()
