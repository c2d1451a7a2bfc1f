// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kernel tables' parser and index (src/fibtrace/symbols/ksyms.c),
 * on files written here in /proc/kallsyms's and available_filter_functions'
 * formats: module symbols, other symbol types, a name in two modules, a
 * missing last newline, an unreadable ftrace list, the symbols of BPF
 * programs and trampolines (skipped); and the cache between runs
 * (ksyms_cache.c): a hit with its exact key only, never from a directory or
 * file others could write, never a truncated file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/ksyms.h"

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

static void test_cache(const char *tmp)
{
	char dir[128], file[160], *k, *f;
	const char *key =
		"boot-1\nfibdrv 45056 0 - Live 0xffffffffc0a00000 (OE)\n0400000014000000\n";

	snprintf(dir, sizeof(dir), "%s/cache", tmp);
	snprintf(file, sizeof(file), "%s/ksyms", dir);
	check("cache.empty-miss", ft_ksyms_cache_read(dir, key, &k, &f) < 0 && !k && !f);
	check("cache.write", !ft_ksyms_cache_write(dir, key, "K1\nK2", 5, "F1\n", 3));
	check("cache.hit", !ft_ksyms_cache_read(dir, key, &k, &f) && k && f &&
				   !strcmp(k, "K1\nK2") && !strcmp(f, "F1\n"));
	free(k);
	free(f);
	check("cache.other-key-miss",
	      ft_ksyms_cache_read(dir, "boot-1\nfibdrv 45056 0 - Live 0xffffffffc0b00000 (OE)\n",
				  &k, &f) < 0);
	check("cache.shorter-key-miss", ft_ksyms_cache_read(dir, "boot-1", &k, &f) < 0);
	chmod(file, 0644);
	check("cache.file-others-can-read-miss", ft_ksyms_cache_read(dir, key, &k, &f) < 0);
	chmod(file, 0600);
	chmod(dir, 0755);
	check("cache.dir-not-private-miss", ft_ksyms_cache_read(dir, key, &k, &f) < 0);
	check("cache.dir-not-private-no-write", ft_ksyms_cache_write(dir, key, "K", 1, "F", 1) < 0);
	chmod(dir, 0700);
	check("cache.truncated-miss",
	      !truncate(file, 60) && ft_ksyms_cache_read(dir, key, &k, &f) < 0 && !k && !f);
	check("cache.rewrite-hit", !ft_ksyms_cache_write(dir, key, "K3", 2, "", 0) &&
					   !ft_ksyms_cache_read(dir, key, &k, &f) &&
					   !strcmp(k, "K3") && !strcmp(f, ""));
	free(k);
	free(f);
	unlink(file);
	rmdir(dir);
}

static char *key_same(void)
{
	return strdup("boot-1\nmods-A\n");
}

static char *key_moved(void)
{
	return strdup("boot-1\nmods-B\n"); /* a module loaded while kallsyms was read */
}

static char *key_changing(void)
{
	static int n;
	char buf[32];

	snprintf(buf, sizeof(buf), "boot-1\nmods-%d\n", ++n); /* modules loaded in a loop */
	return strdup(buf);
}

/*
 * Kept only when the key after reading is the key before (issue 50, item
 * 4); read again under the new key when it moved, given up (not kept) when
 * it keeps moving.
 */
static void test_keyed(const char *tmp, const char *kallsyms, const char *const *ftrace)
{
	const char *key = "boot-1\nmods-A\n";
	char dir[128], *k = NULL, *f = NULL;
	struct ft_ksyms *h;

	snprintf(dir, sizeof(dir), "%s/keyed", tmp);
	mkdir(dir, 0700);
	check("keyed.moved.load", !ft_ksyms_load_keyed(&h, kallsyms, ftrace, dir, key, key_moved) &&
					  h && strstr(ft_ksyms_source(h), "read again") &&
					  ft_ksym_find(h, "bn_add", NULL));
	ft_ksyms_free(h);
	check("keyed.moved.not-kept-under-old-key",
	      ft_ksyms_cache_read(dir, key, &k, &f) < 0 && !k && !f);
	check("keyed.moved.kept-under-new-key",
	      !ft_ksyms_cache_read(dir, "boot-1\nmods-B\n", &k, &f) && k && f);
	free(k);
	free(f);
	k = f = NULL;
	unlink(strcat(dir, "/ksyms"));
	dir[strlen(dir) - strlen("/ksyms")] = 0;
	check("keyed.changing.load",
	      !ft_ksyms_load_keyed(&h, kallsyms, ftrace, dir, key, key_changing) && h &&
		      strstr(ft_ksyms_source(h), "not kept: the modules kept changing") &&
		      ft_ksyms_unsettled(h) && ft_ksym_find(h, "bn_add", NULL));
	ft_ksyms_free(h);
	check("keyed.changing.not-kept", ft_ksyms_cache_read(dir, key, &k, &f) < 0 && !k && !f);
	/* No key before reading (a module loading), one after: read again, kept under it. */
	check("keyed.unkeyed.load",
	      !ft_ksyms_load_keyed(&h, kallsyms, ftrace, dir, NULL, key_same) && h &&
		      strstr(ft_ksyms_source(h), "read again") && !ft_ksyms_unsettled(h));
	ft_ksyms_free(h);
	check("keyed.unkeyed.kept", !ft_ksyms_cache_read(dir, key, &k, &f) && k && f);
	free(k);
	free(f);
	k = f = NULL;
	check("keyed.same.load", !ft_ksyms_load_keyed(&h, kallsyms, ftrace, dir, key, key_same) &&
					 h && !strcmp(ft_ksyms_source(h), "kernel"));
	ft_ksyms_free(h);
	check("keyed.same.kept", !ft_ksyms_cache_read(dir, key, &k, &f) && k && f);
	free(k);
	free(f);
	unlink(strcat(dir, "/ksyms"));
	dir[strlen(dir) - strlen("/ksyms")] = 0;
	rmdir(dir);
}

int main(void)
{
	char dir[] = "/tmp/ft-ksyms-XXXXXX", ks[64], ff[64];
	const char *ftrace[] = {"/nonexistent/available_filter_functions", ff, NULL};
	const char *none[] = {"/nonexistent/available_filter_functions", NULL};
	const struct ksym *k;
	struct ft_ksyms *h = NULL;

	if (!mkdtemp(dir))
		return 1;
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	snprintf(ff, sizeof(ff), "%s/aff", dir);
	write_file(ks, "ffffffff81000000 T _stext\n"
		       "ffffffff81001000 t vfs_read\n"
		       "ffffffff82000000 D some_data\n"
		       "ffffffff81002000 T bn_add\n"
		       "ffffffff81003000 t dup_static\n"
		       "ffffffff81004000 t dup_static\n"
		       "ffffffffc0001000 t bn_add\t[fibdrv]\n"
		       "ffffffffc0002000 t bn_add\t[fibdrv_b]\n"
		       "ffffffffc0003000 T fib_read\t[fibdrv]\n"
		       "ffffffffc0005000 t bpf_prog_6deef7357e7b4530_ft_entry\t[bpf]\n"
		       "ffffffffc0006000 t bpf_trampoline_6442\t[__builtin__ftrace]\n"
		       "ffffffffc0004000 t last_no_newline\t[fibdrv]");
	write_file(ff, "vfs_read\nbn_add [fibdrv]\nfib_read [fibdrv]\n");

	check("load", ft_ksyms_load_from(&h, ks, ftrace) == 0);
	check("text-only", ft_ksyms_count(h) == 9 && !ft_ksym_find(h, "some_data", NULL));
	check("no-bpf-symbols", !ft_ksym_find(h, "bpf_prog_6deef7357e7b4530_ft_entry", NULL) &&
					!ft_ksym_find(h, "bpf_trampoline_6442", NULL));
	k = ft_ksym_find(h, "bn_add", "fibdrv");
	check("module.addr", k && k->addr == 0xffffffffc0001000ULL && !strcmp(k->module, "fibdrv"));
	k = ft_ksym_find(h, "bn_add", "fibdrv_b");
	check("second-module.addr", k && k->addr == 0xffffffffc0002000ULL);
	k = ft_ksym_find(h, "bn_add", "");
	check("vmlinux.addr", k && k->addr == 0xffffffff81002000ULL);
	check("any-module", ft_ksym_find(h, "fib_read", NULL) != NULL);
	k = ft_ksym_find(h, "dup_static", "");
	check("duplicate.first-listed", k && k->addr == 0xffffffff81003000ULL);
	k = ft_ksym_find(h, "bn_add", NULL);
	check("any-module.first-listed", k && k->addr == 0xffffffff81002000ULL);
	check("missing", !ft_ksym_find(h, "fib_read", "") && !ft_ksym_find(h, "nope", NULL));
	check("no-trailing-newline", (k = ft_ksym_find(h, "last_no_newline", "fibdrv")) &&
					     k->addr == 0xffffffffc0004000ULL);
	check("elsewhere.yes", ft_ksym_elsewhere(h, "bn_add", "fibdrv"));
	check("elsewhere.no", !ft_ksym_elsewhere(h, "fib_read", "fibdrv"));
	check("traceable.module-line", ft_traceable(h, "bn_add") && ft_traceable(h, "fib_read"));
	check("traceable.vmlinux", ft_traceable(h, "vfs_read"));
	check("traceable.not-listed", !ft_traceable(h, "_stext") && !ft_traceable(h, "bn_ad"));
	check("source", !strcmp(ft_ksyms_source(h), "files"));
	ft_ksyms_free(h);
	h = NULL;
	check("none", ft_ksyms_count(h) == 0 && !ft_ksym_find(h, "bn_add", NULL));

	/* No ftrace list: every function may be tried (the attach decides). */
	check("no-ftrace-list.load", ft_ksyms_load_from(&h, ks, none) == 0);
	check("no-ftrace-list.traceable", ft_traceable(h, "_stext"));
	ft_ksyms_free(h);
	check("no-kallsyms", ft_ksyms_load_from(&h, "/nonexistent/kallsyms", none) < 0 && !h);

	test_cache(dir);
	test_keyed(dir, ks, ftrace);
	unlink(ks);
	unlink(ff);
	rmdir(dir);
	return failures != 0;
}
