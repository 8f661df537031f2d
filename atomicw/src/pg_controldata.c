// SPDX-License-Identifier: MIT
#include "pg_controldata.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The cluster's major version from dir/PG_VERSION ("15", "9.6"). */
static int pg_version(const char *dir, char *v, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/PG_VERSION", dir) >= sizeof(path))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fgets(v, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	v[strcspn(v, "\n")] = '\0';
	return v[0] && strspn(v, "0123456789.") == strlen(v) ? 0 : -1;
}

static int find_tool(const char *ver, char *tool, size_t len)
{
	const char *const fmts[] = { "/usr/lib/postgresql/%s/bin/pg_controldata",
				     "/usr/pgsql-%s/bin/pg_controldata" };
	const char *path = getenv("PATH");

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if ((size_t)snprintf(tool, len, fmts[i], ver) < len && access(tool, X_OK) == 0)
			return 0;
	}
	/* Any other: its warnings (a CRC mismatch from another version) are fatal. */
	while (path && *path) {
		size_t n = strcspn(path, ":");

		if ((size_t)snprintf(tool, len, "%.*s/pg_controldata", (int)n, path) < len &&
		    n && access(tool, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

uint64_t aw_pg_block_size(const char *dir, char *source, size_t slen)
{
	char ver[16], tool[PATH_MAX], line[512];
	unsigned long long v, bs = 0;
	int fds[2], status, warned = 0;
	pid_t pid;
	FILE *f;

	if (pg_version(dir, ver, sizeof(ver))) {
		snprintf(source, slen, "no readable PG_VERSION in %s", dir);
		return 0;
	}
	if (find_tool(ver, tool, sizeof(tool))) {
		snprintf(source, slen, "no pg_controldata for PostgreSQL %s", ver);
		return 0;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(source, slen, "pipe: %s", strerror(errno));
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(source, slen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		static char *const env[] = { "LC_ALL=C", "PATH=/usr/bin:/bin", NULL };

		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execle(tool, tool, "-D", dir, (char *)NULL, env);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f) {
		snprintf(source, slen, "fdopen: %s", strerror(errno));
		close(fds[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Database block size: %llu", &v) == 1)
			bs = v;
		if (strstr(line, "WARNING") || strstr(line, "error"))
			warned = 1;
	}
	fclose(f);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(source, slen, "waitpid: %s", strerror(errno));
			return 0;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) || warned || !bs) {
		snprintf(source, slen, "%s -D %s %s", tool, dir,
			 warned ? "warned (another major version, or a damaged control file)" :
			 !bs ? "printed no block size" : "failed");
		return 0;
	}
	snprintf(source, slen, "%s", tool);
	return bs;
}
