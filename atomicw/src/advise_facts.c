// SPDX-License-Identifier: MIT
/* Gathering what atomicw advise judges: read-only, from the running system. */
#include "advise_facts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "innodb_page.h"
#include "pg_controldata.h"
#include "util.h"

/*
 * The first regular file in dir, or else in its subdirectories on the same
 * filesystem, up to depth levels down (a PostgreSQL tablespace keeps its
 * files in PG_16_202307071/DBOID/).  Returns 1 with the path in out.
 */
static int first_file(const char *dir, dev_t dev, int depth, char *out)
{
	struct dirent *e;
	struct stat st;
	int found = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	for (int pass = 0; pass < 2 && !found; pass++) {
		rewinddir(d);
		while (!found && (e = readdir(d))) {
			char p[PATH_MAX];

			if (e->d_name[0] == '.' ||
			    (size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= sizeof(p) ||
			    lstat(p, &st))
				continue;
			if (!pass && S_ISREG(st.st_mode)) {
				memcpy(out, p, sizeof(p));
				found = 1;
			} else if (pass && depth && S_ISDIR(st.st_mode) && st.st_dev == dev) {
				found = first_file(p, dev, depth - 1, out);
			}
		}
	}
	closedir(d);
	return found;
}

/*
 * The regular files statx is asked about: the control file and a file in
 * the first database directory (PostgreSQL; realtime or DAX flags can be
 * inherited per directory), ibdata1 (InnoDB), or the first regular file
 * (two directory levels down at most: a tablespace's or a filesystem's).
 */
static int probe_files(const char *dir, dev_t dev, char out[][PATH_MAX], int max)
{
	static const char *const known[] = { "global/pg_control", "base/1/PG_VERSION",
					     "ibdata1" };
	struct stat st;
	int n = 0;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]) && n < max; i++) {
		if ((size_t)snprintf(out[n], PATH_MAX, "%s/%s", dir, known[i]) >= PATH_MAX)
			continue;
		if (lstat(out[n], &st) == 0 && S_ISREG(st.st_mode))
			n++;
	}
	return n ? n : first_file(dir, dev, 2, out[0]);
}

/* PG_<major>_<catversion>, as in PG_16_202307071 or PG_9.6_201608131. */
static int is_pg_version_dir(const char *name)
{
	size_t v, c;

	if (strncmp(name, "PG_", 3))
		return 0;
	v = strspn(name + 3, "0123456789.");
	if (!v || name[3 + v] != '_')
		return 0;
	c = strspn(name + 4 + v, "0123456789");
	return c && !name[4 + v + c];
}

/*
 * A PostgreSQL tablespace directory (where pg_tblspc/OID points): the
 * server keeps a PG_<major>_<catversion> directory there for its files.
 */
static int is_pg_tablespace(const char *dir)
{
	char p[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int found = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		found = is_pg_version_dir(e->d_name) &&
			(size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) < sizeof(p) &&
			!stat(p, &st) && S_ISDIR(st.st_mode);
	closedir(d);
	return found;
}

/*
 * Does dir hold any of the files that make it a database directory, as
 * advise reads them: PostgreSQL's PG_VERSION (pg_controldata's version) or
 * global/pg_control (the statx probe), or a tablespace's PG_16_... directory;
 * InnoDB's system tablespace ibdata1 (page size and probe), or the data
 * dictionary or redo log of a server that keeps ibdata1 elsewhere.
 */
static int is_database_dir(const char *dir)
{
	static const char *const marks[] = { "PG_VERSION", "global/pg_control", "ibdata1",
					     "mysql.ibd", "ib_logfile0", "#innodb_redo" };
	char p[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, marks[i]) < sizeof(p) &&
		    !stat(p, &st) && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			return 1;
	return is_pg_tablespace(dir);
}

/* Append "name -> where" to list for each entry of dir/sub on another device. */
static void other_devices(const char *dir, const char *sub, dev_t dev, char *list, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d;

	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir, *sub ? "/" : "", sub) >=
	    sizeof(path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t used = strlen(list);
		char p[PATH_MAX];

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(p, sizeof(p), "%s/%s", path, e->d_name) >= sizeof(p) ||
		    stat(p, &st) || !S_ISDIR(st.st_mode) || st.st_dev == dev || !realpath(p, real))
			continue;
		snprintf(list + used, len - used, "%s%s%s%s -> %s", used ? ", " : "", sub,
			 *sub ? "/" : "", e->d_name, real);
	}
	closedir(d);
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

int aw_mountinfo(FILE *f, unsigned int maj, unsigned int min, const char *path,
		 struct aw_mount *m)
{
	char *line = NULL;
	size_t cap = 0, best = 0;
	int found = -1;

	/* Whole lines, however long (option strings can pass 4k). */
	while (getline(&line, &cap, f) > 0) {
		unsigned int ma, mi;
		char mnt[PATH_MAX], type[sizeof(m->fstype)], opts[sizeof(m->opts)] = "";
		char *sep = strstr(line, " - ");
		size_t ml;

		if (!sep || sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3 ||
		    sscanf(sep + 3, "%31s %*s %1023s", type, opts) < 1 || ma != maj || mi != min)
			continue;
		unescape_octal(mnt);
		ml = strlen(mnt);
		/* The mount whose point is the longest prefix of path. */
		if (strncmp(path, mnt, ml) || (ml > 1 && path[ml] && path[ml] != '/') ||
		    ml < best)
			continue;
		best = ml;
		snprintf(m->fstype, sizeof(m->fstype), "%s", type);
		snprintf(m->opts, sizeof(m->opts), "%s", opts);
		found = 0;
	}
	free(line);
	return found;
}

int aw_mount_has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, opt, n) && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

/* statx of each probe file; the first without atomic writes stands for all. */
static void ask_statx(const char *dir, const struct stat *dst, struct aw_fs_facts *fs)
{
	static char probes[3][PATH_MAX];
	struct aw_statx stx;
	int n = probe_files(dir, dst->st_dev, probes, 3);

	fs->probes = n;
	for (int i = 0; i < n; i++) {
		struct aw_fs_facts one = { 0 };
		struct stat st;

		if ((size_t)snprintf(one.probe, sizeof(one.probe), "%s", probes[i]) >=
		    sizeof(one.probe))
			continue;
		if (stat(probes[i], &st) == 0 && st.st_dev != dst->st_dev) {
			size_t used = strlen(fs->elsewhere);

			snprintf(fs->elsewhere + used, sizeof(fs->elsewhere) - used, "%s%s",
				 used ? ", " : "", probes[i]);
		}
		if (aw_statx(AT_FDCWD, probes[i], 0, AW_STATX_WRITE_ATOMIC, &stx))
			one.statx_err = errno;
		else
			aw_fs_from_statx(&one, &stx);
		if (i == 0 || one.statx_err || !one.statx_atomic) {
			memcpy(fs->probe, one.probe, sizeof(fs->probe));
			fs->statx_err = one.statx_err;
			fs->statx_atomic = one.statx_atomic;
			fs->stx_awu_min = one.stx_awu_min;
			fs->stx_awu_max = one.stx_awu_max;
			if (i)
				break;
		}
	}
}

/* A byte count from a sysfs file into *out; *out stays as it is (-1: absent)
 * if the file does not exist or does not hold a number. */
static int read_sysfs_bytes(const char *path, int64_t *out)
{
	char buf[64];
	uint64_t v;
	FILE *f = fopen(path, "re");

	if (!f) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "atomicw advise: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fgets(buf, sizeof(buf), f) && !aw_parse_u64(strtok(buf, "\n"), &v) &&
	    v <= INT64_MAX)
		*out = (int64_t)v;
	fclose(f);
	return 0;
}

int aw_advise_gather(const char *path, enum aw_db db, uint64_t page, int direct,
		     struct aw_advise_in *in)
{
	char real[PATH_MAX], sysdev[PATH_MAX], sysreal[PATH_MAX], err[256];
	struct statfs sfs;
	struct stat st;
	struct aw_mount mnt;
	FILE *f;

	memset(in, 0, sizeof(*in));
	in->db = db;
	in->buffered = !direct;
	if (!realpath(path, real) || stat(real, &st)) {
		fprintf(stderr, "atomicw advise: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "atomicw advise: %s is not a directory\n", path);
		return -1;
	}
	/* Any other directory is judged only for a page size the user names. */
	if (!page && !is_database_dir(real)) {
		fprintf(stderr, "atomicw advise: %s is neither a PostgreSQL data directory or "
			"tablespace nor an InnoDB data directory (no PG_VERSION, global/pg_control, "
			"PG_<version>_<catversion>, ibdata1, mysql.ibd, ib_logfile0 or "
			"#innodb_redo); for another tablespace, a WAL directory or an empty "
			"filesystem, pass --page-size (and --innodb for InnoDB)\n", path);
		return -1;
	}
	{
		/* The page size the directory itself records, and who says so. */
		int pg = db == AW_DB_POSTGRES;
		uint64_t own = pg ? aw_pg_block_size(real, in->page_source, sizeof(in->page_source))
				  : aw_innodb_page_size(real, in->page_source, sizeof(in->page_source));

		in->page = page ? page : own;
		if (page && own && own != page)
			in->page_other = own;
		if (page)
			snprintf(in->page_source, sizeof(in->page_source), "--page-size%s",
				 own != page ? "" : pg ? ", as pg_controldata says" : ", as ibdata1 says");
	}

	ask_statx(real, &st, &in->fs);
	/* Tablespaces and any subdirectory mounted from elsewhere. */
	other_devices(real, "", st.st_dev, in->fs.elsewhere, sizeof(in->fs.elsewhere));
	if (db == AW_DB_POSTGRES)
		other_devices(real, "pg_tblspc", st.st_dev, in->fs.elsewhere,
			      sizeof(in->fs.elsewhere));
	if (statfs(real, &sfs)) {
		fprintf(stderr, "atomicw advise: statfs %s: %s\n", real, strerror(errno));
		return -1;
	}
	in->fs.fs_block = (uint64_t)sfs.f_bsize;
	f = fopen("/proc/self/mountinfo", "re");
	if (f && !aw_mountinfo(f, major(st.st_dev), minor(st.st_dev), real, &mnt)) {
		snprintf(in->fs.fstype, sizeof(in->fs.fstype), "%s", mnt.fstype);
		in->fs.nountorn = aw_mount_has_opt(mnt.opts, "nountorn");
	} else {
		snprintf(in->fs.fstype, sizeof(in->fs.fstype), "%s",
			 sfs.f_type == 0x58465342 ? "xfs" : "unknown");
	}
	if (f)
		fclose(f);

	in->fs.untorn_buffered = -1;
	in->fs.untorn_metadata = -1;
	snprintf(sysdev, sizeof(sysdev), "/sys/dev/block/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	/* The stack's first layer is the device XFS names its sysfs directory after. */
	if (!realpath(sysdev, sysreal)) {
		if (errno == ENOENT)
			return 0; /* not on a block device (tmpfs, NFS): no stack */
		fprintf(stderr, "atomicw advise: %s: %s\n", sysdev, strerror(errno));
		return -1;
	}
	if (aw_stack_walk("/sys", major(st.st_dev), minor(st.st_dev), &in->stack, err,
			  sizeof(err))) {
		fprintf(stderr, "atomicw advise: %s\n", err);
		return -1;
	}
	for (int i = 0; i < in->stack.n; i++)
		if (in->stack.l[i].kind == AW_LAYER_DM)
			aw_dm_read_table(in->stack.l[i].maj, in->stack.l[i].min, &in->dm[i]);
	if (!strcmp(in->fs.fstype, "xfs")) {
		char meta[256];

		snprintf(in->fs.fs_sysfs, sizeof(in->fs.fs_sysfs),
			 "/sys/fs/xfs/%s/untorn_buffered_bytes", in->stack.l[0].name);
		snprintf(meta, sizeof(meta), "/sys/fs/xfs/%s/untorn_metadata_bytes",
			 in->stack.l[0].name);
		if (read_sysfs_bytes(in->fs.fs_sysfs, &in->fs.untorn_buffered) ||
		    read_sysfs_bytes(meta, &in->fs.untorn_metadata))
			return -1;
	}
	return 0;
}
