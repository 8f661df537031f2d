// SPDX-License-Identifier: MIT
#include "where.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static dev_t data_dev(const struct stat *st)
{
	return S_ISBLK(st->st_mode) ? st->st_rdev : st->st_dev;
}

int aw_where(const char *path, struct aw_where *w, char *err, size_t len)
{
	char dir[PATH_MAX], rdir[PATH_MAX];
	const char *base, *slash;
	struct stat lst;

	memset(w, 0, sizeof(*w));
	if (!stat(path, &w->st)) {
		if (!realpath(path, w->real))
			return aw_errf(err, len, "realpath %s: %s", path, strerror(errno));
		w->exists = 1;
		w->dev = data_dev(&w->st);
		return 0;
	}
	if (errno != ENOENT)
		return aw_errf(err, len, "stat %s: %s", path, strerror(errno));
	if (!lstat(path, &lst))
		return aw_errf(err, len, "%s is a dangling symlink", path);
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return aw_errf(err, len, "%s does not name a file", path);
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return aw_errf(err, len, "%s: %s", path, strerror(ENAMETOOLONG));
	if (!realpath(dir, rdir) || stat(rdir, &w->st))
		return aw_errf(err, len, "the directory of %s: %s", path, strerror(errno));
	if (!S_ISDIR(w->st.st_mode))
		return aw_errf(err, len, "the directory of %s: %s", path, strerror(ENOTDIR));
	if ((size_t)snprintf(w->real, sizeof(w->real), "%s%s%s", rdir,
			     strcmp(rdir, "/") ? "/" : "", base) >= sizeof(w->real))
		return aw_errf(err, len, "%s: %s", path, strerror(ENAMETOOLONG));
	w->dev = w->st.st_dev;
	return 0;
}

int aw_where_same_file(const struct aw_where *a, const struct aw_where *b)
{
	if (a->exists != b->exists)
		return 0;
	if (!a->exists)
		return !strcmp(a->real, b->real);
	if (S_ISBLK(a->st.st_mode) && S_ISBLK(b->st.st_mode))
		return a->st.st_rdev == b->st.st_rdev;
	return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino;
}

int aw_path_inside(const char *dir, const char *real)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return real[0] == '/';
	return !strncmp(dir, real, n) && (real[n] == '\0' || real[n] == '/');
}
