// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace: where the kernel module fibdrv spends its time, call by call.
 *
 *   fibtrace --sweep 0:92 --repeat 5          drive reads, then report
 *   fibtrace -- CMD ARGS                      trace while CMD runs
 *   fibtrace [-d SECONDS] [-i SECONDS]        trace until Ctrl-C
 *   fibtrace --compare algos --sweep A:B      compare variants (compare/)
 *   fibtrace --compare builds A.ko B.ko ...   compare builds of fibdrv (builds.c)
 *   fibtrace --cachesim --sweep A:B           simulated cache/branch events (cachesim.c)
 *
 * main() reads top to bottom: parse, check, discover, prepare the run, open
 * load and attach the tracer, run one mode, report, clean up. See
 * docs/architecture.md for the map and docs/fibtrace.md for the output.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cachesim/cachesim.h"
#include "cli/cli.h"
#include "fibdev.h"
#include "helper.h"
#include "model/timeline.h"
#include "model/tree.h"
#include "report/report.h"
#include "session/builds.h"
#include "session/calibrate.h"
#include "session/sweep.h"
#include "session/watch.h"
#include "tracer/tracer.h"

/* Ctrl-C and SIGTERM counted: the first ends the run, the next ends ft_watch_free's wait. */
static volatile sig_atomic_t exiting;
static void sig_handler(int sig)
{
	(void)sig;
	exiting++;
}

/* root, or CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN. */
/*
 * Every traced function holds a program fd and, as a kprobe, a perf event
 * fd (kretprobes two): two builds of ~90 functions under kprobes exceed the
 * usual soft limit of 1024. Raised to the hard limit, as mass attachers do.
 */
static void raise_fd_limit(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static bool have_privileges(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;
	char line[256];

	if (geteuid() == 0)
		return true;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff >> 21 & 1) || ((eff >> 39 & 1) && (eff >> 38 & 1));
}

/* --load PATH: finit_module(2) unless fibdrv is loaded already. */
static int load_module(const char *path)
{
	if (access("/sys/module/fibdrv", F_OK) == 0)
		return 0;
	return ft_load_ko(path, "fibtrace: --load");
}

static int pin_and_lock(const struct ft_cli *cli, struct ft_run *run)
{
	if (cli->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cli->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "fibtrace: cannot pin to CPU %d: %s\n", cli->cpu,
				strerror(errno));
			return -FT_EXIT_USAGE;
		}
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		ft_warn(run, "mlockall failed: %s", strerror(errno));
	return 0;
}

/* ---------- --sweep: the device's default algorithm or each --algo in turn ---------- */

struct sweep_ctx {
	struct ft_run *run;
	struct ft_tracer *tr;
	struct ft_calib *calib;	   /* recalibrated between reads */
	int ids[FIBDEV_MAX_ALGOS]; /* -1: the device's default */
	int nalgo;
};

static void sweep_on_read(void *ctx, const struct ft_sweep_read *r)
{
	struct sweep_ctx *s = ctx;

	s->run->reads_issued++;
	if (r->got < 0)
		s->run->read_errors++;
}

static int sweep_drain(void *ctx)
{
	return ft_tracer_consume(((struct sweep_ctx *)ctx)->tr);
}

static int drive_sweep(const struct ft_cli *cli, struct sweep_ctx *sc)
{
	struct ft_sweep s = {
		.range = cli->range,
		.rounds = cli->repeat,
		.nvar = sc->nalgo,
		.progress = isatty(STDERR_FILENO),
		.on_read = sweep_on_read,
		.drain = sweep_drain,
		.ctx = sc,
		.tick = ft_calibrate_tick,
		.tick_ctx = sc->calib,
		.stop = &exiting,
	};
	int fds[FIBDEV_MAX_ALGOS], i, err = 0;

	for (i = 0; i < sc->nalgo && !err; i++) {
		const char *algo = sc->ids[i] >= 0 ? sc->run->algos.name[sc->ids[i]] : NULL;

		fds[i] = fibdev_open(cli->device, algo, -1, "fibtrace");
		if (fds[i] < 0)
			err = -FT_EXIT_ERROR;
	}
	s.fds = fds;
	if (!err && ft_sweep_run(&s))
		err = -FT_EXIT_ERROR;
	while (i-- > 0)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

/* Without --algo: the device's default algorithm takes the sweep's largest n (exit 2 if not). */
static int default_algo_allows(const struct ft_cli *cli, const struct ft_run *run)
{
	char name[FIBDRV_ALGO_NAME_MAX];
	int fd = fibdev_open(cli->device, NULL, -1, "fibtrace"), i = -1;

	if (fd < 0)
		return -FT_EXIT_ERROR;
	if (!fibdev_get_algo(fd, name, sizeof(name)))
		i = fibdev_algo_index(&run->algos, name);
	close(fd);
	if (i < 0 || cli->range.last <= run->algos.max_n[i])
		return 0;
	fprintf(stderr,
		"fibtrace: --sweep up to %" PRIu64
		" exceeds the default algorithm %s's max_n %" PRIu64 " (--algo picks another)\n",
		(uint64_t)cli->range.last, name, (uint64_t)run->algos.max_n[i]);
	return -FT_EXIT_USAGE;
}

/* The run's sweep fields, and the algorithms of --sweep. */
static int prepare_sweep(const struct ft_cli *cli, struct ft_run *run, struct sweep_ctx *sc)
{
	double planned; /* reads the sweep makes: records it keeps */
	int err;

	sc->ids[0] = -1;
	sc->nalgo = 1;
	if (!cli->algo_list && (err = default_algo_allows(cli, run)))
		return err;
	if (cli->algo_list) {
		sc->nalgo = ft_algo_list_parse(run, cli->algo_list, cli->range.last, sc->ids,
					       FIBDEV_MAX_ALGOS, "--algo");
		if (sc->nalgo < 0)
			return sc->nalgo;
	}
	planned = (double)ft_cli_sweep_reads(cli);
	if (!cli->cmp.kind && planned > cli->max_records) {
		fprintf(stderr,
			"fibtrace: --sweep makes %.0f reads; fibtrace keeps at most %" PRIu64
			" read records (--max-records, %zu bytes each): raise it or sweep less\n",
			planned, (uint64_t)cli->max_records, sizeof(struct ft_read_rec));
		return -FT_EXIT_USAGE;
	}
	ft_run_set_sweep(run, cli->range.first, cli->range.last, cli->range.step, cli->repeat);
	return run->timeline ? ft_timeline_choose(run->timeline, run, sc->nalgo) : 0;
}

/* The report on stdout reached it (a full disk, a closed pipe): 0, or exit 1 and why. */
/* ---------- one run ---------- */

static const char *mode_name(const struct ft_cli *cli)
{
	if (cli->cmp.kind)
		return "compare";
	if (cli->sweep)
		return "sweep";
	return cli->ncmd ? "command" : cli->interval ? "interval" : "wait";
}

static void print_slots(const struct ft_targets *tg)
{
	int i;

	for (i = 0; i < tg->count; i++)
		fprintf(stderr, "fibtrace: slot %3d %-6s %s%s%s\n", tg->t[i].slot,
			tg->t[i].unavailable ? "none" : ft_mode_name(tg->t[i].mode),
			tg->t[i].module, tg->t[i].module[0] ? ":" : "", tg->t[i].name);
}

/*
 * Whether the report comes before the detach, which takes seconds on 6.1
 * (a trampoline or kprobe released per function): the text report of a
 * trace with nothing saved; JSON, CSV, saved files and --compare carry the
 * detach time, and --cachesim=join simulates after the tracers stop.
 */
static bool report_first(const struct ft_cli *cli, const struct ft_compare *cmp)
{
	return !cmp && ft_cli_output(cli) == FT_OUT_TEXT && !cli->cmp.save_json && !cli->save_csv &&
	       cli->cachesim != FT_SIM_JOIN;
}

/* The report and the files asked for: 0 or -(exit status). */
static int report(const struct ft_cli *cli, struct ft_run *run, struct ft_compare *cmp)
{
	int err;

	if (cmp) {
		err = ft_compare_report(cmp, run, stdout);
		return ft_report_flushed() ? -FT_EXIT_ERROR : err;
	}
	ft_report(stdout, run, ft_cli_output(cli), cli->hists);
	if (ft_report_flushed())
		return -FT_EXIT_ERROR;
	if ((cli->cmp.save_json &&
	     ft_report_save(run, cli->cmp.save_json, FT_OUT_JSON, cli->hists)) ||
	    (cli->save_csv && ft_report_save(run, cli->save_csv, FT_OUT_CSV, cli->hists)) ||
	    (cli->plot && ft_plot(run, cli->plot)) ||
	    (cli->folded && ft_tree_folded(run, cli->folded)) ||
	    (cli->flamegraph && ft_tree_flamegraph(run, cli->flamegraph)) ||
	    (run->timeline && ft_timeline_write(run)))
		return -FT_EXIT_ERROR;
	return 0;
}

/*
 * Privileges, fibdrv (or the builds to compare, loaded), what to trace (each
 * function's mode is decided here).
 */
static int check_and_discover(const struct ft_cli *cli, struct ft_run *run, struct ft_builds *bs)
{
	struct ft_builds_opts bo;
	int err;

	if (!have_privileges()) {
		fprintf(stderr, "fibtrace: needs root (or CAP_BPF and CAP_PERFMON)\n");
		return -FT_EXIT_PERM;
	}
	raise_fd_limit();
	if (cli->pid && kill((pid_t)cli->pid, 0) && errno == ESRCH) {
		fprintf(stderr, "fibtrace: -p %u: no such process\n", cli->pid);
		return -FT_EXIT_USAGE;
	}
	if (cli->load && (err = load_module(cli->load)))
		return err;
	ft_cli_builds_opts(cli, &bo);
	return ft_builds_open(bs, &bo, run);
}

/* The driven reads (--compare, --sweep) and the counters (-e). */
static int prepare_run(struct ft_cli *cli, struct ft_run *run, struct ft_compare **cmp,
		       struct sweep_ctx *sc, struct ft_builds *bs)
{
	struct ft_cmp_build cb[FT_CMP_MAX_VARIANTS];
	int err = 0, i;

	for (i = 0; i < bs->n; i++)
		cb[i] = (struct ft_cmp_build){bs->b[i].label, bs->b[i].device, bs->b[i].run};
	if (cli->cmp.kind)
		err = ft_compare_prepare(cmp, &cli->cmp, run, cli->algo_list, cli->device,
					 cli->range.first, cli->range.last, cli->range.step,
					 cli->repeat, cli->cpu, cb, cli->nko ? bs->n : 0);
	else if (cli->sweep)
		err = prepare_sweep(cli, run, sc);
	if (!err && cli->counters.nreq) {
		run->counters = &cli->counters;
		err = ft_counters_open(&cli->counters, run);
	}
	if (!err && cli->cmp.kind && cli->cmp.metric == FT_METRIC_COUNTER && !cli->counters.nev) {
		fprintf(stderr, "fibtrace: --metric counter needs an -e event that is available "
				"here (e.g. -e page-faults)\n");
		err = -FT_EXIT_USAGE;
	}
	if (!err)
		ft_builds_share(bs);
	return err;
}

/* Open and load one build's BPF programs; time its calibration functions untraced. */
static int load_tracer(const struct ft_cli *cli, struct ft_build *b, struct ft_startup *su)
{
	double t0 = ft_now_s();
	struct ft_tracer_opts o = {
		.force_kprobe = cli->attach == FT_ATTACH_KPROBE,
		.verbose = cli->verbose,
		.ringbuf_bytes = cli->ringbuf_bytes,
		.sweep_reads = cli->sweep ? u64_range_count(&cli->range) : 0,
		.maxactive = cli->maxactive,
	};
	int err = ft_tracer_new(&b->tr, &o, b->run);

	if (!err)
		err = ft_tracer_load(b->tr);
	su->load_s += ft_now_s() - t0;
	t0 = ft_now_s();
	if (!err)
		err = ft_calibrate_untraced(&b->calib, b->run, b->device);
	su->calibrate_s += ft_now_s() - t0;
	return err;
}

/* Calibrate one attached build's traced cost (calibrate.c). */
static int calibrate_tracer(const struct ft_cli *cli, struct ft_build *b)
{
	int err = ft_calibrate(&b->calib, b->tr, b->run);

	if (err || !cli->sweep || cli->cmp.kind)
		ft_calibrate_close(&b->calib); /* only a sweep recalibrates between its reads */
	if (!err && cli->verbose)
		print_slots(b->run->targets);
	return err;
}

/*
 * Every build's tracer (--compare builds has several) in phases, so that
 * each calibration sees the same programs attached: load all and time
 * their calibration functions untraced, attach all, calibrate each, one
 * pooled cost for all, then start recording in all. Each phase is timed
 * into run->startup (@t_start: when main began).
 */
static int start_tracers(const struct ft_cli *cli, struct ft_builds *bs, double t_start)
{
	struct ft_startup *su = &bs->b[0].run->startup;
	int i, err = 0;
	double t0;

	for (i = 0; i < bs->n && !err; i++)
		err = load_tracer(cli, &bs->b[i], su);
	t0 = ft_now_s();
	for (i = 0; i < bs->n && !err; i++)
		err = ft_tracer_attach(bs->b[i].tr);
	su->attach_s = ft_now_s() - t0;
	t0 = ft_now_s();
	for (i = 0; i < bs->n && !err; i++)
		err = calibrate_tracer(cli, &bs->b[i]);
	su->calibrate_s += ft_now_s() - t0;
	if (err)
		return err;
	ft_builds_pool_costs(bs);
	for (i = 0; i < bs->n; i++)
		ft_tracer_set_state(bs->b[i].tr, FT_ON);
	su->total_s = ft_now_s() - t_start;
	if (cli->verbose)
		fprintf(stderr,
			"fibtrace: plan %s: discover %.2fs, load %.2fs, attach %.2fs, calibrate "
			"%.2fs: recording %.2fs after start\n",
			su->plan, su->discover_s, su->load_s, su->attach_s, su->calibrate_s,
			su->total_s);
	return 0;
}

/* Every build's links destroyed, timed: what Ctrl-C costs before the report. */
static void detach_tracers(struct ft_builds *bs)
{
	double t0 = ft_now_s();
	int i;

	for (i = 0; i < bs->n; i++)
		ft_tracer_detach(bs->b[i].tr);
	bs->b[0].run->startup.detach_s = ft_now_s() - t0;
}

/* Compare, sweep, or watch (a command, -p, or until Ctrl-C): 0 or -(exit status). */
static int run_mode(const struct ft_cli *cli, struct ft_run *run, struct ft_builds *bs,
		    struct ft_compare *cmp, struct sweep_ctx *sc, struct ft_watch *w)
{
	struct ft_tracer *tr = bs->b[0].tr;
	int err;

	if (!cli->cmp.kind && !cli->sweep)
		return ft_watch(w, run, tr, &exiting);
	err = pin_and_lock(cli, run);
	if (!err && cmp) {
		err = ft_compare_drive(cmp, run, ft_builds_consume, bs, &exiting);
	} else if (!err) {
		sc->run = run;
		sc->tr = tr;
		err = drive_sweep(cli, sc);
	}
	return err;
}

/*
 * The run's counts read and reported, the probes detached (after a text
 * report, before the others: report_first): @ret, or the first error.
 */
static int collect_and_report(struct ft_cli *cli, struct ft_run *run, struct ft_builds *bs,
			      struct ft_compare *cmp, struct ft_watch *w, struct ft_sim *sim,
			      int ret)
{
	int err;

	if (cli->verbose)
		ft_tracer_print_memory(bs->b[0].tr);
	if (cli->interval) {
		/* collects the last interval itself */
		ft_watch_report(w, run, bs->b[0].tr);
		return ft_report_flushed() && !ret ? -FT_EXIT_ERROR : ret;
	}
	ft_builds_collect(bs);
	ft_plan_hint(run, stderr);
	if (report_first(cli, cmp)) {
		run->startup.detach_s = -1; /* not known yet: said on stderr below */
		err = report(cli, run, cmp);
		detach_tracers(bs);
		fprintf(stderr, "fibtrace: probes detached in %.2fs\n", run->startup.detach_s);
		return ret ? ret : err;
	}
	detach_tracers(bs);
	if (cli->cachesim == FT_SIM_JOIN && (err = ft_sim_cli_join(cli, run, sim)))
		return err;
	err = report(cli, run, cmp);
	return ret ? ret : err;
}

/* The run's description from the command line (what the reports print about it). */
static void describe_run(const struct ft_cli *cli, struct ft_run *run, struct ft_timeline *tl)
{
	static struct utsname uts;

	uname(&uts);
	run->kernel = uts.release;
	run->hist = cli->hist_cfg;
	run->raw = cli->raw;
	run->cpu = cli->cpu;
	run->filter_pid = cli->pid;
	run->maxactive = cli->maxactive;
	run->max_recs = cli->max_records;
	run->run_mode = mode_name(cli);
	run->tree_on = cli->tree;
	run->off_cpu = cli->off_cpu; /* the tracer clears it when it cannot measure */
	run->overhead.ctx.wanted = !cli->cmp.kind;
	run->tree_full = cli->tree_full;
	run->all = cli->all;
	run->tree_n = cli->tree_n;
	if (cli->trace_out) {
		tl->path = cli->trace_out;
		tl->reads = cli->trace_reads;
		run->timeline = tl;
	}
	ft_run_clocksource(run);
}

int main(int argc, char **argv)
{
	static struct ft_cli cli;
	static struct ft_targets targets;
	static struct sweep_ctx sc;
	static struct ft_builds builds = {.b[0].calib.fd = -1};
	static struct ft_timeline timeline;
	static struct ft_sim sim;
	struct ft_run run = {.targets = &targets, .cpu = -1, .tree_root = -1, .heap_bytes = -1};
	struct ft_compare *cmp = NULL;
	struct ft_watch watch = {};
	int err, ret = 0; /* ret: the run's result, 0 or -(exit status) */
	double t0 = ft_now_s();

	/* Parse the command line; describe the run. */
	if (ft_cli_parse(&cli, argc, argv, 0))
		return FT_EXIT_USAGE;
	if (cli.user && helper_set_user(cli.user)) /* before anything runs or is written */
		return FT_EXIT_USAGE;
	if (cli.cachesim == FT_SIM_ONLY) /* simulated in user space: nothing is traced */
		return ft_exit_status(ft_sim_cli_only(&cli));
	ft_cli_watch_opts(&cli, &watch.o);
	ft_tracer_log(cli.verbose);
	/*
	 * From here on Ctrl-C or SIGTERM only sets `exiting`: a signal during
	 * the start-up (seconds with fentry on 6.1) ends the run as soon as it
	 * begins, through the one cleanup path, instead of killing fibtrace
	 * halfway through attaching.
	 */
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	describe_run(&cli, &run, &timeline);
	sc.calib = &builds.b[0].calib;

	/* Check, discover, prepare, start the tracers (one per build). */
	err = check_and_discover(&cli, &run, &builds);
	if (!err)
		err = prepare_run(&cli, &run, &cmp, &sc, &builds);
	run.startup.discover_s = ft_now_s() - t0;
	if (!err)
		err = start_tracers(&cli, &builds, t0);
	if (err) {
		ret = err;
		goto cleanup;
	}

	/* Run one mode; a driven run that failed reports nothing. */
	t0 = ft_now_s();
	ret = run_mode(&cli, &run, &builds, cmp, &sc, &watch);
	if (ret && (cli.cmp.kind || cli.sweep))
		goto cleanup;

	/* Collect and report. */
	run.seconds = ft_now_s() - t0;
	ret = collect_and_report(&cli, &run, &builds, cmp, &watch, &sim, ret);

cleanup:
	ft_builds_close(&builds); /* tracers, calibration, the builds it loaded */
	ft_watch_free(&watch);	  /* after: no probe stays attached while the command ends */
	ft_compare_free(cmp);
	ft_counters_close(&cli.counters);
	ft_cli_free(&cli);
	ft_run_free(&run);
	ft_timeline_free(run.timeline);
	ft_sim_free(&sim);
	return ft_exit_status(ret);
}
