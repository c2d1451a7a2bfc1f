/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types the BPF object's CO-RE relocations name, and only those,
 * copied from the kernel's BTF into a small BTF that libbpf relocates
 * against (bpf_object_open_opts.btf_custom_path), as bpftool's
 * `gen min_core_btf` (BTFGen) does for kernels without BTF.
 *
 * Why: without it libbpf parses /sys/kernel/btf/vmlinux a second time at
 * load (discovery has parsed it already), scans its ~100,000 types once per
 * relocated struct, and loads every module's BTF to find fibdrv's struct:
 * about 0.45 s of each start-up in the guests under emulation (6.1:
 * parse 0.28-0.37 s, four name scans 0.14-0.20 s), for five structs.
 * Programs whose type libbpf resolves through the kernel's BTF anyway
 * (fentry/fexit, tp_btf) still make it load that BTF; the kprobe and
 * kprobe.multi plans (auto's choice) then do not.
 *
 * What is copied: each struct of the table in core_btf.c with the members
 * named there, at their offsets in this kernel, each member an integer of
 * its size or a pointer (what CO-RE compares for a field's offset); a
 * struct or member the kernel lacks is left out, so a relocation against it
 * fails (or bpf_core_type_exists() says 0) as it would against the whole
 * BTF. The table must name every struct and member the object relocates:
 * `make check-core` (part of `make unit`) compares it with what bpftool
 * finds in build/fibtrace.bpf.o.
 */
#ifndef FIBTRACE_CORE_BTF_H
#define FIBTRACE_CORE_BTF_H

#include <bpf/btf.h>

/*
 * The minimal BTF for @vmlinux and @module (fibdrv's split BTF, or NULL):
 * raw BTF bytes (malloc'd, *@size of them), or NULL when it cannot be made
 * (libbpf then relocates against the kernel's BTF, as before).
 */
void *ft_core_btf_build(const struct btf *vmlinux, const struct btf *module, __u32 *size);

/* @raw in a memfd, for btf_custom_path as /proc/self/fd/<fd>: the fd, or -1. */
int ft_core_btf_open(const void *raw, __u32 size);

#endif
