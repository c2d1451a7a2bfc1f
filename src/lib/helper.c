// SPDX-License-Identifier: GPL-2.0
/* The programs fibtrace runs on a user's behalf: see helper.h. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

bool helper_find(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;

	for (p = path ? path : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (*p == '/' && (size_t)snprintf(out, len, "%.*s/%s", (int)n, p, name) < len &&
		    !access(out, X_OK))
			return true;
		p += n;
	}
	return false;
}

int helper_drop_to_invoker(void)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	char *end_u = NULL, *end_g = NULL;
	unsigned long uid, gid;
	struct passwd *pw;

	if (getuid() != 0 || !su || !sg)
		return 0;
	uid = strtoul(su, &end_u, 10);
	gid = strtoul(sg, &end_g, 10);
	if (!*su || *end_u || !*sg || *end_g || !uid || uid > 0xfffffffeUL || gid > 0xfffffffeUL) {
		fprintf(stderr,
			"fibtrace: SUDO_UID '%s' / SUDO_GID '%s': not a user to run a program as\n",
			su, sg);
		return -1;
	}
	pw = getpwuid((uid_t)uid);
	if ((pw ? initgroups(pw->pw_name, (gid_t)gid) : setgroups(0, NULL)) || setgid((gid_t)gid) ||
	    setuid((uid_t)uid) || !setuid(0)) {
		fprintf(stderr, "fibtrace: cannot become uid %lu to run a program: %s\n", uid,
			strerror(errno ? errno : EPERM));
		return -1;
	}
	if (pw) {
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	return 0;
}
