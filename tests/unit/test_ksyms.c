// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kernel tables' parser and index (src/fibtrace/ksyms.c),
 * on files written here in /proc/kallsyms's and available_filter_functions'
 * formats: module symbols, other symbol types, a name in two modules, a
 * missing last newline, an unreadable ftrace list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s ksyms.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(void)
{
	char dir[] = "/tmp/ft-ksyms-XXXXXX", ks[64], ff[64];
	const char *ftrace[] = {"/nonexistent/available_filter_functions", ff, NULL};
	const char *none[] = {"/nonexistent/available_filter_functions", NULL};
	const struct ksym *k;

	if (!mkdtemp(dir))
		return 1;
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	snprintf(ff, sizeof(ff), "%s/aff", dir);
	write_file(ks, "ffffffff81000000 T _stext\n"
		       "ffffffff81001000 t vfs_read\n"
		       "ffffffff82000000 D some_data\n"
		       "ffffffff81002000 T bn_add\n"
		       "ffffffffc0001000 t bn_add\t[fibdrv]\n"
		       "ffffffffc0002000 t bn_add\t[fibdrv_b]\n"
		       "ffffffffc0003000 T fib_read\t[fibdrv]\n"
		       "ffffffffc0004000 t last_no_newline\t[fibdrv]");
	write_file(ff, "vfs_read\nbn_add [fibdrv]\nfib_read [fibdrv]\n");

	check("load", ft_ksyms_load_from(ks, ftrace) == 0);
	check("text-only", ft_nksyms == 7 && !ft_ksym_find("some_data", NULL));
	k = ft_ksym_find("bn_add", "fibdrv");
	check("module.addr", k && k->addr == 0xffffffffc0001000ULL && !strcmp(k->module, "fibdrv"));
	k = ft_ksym_find("bn_add", "fibdrv_b");
	check("second-module.addr", k && k->addr == 0xffffffffc0002000ULL);
	k = ft_ksym_find("bn_add", "");
	check("vmlinux.addr", k && k->addr == 0xffffffff81002000ULL);
	check("any-module", ft_ksym_find("fib_read", NULL) != NULL);
	check("missing", !ft_ksym_find("fib_read", "") && !ft_ksym_find("nope", NULL));
	check("no-trailing-newline",
	      (k = ft_ksym_find("last_no_newline", "fibdrv")) && k->addr == 0xffffffffc0004000ULL);
	check("elsewhere.yes", ft_ksym_elsewhere("bn_add", "fibdrv"));
	check("elsewhere.no", !ft_ksym_elsewhere("fib_read", "fibdrv"));
	check("traceable.module-line", ft_traceable("bn_add") && ft_traceable("fib_read"));
	check("traceable.vmlinux", ft_traceable("vfs_read"));
	check("traceable.not-listed", !ft_traceable("_stext") && !ft_traceable("bn_ad"));
	ft_ksyms_free();
	check("freed", ft_nksyms == 0 && !ft_ksym_find("bn_add", NULL));

	/* No ftrace list: every function may be tried (the attach decides). */
	check("no-ftrace-list.load", ft_ksyms_load_from(ks, none) == 0);
	check("no-ftrace-list.traceable", ft_traceable("_stext"));
	ft_ksyms_free();
	check("no-kallsyms", ft_ksyms_load_from("/nonexistent/kallsyms", none) < 0);
	ft_ksyms_free();

	unlink(ks);
	unlink(ff);
	rmdir(dir);
	return failures != 0;
}
