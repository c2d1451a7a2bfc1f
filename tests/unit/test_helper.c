// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of src/lib/helper.c: a helper program is never found through
 * a relative PATH entry, nor as root where another user could have put it
 * (a directory or file not root's alone), and under sudo a child drops to the user who ran
 * sudo (checked in a forked child; skipped, saying why, when not root).
 * Files created as the invoker between helper_fs_enter and helper_fs_leave.
 * --user: a name or a uid with a passwd entry (nothing else, and only as
 * root) taking precedence over SUDO_UID; root keeps root.
 * The traced command: in a process group of its own, as the user, killed
 * when fibtrace dies, ended within its grace with what it started, at once
 * on a second Ctrl-C. This process is a child subreaper, so the command's
 * own children are reaped here and their end is seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s helper.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static void test_find(void)
{
	char dir[] = "/tmp/ft-helper-XXXXXX", tool[64], got[256], cwd[4096];
	FILE *f;

	if (!mkdtemp(dir) || !getcwd(cwd, sizeof(cwd))) {
		check("find.setup", 0);
		return;
	}
	snprintf(tool, sizeof(tool), "%s/ft-helper-tool", dir);
	f = fopen(tool, "w");
	if (f) {
		fputs("#!/bin/sh\n", f);
		fclose(f);
	}
	chmod(tool, 0755);
	if (chdir(dir)) {
		check("find.chdir", 0);
		return;
	}
	setenv("PATH", ".", 1);
	check("find.dot_skipped", !helper_find("ft-helper-tool", got, sizeof(got)));
	setenv("PATH", "::bin:./:.", 1);
	check("find.relative_skipped", !helper_find("ft-helper-tool", got, sizeof(got)));
	snprintf(got, sizeof(got), ".:/nonexistent:%s", dir);
	setenv("PATH", got, 1);
	check("find.absolute",
	      helper_find("ft-helper-tool", got, sizeof(got)) && !strcmp(got, tool));
	check("find.too_long", !helper_find("ft-helper-tool", got, 8));
	if (chdir(cwd))
		check("find.chdir_back", 0);
	unlink(tool);
	rmdir(dir);
}

/* @dir/ft-helper-tool, a script of @mode, and @dir of @dir_mode owned by @owner; false on failure.
 */
static bool plant(const char *dir, mode_t dir_mode, uid_t owner, mode_t mode)
{
	char tool[128];
	FILE *f;

	snprintf(tool, sizeof(tool), "%s/ft-helper-tool", dir);
	f = fopen(tool, "w");
	if (!f)
		return false;
	fputs("#!/bin/sh\n", f);
	return !fclose(f) && !chmod(tool, mode) && !chmod(dir, dir_mode) &&
	       !chown(dir, owner, owner);
}

/* ft-helper-tool found with PATH @path, in @want (NULL: not found). */
static bool found_in(const char *path, const char *want)
{
	char got[256], tool[256];

	setenv("PATH", path, 1);
	if (!want)
		return !helper_find("ft-helper-tool", got, sizeof(got));
	snprintf(tool, sizeof(tool), "%s/ft-helper-tool", want);
	return helper_find("ft-helper-tool", got, sizeof(got)) && !strcmp(got, tool);
}

/*
 * As root: only from a directory root alone can write, below directories
 * closed to others or sticky, and a file root alone can write. @top holds:
 * open/ (0777), nobody/ (65534's), root/ (0755), wide/ (0777, not sticky)
 * holding a root 0755 inner/, loose/ (0755) with a 0777 tool.
 */
static void test_find_root(void)
{
	char top[] = "/tmp/ft-helper-root-XXXXXX", d[6][64], path[320];
	const char *sub[] = {"open", "nobody", "root", "wide", "wide/inner", "loose"};
	unsigned int i;

	if (geteuid() != 0) {
		printf("SKIP helper.find_root: not root (the check is root's only)\n");
		return;
	}
	if (!mkdtemp(top) || chmod(top, 0755))
		return check("find_root.setup", 0);
	for (i = 0; i < 6; i++) {
		snprintf(d[i], sizeof(d[i]), "%s/%s", top, sub[i]);
		if (mkdir(d[i], 0700))
			return check("find_root.mkdir", 0);
	}
	check("find_root.setup", plant(d[0], 0777, 0, 0755) && plant(d[1], 0755, 65534, 0755) &&
					 plant(d[2], 0755, 0, 0755) && plant(d[4], 0755, 0, 0755) &&
					 plant(d[3], 0777, 0, 0755) && plant(d[5], 0755, 0, 0777));
	check("find_root.world_writable_dir_skipped", found_in(d[0], NULL));
	check("find_root.others_dir_skipped", found_in(d[1], NULL));
	check("find_root.root_dir_found", found_in(d[2], d[2]));
	check("find_root.writable_parent_skipped", found_in(d[4], NULL));
	check("find_root.writable_file_skipped", found_in(d[5], NULL));
	snprintf(path, sizeof(path), "%s:%s:%s", d[0], d[1], d[2]);
	check("find_root.first_trusted", found_in(path, d[2]));
	chmod(d[3], 01777); /* sticky: only root may rename inner/ */
	check("find_root.sticky_parent_found", found_in(d[4], d[4]));
	for (i = 6; i-- > 0;) {
		snprintf(path, sizeof(path), "%s/ft-helper-tool", d[i]);
		unlink(path);
		rmdir(d[i]);
	}
	rmdir(top);
}

/* In a child: SUDO_UID/SUDO_GID 65534 -> uid and gid 65534, no way back to root. */
static void test_drop(void)
{
	int status;
	pid_t pid;

	if (getuid() != 0) {
		printf("SKIP helper.drop: not root (the drop is root's only)\n");
		check("drop.not_root_noop", setenv("SUDO_UID", "65534", 1) == 0 &&
						    setenv("SUDO_GID", "65534", 1) == 0 &&
						    helper_drop_to_invoker() == 0);
		return;
	}
	pid = fork();
	if (pid == 0) {
		setenv("SUDO_UID", "65534", 1);
		setenv("SUDO_GID", "65534", 1);
		_exit(helper_drop_to_invoker() || getuid() != 65534 || geteuid() != 65534 ||
		      getgid() != 65534 || !setuid(0));
	}
	check("drop.to_invoker", pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
					 WEXITSTATUS(status) == 0);
	pid = fork();
	if (pid == 0) {
		setenv("SUDO_UID", "0", 1); /* root is not a user to drop to */
		setenv("SUDO_GID", "0", 1);
		_exit(helper_drop_to_invoker() == -1 ? 0 : 1);
	}
	check("drop.refuses_root", pid > 0 && waitpid(pid, &status, 0) == pid &&
					   WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* @path's owner is @uid:@gid. */
static bool owned(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;

	return !stat(path, &st) && st.st_uid == uid && st.st_gid == gid;
}

/* Created between helper_fs_enter and helper_fs_leave: as the invoker, then as root again. */
static void test_fs(void)
{
	char dir[] = "/tmp/ft-helper-fs-XXXXXX", path[64];
	uid_t uid;
	gid_t gid;
	int fd;

	if (getuid() != 0) {
		printf("SKIP helper.fs: not root (the drop is root's only)\n");
		return;
	}
	if (!mkdtemp(dir) || chmod(dir, 01777))
		return check("fs.setup", 0);
	snprintf(path, sizeof(path), "%s/f", dir);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	check("fs.invoker", helper_invoker(&uid, &gid) == 1 && uid == 65534 && gid == 65534);
	fd = helper_fs_enter() ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	helper_fs_leave();
	check("fs.created_as_invoker", fd >= 0 && owned(path, 65534, 65534));
	if (fd >= 0)
		close(fd);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600); /* after leave: root again */
	check("fs.root_after_leave", fd >= 0 && owned(path, 0, 0));
	if (fd >= 0)
		close(fd);
	unlink(path);
	chmod(dir, 0700); /* root's alone */
	fd = helper_fs_enter() ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	helper_fs_leave();
	check("fs.invokers_permissions", fd < 0 && errno == EACCES && access(path, F_OK));
	setenv("SUDO_UID", "root", 1);
	check("fs.bad_sudo_uid_refused",
	      helper_fs_enter() == -1 && helper_invoker(&uid, &gid) == -1);
	setenv("SUDO_UID", " 65534", 1);
	check("fs.sudo_uid_digits_only", helper_invoker(&uid, &gid) == -1);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	check("fs.not_under_sudo", helper_invoker(&uid, &gid) == 0 && helper_fs_enter() == 0);
	helper_fs_leave();
	rmdir(dir);
}

/* In a forked child, @fn's result: its exit status 0 for true. */
static bool in_child(bool (*fn)(const char *), const char *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg) ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/* As uid 65534: --user refused (only root runs programs as another user). */
static bool refused_unless_root(const char *spec)
{
	return !setgid(65534) && !setuid(65534) && helper_set_user(spec) == -1;
}

/* --user @spec, then a drop: 65534's uid, group, HOME and USER, no way back. */
static bool drops_to_user(const char *spec)
{
	struct passwd *pw = getpwuid(65534);

	return pw && !helper_set_user(spec) && !helper_drop_to_invoker() && getuid() == 65534 &&
	       geteuid() == 65534 && getgid() == pw->pw_gid && setuid(0) &&
	       !strcmp(getenv("HOME"), pw->pw_dir) && !strcmp(getenv("USER"), pw->pw_name);
}

/* --user @spec names 65534 (SUDO_UID and SUDO_GID, bad ones here, are not consulted). */
static bool is_nobody(const char *spec)
{
	uid_t uid = 0;
	gid_t gid = 0;
	struct passwd *pw = getpwuid(65534);

	return pw && !helper_set_user(spec) && helper_invoker(&uid, &gid) == 1 && uid == 65534 &&
	       gid == pw->pw_gid;
}

/* --user: a name or a uid with a passwd entry, over SUDO_UID; root keeps root. */
static void test_set_user(void)
{
	struct passwd *pw = getpwuid(65534);
	char name[64] = "", spec[32];
	uid_t free_uid = 12345, uid;
	gid_t gid;
	int entered;

	if (getuid() != 0 || !pw) {
		printf("SKIP helper.user: not root, or no uid 65534 in the passwd database\n");
		return;
	}
	snprintf(name, sizeof(name), "%s", pw->pw_name);
	while (getpwuid(free_uid))
		free_uid++;
	snprintf(spec, sizeof(spec), "%u", (unsigned int)free_uid);
	setenv("SUDO_UID", "root", 1); /* refused if consulted */
	setenv("SUDO_GID", "0", 1);
	check("user.name", is_nobody(name));
	check("user.numeric", is_nobody("65534") && is_nobody("0065534"));
	entered = helper_fs_enter();
	helper_fs_leave();
	check("user.fs_and_hint",
	      !entered && strstr(helper_fs_hint(EACCES), "--user") && !*helper_fs_hint(ENOENT));
	check("user.unknown_name", helper_set_user("ft-no-such-user") == -1 &&
					   helper_set_user(" 65534") == -1 &&
					   helper_set_user("-1") == -1);
	check("user.refused_is_forgotten", helper_invoker(&uid, &gid) == -1); /* SUDO_UID again */
	check("user.uid_without_entry", helper_set_user(spec) == -1);
	check("user.overflow", helper_set_user("4294967295") == -1 &&
				       helper_set_user("18446744073709551617") == -1 &&
				       helper_set_user("") == -1);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	check("user.root_keeps_root", !helper_set_user("root") && helper_invoker(&uid, &gid) == 0 &&
					      !helper_set_user("0") &&
					      helper_invoker(&uid, &gid) == 0 &&
					      !*helper_fs_hint(EACCES));
	check("user.null_forgets", !helper_set_user(NULL) && helper_invoker(&uid, &gid) == 1);
	setenv("SUDO_UID", "1", 1); /* not 65534: the drop must be --user's */
	setenv("SUDO_GID", "1", 1);
	check("user.drop_by_name", in_child(drops_to_user, name));
	check("user.drop_by_uid", in_child(drops_to_user, "65534"));
	check("user.needs_root", in_child(refused_unless_root, "65534"));
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* @pid's wait status within @seconds, or -1 (then it is killed). */
static int wait_for(pid_t pid, double seconds)
{
	double end = now_s() + seconds;
	int status;

	do {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(10000);
	} while (now_s() < end);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* The pid the command wrote to @file (its background sleep), within 5 s, or 0. */
static pid_t read_pid(const char *file)
{
	double end = now_s() + 5;
	long v = 0;

	do {
		FILE *f = fopen(file, "r");

		if (f && fscanf(f, "%ld", &v) != 1)
			v = 0;
		if (f)
			fclose(f);
		if (v > 0)
			return (pid_t)v;
		usleep(10000);
	} while (now_s() < end);
	return 0;
}

/* sh ignoring SIGTERM, with a background sleep (which inherits that) whose pid goes to @file. */
static pid_t start_stubborn(const char *file)
{
	char script[256];
	char *argv[] = {"sh", "-c", script, NULL};

	snprintf(script, sizeof(script),
		 "trap '' TERM; sleep 600 & echo $! >%s.t; mv %s.t %s; wait", file, file, file);
	unlink(file);
	return helper_command_start(argv, true);
}

static volatile sig_atomic_t stop;
static void on_alarm(int sig)
{
	(void)sig;
	stop++;
}

/* Ended within the grace (or at once on a second signal), its sleep with it. */
static void test_end(const char *dir)
{
	char file[128];
	pid_t pid, bg;
	double t0, took;
	int status;

	snprintf(file, sizeof(file), "%s/bg", dir);
	pid = start_stubborn(file);
	bg = read_pid(file);
	check("command.own_group", pid > 0 && getpgid(pid) == pid && bg > 0 && getpgid(bg) == pid);
	check("command.runs", helper_command_poll(pid, &status) == HELPER_CMD_RUNS);
	t0 = now_s();
	helper_command_end(pid, 1.0, NULL);
	took = now_s() - t0;
	check("command.end_within_grace", took >= 1.0 && took < 2.5);
	check("command.end_reaps", waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD);
	status = bg > 0 ? wait_for(bg, 2) : -1;
	check("command.end_kills_group",
	      status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	/* A signal during the wait (the second Ctrl-C) ends it at once. */
	pid = start_stubborn(file);
	bg = read_pid(file);
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &(struct itimerval){.it_value = {0, 200000}}, NULL);
	t0 = now_s();
	helper_command_end(pid, 30.0, &stop);
	took = now_s() - t0;
	check("command.second_signal_ends_wait", stop == 1 && took >= 0.15 && took < 2.0);
	status = bg > 0 ? wait_for(bg, 2) : -1;
	check("command.second_signal_kills_group", waitpid(pid, NULL, WNOHANG) < 0 && status >= 0 &&
							   WIFSIGNALED(status) &&
							   WTERMSIG(status) == SIGKILL);
}

/* Its end seen, left unreaped until helper_command_end; a stop at the terminal told apart. */
static void test_states(void)
{
	char *exit3[] = {"sh", "-c", "exit 3", NULL}, *sleeper[] = {"sleep", "600", NULL};
	double end = now_s() + 5;
	int status = -1, state;
	pid_t pid = helper_command_start(exit3, true);

	while ((state = helper_command_poll(pid, &status)) == HELPER_CMD_RUNS && now_s() < end)
		usleep(10000);
	check("command.ended_status",
	      state == HELPER_CMD_ENDED && WIFEXITED(status) && WEXITSTATUS(status) == 3);
	check("command.ended_unreaped", helper_command_poll(pid, &status) == HELPER_CMD_ENDED);
	helper_command_end(pid, 1.0, NULL);
	check("command.ended_reaped", waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD);

	pid = helper_command_start(sleeper, true);
	kill(pid, SIGTTIN); /* what reading the terminal from its own group does */
	end = now_s() + 5;
	while ((state = helper_command_poll(pid, &status)) == HELPER_CMD_RUNS && now_s() < end)
		usleep(10000);
	check("command.stopped_tty", state == HELPER_CMD_STOPPED_TTY);
	end = now_s();
	helper_command_end(pid, 5.0, NULL); /* SIGCONT after SIGTERM: no wait for SIGKILL */
	check("command.stopped_ends_on_term",
	      now_s() - end < 1.0 && waitpid(pid, NULL, WNOHANG) < 0);
}

/*
 * fibtrace killed: its command gets SIGKILL from the kernel. A middle
 * process starts it (as nobody when root: the death signal survives the
 * drop), waits until it has run (it writes a line on a pipe, then execs
 * sleep) and exits.
 */
static void test_parent_death(void)
{
	char script[64], line[8];
	char *argv[] = {"sh", "-c", script, NULL};
	int fds[2], ran[2], status;
	pid_t mid, pid = 0;

	if (pipe(fds) || pipe(ran))
		return check("pdeath.setup", 0);
	snprintf(script, sizeof(script), "echo >&%d; exec sleep 600", ran[1]);
	mid = fork();
	if (mid == 0) {
		setenv("SUDO_UID", "65534", 1);
		setenv("SUDO_GID", "65534", 1);
		pid = helper_command_start(argv, false);
		close(ran[1]);
		_exit(read(ran[0], line, 1) == 1 && write(fds[1], &pid, sizeof(pid)) == sizeof(pid)
			      ? 0
			      : 1);
	}
	close(fds[1]);
	close(ran[1]);
	close(ran[0]);
	if (read(fds[0], &pid, sizeof(pid)) != sizeof(pid))
		pid = 0;
	close(fds[0]);
	waitpid(mid, NULL, 0);
	status = pid > 0 ? wait_for(pid, 3) : -1;
	check("pdeath.killed", status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* As root under sudo: the command runs as SUDO_UID/SUDO_GID (or --user); as_root keeps root. */
static void test_command_user(void)
{
	char *nobody[] = {"sh", "-c", "test \"$(id -u):$(id -g)\" = 65534:65534", NULL};
	char *root[] = {"sh", "-c", "test \"$(id -u)\" = 0", NULL};
	pid_t pid;

	if (getuid() != 0) {
		printf("SKIP helper.command_user: not root (the drop is root's only)\n");
		return;
	}
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	pid = helper_command_start(nobody, false);
	check("command.as_invoker", pid > 0 && wait_for(pid, 5) == 0);
	pid = helper_command_start(root, true);
	check("command.as_root", pid > 0 && wait_for(pid, 5) == 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	pid = helper_set_user("65534") ? -1 : helper_command_start(nobody, false);
	check("command.as_user", pid > 0 && wait_for(pid, 5) == 0);
	helper_set_user(NULL);
}

int main(void)
{
	char dir[] = "/tmp/ft-helper-cmd-XXXXXX", bg[64];

	test_find();
	test_find_root();
	test_drop();
	test_fs();
	test_set_user();
	setenv("PATH", "/usr/bin:/bin", 1);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) || !mkdtemp(dir)) {
		check("command.setup", 0);
		return 1;
	}
	test_end(dir);
	test_states();
	test_parent_death();
	test_command_user();
	snprintf(bg, sizeof(bg), "%s/bg", dir); /* test_end's pid file */
	unlink(bg);
	rmdir(dir);
	return failures ? 1 : 0;
}
