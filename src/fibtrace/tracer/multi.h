/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprobe.multi plan's two links (plan.h): every function whose mode is
 * FT_MODE_MULTI, by its kallsyms address, its slot as the address's cookie;
 * one link for the entries (ft_multi_entry), one for the returns
 * (ft_multi_exit, kretprobe.multi). The kernel's return instances are a
 * pool of functions x possible CPUs x 2 shared by all of them; it has no
 * maxactive. Misses (entries and returns not probed) are per link, Linux
 * 6.7+ (bpf_link_info.kprobe_multi.missed).
 */
#ifndef FIBTRACE_MULTI_H
#define FIBTRACE_MULTI_H

#include <bpf/libbpf.h>

#include "model/run.h"

/* Attaches both links: 0 or -errno after saying why. */
int ft_multi_attach(struct bpf_program *entry, struct bpf_program *exit, struct ft_targets *tg,
		    struct bpf_link *links[2]);
/* Adds the links' misses to run->lost. */
void ft_multi_collect(struct ft_run *run, struct bpf_link *const links[2]);

/*
 * Whether this kernel attaches kprobe.multi links: a probe link on a
 * symbol that does not exist, which fails either way (how it fails says).
 * ft_multi_probe_start() runs it in a thread while discovery reads the
 * kernel's tables; ft_multi_available() waits for it, or runs it.
 */
void ft_multi_probe_start(void);
void ft_multi_probe_join(void);
bool ft_multi_available(void);

#endif
