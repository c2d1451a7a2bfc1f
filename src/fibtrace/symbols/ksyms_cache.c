// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's function tables kept between runs: see ksyms.h.
 *
 * /proc/kallsyms and available_filter_functions are generated as they are
 * read, about 0.5 s each in the guests under emulation, the largest part of
 * fibtrace's start-up on 6.12. What they list changes only with the boot
 * and the modules loaded, so the first run keeps them in one file under
 * FT_KSYMS_CACHE_DIR (root's, mode 0600, in a directory of mode 0700), and
 * later runs read them back when the key matches exactly: the boot
 * (/proc/sys/kernel/random/boot_id: the vmlinux symbols and KASLR offset)
 * and every module as /proc/modules lists it (name, size, load address;
 * not its use count, and no key while one is still loading)
 * with its GNU build ID (/sys/module/M/notes/.note.gnu.build-id: its code).
 * No key, no cache: a module without a build ID, or no /proc/modules. The
 * symbols BPF programs and trampolines add at run time are never targets
 * (ksyms.c skips them when parsing), so they are no part of the key.
 *
 * The file: "fibtrace-ksyms 1 KEYLEN KLEN FLEN\n", the key, the kallsyms
 * bytes, the ftrace list's bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksyms.h"

char *ft_read_file(const char *path)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 1), *n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0 || !buf)
		goto fail;
	while ((got = read(fd, buf + len, cap - len)) > 0) {
		len += got;
		if (len < cap)
			continue;
		cap *= 2;
		n = realloc(buf, cap + 1);
		if (!n)
			goto fail;
		buf = n;
	}
	if (got < 0)
		goto fail;
	close(fd);
	buf[len] = 0;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

#define CACHE_MAGIC "fibtrace-ksyms 1"

/* Writes @path's bytes to @k in hexadecimal (a note holds NULs): false when unreadable. */
static bool put_file_hex(FILE *k, const char *path)
{
	unsigned char buf[256];
	ssize_t got, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < got; i++)
			fprintf(k, "%02x", buf[i]);
	close(fd);
	fputc('\n', k);
	return got == 0;
}

char *ft_ksyms_cache_key(void)
{
	char *boot = ft_read_file("/proc/sys/kernel/random/boot_id");
	char *mods = boot ? ft_read_file("/proc/modules") : NULL;
	char path[256], *key = NULL, *line, *save = NULL;
	size_t len;
	FILE *k = mods ? open_memstream(&key, &len) : NULL;
	bool ok = k != NULL;

	if (ok)
		fputs(boot, k);
	for (line = ok ? strtok_r(mods, "\n", &save) : NULL; ok && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64], state[16];
		unsigned long long size, addr;

		/*
		 * "name size refcount deps state address [taints]": not the refcount, which
		 * moves whenever the device is opened; no key while a module is loading, or
		 * when the addresses read as 0 (kptr_restrict: kallsyms's would too).
		 */
		ok = sscanf(line, "%63s %llu %*s %*s %15s %llx", name, &size, state, &addr) == 4 &&
		     !strcmp(state, "Live") && addr &&
		     snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name) <
			     (int)sizeof(path);
		if (ok) {
			fprintf(k, "%s %llu %llx ", name, size, addr);
			ok = put_file_hex(k, path);
		}
	}
	if (k && fclose(k))
		ok = false;
	free(boot);
	free(mods);
	if (!ok) {
		free(key);
		return NULL;
	}
	return key;
}

/* @dir is ours and no one else's to write: owned by us, mode 0700 at most. */
static bool dir_private(const char *dir, bool create)
{
	struct stat st;

	if (create && mkdir(dir, 0700) && errno != EEXIST)
		return false;
	return !lstat(dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 077);
}

static void cache_path(char *path, size_t cap, const char *dir)
{
	snprintf(path, cap, "%s/ksyms", dir);
}

/* The payload sizes when @f holds @key: 0, or -1. */
static int read_header(FILE *f, const char *key, size_t *klen, size_t *flen)
{
	char magic[sizeof(CACHE_MAGIC)];
	size_t keylen, n = strlen(key);
	char *stored;
	int ok;

	if (fread(magic, 1, sizeof(magic), f) != sizeof(magic) ||
	    memcmp(magic, CACHE_MAGIC " ", sizeof(magic)) ||
	    fscanf(f, "%zu %zu %zu", &keylen, klen, flen) != 3 || fgetc(f) != '\n' || keylen != n)
		return -1;
	stored = malloc(n + 1);
	ok = stored && fread(stored, 1, n, f) == n && !memcmp(stored, key, n);
	free(stored);
	return ok ? 0 : -1;
}

static char *read_part(FILE *f, size_t len)
{
	char *p = malloc(len + 1);

	if (p && fread(p, 1, len, f) == len) {
		p[len] = 0;
		return p;
	}
	free(p);
	return NULL;
}

int ft_ksyms_cache_read(const char *dir, const char *key, char **kallsyms, char **ftrace)
{
	char path[512];
	struct stat st;
	size_t klen, flen;
	FILE *f;
	int fd;

	*kallsyms = *ftrace = NULL;
	if (!dir_private(dir, false))
		return -1;
	cache_path(path, sizeof(path), dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return -1;
	}
	if (!read_header(f, key, &klen, &flen) && (*kallsyms = read_part(f, klen)) &&
	    (*ftrace = read_part(f, flen)) && fgetc(f) == EOF) {
		fclose(f);
		return 0;
	}
	fclose(f);
	free(*kallsyms);
	free(*ftrace);
	*kallsyms = *ftrace = NULL;
	return -1;
}

int ft_ksyms_cache_write(const char *dir, const char *key, const char *kallsyms, size_t klen,
			 const char *ftrace, size_t flen)
{
	char path[512], tmp[544];
	FILE *f;
	int fd, err;

	if (!dir_private(dir, true))
		return -1;
	cache_path(path, sizeof(path), dir);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	fprintf(f, CACHE_MAGIC " %zu %zu %zu\n", strlen(key), klen, flen);
	fwrite(key, 1, strlen(key), f);
	fwrite(kallsyms, 1, klen, f);
	fwrite(ftrace, 1, flen, f);
	err = ferror(f);
	if (fclose(f) || err || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}
