/* SPDX-License-Identifier: GPL-2.0 */
/*
 * discover/: which functions a run traces and how, decided before anything
 * is loaded. The kernel's tables (kallsyms, ftrace's traceable list:
 * ksyms.c, kept between runs by ksyms_cache.c; BTF, indexed by btf_index.c)
 * are read once into a handle for every build; each build's targets then
 * come from the default set (discover.c), -f (funcspec.c) and fibdrv's
 * calibration functions, each given its mode (targets.c) under the attach
 * plan (plan.c), and the small BTF the BPF object relocates against
 * (core_btf.c). Nothing here loads a BPF program: tracer/ does.
 */
#ifndef FIBTRACE_DISCOVER_H
#define FIBTRACE_DISCOVER_H

#include <stdbool.h>

#include "model/run.h"

struct ft_discovery;

/*
 * Reads the kernel's tables once for every build (its BTF, kallsyms,
 * ftrace's list; @symbol_cache: not --no-symbol-cache). 0, or -(exit
 * status) after saying why; *out is ft_discover_close()d either way.
 */
int ft_discover_open(struct ft_discovery **out, bool symbol_cache);
void ft_discover_close(struct ft_discovery *dv);

/*
 * Fills @tg: fib_read and its three stages, _copy_to_user, and with
 * @defaults every bn_/fib_/fibdrv_ function of @module (NULL: fibdrv), the
 * -f list @extra, and with @calibrate fibdrv's calibration functions
 * (tg->ncalib). @force_kprobe: every function on kprobes (the kprobe plan).
 * 0 or -(exit status) after saying why; warnings into @run.
 */
int ft_discover(struct ft_discovery *dv, struct ft_targets *tg, const char *module,
		const char *extra, bool force_kprobe, bool defaults, bool calibrate,
		struct ft_run *run);

#endif
