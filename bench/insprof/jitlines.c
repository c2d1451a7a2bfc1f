// SPDX-License-Identifier: GPL-2.0
/*
 * jitlines: where each source line of every loaded BPF program begins in
 * its JIT image (the kernel's jited_line_info), so that make bench-parts
 * can charge the instructions the plugin counted inside a program to the
 * lines of the BPF sources (bpf/) they came from. One line per record:
 *
 *   ADDRESS PROGRAM FILE:LINE
 *
 * Runs in the guest, as root, while the tracer is attached. Programs
 * without line info (bpftrace's: no BTF) print nothing. Exit status 0, or 1
 * when no program could be read at all.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#define MAX_RECS 65536

static struct bpf_line_info lines[MAX_RECS];
static uint64_t jited[MAX_RECS];

/* The program's records; 0, or -1 when it has none (no BTF, not JITed). */
static int print_prog(int fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), nlines, njited, i;
	struct btf *btf;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	nlines = info.nr_line_info;
	njited = info.nr_jited_line_info;
	if (!nlines || nlines != njited || nlines > MAX_RECS || !info.btf_id)
		return -1;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = nlines;
	info.line_info_rec_size = sizeof(lines[0]);
	info.line_info = (uintptr_t)lines;
	info.nr_jited_line_info = njited;
	info.jited_line_info_rec_size = sizeof(jited[0]);
	info.jited_line_info = (uintptr_t)jited;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return -1;
	for (i = 0; i < nlines; i++) {
		const char *file = btf__name_by_offset(btf, lines[i].file_name_off);

		printf("%llx %s %s:%u\n", (unsigned long long)jited[i], info.name,
		       file ? file : "?", BPF_LINE_INFO_LINE_NUM(lines[i].line_col));
	}
	btf__free(btf);
	return 0;
}

int main(void)
{
	uint32_t id = 0;
	int opened = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		opened++;
		print_prog(fd);
		close(fd);
	}
	if (!opened) {
		fprintf(stderr, "jitlines: no BPF program could be read: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
