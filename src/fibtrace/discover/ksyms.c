// SPDX-License-Identifier: GPL-2.0
/* The kernel's function tables: see ksyms.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"

struct ksym *ft_ksyms;
size_t ft_nksyms;
const char *ft_ksyms_source = "kernel";
static bool use_cache = true;

/* A chained hash of names: head[hash] and next[i] hold index + 1. */
struct name_hash {
	unsigned int *head, *next, mask;
};

static char *kallsyms_buf, *ftrace_buf;
static struct name_hash ksym_hash, ftrace_hash;
static const char **ftrace_names;
static size_t nftrace;

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Index @n names, name(i) for i < n. */
static int hash_build(struct name_hash *h, size_t n, const char *(*name)(size_t))
{
	size_t size = 1024, i;

	while (size < 2 * n)
		size <<= 1;
	h->mask = size - 1;
	h->head = calloc(size, sizeof(*h->head));
	h->next = calloc(n ? n : 1, sizeof(*h->next));
	if (!h->head || !h->next)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t b = hash_str(name(i)) & h->mask;

		h->next[i] = h->head[b];
		h->head[b] = i + 1;
	}
	return 0;
}

static void hash_free(struct name_hash *h)
{
	free(h->head);
	free(h->next);
	memset(h, 0, sizeof(*h));
}

static const char *ksym_name(size_t i)
{
	return ft_ksyms[i].name;
}

static const char *ftrace_name(size_t i)
{
	return ftrace_names[i];
}

/* "ADDR TYPE NAME[\t[MODULE]]" lines, parsed in place; text symbols (t, T) kept. */
static int parse_kallsyms(char *p)
{
	size_t cap = 0;

	while (*p) {
		char *line_end = strchr(p, '\n'), *name, *mod = NULL, type;
		unsigned long long addr = strtoull(p, &name, 16);

		if (line_end)
			*line_end = 0;
		if (name[0] == ' ' && name[1] && name[2] == ' ') {
			type = name[1];
			name += 3;
			mod = strchr(name, '\t');
			if (mod) {
				*mod++ = 0;
				if (*mod == '[') {
					mod++;
					mod[strcspn(mod, "]")] = 0;
				}
			}
			/* Not the symbols BPF programs and trampolines come and go with. */
			if ((type == 't' || type == 'T') &&
			    !(mod && (!strcmp(mod, "bpf") || !strncmp(mod, "__builtin__", 11)))) {
				if (ft_nksyms == cap) {
					struct ksym *n;

					cap = cap ? 2 * cap : 65536;
					n = realloc(ft_ksyms, cap * sizeof(*n));
					if (!n)
						return -ENOMEM;
					ft_ksyms = n;
				}
				ft_ksyms[ft_nksyms++] = (struct ksym){name, mod ? mod : "", addr};
			}
		}
		if (!line_end)
			break;
		p = line_end + 1;
	}
	return hash_build(&ksym_hash, ft_nksyms, ksym_name);
}

/* "NAME[ [MODULE]]" lines: the names, in place. */
static int parse_ftrace(char *p)
{
	size_t cap = 0;

	while (*p) {
		char *line_end = strchr(p, '\n');

		if (line_end)
			*line_end = 0;
		p[strcspn(p, " \t")] = 0;
		if (*p) {
			if (nftrace == cap) {
				const char **n;

				cap = cap ? 2 * cap : 65536;
				n = realloc(ftrace_names, cap * sizeof(*n));
				if (!n)
					return -ENOMEM;
				ftrace_names = n;
			}
			ftrace_names[nftrace++] = p;
		}
		if (!line_end)
			break;
		p = line_end + 1;
	}
	return hash_build(&ftrace_hash, nftrace, ftrace_name);
}

static void *load_ftrace(void *arg)
{
	const char *const *paths = arg;
	unsigned int i;

	for (i = 0; paths[i] && !ftrace_buf; i++)
		ftrace_buf = ft_read_file(paths[i]);
	return NULL;
}

/* Both tables parsed from kallsyms_buf and ftrace_buf (NULL: unknown, the attach decides). */
static int parse_both(void)
{
	int err = parse_kallsyms(kallsyms_buf);

	if (ftrace_buf && parse_ftrace(ftrace_buf)) {
		free(ftrace_buf);
		ftrace_buf = NULL;
	}
	return err;
}

/* Reads both files at once (a thread); kept under @key (NULL: not kept) before parsing. */
static int load_files(const char *kallsyms, const char *const *ftrace, const char *key)
{
	pthread_t th;
	bool threaded = !pthread_create(&th, NULL, load_ftrace, (void *)ftrace);
	int err = 0;

	kallsyms_buf = ft_read_file(kallsyms);
	if (!kallsyms_buf)
		err = -errno;
	if (threaded)
		pthread_join(th, NULL);
	else
		load_ftrace((void *)ftrace);
	if (err)
		return err;
	if (key && ftrace_buf &&
	    ft_ksyms_cache_write(FT_KSYMS_CACHE_DIR, key, kallsyms_buf, strlen(kallsyms_buf),
				 ftrace_buf, strlen(ftrace_buf)))
		ft_ksyms_source = "kernel (not kept: cannot write " FT_KSYMS_CACHE_DIR ")";
	return parse_both();
}

int ft_ksyms_load_from(const char *kallsyms, const char *const *ftrace)
{
	return load_files(kallsyms, ftrace, NULL);
}

void ft_ksyms_use_cache(bool on)
{
	use_cache = on;
}

int ft_ksyms_load(void)
{
	static const char *const ftrace[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
		NULL,
	};
	char *key = use_cache ? ft_ksyms_cache_key() : NULL;
	int err;

	if (!use_cache)
		ft_ksyms_source = "kernel (--no-symbol-cache)";
	else if (!key)
		ft_ksyms_source =
			"kernel (no key: no /proc/modules, or a module without a build ID)";
	else
		ft_ksyms_source = "kernel";
	if (key && !ft_ksyms_cache_read(FT_KSYMS_CACHE_DIR, key, &kallsyms_buf, &ftrace_buf)) {
		ft_ksyms_source = "cache";
		err = parse_both();
	} else {
		err = load_files("/proc/kallsyms", ftrace, key);
	}
	free(key);
	return err;
}

/* The chains run from the last line to the first: the last match is kallsyms's first. */
const struct ksym *ft_ksym_find(const char *name, const char *module)
{
	const struct ksym *first = NULL;
	unsigned int i;

	if (!ksym_hash.head)
		return NULL;
	for (i = ksym_hash.head[hash_str(name) & ksym_hash.mask]; i; i = ksym_hash.next[i - 1]) {
		const struct ksym *k = &ft_ksyms[i - 1];

		if (!strcmp(k->name, name) && (!module || !strcmp(k->module, module)))
			first = k;
	}
	return first;
}

bool ft_ksym_elsewhere(const char *name, const char *module)
{
	unsigned int i;

	if (!ksym_hash.head)
		return false;
	for (i = ksym_hash.head[hash_str(name) & ksym_hash.mask]; i; i = ksym_hash.next[i - 1]) {
		const struct ksym *k = &ft_ksyms[i - 1];

		if (!strcmp(k->name, name) && strcmp(k->module, module))
			return true;
	}
	return false;
}

bool ft_traceable(const char *name)
{
	unsigned int i;

	if (!ftrace_buf)
		return true;
	for (i = ftrace_hash.head[hash_str(name) & ftrace_hash.mask]; i;
	     i = ftrace_hash.next[i - 1])
		if (!strcmp(ftrace_names[i - 1], name))
			return true;
	return false;
}

void ft_ksyms_free(void)
{
	hash_free(&ksym_hash);
	hash_free(&ftrace_hash);
	free(ft_ksyms);
	free(ftrace_names);
	free(kallsyms_buf);
	free(ftrace_buf);
	ft_ksyms = NULL;
	ftrace_names = NULL;
	kallsyms_buf = ftrace_buf = NULL;
	ft_nksyms = nftrace = 0;
}
