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

/* A chained hash of names: head[hash] and next[i] hold index + 1. */
struct name_hash {
	unsigned int *head, *next, mask;
};

struct ft_ksyms {
	struct ksym *sym; /* kallsyms's text symbols, in its order */
	size_t nsym;
	const char *source; /* "cache", or "kernel" and why not the cache */
	bool unsettled;	    /* no read described one state of the modules */
	char *kallsyms_buf, *ftrace_buf;
	struct name_hash ksym_hash, ftrace_hash;
	const char **ftrace_names;
	size_t nftrace;
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Index @n names, name(ks, i) for i < n. */
static int hash_build(struct name_hash *h, size_t n, const struct ft_ksyms *ks,
		      const char *(*name)(const struct ft_ksyms *ks, size_t i))
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
		uint32_t b = hash_str(name(ks, i)) & h->mask;

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

static const char *ksym_name(const struct ft_ksyms *ks, size_t i)
{
	return ks->sym[i].name;
}

static const char *ftrace_name(const struct ft_ksyms *ks, size_t i)
{
	return ks->ftrace_names[i];
}

/* "ADDR TYPE NAME[\t[MODULE]]" lines, parsed in place; text symbols (t, T) kept. */
static int parse_kallsyms(struct ft_ksyms *ks, char *p)
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
				if (ks->nsym == cap) {
					struct ksym *n;

					cap = cap ? 2 * cap : 65536;
					n = realloc(ks->sym, cap * sizeof(*n));
					if (!n)
						return -ENOMEM;
					ks->sym = n;
				}
				ks->sym[ks->nsym++] = (struct ksym){name, mod ? mod : "", addr};
			}
		}
		if (!line_end)
			break;
		p = line_end + 1;
	}
	return hash_build(&ks->ksym_hash, ks->nsym, ks, ksym_name);
}

/* "NAME[ [MODULE]]" lines: the names, in place. */
static int parse_ftrace(struct ft_ksyms *ks, char *p)
{
	size_t cap = 0;

	while (*p) {
		char *line_end = strchr(p, '\n');

		if (line_end)
			*line_end = 0;
		p[strcspn(p, " \t")] = 0;
		if (*p) {
			if (ks->nftrace == cap) {
				const char **n;

				cap = cap ? 2 * cap : 65536;
				n = realloc(ks->ftrace_names, cap * sizeof(*n));
				if (!n)
					return -ENOMEM;
				ks->ftrace_names = n;
			}
			ks->ftrace_names[ks->nftrace++] = p;
		}
		if (!line_end)
			break;
		p = line_end + 1;
	}
	return hash_build(&ks->ftrace_hash, ks->nftrace, ks, ftrace_name);
}

/* The ftrace list's thread: the first of @paths that reads. */
struct ftrace_job {
	const char *const *paths;
	char *buf;
};

static void *load_ftrace(void *arg)
{
	struct ftrace_job *job = arg;
	unsigned int i;

	for (i = 0; job->paths[i] && !job->buf; i++)
		job->buf = ft_read_file(job->paths[i]);
	return NULL;
}

/* Both tables parsed from the buffers (no ftrace list: unknown, the attach decides). */
static int parse_both(struct ft_ksyms *ks)
{
	int err = parse_kallsyms(ks, ks->kallsyms_buf);

	if (ks->ftrace_buf && parse_ftrace(ks, ks->ftrace_buf)) {
		free(ks->ftrace_buf);
		ks->ftrace_buf = NULL;
	}
	return err;
}

/* Where and under which key the tables read are kept (NULL: nowhere). */
struct keep {
	const char *dir, *key;	/* @key NULL: no key before reading (a module loading?) */
	char *(*key_now)(void); /* the key again, after reading */
};

/* Both files read at once (the ftrace list in a thread): 0 or -errno (kallsyms unreadable). */
static int read_both(struct ft_ksyms *ks, const char *kallsyms, const char *const *ftrace)
{
	struct ftrace_job job = {.paths = ftrace};
	pthread_t th;
	bool threaded = !pthread_create(&th, NULL, load_ftrace, &job);
	int err = 0;

	ks->kallsyms_buf = ft_read_file(kallsyms);
	if (!ks->kallsyms_buf)
		err = -errno;
	if (threaded)
		pthread_join(th, NULL);
	else
		load_ftrace(&job);
	ks->ftrace_buf = job.buf;
	return err;
}

/*
 * Reads both files; with @kp, until they describe one state of the kernel:
 * the key made before a read is still the key after it. A module loaded or
 * unloaded while /proc/kallsyms was read leaves a table that describes
 * neither state (read() by read(), the kernel's walk of the modules shifts:
 * a run once found no fib_read at all), so the files are read again, under
 * the key of the state now. The tables that held still are kept under their
 * key for the next run (kprobe.multi attaches by their addresses); after
 * FT_KSYMS_READ_TRIES reads that did not, the last is used and not kept.
 */
static int load_files(struct ft_ksyms *ks, const char *kallsyms, const char *const *ftrace,
		      const struct keep *kp)
{
	char *owned = NULL, *after = NULL;
	const char *key = kp ? kp->key : NULL;
	int err, tries = 1;

	while (!(err = read_both(ks, kallsyms, ftrace)) && kp) {
		after = kp->key_now();
		if (after ? key && !strcmp(after, key) : !key)
			break; /* the same key, or none before and after: as read */
		if (tries++ == FT_KSYMS_READ_TRIES) {
			ks->source =
				"kernel (not kept: the modules kept changing while it was read)";
			ks->unsettled = true;
			key = NULL;
			break;
		}
		free(ks->kallsyms_buf);
		free(ks->ftrace_buf);
		ks->kallsyms_buf = ks->ftrace_buf = NULL;
		free(owned);
		owned = after;
		key = owned;
		after = NULL;
	}
	if (!err && owned && !ks->unsettled)
		ks->source = key ? "kernel (read again: the modules changed while it was read)"
				 : "kernel (read again, not kept: a module was loading)";
	if (!err && key && ks->ftrace_buf &&
	    ft_ksyms_cache_write(kp->dir, key, ks->kallsyms_buf, strlen(ks->kallsyms_buf),
				 ks->ftrace_buf, strlen(ks->ftrace_buf)))
		ks->source = "kernel (not kept: cannot write " FT_KSYMS_CACHE_DIR ")";
	free(after);
	free(owned);
	return err ? err : parse_both(ks);
}

/* *out and 0 when @err is 0; else everything freed, *out NULL, @err. */
static int loaded(struct ft_ksyms *ks, int err, struct ft_ksyms **out)
{
	if (err) {
		ft_ksyms_free(ks);
		ks = NULL;
	}
	*out = ks;
	return err;
}

int ft_ksyms_load_from(struct ft_ksyms **out, const char *kallsyms, const char *const *ftrace)
{
	struct ft_ksyms *ks = calloc(1, sizeof(*ks));

	*out = NULL;
	if (!ks)
		return -ENOMEM;
	ks->source = "files";
	return loaded(ks, load_files(ks, kallsyms, ftrace, NULL), out);
}

int ft_ksyms_load_keyed(struct ft_ksyms **out, const char *kallsyms, const char *const *ftrace,
			const char *dir, const char *key, char *(*key_now)(void))
{
	struct ft_ksyms *ks = calloc(1, sizeof(*ks));
	struct keep kp = {dir, key, key_now};

	*out = NULL;
	if (!ks)
		return -ENOMEM;
	ks->source = "kernel";
	return loaded(ks, load_files(ks, kallsyms, ftrace, &kp), out);
}

int ft_ksyms_load(struct ft_ksyms **out, bool use_cache)
{
	static const char *const ftrace[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
		NULL,
	};
	struct ft_ksyms *ks = calloc(1, sizeof(*ks));
	struct keep kp = {FT_KSYMS_CACHE_DIR, NULL, ft_ksyms_cache_key};
	char *key;
	int err;

	*out = NULL;
	if (!ks)
		return -ENOMEM;
	key = use_cache ? ft_ksyms_cache_key() : NULL;
	kp.key = key;
	/* Without a key a module may be loading: its end moves the tables too. */
	if (!use_cache)
		ks->source = "kernel (--no-symbol-cache)";
	else if (!key)
		ks->source = "kernel (no key: no /proc/modules, or a module without a build ID)";
	else
		ks->source = "kernel";
	if (key &&
	    !ft_ksyms_cache_read(FT_KSYMS_CACHE_DIR, key, &ks->kallsyms_buf, &ks->ftrace_buf)) {
		ks->source = "cache";
		err = parse_both(ks);
	} else {
		err = load_files(ks, "/proc/kallsyms", ftrace, use_cache ? &kp : NULL);
	}
	free(key);
	return loaded(ks, err, out);
}

bool ft_ksyms_unsettled(const struct ft_ksyms *ks)
{
	return ks->unsettled;
}

const char *ft_ksyms_source(const struct ft_ksyms *ks)
{
	return ks->source;
}

size_t ft_ksyms_count(const struct ft_ksyms *ks)
{
	return ks ? ks->nsym : 0;
}

const struct ksym *ft_ksyms_at(const struct ft_ksyms *ks, size_t i)
{
	return &ks->sym[i];
}

/* The chains run from the last line to the first: the last match is kallsyms's first. */
const struct ksym *ft_ksym_find(const struct ft_ksyms *ks, const char *name, const char *module)
{
	const struct name_hash *h = ks ? &ks->ksym_hash : NULL;
	const struct ksym *first = NULL;
	unsigned int i;

	if (!h || !h->head)
		return NULL;
	for (i = h->head[hash_str(name) & h->mask]; i; i = h->next[i - 1]) {
		const struct ksym *k = &ks->sym[i - 1];

		if (!strcmp(k->name, name) && (!module || !strcmp(k->module, module)))
			first = k;
	}
	return first;
}

bool ft_ksym_elsewhere(const struct ft_ksyms *ks, const char *name, const char *module)
{
	const struct name_hash *h = ks ? &ks->ksym_hash : NULL;
	unsigned int i;

	if (!h || !h->head)
		return false;
	for (i = h->head[hash_str(name) & h->mask]; i; i = h->next[i - 1]) {
		const struct ksym *k = &ks->sym[i - 1];

		if (!strcmp(k->name, name) && strcmp(k->module, module))
			return true;
	}
	return false;
}

bool ft_traceable(const struct ft_ksyms *ks, const char *name)
{
	const struct name_hash *h = &ks->ftrace_hash;
	unsigned int i;

	if (!ks->ftrace_buf)
		return true;
	for (i = h->head[hash_str(name) & h->mask]; i; i = h->next[i - 1])
		if (!strcmp(ks->ftrace_names[i - 1], name))
			return true;
	return false;
}

void ft_ksyms_free(struct ft_ksyms *ks)
{
	if (!ks)
		return;
	hash_free(&ks->ksym_hash);
	hash_free(&ks->ftrace_hash);
	free(ks->sym);
	free(ks->ftrace_names);
	free(ks->kallsyms_buf);
	free(ks->ftrace_buf);
	free(ks);
}
