/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --cachesim: cache and branch events of the same reads, simulated.
 *
 * fibdrv's big-number library is compiled into the module and into user
 * space from the same sources. cachesim.c runs the user-space build's read
 * harness (build/fibcalc --reads, which does what fib_read does for each
 * read and ends each read with a callgrind dump) under Valgrind's callgrind
 * with its cache and branch simulators, parses the output and attributes
 * every event to a function and to a read (algorithm, n, round). Events in
 * functions outside the library (the harness, libc's malloc and memcpy,
 * start-up and exit) are kept apart. report_cachesim.c prints them, alone or
 * beside a kernel trace of the same reads. docs/counters.md says when to use
 * this and when -e.
 */
#ifndef FIBTRACE_CACHESIM_H
#define FIBTRACE_CACHESIM_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

/* callgrind's event names, in this order everywhere (JSON, CSV, --metric sim:EVENT). */
enum ft_sim_event {
	FT_SIM_IR,   /* instructions executed */
	FT_SIM_DR,   /* data reads */
	FT_SIM_DW,   /* data writes */
	FT_SIM_I1MR, /* L1 instruction-cache read misses */
	FT_SIM_D1MR, /* L1 data-cache read misses */
	FT_SIM_D1MW, /* L1 data-cache write misses */
	FT_SIM_ILMR, /* last-level instruction read misses */
	FT_SIM_DLMR, /* last-level data read misses */
	FT_SIM_DLMW, /* last-level data write misses */
	FT_SIM_BC,   /* conditional branches */
	FT_SIM_BCM,  /* conditional branches mispredicted */
	FT_SIM_BI,   /* indirect branches */
	FT_SIM_BIM,  /* indirect branches mispredicted */
	FT_SIM_NEV,
};

extern const char *const ft_sim_event_name[FT_SIM_NEV];
/* The event called @name (case-insensitive), or -1. */
int ft_sim_event_find(const char *name);

#define FT_SIM_MAX_ALGOS 16
#define FT_SIM_MAX_N 10000	/* distinct n per run */
#define FT_SIM_MAX_READS 100000 /* reads per run: a simulated read costs ~100 native ones */

/* One simulated cache: size, associativity and line in bytes (Valgrind's --I1/--D1/--LL). */
struct ft_sim_cache {
	unsigned long size, assoc, line;
};

/* I1, D1, LL: 32 KiB 8-way, 32 KiB 8-way, 8 MiB 16-way, 64-byte lines (a common x86 desktop). */
extern const struct ft_sim_cache ft_sim_default_geometry[3];
/*
 * --cache-geometry: "host" (@host set: Valgrind's choice from this CPU) or
 * I1=SIZE,ASSOC,LINE[:D1=...][:LL=...] over the default. 0, or -1 with why in @msg.
 */
int ft_sim_geometry_parse(const char *s, struct ft_sim_cache g[3], bool *host, char *msg,
			  size_t len);

/* What to simulate. */
struct ft_sim_opts {
	const char
		*geometry; /* --cache-geometry: NULL (the default), "host", or I1=S,A,L:D1=...:LL=... */
	const char *algos; /* --algo A[,B...], NULL: the library's default */
	const __u64 *n;	   /* every n of the sweep, in order */
	unsigned int nn;
	unsigned int rounds; /* --repeat */
	bool verbose;	     /* keep callgrind's output file, print the commands */
};

/* A function's events and the calls into it, per algorithm, over the reads only. */
struct ft_sim_func {
	char *name;
	char *file;   /* the source file callgrind names (fl=) */
	bool library; /* defined in fibdrv/ */
	__u64 *ev;    /* [algo][FT_SIM_NEV]: self (exclusive) events */
	__u64 *calls; /* [algo] */
	/* the part being parsed */
	unsigned int stamp;
	__u64 part_ev[FT_SIM_NEV], part_calls;
};

/* One (algorithm, n): each round's read, the library's events and the rest. */
struct ft_sim_cell {
	double lib[FT_SIM_NEV];		      /* median over the rounds */
	double out[FT_SIM_NEV];		      /* outside the library, median over the rounds */
	__u64 lo[FT_SIM_NEV], hi[FT_SIM_NEV]; /* library events, min and max over the rounds */
};

struct ft_sim {
	char tool[64];	   /* "valgrind-3.19.0 callgrind" */
	char cache[3][96]; /* callgrind's own description of I1, D1, LL */
	struct ft_sim_cache geom[3];
	bool host_geometry; /* --cache-geometry host: Valgrind's choice from this CPU */
	unsigned int nalgo, nn, rounds;
	char algo[FT_SIM_MAX_ALGOS][32];
	__u64 *n;
	struct ft_sim_func **fn; /* every function seen in a read */
	unsigned int nfn, fn_cap;
	struct ft_sim_func **hash; /* open addressing over fn, by name */
	unsigned int hash_cap;
	struct ft_sim_cell *cell; /* [algo][n] */
	__u64 *read_ev;		  /* [read][2][FT_SIM_NEV]: library, outside */
	unsigned int reads, reads_seen;
	unsigned int stamp;
	__u64 total[FT_SIM_NEV];  /* the whole process: start-up, warm-up, reads, exit */
	__u64 warmup[FT_SIM_NEV]; /* the harness's warm-up round (fibcalc --reads) */
	__u64 reads_lib[FT_SIM_NEV], reads_out[FT_SIM_NEV];
	double sim_s,
		native_s; /* wall time of the simulated and of a native run of the same reads */
	char error[256];  /* why a parse failed */
};

/*
 * Simulate: checks (Valgrind present, the algorithms known, each n within
 * its cap), the reads once natively and once under callgrind, parsed into
 * @sim. 0 or -FT_EXIT_* (the message printed).
 */
int ft_sim_run(struct ft_sim *sim, const struct ft_sim_opts *o);
/*
 * Parse callgrind's combined output @f of the reads @sim was prepared for
 * (nalgo, nn, rounds set; ft_sim_prepare). 0, or -1 with sim->error.
 */
int ft_sim_prepare(struct ft_sim *sim, unsigned int nalgo, const __u64 *n, unsigned int nn,
		   unsigned int rounds);
int ft_sim_parse(struct ft_sim *sim, FILE *f);
void ft_sim_free(struct ft_sim *sim);

/* The function called @name, or NULL. */
const struct ft_sim_func *ft_sim_func_find(const struct ft_sim *sim, const char *name);
/* The cell of algorithm @a (index) and n @n, or NULL. */
const struct ft_sim_cell *ft_sim_cell_find(const struct ft_sim *sim, unsigned int a, __u64 n);
/* Index of the algorithm called @name in @sim, or -1. */
int ft_sim_algo_index(const struct ft_sim *sim, const char *name);
/* Whether @fn was called or ran in a read of algorithm @algo (-1: any), not only at start-up. */
bool ft_sim_func_in_reads(const struct ft_sim *sim, const struct ft_sim_func *fn, int algo);
/* @fn's events over every algorithm's reads into @ev; returns the calls into it. */
double ft_sim_func_sum(const struct ft_sim *sim, const struct ft_sim_func *fn,
		       double ev[FT_SIM_NEV]);
/* Whether every round of every read gave the same library count of @ev. */
bool ft_sim_exact(const struct ft_sim *sim, enum ft_sim_event ev);

#endif
