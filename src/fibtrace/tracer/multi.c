// SPDX-License-Identifier: GPL-2.0
/* The kprobe.multi links: see multi.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "discover/plan.h"
#include "multi.h"

int ft_multi_attach(struct bpf_program *entry, struct bpf_program *exit, struct ft_targets *tg,
		    struct bpf_link *links[2])
{
	int i, n = 0, all = ft_targets_all(tg), e, err = 0;
	unsigned long *addrs = calloc(all, sizeof(*addrs));
	__u64 *cookies = calloc(all, sizeof(*cookies));

	for (i = 0; addrs && cookies && i < all; i++) {
		const struct ft_target *t = &tg->t[i];

		if (t->mode != FT_MODE_MULTI || t->unavailable)
			continue;
		if (!t->addr) {
			fprintf(stderr, "fibtrace: kprobe.multi: no kallsyms address for %s\n",
				t->name);
			err = -ENOENT;
			goto out;
		}
		addrs[n] = t->addr;
		cookies[n++] = t->slot;
	}
	if (!addrs || !cookies) {
		err = -ENOMEM;
		goto out;
	}
	for (e = 0; e < 2 && n; e++) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .addrs = addrs, .cookies = cookies, .cnt = n,
			    .retprobe = e == 1);

		links[e] = bpf_program__attach_kprobe_multi_opts(e ? exit : entry, NULL, &o);
		if (!links[e]) {
			err = -errno;
			fprintf(stderr,
				"fibtrace: attaching the %s link to %d functions failed: %s\n",
				e ? "kretprobe.multi" : "kprobe.multi", n, strerror(-err));
			goto out;
		}
	}
	for (i = 0; i < all; i++)
		if (tg->t[i].mode == FT_MODE_MULTI && !tg->t[i].unavailable)
			tg->t[i].attached = true;
out:
	free(addrs);
	free(cookies);
	return err;
}

/* bpf_link_info of a kprobe.multi link as Linux 6.7+ fills it; the host's uapi header is older. */
struct ft_multi_link_info {
	__u32 type, id, prog_id, pad;
	__u64 addrs;
	__u32 count, flags;
	__u64 missed;
};

static __u64 link_missed(struct bpf_link *link)
{
	struct ft_multi_link_info info = {};
	__u32 len = sizeof(info);

	if (!link || !ft_kernel_at_least(6, 7) ||
	    bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len) ||
	    info.type != BPF_LINK_TYPE_KPROBE_MULTI)
		return 0;
	return info.missed;
}

void ft_multi_collect(struct ft_run *run, struct bpf_link *const links[2])
{
	if (!links[0])
		return;
	run->lost[FT_LOST_KPROBE_MISSED] += link_missed(links[0]);
	run->lost[FT_LOST_KRETPROBE_MISSED] += link_missed(links[1]);
}

/*
 * A kprobe.multi link on a symbol that does not exist: kernels with
 * kprobe.multi refuse the symbol (ESRCH, ENOENT), kernels built without
 * CONFIG_FPROBE refuse the link (EOPNOTSUPP), older kernels the program.
 * Refusing the symbol, the kernel first walks all of its symbols: 0.14 s
 * under emulation on 6.12, 0.23-0.32 s beside a second guest. So the probe
 * runs in a thread while discovery reads the kernel's tables
 * (ft_multi_probe_start), and once per process.
 */
static struct {
	pthread_t th;
	bool running, known, available;
} probe;

static void *probe_multi(void *unused)
{
	static const struct bpf_insn ret0[] = {
		{.code = 0xb7, .dst_reg = 0, .imm = 0}, /* r0 = 0 */
		{.code = 0x95},				/* exit */
	};
	const char *syms[] = {"fibtrace_no_such_function"};
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int prog, link, err;

	(void)unused;
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ft_probe_multi", "GPL", (void *)ret0, 2, &po);
	if (prog >= 0) {
		link = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lo);
		err = link < 0 ? errno : 0;
		if (link >= 0)
			close(link);
		close(prog);
		probe.available = err == ESRCH || err == ENOENT || err == 0;
	}
	probe.known = true;
	return NULL;
}

void ft_multi_probe_start(void)
{
	if (probe.known || probe.running)
		return;
	probe.running = !pthread_create(&probe.th, NULL, probe_multi, NULL);
}

void ft_multi_probe_join(void)
{
	if (probe.running)
		pthread_join(probe.th, NULL);
	probe.running = false;
}

bool ft_multi_available(void)
{
	ft_multi_probe_join();
	if (!probe.known)
		probe_multi(NULL);
	return probe.available;
}
