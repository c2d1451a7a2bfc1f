// SPDX-License-Identifier: GPL-2.0
/*
 * insprof: a QEMU TCG plugin that counts, from outside the guest, the
 * instructions executed at every code address between two marks a guest
 * program executes: what each part of a traced call costs, in instructions
 * (make bench-parts, scripts/bench-parts.sh, bench/insprof/parts.py).
 *
 *   qemu ... -icount shift=0 -smp 1 -plugin build/bench/insprof.so,out=FILE
 *
 * Every translated block gets an inline counter of its executions, keyed
 * by its start address and length (QEMU may translate a shorter block at
 * the same address to meet an icount deadline). The marks are user-space
 * no-ops with a signature in their displacement, `nopl 0x465450NN(%rax)`
 * (bench/trace_workload.c --mark): NN = 1 begins a window (every counter's
 * value is taken as its base), NN = 2 ends it and appends to FILE
 *
 *   window K instructions TOTAL full BLOCKS_NOT_COUNTED
 *   user INSTRUCTIONS
 *   ADDRESS LENGTH EXECUTIONS [OFFSETS]   (each kernel block executed in it)
 *
 * OFFSETS, for blocks in the module area (modules, BPF programs and
 * trampolines), is each instruction's offset from ADDRESS, comma-separated:
 * a block can span source lines.
 *
 * User space is one counter (its addresses are every process's, and a
 * compiler running in the guest, bpftrace's, translates millions of
 * blocks). One vCPU: the counters are not atomic, and a window should
 * hold one CPU's work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../qemu_plugin_api.h"

PLUGIN_EXPORT int qemu_plugin_version = 1;

#define TABLE_BITS 22 /* 4M kernel blocks: a boot translates a few hundred thousand */
#define TABLE_SIZE (1u << TABLE_BITS)
#define MARK_SIG 0x46545000u /* "FTP" and the mark's code in the low byte */
/* x86-64 module space with nokaslr (BPF's JIT images are allocated there too). */
#define MOD_START 0xffffffffa0000000ULL
#define MOD_END 0xffffffffff000000ULL
#define USER_END 0x0000800000000000ULL

struct block {
	uint64_t addr, execs, base;
	uint32_t len, used;
	uint16_t *offs; /* module area: each instruction's offset from addr */
};

static struct block *table;
static uint64_t user, user_base; /* instructions executed in user space */
static uint32_t nblocks, windows, full;
static int in_window;
static char out_path[4096];

static struct block *block_for(uint64_t addr, uint32_t len)
{
	uint64_t h = (addr ^ ((uint64_t)len << 48)) * 0x9e3779b97f4a7c15ull;
	uint32_t i = (uint32_t)(h >> (64 - TABLE_BITS)), probes;

	for (probes = 0; probes < TABLE_SIZE; probes++, i = (i + 1) & (TABLE_SIZE - 1)) {
		struct block *b = &table[i];

		if (!b->used) {
			if (nblocks + 1 >= TABLE_SIZE / 2)
				return NULL; /* keep the table at most half full */
			*b = (struct block){.addr = addr, .len = len, .used = 1};
			nblocks++;
			return b;
		}
		if (b->addr == addr && b->len == len)
			return b;
	}
	return NULL;
}

static void window_begin(void)
{
	uint32_t i;

	for (i = 0; i < TABLE_SIZE; i++)
		table[i].base = table[i].execs;
	user_base = user;
	in_window = 1;
}

static void window_end(void)
{
	FILE *f;
	uint64_t total = 0;
	uint32_t i;

	if (!in_window)
		return;
	in_window = 0;
	for (i = 0; i < TABLE_SIZE; i++)
		total += (table[i].execs - table[i].base) * table[i].len;
	f = fopen(out_path, "a");
	if (!f) {
		fprintf(stderr, "insprof: cannot write %s\n", out_path);
		return;
	}
	total += user - user_base;
	fprintf(f, "window %u instructions %llu full %u\nuser %llu\n", windows++,
		(unsigned long long)total, full, (unsigned long long)(user - user_base));
	for (i = 0; i < TABLE_SIZE; i++) {
		const struct block *b = &table[i];

		uint32_t k;

		if (b->execs == b->base)
			continue;
		fprintf(f, "%llx %u %llu", (unsigned long long)b->addr, b->len,
			(unsigned long long)(b->execs - b->base));
		for (k = 0; b->offs && k < b->len; k++)
			fprintf(f, "%c%u", k ? ',' : ' ', b->offs[k]);
		fputc('\n', f);
	}
	fclose(f);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if ((uintptr_t)udata == 1)
		window_begin();
	else
		window_end();
}

/* nopl disp32(%rax): 0f 1f 80 and a displacement carrying MARK_SIG. */
static int mark_code(const uint8_t *b, size_t n)
{
	uint32_t disp;

	if (n != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return 0;
	disp = (uint32_t)b[3] | (uint32_t)b[4] << 8 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 24;
	if ((disp & ~0xffu) != MARK_SIG)
		return 0;
	return (int)(disp & 0xff);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct block *b = NULL;

	(void)id;
	if (addr < USER_END)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &user, n);
	else
		b = block_for(addr, (uint32_t)n);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs,
							 1);
	else if (addr >= USER_END)
		full++; /* a kernel block the table had no room for */
	if (b && !b->offs && b->addr >= MOD_START && b->addr < MOD_END)
		b->offs = calloc(n, sizeof(*b->offs));
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int code = mark_code(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));

		if (b && b->offs)
			b->offs[i] = (uint16_t)(qemu_plugin_insn_vaddr(insn) - b->addr);

		if (code == 1 || code == 2)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)code);
	}
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
				      char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
	if (!out_path[0]) {
		fprintf(stderr, "insprof: needs out=FILE\n");
		return -1;
	}
	table = calloc(TABLE_SIZE, sizeof(*table));
	if (!table) {
		fprintf(stderr, "insprof: no memory for %u blocks\n", TABLE_SIZE);
		return -1;
	}
	unlink(out_path);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
