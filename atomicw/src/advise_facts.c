// SPDX-License-Identifier: MIT
/* Gathering what atomicw advise judges: read-only, from the running system. */
#include "advise_facts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* A regular file under dir for statx: a PostgreSQL control file if there is one. */
static int find_probe(const char *dir, char *out, size_t len)
{
	static const char *const known[] = { "global/pg_control", "ibdata1", "PG_VERSION" };
	struct dirent *e;
	struct stat st;
	DIR *d;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if ((size_t)snprintf(out, len, "%s/%s", dir, known[i]) >= len)
			continue;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
	}
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(out, len, "%s/%s", dir, e->d_name) >= len)
			continue;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	out[0] = '\0';
	return -1;
}

/* mountinfo writes space, tab, newline and backslash in paths as \ooo. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (; *s; s++, w++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*w = *s;
		}
	}
	*w = '\0';
}

int aw_mountinfo_fstype(FILE *f, unsigned int maj, unsigned int min, const char *path,
			char *fstype, size_t len)
{
	char line[4096];
	size_t best = 0;
	int found = -1;

	while (fgets(line, sizeof(line), f)) {
		unsigned int ma, mi;
		char mnt[PATH_MAX], type[64];
		char *sep = strstr(line, " - ");
		size_t ml;

		if (!sep || sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3 ||
		    sscanf(sep + 3, "%63s", type) != 1 || ma != maj || mi != min)
			continue;
		unescape_octal(mnt);
		ml = strlen(mnt);
		/* The mount whose point is the longest prefix of path. */
		if (strncmp(path, mnt, ml) || (ml > 1 && path[ml] && path[ml] != '/') ||
		    ml < best)
			continue;
		best = ml;
		snprintf(fstype, len, "%s", type);
		found = 0;
	}
	return found;
}

/* Run pg_controldata on dir and read "Database block size". */
static uint64_t pg_block_size(const char *dir, char *source, size_t slen)
{
	static const char *const fixed[] = { "/usr/bin/pg_controldata",
					     "/usr/local/bin/pg_controldata" };
	char tool[PATH_MAX] = "", line[512];
	uint64_t bs = 0;
	int fds[2], status;
	glob_t g;
	pid_t pid;
	FILE *f;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) && !tool[0]; i++)
		if (access(fixed[i], X_OK) == 0)
			snprintf(tool, sizeof(tool), "%s", fixed[i]);
	if (!tool[0] && glob("/usr/lib/postgresql/*/bin/pg_controldata", 0, NULL, &g) == 0) {
		/* The newest major version reads the control files of older ones. */
		snprintf(tool, sizeof(tool), "%s", g.gl_pathv[g.gl_pathc - 1]);
		globfree(&g);
	}
	if (!tool[0] || pipe(fds))
		return 0;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(fds[0]);
		close(fds[1]);
		setenv("LC_ALL", "C", 1);
		execl(tool, tool, "-D", dir, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f) {
		close(fds[0]);
		waitpid(pid, &status, 0);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "Database block size: %llu", &v) == 1)
			bs = v;
	}
	fclose(f);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 0;
	if (bs)
		snprintf(source, slen, "%s", tool);
	return bs;
}

int aw_advise_gather(const char *path, enum aw_db db, uint64_t page, int direct,
		     struct aw_advise_in *in)
{
	char real[PATH_MAX], dev[64], sysdev[PATH_MAX], err[256];
	struct aw_statx stx;
	struct statfs sfs;
	struct stat st;
	FILE *f;

	memset(in, 0, sizeof(*in));
	in->db = db;
	in->buffered = db == AW_DB_POSTGRES || !direct;
	if (!realpath(path, real) || stat(real, &st)) {
		fprintf(stderr, "atomicw advise: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "atomicw advise: %s is neither a directory nor a regular file\n",
			path);
		return -1;
	}
	if (page) {
		in->page = page;
		snprintf(in->page_source, sizeof(in->page_source), "--page-size");
	} else if (db == AW_DB_INNODB) {
		in->page = 16384;
		snprintf(in->page_source, sizeof(in->page_source),
			 "the innodb_page_size default; pass --page-size if yours differs");
	} else if (S_ISDIR(st.st_mode)) {
		in->page = pg_block_size(real, in->page_source, sizeof(in->page_source));
	}

	if (S_ISREG(st.st_mode)) {
		if ((size_t)snprintf(in->fs.probe, sizeof(in->fs.probe), "%s", real) >=
		    sizeof(in->fs.probe)) {
			fprintf(stderr, "atomicw advise: %s: path too long\n", real);
			return -1;
		}
	} else if (find_probe(real, in->fs.probe, sizeof(in->fs.probe))) {
		in->fs.probe[0] = '\0';
	}
	if (in->fs.probe[0]) {
		if (aw_statx(AT_FDCWD, in->fs.probe, 0, AW_STATX_WRITE_ATOMIC, &stx)) {
			fprintf(stderr, "atomicw advise: statx %s: %s\n", in->fs.probe,
				strerror(errno));
			return -1;
		}
		aw_fs_from_statx(&in->fs, &stx);
	}
	if (statfs(real, &sfs)) {
		fprintf(stderr, "atomicw advise: statfs %s: %s\n", real, strerror(errno));
		return -1;
	}
	in->fs.fs_block = (uint64_t)sfs.f_bsize;
	f = fopen("/proc/self/mountinfo", "r");
	if (!f || aw_mountinfo_fstype(f, major(st.st_dev), minor(st.st_dev), real,
				      in->fs.fstype, sizeof(in->fs.fstype)))
		snprintf(in->fs.fstype, sizeof(in->fs.fstype), "unknown");
	if (f)
		fclose(f);

	in->fs.untorn_buffered = -1;
	snprintf(sysdev, sizeof(sysdev), "/sys/dev/block/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	if (!realpath(sysdev, real))
		return 0; /* not on a block device (tmpfs, NFS): the stack stays empty */
	snprintf(dev, sizeof(dev), "%s", strrchr(real, '/') + 1);
	if (aw_stack_walk("/sys", major(st.st_dev), minor(st.st_dev), &in->stack, err,
			  sizeof(err))) {
		fprintf(stderr, "atomicw advise: %s\n", err);
		return -1;
	}
	if (!strcmp(in->fs.fstype, "xfs")) {
		uint64_t v;
		char buf[64];

		snprintf(in->fs.fs_sysfs, sizeof(in->fs.fs_sysfs),
			 "/sys/fs/xfs/%s/untorn_buffered_bytes", dev);
		f = fopen(in->fs.fs_sysfs, "r");
		if (f) {
			if (fgets(buf, sizeof(buf), f) && !aw_parse_u64(strtok(buf, "\n"), &v))
				in->fs.untorn_buffered = (int64_t)v;
			fclose(f);
		}
	}
	return 0;
}
