// SPDX-License-Identifier: GPL-2.0
/*
 * fncount: a QEMU TCG plugin that counts, from outside the guest and
 * without a probe in it, the instructions each of a kernel module's
 * functions executes per call: the independent figure fibtrace's
 * compensated times are checked against (make bench-fncount,
 * scripts/bench-fncount.sh, docs/measurement.md).
 *
 *   qemu ... -icount shift=0 -smp 1 \
 *     -plugin build/bench/fncount.so,syms=FILE,out=FILE
 *
 * Every instruction the guest executes adds 1 to a counter (an inline
 * add: the plugin's own code runs only at module code's block starts and
 * calls). In the module area, each call instruction records its return
 * address; a traced function's entry reached through such a call opens a
 * frame with the counter and that address; the first instruction executed
 * at the address closes it. An entry reached by a jump from inside a frame
 * (a tail call) opens a frame that returns with the one below it, as the
 * probes see it: a child of the function that jumped. A frame's count is inclusive, as an untraced
 * call's time is under the instruction clock (callees, interrupts taken
 * inside and all); self = inclusive minus the frames opened inside it, as
 * fibtrace's self time is total minus its traced callees'.
 *
 * FILE (syms) lists "ADDRESS NAME" per traced function, written by the
 * guest once the module is loaded; the plugin looks for it as the module's
 * code runs and starts counting when it appears (earlier calls are not
 * counted). One vCPU: with icount, vCPUs take turns in one thread, and the
 * counter would add another vCPU's instructions to a frame. Calls from the
 * kernel into the module (fib_read from vfs_read) are not counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../qemu_plugin_api.h"

PLUGIN_EXPORT int qemu_plugin_version = 1;

/* x86-64 module space with nokaslr: above the kernel image's 1 GiB + 512 MiB. */
#define MOD_START 0xffffffffa0000000ULL
#define MOD_END 0xffffffffff000000ULL
#define MAX_FUNCS 1024
#define MAX_DEPTH 256

struct func {
	uint64_t addr;
	char name[64];
	uint64_t calls, incl, self;
};

struct frame {
	int f, tail; /* tail: entered by a jump from the frame below, returns with it */
	uint64_t start, child, ret;
};

static uint64_t icount; /* every instruction executed (inline adds) */
static struct func funcs[MAX_FUNCS];
static int nfuncs, loaded, depth, overflow, polls;
static struct frame stack[MAX_DEPTH];
static uint64_t pending, unmatched;
static char syms_path[4096], out_path[4096];

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The syms file, once it is there: 1 when loaded. */
static int load_syms(void)
{
	FILE *f = fopen(syms_path, "r");
	unsigned long long addr;
	char name[64];

	if (!f)
		return 0;
	while (nfuncs < MAX_FUNCS && fscanf(f, "%llx %63s", &addr, name) == 2) {
		funcs[nfuncs].addr = addr;
		snprintf(funcs[nfuncs].name, sizeof(funcs[nfuncs].name), "%s", name);
		nfuncs++;
	}
	fclose(f);
	qsort(funcs, nfuncs, sizeof(funcs[0]), cmp_func);
	depth = 0;
	pending = 0;
	return 1;
}

static int find_func(uint64_t addr)
{
	int lo = 0, hi = nfuncs - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (funcs[mid].addr == addr)
			return mid;
		if (funcs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The top frame returned, and with it the frames it jumped from (tail calls). */
static void close_frames(void)
{
	int tail;

	do {
		struct frame *fr = &stack[--depth];
		uint64_t incl = icount - fr->start;

		tail = fr->tail;
		funcs[fr->f].calls++;
		funcs[fr->f].incl += incl;
		funcs[fr->f].self += incl - fr->child;
		if (depth)
			stack[depth - 1].child += incl;
	} while (tail && depth);
}

/* A call in module code: where it returns to. */
static void on_call(unsigned int vcpu, void *ret)
{
	(void)vcpu;
	pending = (uint64_t)(uintptr_t)ret;
}

/* The first instruction of a block of module code. */
static void on_block(unsigned int vcpu, void *udata)
{
	uint64_t pc = (uint64_t)(uintptr_t)udata;
	int f;

	(void)vcpu;
	if (!loaded) {
		if (++polls % 4096 == 0)
			loaded = load_syms();
		return;
	}
	if (depth && stack[depth - 1].ret == pc)
		close_frames();
	if (pending == pc)
		pending = 0; /* back from a callee that is not traced */
	f = find_func(pc);
	if (f < 0)
		return;
	if (depth == MAX_DEPTH) {
		overflow++;
	} else if (pending) {
		stack[depth++] = (struct frame){.f = f, .start = icount, .ret = pending};
	} else if (depth) {
		/* A tail call (a jump): it returns where the frame below does. */
		stack[depth] = (struct frame){.f = f, .tail = 1, .start = icount,
					      .ret = stack[depth - 1].ret};
		depth++;
	} else {
		unmatched++; /* from the kernel: fib_read, fib_open, ... */
	}
	pending = 0;
}

/* call rel32 (e8) or call r/m (ff /2), after prefixes. */
static int is_call(const uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n && (b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x66 || b[i] == 0x67 ||
			 b[i] == 0xf2 || b[i] == 0xf3 || (b[i] & 0xf0) == 0x40))
		i++;
	if (i < n && b[i] == 0xe8)
		return 1;
	return i + 1 < n && b[i] == 0xff && ((b[i + 1] >> 3) & 7) == 2;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		size_t size = qemu_plugin_insn_size(insn);

		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &icount, 1);
		if (pc < MOD_START || pc >= MOD_END)
			continue;
		if (i == 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_block, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)pc);
		if (is_call(qemu_plugin_insn_data(insn), size))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_call, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)(pc + size));
	}
}

static void write_counts(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	int i;

	(void)id;
	(void)udata;
	if (!f) {
		fprintf(stderr, "fncount: cannot write %s\n", out_path);
		return;
	}
	fprintf(f, "# fncount: %s, %d functions, open frames %d, unmatched entries %llu, "
		   "overflows %d, instructions %llu\n",
		loaded ? "counted" : "no syms file seen", nfuncs, depth,
		(unsigned long long)unmatched, overflow, (unsigned long long)icount);
	for (i = 0; i < nfuncs; i++)
		if (funcs[i].calls)
			fprintf(f, "%s %llu %llu %llu\n", funcs[i].name,
				(unsigned long long)funcs[i].calls,
				(unsigned long long)funcs[i].incl,
				(unsigned long long)funcs[i].self);
	fclose(f);
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
				       char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "syms=", 5))
			snprintf(syms_path, sizeof(syms_path), "%s", argv[i] + 5);
		else if (!strncmp(argv[i], "out=", 4))
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
	}
	if (!syms_path[0] || !out_path[0]) {
		fprintf(stderr, "fncount: needs syms=FILE and out=FILE\n");
		return -1;
	}
	unlink(out_path);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
