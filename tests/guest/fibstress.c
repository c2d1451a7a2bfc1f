// SPDX-License-Identifier: GPL-2.0
/*
 * fibstress: hammer /dev/fibonacci from many threads and verify every value
 * against GMP. Used by the guest reliability tests.
 *
 *   fibstress threads SECONDS MAX_N ALGO[:LIMIT]...
 *                                             random algorithm and n <= min(MAX_N,
 *                                             LIMIT) per open, pread() verified
 *   fibstress churn SECONDS                   open/read/close racing threads
 *   fibstress reads COUNT ALGO N              COUNT reads of F(N), verified once
 *   fibstress shared SECONDS MAX_N ALGO...    forked processes sharing one fd,
 *                                             switching its algorithm at random
 *   fibstress procs PROCS READS MIN_N MAX_N   PROCS forked processes, each with its
 *                                             own fd (the device's default
 *                                             algorithm) reading READS random
 *                                             n in [MIN_N, MAX_N], all verified
 *
 * Prints "fibstress: <reads> reads, <mismatches> mismatches, <errors> errors"
 * and exits 1 on any
 * mismatch or unexpected error.
 */
#include <errno.h>
#include <fcntl.h>
#include <gmp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fibdev.h"

#define THREADS 16
#define PROCESSES 4

/* In a shared mapping so that forked readers count into the same place. */
static struct counters {
	atomic_ulong reads;
	atomic_ulong mismatches;
	atomic_ulong errors;
	atomic_ulong ready; /* procs: readers waiting to start */
} *counts;
static double deadline;
static uint64_t max_n;
static char **algos;
static int algo_count;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ALGO or ALGO:LIMIT; returns the limit (max_n when not given). */
static uint64_t algo_limit(const char *spec)
{
	const char *colon = strchr(spec, ':');
	uint64_t limit = colon ? strtoull(colon + 1, NULL, 10) : max_n;

	return limit < max_n ? limit : max_n;
}

static int open_device(const char *spec)
{
	char name[64];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec, ":"), spec);
	return fibdev_open(FIBDRV_DEVICE_PATH, name, FIBDRV_FORMAT_BIN, "fibstress");
}

/* pread F(n) in binary and compare with GMP; returns 0 when equal. */
static int read_and_verify(int fd, uint64_t n, mpz_t got, mpz_t want)
{
	/* F(n) < 2^(0.695 n): 8-byte limbs, one spare. */
	size_t size = (n / 92 + 2) * 8;
	char *buf = malloc(size);
	ssize_t len;
	int ret = 0;

	if (!buf)
		return -1;
	len = pread(fd, buf, size, (off_t)n);
	atomic_fetch_add(&counts->reads, 1);
	if (len < 0 || len % 8) {
		fprintf(stderr, "fibstress: F(%lu): %s\n", (unsigned long)n, len < 0 ? strerror(errno) : "odd length");
		atomic_fetch_add(&counts->errors, 1);
		ret = -1;
	} else {
		mpz_import(got, (size_t)len / 8, -1, 8, -1, 0, buf);
		mpz_fib_ui(want, n);
		if (mpz_cmp(got, want)) {
			fprintf(stderr, "fibstress: MISMATCH F(%lu)\n", (unsigned long)n);
			atomic_fetch_add(&counts->mismatches, 1);
			ret = -1;
		}
	}
	free(buf);
	return ret;
}

static void *random_reader(void *arg)
{
	uint64_t state = (uintptr_t)arg * 7919 + 1;
	mpz_t got, want;

	mpz_inits(got, want, NULL);
	while (now() < deadline) {
		const char *spec = algos[next_random(&state) % algo_count];
		uint64_t limit = algo_limit(spec);
		int fd = open_device(spec);

		if (fd < 0) {
			atomic_fetch_add(&counts->errors, 1);
			break;
		}
		for (int i = 0; i < 8; i++)
			read_and_verify(fd, next_random(&state) % (limit + 1), got, want);
		close(fd);
	}
	mpz_clears(got, want, NULL);
	return NULL;
}

/* Open, read and close as fast as possible, racing the other threads. */
static void *churner(void *arg)
{
	char buf[64];

	(void)arg;
	while (now() < deadline) {
		int fd = open(FIBDRV_DEVICE_PATH, O_RDONLY);

		if (fd < 0) {
			atomic_fetch_add(&counts->errors, 1);
			break;
		}
		if (pread(fd, buf, sizeof(buf), 90) != 19)
			atomic_fetch_add(&counts->errors, 1);
		atomic_fetch_add(&counts->reads, 1);
		close(fd);
	}
	return NULL;
}

static int run_threads(void *(*fn)(void *))
{
	pthread_t threads[THREADS];

	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, fn, (void *)i))
			return -1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	return 0;
}

static int select_algo(int fd, const char *spec)
{
	size_t len = strcspn(spec, ":");
	int err = fibdev_set_algo(fd, spec, len);

	if (!err)
		return 0;
	fprintf(stderr, "fibstress: select %.*s: %s\n", (int)len, spec, strerror(-err));
	atomic_fetch_add(&counts->errors, 1);
	return -1;
}

/*
 * Forked processes share one descriptor, and so its algorithm and format;
 * with several ALGOs they switch its algorithm at random while the others
 * read (n <= MAX_N must be within every ALGO's cap).
 */
static int run_shared(void)
{
	int fd = open_device(algos[0]);
	int status, failed = 0;

	if (fd < 0)
		return -1;
	for (int p = 0; p < PROCESSES; p++) {
		pid_t pid = fork();

		if (pid == 0) {
			uint64_t state = (uint64_t)p * 104729 + 3;
			mpz_t got, want;
			int bad = 0;

			mpz_inits(got, want, NULL);
			while (now() < deadline) {
				/* Switch the shared file's algorithm under the other readers. */
				if (algo_count > 1 && next_random(&state) % 4 == 0)
					bad |= select_algo(fd,
							   algos[next_random(&state) % algo_count]);
				bad |= read_and_verify(fd, next_random(&state) % (max_n + 1), got, want);
			}
			_exit(bad ? 1 : 0);
		}
		if (pid < 0)
			return -1;
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	close(fd);
	return failed ? -1 : 0;
}

/*
 * Concurrent readers in separate processes, a fixed number of reads each
 * (fibtrace's concurrency test compares the reads it counts with the reads
 * issued here). They start together: each waits for the others before its
 * first read, so the reads overlap.
 */
static int run_procs(int procs, unsigned long reads, uint64_t min_n, uint64_t max_n)
{
	int status, failed = 0;

	for (int p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid == 0) {
			uint64_t state = (uint64_t)p * 7919 + 11;
			int fd = fibdev_open(FIBDRV_DEVICE_PATH, NULL, FIBDRV_FORMAT_BIN,
					     "fibstress");
			mpz_t got, want;
			int bad = fd < 0;

			atomic_fetch_add(&counts->ready, 1);
			while (atomic_load(&counts->ready) < (unsigned long)procs)
				usleep(1000);
			mpz_inits(got, want, NULL);
			for (unsigned long i = 0; i < reads && !bad; i++) {
				uint64_t n = min_n + next_random(&state) % (max_n - min_n + 1);

				bad |= read_and_verify(fd, n, got, want);
			}
			_exit(bad ? 1 : 0);
		}
		if (pid < 0)
			return -1;
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	return failed ? -1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: fibstress threads|shared SECONDS MAX_N ALGO... | churn SECONDS | "
			"reads COUNT ALGO N | procs PROCS READS MIN_N MAX_N\n");
	return 2;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 3)
		return usage();
	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED) {
		perror("fibstress: mmap");
		return 1;
	}
	if (!strcmp(argv[1], "reads") && argc == 5) {
		unsigned long count = strtoul(argv[2], NULL, 10);
		uint64_t n = strtoull(argv[4], NULL, 10);
		char *buf = malloc((n / 92 + 2) * 8);
		int fd = open_device(argv[3]);
		mpz_t got, want;

		if (fd < 0 || !buf)
			return 1;
		mpz_inits(got, want, NULL);
		ret = read_and_verify(fd, n, got, want);
		for (unsigned long i = 1; i < count && !ret; i++)
			if (pread(fd, buf, (n / 92 + 2) * 8, (off_t)n) < 0)
				ret = -1;
		mpz_clears(got, want, NULL);
		free(buf);
		close(fd);
		counts->reads = count;
	} else if (!strcmp(argv[1], "procs") && argc == 6) {
		int procs = atoi(argv[2]);
		uint64_t lo = strtoull(argv[4], NULL, 10), hi = strtoull(argv[5], NULL, 10);

		if (procs < 1 || lo > hi)
			return usage();
		ret = run_procs(procs, strtoul(argv[3], NULL, 10), lo, hi);
	} else {
		deadline = now() + atof(argv[2]);
		if (!strcmp(argv[1], "churn")) {
			ret = run_threads(churner);
		} else if (argc >= 5 && (!strcmp(argv[1], "threads") || !strcmp(argv[1], "shared"))) {
			max_n = strtoull(argv[3], NULL, 10);
			algos = argv + 4;
			algo_count = argc - 4;
			ret = argv[1][0] == 't' ? run_threads(random_reader) : run_shared();
		} else {
			return usage();
		}
	}
	printf("fibstress: %lu reads, %lu mismatches, %lu errors\n", (unsigned long)counts->reads,
	       (unsigned long)counts->mismatches, (unsigned long)counts->errors);
	return ret || counts->mismatches || counts->errors ? 1 : 0;
}
