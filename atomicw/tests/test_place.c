// SPDX-License-Identifier: MIT
/*
 * Where a journal may go (journal_place.c) and how paths resolve
 * (where.c): the target itself under another name is always refused, its
 * device unless asked for; a block device under two names is one device.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "journal_place.h"
#include "tap.h"
#include "where.h"

static char err[512];

static struct aw_where bdev(const char *name, unsigned int maj, unsigned int min,
			    unsigned long ino)
{
	struct aw_where w = { .exists = 1, .dev = makedev(maj, min) };

	w.st.st_mode = S_IFBLK | 0660;
	w.st.st_rdev = makedev(maj, min);
	w.st.st_dev = makedev(0, 5); /* devtmpfs */
	w.st.st_ino = ino;
	snprintf(w.real, sizeof(w.real), "%s", name);
	return w;
}

static struct aw_where file(const char *name, unsigned int maj, unsigned int min,
			    unsigned long ino)
{
	struct aw_where w = { .exists = 1, .dev = makedev(maj, min) };

	w.st.st_mode = S_IFREG | 0644;
	w.st.st_dev = makedev(maj, min);
	w.st.st_ino = ino;
	snprintf(w.real, sizeof(w.real), "%s", name);
	return w;
}

static void test_policy(void)
{
	/* /dev/sdb and /dev/disk/by-id/x: two inodes, one device */
	struct aw_where sdb = bdev("/dev/sdb", 8, 16, 100), alias = bdev("/dev/by-id-x", 8, 16, 200);
	struct aw_where sdc = bdev("/dev/sdc", 8, 32, 101);
	struct aw_where on_sdb = file("/mnt/b/j", 8, 16, 12), on_root = file("/tmp/j", 253, 0, 12);
	struct aw_where new_a = { .dev = makedev(253, 0) }, new_b = new_a;

	CHECK(aw_journal_place_ok(&sdb, &alias, 1, err, sizeof(err)) == -1 &&
	      strstr(err, "is the target"));
	CHECK(aw_journal_place_ok(&sdb, &sdc, 0, err, sizeof(err)) == 0);
	CHECK(aw_journal_place_ok(&sdb, &on_sdb, 0, err, sizeof(err)) == -1 &&
	      strstr(err, "same device (8:16)") && strstr(err, "--journal-same-device"));
	CHECK(aw_journal_place_ok(&sdb, &on_sdb, 1, err, sizeof(err)) == 0);
	CHECK(aw_journal_place_ok(&sdb, &on_root, 0, err, sizeof(err)) == 0);
	/* the same inode number on another filesystem is another file */
	CHECK(aw_journal_place_ok(&on_sdb, &on_root, 0, err, sizeof(err)) == 0);
	/* two names for one file still to be created */
	snprintf(new_a.real, sizeof(new_a.real), "/srv/t");
	snprintf(new_b.real, sizeof(new_b.real), "/srv/t");
	CHECK(aw_journal_place_ok(&new_a, &new_b, 1, err, sizeof(err)) == -1);
	snprintf(new_b.real, sizeof(new_b.real), "/srv/j");
	CHECK(aw_journal_place_ok(&new_a, &new_b, 1, err, sizeof(err)) == 0);
}

static void test_where(void)
{
	char dir[] = "/tmp/aw-test-where-XXXXXX", p[PATH_MAX], q[PATH_MAX];
	struct aw_where a, b;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(p, sizeof(p), "%s/f", dir);
	CHECK(aw_where(p, &a, err, sizeof(err)) == 0 && !a.exists &&
	      !strcmp(a.real + strlen(a.real) - 2, "/f"));
	snprintf(q, sizeof(q), "%s/./f", dir);
	CHECK(aw_where(q, &b, err, sizeof(err)) == 0 && aw_where_same_file(&a, &b));
	fclose(fopen(p, "w"));
	CHECK(aw_where(p, &a, err, sizeof(err)) == 0 && a.exists && S_ISREG(a.st.st_mode));
	snprintf(q, sizeof(q), "%s/l", dir);
	CHECK(symlink("f", q) == 0);
	CHECK(aw_where(q, &b, err, sizeof(err)) == 0 && aw_where_same_file(&a, &b) &&
	      !strcmp(a.real, b.real));
	snprintf(q, sizeof(q), "%s/dangling", dir);
	CHECK(symlink("nowhere/x", q) == 0);
	CHECK(aw_where(q, &b, err, sizeof(err)) == -1 && strstr(err, "dangling symlink"));
	snprintf(q, sizeof(q), "%s/none/x", dir);
	CHECK(aw_where(q, &b, err, sizeof(err)) == -1 && strstr(err, "No such file"));
	CHECK(aw_where("/", &b, err, sizeof(err)) == 0 && b.exists);
	CHECK(aw_where("rel-XXXX-none", &b, err, sizeof(err)) == 0 && !b.exists &&
	      b.real[0] == '/');

	CHECK(aw_path_inside("/srv/pg", "/srv/pg"));
	CHECK(aw_path_inside("/srv/pg", "/srv/pg/PG_VERSION"));
	CHECK(!aw_path_inside("/srv/pg", "/srv/pg2/x"));
	CHECK(!aw_path_inside("/srv/pg", "/srv"));
	CHECK(aw_path_inside("/", "/x"));

	unlink(p);
	unlink(q);
	snprintf(q, sizeof(q), "%s/l", dir);
	unlink(q);
	rmdir(dir);
}

int main(void)
{
	test_policy();
	test_where();
	return tap_done("test_place");
}
