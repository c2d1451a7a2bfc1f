// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of --cachesim's parser (src/fibtrace/cachesim/cachesim.c) on callgrind
 * output written here: a start-up part, two reads, an exit part; a callee
 * named (cfn=) before its definition, a call's inclusive cost line that must
 * not count as the caller's, trailing zero events left out, a function of
 * the library and one of libc; then a part whose costs do not match its
 * totals line, and an output with fewer reads than asked for.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cachesim/cachesim.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s cachesim.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

#define HEAD                                                          \
	"# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n" \
	"positions: line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"

/* One read: fib_compute (library) calls bn_add_n (library, defined after) and malloc (libc). */
#define READ_PART(num, total)                                                           \
	"part: " num "\n"                                                               \
	"desc: I1 cache: 32768 B, 64 B, 8-way associative\n"                            \
	"desc: D1 cache: 4096 B, 64 B, 2-way associative\n"                             \
	"desc: LL cache: 8388608 B, 64 B, 16-way associative\n"                         \
	"desc: Trigger: Client Request: read\n"                                         \
	"ob=/build/fibcalc\nfl=/src/fibdrv/fib_algo.c\nfn=fib_compute\n"                \
	"10 100 20 10 0 1 0 0 0 0 8 2\n"                                                \
	"cfn=bn_add_n\ncalls=3 40\n12 900 300 150\n"                                    \
	"cob=/lib/libc.so.6\ncfi=malloc.c\ncfn=malloc\ncalls=1 7\n13 50 10\n"           \
	"fl=/src/fibdrv/bn_aors_tmpl.h\nfn=bn_add_n\n40 900 300 150 0 2 1 0 1 1 60 5\n" \
	"ob=/lib/libc.so.6\nfl=malloc.c\nfn=malloc\n7 50 10\n"                          \
	"totals: " total "\n"

static const char good[] = HEAD
	"part: 1\ndesc: Trigger: Client Request: harness start\n"
	"ob=/lib/ld.so\nfl=rtld.c\nfn=_dl_start\n1 5000 100 100\n"
	"totals: 5000 100 100\n" READ_PART("2", "1050 330 160 0 3 1 0 1 1 68 7")
		READ_PART("3", "1050 330 160 0 3 1 0 1 1 68 7") "part: 4\ndesc: Trigger: Program "
								"termination\nfn=_dl_fini\n1 70\n";

static FILE *text(const char *s)
{
	return fmemopen((void *)s, strlen(s), "r");
}

int main(void)
{
	struct ft_sim sim = {};
	__u64 n = 1000;
	const struct ft_sim_func *fc, *add, *mal;
	const struct ft_sim_cell *c;
	FILE *f = text(good);
	int err;

	ft_sim_prepare(&sim, 1, &n, 1, 2);
	snprintf(sim.algo[0], sizeof(sim.algo[0]), "bn-iter");
	err = ft_sim_parse(&sim, f);
	fclose(f);
	check("parse", !err && sim.reads_seen == 2);
	fc = ft_sim_func_find(&sim, "fib_compute");
	add = ft_sim_func_find(&sim, "bn_add_n");
	mal = ft_sim_func_find(&sim, "malloc");
	check("self-not-inclusive", fc && fc->ev[FT_SIM_IR] == 200 && fc->ev[FT_SIM_DR] == 40);
	check("trailing-zeros", fc && fc->ev[FT_SIM_BCM] == 4 && fc->ev[FT_SIM_BI] == 0);
	check("callee-classified",
	      add && add->library && add->calls[0] == 6 && add->ev[FT_SIM_IR] == 1800);
	check("libc-outside", mal && !mal->library && mal->calls[0] == 2);
	fc = ft_sim_func_find(&sim, "_dl_start");
	check("startup-not-in-functions", fc && !fc->ev[FT_SIM_IR] && !fc->calls[0]);
	check("totals", sim.total[FT_SIM_IR] == 5000 + 2 * 1050 + 70 &&
				sim.reads_lib[FT_SIM_IR] == 2 * 1000 &&
				sim.reads_out[FT_SIM_IR] == 100);
	c = ft_sim_cell_find(&sim, 0, 1000);
	check("cell", c && c->lib[FT_SIM_IR] == 1000 && c->out[FT_SIM_IR] == 50 &&
			      c->lo[FT_SIM_D1MR] == 3 && c->hi[FT_SIM_D1MW] == 1);
	check("exact", ft_sim_exact(&sim, FT_SIM_IR));
	check("geometry", !strcmp(sim.cache[1], "4096 B, 64 B, 2-way associative"));
	check("tool", !strcmp(sim.tool, "valgrind-3.19.0 callgrind"));
	ft_sim_free(&sim);

	/* a part whose cost lines do not add up to its totals line */
	{
		static const char bad[] = HEAD READ_PART("1", "1051 330 160 0 3 1 0 1 1 68 7");

		f = text(bad);
		ft_sim_prepare(&sim, 1, &n, 1, 1);
		err = ft_sim_parse(&sim, f);
		fclose(f);
		check("totals-mismatch", err && strstr(sim.error, "do not add up"));
		ft_sim_free(&sim);
	}
	/* two reads asked for, one in the output */
	{
		static const char short_[] = HEAD READ_PART("1", "1050 330 160 0 3 1 0 1 1 68 7");

		f = text(short_);
		ft_sim_prepare(&sim, 1, &n, 1, 2);
		err = ft_sim_parse(&sim, f);
		fclose(f);
		check("missing-read",
		      err && strstr(sim.error, "1 reads in the output, 2 asked for"));
		ft_sim_free(&sim);
	}
	{
		struct ft_sim_cache g[3];
		char msg[160];
		bool host;

		check("geom.default",
		      !ft_sim_geometry_parse("D1=65536,8,64", g, &host, msg, sizeof(msg)) &&
			      g[1].size == 65536 && g[0].size == 32768 && !host);
		check("geom.host",
		      !ft_sim_geometry_parse("host", g, &host, msg, sizeof(msg)) && host);
		check("geom.bad-sets",
		      ft_sim_geometry_parse("LL=6000000,12,64", g, &host, msg, sizeof(msg)) != 0);
		check("geom.bad-syntax",
		      ft_sim_geometry_parse("D1=32768,8", g, &host, msg, sizeof(msg)) != 0);
		/* ASSOC * LINE past 2^64: refused, no division by its wrapped 0 */
		check("geom.assoc-line-overflow",
		      ft_sim_geometry_parse("I1=32768,1152921504606846976,16", g, &host, msg,
					    sizeof(msg)) == -1 &&
			      !strcmp(msg, "I1: the line must be a power of two >= 16 and SIZE / "
					   "(ASSOC * LINE) sets a power of two"));
		check("geom.field-overflow",
		      ft_sim_geometry_parse("D1=32768,8,18446744073709551616", g, &host, msg,
					    sizeof(msg)) == -1 &&
			      !strcmp(msg, "want host, or I1=SIZE,ASSOC,LINE[:D1=...][:LL=...]"));
		check("geom.sign-space-junk",
		      ft_sim_geometry_parse("I1=-32768,8,64", g, &host, msg, sizeof(msg)) &&
			      ft_sim_geometry_parse("I1= 32768,8,64", g, &host, msg, sizeof(msg)) &&
			      ft_sim_geometry_parse("I1=32768,+8,64", g, &host, msg, sizeof(msg)) &&
			      ft_sim_geometry_parse("I1=32768,8,64x", g, &host, msg, sizeof(msg)) &&
			      ft_sim_geometry_parse("I1=32768,8,64,1", g, &host, msg,
						    sizeof(msg)) &&
			      ft_sim_geometry_parse("I1=32768,8,64:", g, &host, msg, sizeof(msg)));
		check("geom.three-levels",
		      !ft_sim_geometry_parse("I1=16384,4,64:D1=65536,8,64:LL=4194304,16,64", g,
					     &host, msg, sizeof(msg)) &&
			      g[0].size == 16384 && g[0].assoc == 4 && g[1].size == 65536 &&
			      g[2].size == 4194304 && g[2].assoc == 16 && g[2].line == 64);
	}
	return failures ? 1 : 0;
}
