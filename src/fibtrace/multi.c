// SPDX-License-Identifier: GPL-2.0
/* The kprobe.multi links: see multi.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "multi.h"
#include "plan.h"

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
