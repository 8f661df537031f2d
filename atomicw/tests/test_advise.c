// SPDX-License-Identifier: MIT
/*
 * atomicw advise: the sysfs stack walk over trees built here (partition,
 * dm, md, loop), mountinfo and statx parsing, and the verdict with the
 * reason it names for each configuration and trap.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise.h"
#include "advise_facts.h"
#include "advise_print.h"
#include "blkstack.h"
#include "innodb_page.h"
#include "tap.h"

static char root[PATH_MAX];

/* mkdir -p ROOT/REL */
static void mkdirs(const char *rel)
{
	char p[2 * PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* ROOT/REL gets the text fmt... (its directory is made). */
static void put(const char *rel, const char *fmt, ...)
{
	char p[2 * PATH_MAX], dir[PATH_MAX];
	va_list ap;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(1);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* ROOT/REL -> target (relative symlink). */
static void link_to(const char *rel, const char *target)
{
	char p[2 * PATH_MAX], dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (symlink(target, p)) {
		perror(p);
		exit(1);
	}
}

/* A disk's queue directory: logical block, atomic unit range. */
static void queue(const char *dev, unsigned lbs, unsigned amin, unsigned amax)
{
	char rel[PATH_MAX];

#define Q(attr, ...) do { snprintf(rel, sizeof(rel), "%s/queue/" attr, dev); \
		put(rel, __VA_ARGS__); } while (0)
	Q("logical_block_size", "%u", lbs);
	Q("physical_block_size", "%u", lbs);
	Q("atomic_write_unit_min_bytes", "%u", amin);
	Q("atomic_write_unit_max_bytes", "%u", amax);
	Q("atomic_write_boundary_bytes", "0");
	Q("atomic_write_max_bytes", "%u", amax);
	Q("chunk_sectors", "0");
	Q("write_cache", "write back");
	Q("stable_writes", "0");
#undef Q
}

static void build_tree(void)
{
	/* 252:0 tb0: 4k sectors, 16k..64k atomic (lbs-atomic). */
	queue("devices/virtual/block/tb0", 4096, 16384, 65536);
	link_to("dev/block/252:0", "../../devices/virtual/block/tb0");
	/* 252:1 tb1: no atomic writes (lbs-only, baseline). */
	queue("devices/virtual/block/tb1", 4096, 0, 0);
	link_to("dev/block/252:1", "../../devices/virtual/block/tb1");
	/* 259:0 nvme0n1 (4k..64k) with p1 at 1 MiB and p2 at 1 MiB + 4k. */
	queue("devices/pci0/nvme/nvme0n1", 4096, 4096, 65536);
	put("devices/pci0/nvme/nvme0n1/nvme0n1p1/partition", "1");
	put("devices/pci0/nvme/nvme0n1/nvme0n1p1/start", "2048");
	put("devices/pci0/nvme/nvme0n1/nvme0n1p2/partition", "2");
	put("devices/pci0/nvme/nvme0n1/nvme0n1p2/start", "2056");
	link_to("dev/block/259:1", "../../devices/pci0/nvme/nvme0n1/nvme0n1p1");
	link_to("dev/block/259:2", "../../devices/pci0/nvme/nvme0n1/nvme0n1p2");
	/* 253:0 dm-0 "vg-data" over sda (16k..64k), passing nothing up. */
	queue("devices/pci0/sda", 4096, 16384, 65536);
	queue("devices/virtual/block/dm-0", 4096, 0, 0);
	put("devices/virtual/block/dm-0/dm/name", "vg-data");
	put("devices/virtual/block/dm-0/dev", "253:0");
	link_to("devices/virtual/block/dm-0/slaves/sda", "../../../../pci0/sda");
	link_to("dev/block/253:0", "../../devices/virtual/block/dm-0");
	/* 9:0 md0, raid0 with 4k chunks over sdb and sdc. */
	queue("devices/pci0/sdb", 4096, 16384, 65536);
	queue("devices/pci0/sdc", 4096, 16384, 65536);
	queue("devices/virtual/block/md0", 4096, 16384, 65536);
	put("devices/virtual/block/md0/md/level", "raid0");
	put("devices/virtual/block/md0/md/chunk_size", "4096");
	link_to("devices/virtual/block/md0/slaves/sdb", "../../../../pci0/sdb");
	link_to("devices/virtual/block/md0/slaves/sdc", "../../../../pci0/sdc");
	link_to("dev/block/9:0", "../../devices/virtual/block/md0");
	/* 7:0 loop0 over a file. */
	queue("devices/virtual/block/loop0", 512, 0, 0);
	put("devices/virtual/block/loop0/loop/backing_file", "/srv/db.img");
	link_to("dev/block/7:0", "../../devices/virtual/block/loop0");
	/* 8:0 a kernel without the atomic attributes, 8:1 a broken one. */
	put("devices/old/sdx/queue/logical_block_size", "512");
	link_to("dev/block/8:0", "../../devices/old/sdx");
	queue("devices/old/sdy", 512, 0, 0);
	put("devices/old/sdy/queue/atomic_write_unit_max_bytes", "lots");
	link_to("dev/block/8:1", "../../devices/old/sdy");
}

static void test_walk(void)
{
	struct aw_stack s;
	char err[256];

	CHECK(aw_stack_walk(root, 252, 0, &s, err, sizeof(err)) == 0 && s.n == 1);
	CHECK(!strcmp(s.l[0].name, "tb0") && s.l[0].kind == AW_LAYER_DISK);
	CHECK(s.l[0].awu_min == 16384 && s.l[0].awu_max == 65536 && s.l[0].has_atomic);
	CHECK(s.l[0].write_cache == 1 && s.l[0].stable_writes == 0 && s.l[0].lbs == 4096);

	CHECK(aw_stack_walk(root, 259, 2, &s, err, sizeof(err)) == 0 && s.n == 2);
	CHECK(s.l[0].kind == AW_LAYER_PART && s.l[0].part_start == 2056 * 512);
	CHECK(s.l[0].awu_max == 65536 && s.l[0].below == 1); /* the disk's limits */
	CHECK(!strcmp(s.l[1].name, "nvme0n1") && s.l[1].depth == 1);

	CHECK(aw_stack_walk(root, 253, 0, &s, err, sizeof(err)) == 0 && s.n == 2);
	CHECK(s.l[0].kind == AW_LAYER_DM && strstr(s.l[0].detail, "vg-data"));
	CHECK(!strcmp(s.l[1].name, "sda") && s.l[1].awu_max == 65536);

	CHECK(aw_stack_walk(root, 9, 0, &s, err, sizeof(err)) == 0 && s.n == 3);
	CHECK(s.l[0].kind == AW_LAYER_MD && s.l[0].chunk == 4096);

	CHECK(aw_stack_walk(root, 7, 0, &s, err, sizeof(err)) == 0 && s.n == 1);
	CHECK(s.l[0].kind == AW_LAYER_LOOP && strstr(s.l[0].detail, "/srv/db.img"));

	CHECK(aw_stack_walk(root, 8, 0, &s, err, sizeof(err)) == 0 && !s.l[0].has_atomic);
	CHECK(aw_stack_walk(root, 8, 1, &s, err, sizeof(err)) == -1 && strstr(err, "lots"));
	CHECK(aw_stack_walk(root, 1, 99, &s, err, sizeof(err)) == -1 && strstr(err, "1:99"));
}

static void test_mountinfo(void)
{
	static const char mi[] =
		"22 1 252:0 / / rw,relatime - ext4 /dev/root rw\n"
		"40 22 252:0 / /var/lib/postgresql rw - xfs /dev/tb0 rw,attr2\n"
		"41 22 252:0 / /var/lib/postgresqlx rw - btrfs /dev/tb0 rw\n"
		"42 22 0:5 / /var/lib/postgresql/tmp rw - tmpfs tmpfs rw\n"
		"43 22 252:1 / /srv/pg\\040data rw - xfs /dev/tb1 rw,attr2,nountorn\n";
	struct aw_mount m;
	char *t = m.fstype;
	FILE *f = fmemopen((void *)mi, sizeof(mi) - 1, "r");

	CHECK(aw_mountinfo(f, 252, 0, "/var/lib/postgresql/15/main", &m) == 0 &&
	      !strcmp(t, "xfs"));
	fclose(f);
	f = fmemopen((void *)mi, sizeof(mi) - 1, "r");
	CHECK(aw_mountinfo(f, 252, 0, "/srv", &m) == 0 && !strcmp(t, "ext4"));
	fclose(f);
	f = fmemopen((void *)mi, sizeof(mi) - 1, "r");
	CHECK(aw_mountinfo(f, 8, 0, "/srv", &m) == -1);
	fclose(f);
	/* A mount point with a space, escaped as \040 in mountinfo. */
	f = fmemopen((void *)mi, sizeof(mi) - 1, "r");
	CHECK(aw_mountinfo(f, 252, 1, "/srv/pg data/main", &m) == 0 &&
	      !strcmp(t, "xfs"));
	fclose(f);
	/* Its superblock options, and one of them looked up. */
	CHECK(!strcmp(m.opts, "rw,attr2,nountorn") && aw_mount_has_opt(m.opts, "nountorn") &&
	      aw_mount_has_opt(m.opts, "rw") && !aw_mount_has_opt(m.opts, "attr") &&
	      !aw_mount_has_opt(m.opts, "untorn") && !aw_mount_has_opt("", "rw"));
	/* A line longer than 4k (a long option string): read whole, its tail
	 * is not a line of its own (the tail here looks like a mount of /srv,
	 * starting right after two 4095-byte pieces). */
	{
		size_t n = 2 * 4095 - strlen("50 22 252:2 / /mnt/a rw,");
		char *big = malloc(n + 200), *p = big;

		CHECK(big != NULL);
		if (!big)
			return;
		p += sprintf(p, "50 22 252:2 / /mnt/a rw,");
		memset(p, 'o', n);
		p += n;
		p += sprintf(p, " 60 22 252:2 / /srv rw - xfs /dev/tb2 rw\n"
			     "51 22 252:2 / /mnt rw - ext4 /dev/tb2 rw\n");
		f = fmemopen(big, (size_t)(p - big), "r");
		CHECK(aw_mountinfo(f, 252, 2, "/srv/pg", &m) == -1);
		fclose(f);
		f = fmemopen(big, (size_t)(p - big), "r");
		CHECK(aw_mountinfo(f, 252, 2, "/mnt/a/x", &m) == 0 &&
		      !strcmp(t, "xfs"));
		fclose(f);
		free(big);
	}
}

/* Page 0 of a tablespace whose FSP flags (bytes 54..57) are flags. */
static uint64_t ib_page(uint32_t flags)
{
	unsigned char hdr[64] = { 0 };

	hdr[54] = (unsigned char)(flags >> 24);
	hdr[55] = (unsigned char)(flags >> 16);
	hdr[56] = (unsigned char)(flags >> 8);
	hdr[57] = (unsigned char)flags;
	return aw_innodb_page_from_header(hdr, sizeof(hdr));
}

static void test_innodb_page(void)
{
	char dir[] = "/tmp/test_advise_ib.XXXXXX", path[64], src[256];
	unsigned char page0[16384] = { 0 };
	FILE *f;

	/* MySQL layout: PAGE_SSIZE in bits 6..9, 0 = 16k. */
	CHECK(ib_page(0) == 16384);
	CHECK(ib_page(0x21) == 16384);		/* post-antelope, atomic blobs */
	CHECK(ib_page(3u << 6) == 4096);
	CHECK(ib_page(4u << 6 | 0x21) == 8192);
	CHECK(ib_page(6u << 6) == 32768);
	CHECK(ib_page(7u << 6) == 65536);
	CHECK(ib_page(2u << 6) == 0);		/* 2k: not an InnoDB page size */
	CHECK(ib_page(9u << 6) == 0);
	/* MariaDB full_crc32: marker bit 4, PAGE_SSIZE in bits 0..3. */
	CHECK(ib_page(0x10 | 5) == 16384);
	CHECK(ib_page(0x10 | 3) == 4096);
	CHECK(ib_page(0x10 | 7) == 65536);
	CHECK(ib_page(0x10) == 0);
	/* Too short to hold the flags. */
	CHECK(aw_innodb_page_from_header(page0, 57) == 0);

	/* From a data directory: its ibdata1, or the reason there is none. */
	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	CHECK(aw_innodb_page_size(dir, src, sizeof(src)) == 0 && strstr(src, "ibdata1"));
	snprintf(path, sizeof(path), "%s/ibdata1", dir);
	page0[57] = 0x10 | 4; /* full_crc32, 8k */
	f = fopen(path, "w");
	CHECK(f && fwrite(page0, 1, sizeof(page0), f) == sizeof(page0) && !fclose(f));
	CHECK(aw_innodb_page_size(dir, src, sizeof(src)) == 8192 && !strcmp(src, path));
	unlink(path);
	rmdir(dir);
}

static void test_statx(void)
{
	struct aw_fs_facts fs = { 0 };
	struct aw_statx stx = { 0 };

	stx.atomic_write_unit_min = stx.atomic_write_unit_max = 16384;
	aw_fs_from_statx(&fs, &stx); /* the mask does not say the fields are valid */
	CHECK(!fs.statx_atomic && !fs.stx_awu_max);
	stx.mask = AW_STATX_WRITE_ATOMIC;
	aw_fs_from_statx(&fs, &stx); /* valid, but the attribute is not set */
	CHECK(!fs.statx_atomic);
	stx.attributes = AW_STATX_ATTR_WRITE_ATOMIC;
	aw_fs_from_statx(&fs, &stx);
	CHECK(fs.statx_atomic && fs.stx_awu_min == 16384 && fs.stx_awu_max == 16384);
}

/* The verdict for a filesystem of bs-byte blocks on device maj:min. */
static enum aw_verdict_adv judge(unsigned maj, unsigned min, uint64_t bs, uint64_t page,
				 int statx_atomic, int64_t untorn, int buffered,
				 struct aw_advice *a)
{
	struct aw_advise_in in = { .db = AW_DB_POSTGRES, .page = page, .buffered = buffered };
	char err[256];

	snprintf(in.page_source, sizeof(in.page_source), "test");
	snprintf(in.fs.fstype, sizeof(in.fs.fstype), "xfs");
	snprintf(in.fs.probe, sizeof(in.fs.probe), "/db/global/pg_control");
	snprintf(in.fs.fs_sysfs, sizeof(in.fs.fs_sysfs), "/sys/fs/xfs/x/untorn_buffered_bytes");
	in.fs.fs_block = bs;
	in.fs.statx_atomic = statx_atomic;
	in.fs.stx_awu_min = in.fs.stx_awu_max = statx_atomic ? bs : 0;
	in.fs.untorn_buffered = untorn;
	in.fs.untorn_metadata = untorn;
	if (aw_stack_walk(root, maj, min, &in.stack, err, sizeof(err)))
		fprintf(stderr, "walk %u:%u: %s\n", maj, min, err);
	aw_advise(&in, a);
	return a->verdict;
}

/* The result of check id, with its text containing want (NULL: any). */
static int has(const struct aw_advice *a, const char *id, enum aw_result r, const char *want)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->c[i].id, id) && a->c[i].res == r &&
		    (!want || strstr(a->c[i].found, want)))
			return 1;
	return 0;
}

static void test_verdicts(void)
{
	struct aw_advice a;

	/* lbs-atomic on a kernel with the buffered fix. */
	CHECK(judge(252, 0, 16384, 8192, 1, 16384, 1, &a) == AW_ADV_SAFE);
	CHECK(strstr(a.setting, "full_page_writes = off"));
	/* The same without the buffered fix: PostgreSQL is not safe ... */
	CHECK(judge(252, 0, 16384, 8192, 1, -1, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "buffered-writeback", AW_FAIL, "absent"));
	/* ... and O_DIRECT without RWF_ATOMIC (InnoDB) is never more than UNKNOWN. */
	CHECK(judge(252, 0, 16384, 16384, 1, -1, 0, &a) == AW_ADV_UNKNOWN);
	CHECK(has(&a, "direct-writes", AW_UNKNOWN, "without RWF_ATOMIC"));
	/* lbs-only: 16k blocks, no atomic unit on the device. */
	CHECK(judge(252, 1, 16384, 8192, 0, 0, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "device-atomic", AW_FAIL, "tb1 reports no atomic writes"));
	CHECK(has(&a, "statx-atomic", AW_FAIL, NULL));
	CHECK(strstr(a.setting, "keep full_page_writes on"));
	/* Baseline: 4k blocks under 8k pages. */
	CHECK(judge(252, 1, 4096, 8192, 0, 0, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "block-holds-page", AW_FAIL, "8192-byte page spans 4096-byte blocks"));
	/* XFS 4k on an atomic device: blocks fine for the device, pages span two. */
	CHECK(judge(252, 0, 4096, 8192, 0, 0, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "block-holds-page", AW_FAIL, NULL));
	/* A partition at 1 MiB is aligned; one 4k further is not. */
	CHECK(judge(259, 1, 16384, 8192, 1, 16384, 1, &a) == AW_ADV_SAFE);
	CHECK(has(&a, "partition-offset", AW_PASS, "nvme0n1p1"));
	CHECK(judge(259, 2, 16384, 8192, 1, 16384, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "partition-offset", AW_FAIL, "nvme0n1p2 starts at byte 1052672"));
	/* dm that passes no atomic limits up names itself and what is below. */
	CHECK(judge(253, 0, 16384, 8192, 0, 0, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "device-atomic", AW_FAIL, "dm-0 (dm, dm name vg-data)"));
	CHECK(has(&a, "device-atomic", AW_FAIL, "although sda below it does"));
	/* md raid0 with a chunk smaller than the block. */
	CHECK(judge(9, 0, 16384, 8192, 1, 16384, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "chunk", AW_FAIL, "md0 (md) splits I/O every 4096 bytes"));
	/* A loop device: no atomic unit, and said to be a loop. */
	CHECK(judge(7, 0, 16384, 8192, 0, 0, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "loop", AW_NOTE, "/srv/db.img"));
	/* A kernel without atomic write attributes. */
	CHECK(judge(8, 0, 16384, 8192, 0, -1, 1, &a) == AW_ADV_UNSAFE);
	CHECK(has(&a, "device-atomic", AW_FAIL, "before 6.11"));
	/* Unknown page size: never SAFE. */
	CHECK(judge(252, 0, 16384, 0, 1, 16384, 1, &a) == AW_ADV_UNKNOWN);
	CHECK(has(&a, "page-size", AW_UNKNOWN, NULL) && strstr(a.setting, "until"));
	/* A page larger than what the kernel keeps untorn. */
	CHECK(judge(252, 0, 16384, 32768, 1, 16384, 1, &a) == AW_ADV_UNSAFE);
}

/* A PostgreSQL directory of 8k pages on 16k XFS whose files statx says
 * are written atomically; untorn: what the kernel keeps untorn buffered. */
static void lbs_in(struct aw_advise_in *in, int64_t untorn)
{
	memset(in, 0, sizeof(*in));
	in->db = AW_DB_POSTGRES;
	in->page = 8192;
	in->buffered = 1;
	snprintf(in->page_source, sizeof(in->page_source), "test");
	snprintf(in->fs.fstype, sizeof(in->fs.fstype), "xfs");
	snprintf(in->fs.probe, sizeof(in->fs.probe), "/db/global/pg_control");
	snprintf(in->fs.fs_sysfs, sizeof(in->fs.fs_sysfs), "/sys/fs/xfs/x/untorn_buffered_bytes");
	in->fs.fs_block = 16384;
	in->fs.statx_atomic = 1;
	in->fs.stx_awu_min = in->fs.stx_awu_max = 16384;
	in->fs.untorn_buffered = untorn;
	in->fs.untorn_metadata = untorn;
}

/* What the gathering can add: a tablespace elsewhere, a statx error, a page
 * size the cluster contradicts, a partition whose disk has a bad chunk. */
static void test_more(void)
{
	static struct aw_advise_in in;
	struct aw_advice a;
	char err[256];

	lbs_in(&in, 16384);
	CHECK(aw_stack_walk(root, 252, 0, &in.stack, err, sizeof(err)) == 0);
	aw_advise(&in, &a);
	CHECK(a.verdict == AW_ADV_SAFE && strstr(a.setting, "pg_rewind"));

	snprintf(in.fs.elsewhere, sizeof(in.fs.elsewhere), "pg_tblspc/16385 -> /mnt/ts");
	aw_advise(&in, &a);
	CHECK(a.verdict == AW_ADV_UNKNOWN && has(&a, "other-filesystems", AW_UNKNOWN, "/mnt/ts"));
	/* A WAL directory is no database directory: advise there needs the page. */
	CHECK(has(&a, "other-filesystems", AW_UNKNOWN, "there too, with --page-size 8192"));
	in.db = AW_DB_INNODB;
	aw_advise(&in, &a);
	CHECK(has(&a, "other-filesystems", AW_UNKNOWN, "--page-size 8192 --innodb --buffered"));
	in.db = AW_DB_POSTGRES;
	in.page = 0;
	aw_advise(&in, &a);
	CHECK(has(&a, "other-filesystems", AW_UNKNOWN, "with --page-size P"));
	in.page = 8192;
	in.fs.elsewhere[0] = '\0';

	in.fs.statx_err = EPERM;
	aw_advise(&in, &a);
	CHECK(a.verdict == AW_ADV_UNKNOWN && has(&a, "statx-atomic", AW_UNKNOWN, "statx failed"));
	in.fs.statx_err = 0;

	in.page_other = 32768;
	aw_advise(&in, &a);
	CHECK(a.verdict == AW_ADV_UNSAFE && has(&a, "page-size", AW_FAIL, "says 32768"));
	in.page_other = 0;

	/* A partition of md0: the chunk failure is reported once, for md0. */
	put("devices/virtual/block/md0/md0p1/partition", "1");
	put("devices/virtual/block/md0/md0p1/start", "2048");
	link_to("dev/block/259:9", "../../devices/virtual/block/md0/md0p1");
	CHECK(aw_stack_walk(root, 259, 9, &in.stack, err, sizeof(err)) == 0 && in.stack.n == 4);
	aw_advise(&in, &a);
	{
		int chunks = 0;

		for (int i = 0; i < a.n; i++)
			chunks += !strcmp(a.c[i].id, "chunk");
		CHECK(chunks == 1 && has(&a, "chunk", AW_FAIL, "md0 (md)"));
	}
}

/* XFS's own metadata blocks: atomic on a kernel that says so
 * (untorn_metadata_bytes), a note where a block is larger than the smallest
 * physical block of the stack and the kernel does not say so. */
static void test_metadata(void)
{
	static struct aw_advise_in in;
	struct aw_advice a;
	char err[256];

	lbs_in(&in, 16384);
	CHECK(aw_stack_walk(root, 252, 0, &in.stack, err, sizeof(err)) == 0);
	in.fs.untorn_metadata = 16384;
	aw_advise(&in, &a);
	CHECK(a.verdict == AW_ADV_SAFE &&
	      has(&a, "xfs-metadata", AW_PASS, "16384-byte metadata blocks atomically"));
	/* untorn buffered writes but no word on metadata (before 0028): a note,
	 * the verdict unchanged */
	in.fs.untorn_metadata = -1;
	aw_advise(&in, &a);
	CHECK(a.verdict == AW_ADV_SAFE &&
	      has(&a, "xfs-metadata", AW_NOTE, "larger than tb0's 4096-byte physical block"));
	in.fs.untorn_metadata = 8192; /* less than a block */
	aw_advise(&in, &a);
	CHECK(has(&a, "xfs-metadata", AW_NOTE, "16384-byte metadata blocks"));
	/* the block fits the physical block: only the directory blocks can be
	 * larger, and the kernel says they are written plainly */
	in.stack.l[0].pbs = 65536;
	in.fs.untorn_metadata = 0;
	aw_advise(&in, &a);
	CHECK(has(&a, "xfs-metadata", AW_NOTE, "directory blocks larger"));
	in.fs.untorn_metadata = -1;
	aw_advise(&in, &a);
	CHECK(!has(&a, "xfs-metadata", AW_NOTE, NULL) && !has(&a, "xfs-metadata", AW_PASS, NULL));
	/* the smallest physical block of the stack counts (dm over sda) */
	CHECK(aw_stack_walk(root, 253, 0, &in.stack, err, sizeof(err)) == 0 && in.stack.n > 1);
	in.stack.l[0].pbs = 65536;
	aw_advise(&in, &a);
	CHECK(has(&a, "xfs-metadata", AW_NOTE, "sda's"));
	/* mounted with nountorn: both reports are 0, and advise says why */
	CHECK(aw_stack_walk(root, 252, 0, &in.stack, err, sizeof(err)) == 0);
	in.fs.untorn_buffered = in.fs.untorn_metadata = 0;
	in.fs.nountorn = 1;
	aw_advise(&in, &a);
	CHECK(a.verdict == AW_ADV_UNSAFE &&
	      has(&a, "buffered-writeback", AW_FAIL, "mounted with nountorn") &&
	      has(&a, "xfs-metadata", AW_NOTE, "mounted with nountorn"));
	in.fs.nountorn = 0;
	aw_advise(&in, &a);
	CHECK(!has(&a, "buffered-writeback", AW_FAIL, "nountorn") &&
	      has(&a, "buffered-writeback", AW_FAIL, "is 0"));
	in.fs.untorn_buffered = 16384;
	in.fs.untorn_metadata = -1;
	/* not XFS, or no block device: nothing */
	snprintf(in.fs.fstype, sizeof(in.fs.fstype), "ext4");
	aw_advise(&in, &a);
	CHECK(!has(&a, "xfs-metadata", AW_NOTE, NULL));
	snprintf(in.fs.fstype, sizeof(in.fs.fstype), "xfs");
	in.stack.n = 0;
	aw_advise(&in, &a);
	CHECK(!has(&a, "xfs-metadata", AW_NOTE, NULL));
}

/* dm tables: the parser, and the checks on a dm layer (253:0 of the tree). */
static void test_dm(void)
{
	struct aw_advise_in in = { .db = AW_DB_POSTGRES, .page = 8192, .buffered = 1 };
	struct aw_dm_target t;
	struct aw_advice a;
	char err[256];

	CHECK(aw_dm_parse_target("linear", 0, 2048, "8:16 2048", &t, err, sizeof(err)) == 0);
	CHECK(t.ndev == 1 && !strcmp(t.dev[0], "8:16") && t.off[0] == 2048 && t.len == 2048);
	CHECK(aw_dm_parse_target("striped", 0, 4096, "2 8 8:16 0 8:32 16", &t, err,
				 sizeof(err)) == 0);
	CHECK(t.ndev == 2 && t.chunk == 8 && t.off[1] == 16 && !strcmp(t.dev[1], "8:32"));
	CHECK(aw_dm_parse_target("striped", 0, 4096, "2 8 8:16 0", &t, err, sizeof(err)) < 0);
	CHECK(strstr(err, "stripe 2"));
	CHECK(aw_dm_parse_target("linear", 0, 8, "8:16", &t, err, sizeof(err)) < 0);
	CHECK(aw_dm_parse_target("linear", 0, 8, "8:16 -8", &t, err, sizeof(err)) < 0);
	CHECK(aw_dm_parse_target("striped", 0, 8, "0 8", &t, err, sizeof(err)) < 0);
	CHECK(aw_dm_parse_target("crypt", 0, 8, "aes-xts-plain64 - 0 8:16 0", &t, err,
				 sizeof(err)) == 0 && !strcmp(t.type, "crypt") && !t.ndev);
	CHECK(aw_dm_parse_target("striped", 0, 8, "9 8 1:1 0 1:2 0 1:3 0 1:4 0 1:5 0 1:6 0 1:7 0 "
				 "1:8 0 1:9 0", &t, err, sizeof(err)) == 0 && t.partial);

	snprintf(in.page_source, sizeof(in.page_source), "test");
	snprintf(in.fs.fstype, sizeof(in.fs.fstype), "xfs");
	snprintf(in.fs.probe, sizeof(in.fs.probe), "/db/global/pg_control");
	in.fs.fs_block = 16384;
	CHECK(aw_stack_walk(root, 253, 0, &in.stack, err, sizeof(err)) == 0);
	CHECK(in.stack.l[0].maj == 253 && in.stack.l[0].min == 0);
	put("devices/virtual/block/dm-0/dev", "253");
	CHECK(aw_stack_walk(root, 253, 0, &in.stack, err, sizeof(err)) < 0 &&
	      strstr(err, "not MAJOR:MINOR"));
	put("devices/virtual/block/dm-0/dev", "253:0");
	CHECK(aw_stack_walk(root, 253, 0, &in.stack, err, sizeof(err)) == 0);
	in.dm[0].state = 1;
	in.dm[0].n = 1;
	/* linear at 4k into the device: every block straddles two. */
	aw_dm_parse_target("linear", 0, 1 << 20, "8:0 8", &in.dm[0].t[0], err, sizeof(err));
	aw_advise(&in, &a);
	CHECK(has(&a, "dm-offset", AW_FAIL, "dm-0 (linear) maps onto 8:0 at byte 4096"));
	/* at 1 MiB: aligned */
	aw_dm_parse_target("linear", 0, 1 << 20, "8:0 2048", &in.dm[0].t[0], err, sizeof(err));
	aw_advise(&in, &a);
	CHECK(has(&a, "dm-offset", AW_PASS, "1 linear/striped target,"));
	/* a second target starting 4k into the dm device */
	in.dm[0].n = 2;
	aw_dm_parse_target("linear", 8, 1 << 20, "8:0 4096", &in.dm[0].t[1], err, sizeof(err));
	aw_advise(&in, &a);
	CHECK(has(&a, "dm-offset", AW_FAIL, "a linear target starts at byte 4096"));
	/* stripes with 4k chunks, which sysfs does not show */
	in.dm[0].n = 1;
	aw_dm_parse_target("striped", 0, 1 << 20, "2 8 8:0 0 8:16 0", &in.dm[0].t[0], err,
			   sizeof(err));
	aw_advise(&in, &a);
	CHECK(has(&a, "chunk", AW_FAIL, "dm-0 (dm striped) has 4096-byte chunks"));
	CHECK(has(&a, "dm-offset", AW_PASS, NULL));
	/* an unknown target type, and a table that could not be read */
	aw_dm_parse_target("crypt", 0, 1 << 20, "x", &in.dm[0].t[0], err, sizeof(err));
	aw_advise(&in, &a);
	CHECK(has(&a, "dm-table", AW_NOTE, "dm-0 has a crypt target"));
	in.dm[0].state = -1;
	snprintf(in.dm[0].why, sizeof(in.dm[0].why), "opening /dev/mapper/control: denied");
	aw_advise(&in, &a);
	CHECK(has(&a, "dm-table", AW_NOTE, "its table was not read (opening"));
}

/* Checks beyond what the advice can show still count in the verdict. */
static void test_overflow(void)
{
	static struct aw_advise_in in;
	struct aw_advice a;
	char err[256];

	lbs_in(&in, 0); /* the only failure, checked last */
	CHECK(aw_stack_walk(root, 253, 0, &in.stack, err, sizeof(err)) == 0);
	/* many dm layers' notes would fill the list before it */
	for (int i = 0; i < AW_STACK_MAX && i < in.stack.n; i++)
		in.stack.l[i].kind = AW_LAYER_DM;
	for (int i = in.stack.n; i < AW_STACK_MAX; i++) {
		in.stack.l[i] = in.stack.l[0];
		in.stack.l[i].depth = 1;
	}
	in.stack.n = AW_STACK_MAX;
	for (int i = 0; i < AW_STACK_MAX; i++) {
		in.dm[i].state = 1;
		in.dm[i].n = 2;
		aw_dm_parse_target("crypt", 0, 8, "x", &in.dm[i].t[0], err, sizeof(err));
		aw_dm_parse_target("linear", 0, 8, "8:0 0", &in.dm[i].t[1], err, sizeof(err));
	}
	aw_advise(&in, &a);
	CHECK(a.n == AW_CHECKS_MAX && a.lost_fail > 0);
	CHECK(a.verdict == AW_ADV_UNSAFE);
}

/* What advise prints for a device of 512-byte logical and 4k physical
 * blocks: both sizes, in the text and in the JSON. */
static void test_print(void)
{
	static struct aw_advise_in in;
	struct aw_advice a;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *f;

	queue("devices/virtual/block/tb9", 512, 0, 0);
	put("devices/virtual/block/tb9/queue/physical_block_size", "4096");
	link_to("dev/block/252:9", "../../devices/virtual/block/tb9");
	lbs_in(&in, 16384);
	CHECK(aw_stack_walk(root, 252, 9, &in.stack, err, sizeof(err)) == 0 && in.stack.n == 1 &&
	      in.stack.l[0].lbs == 512 && in.stack.l[0].pbs == 4096);
	aw_advise(&in, &a);

	f = open_memstream(&text, &len);
	aw_advise_print_text(f, "/db", &in, &a);
	fclose(f);
	CHECK(strstr(text, "  tb9 (disk): logical block 512, physical block 4096, atomic 0..0"));
	free(text);

	f = open_memstream(&text, &len);
	aw_advise_print_json(f, "/db", &in, &a);
	fclose(f);
	CHECK(strstr(text, "\"logical_block_size\": 512, \"physical_block_size\": 4096,"));
	free(text);
}

int main(void)
{
	snprintf(root, sizeof(root), "%s/test_advise.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	build_tree();
	test_walk();
	test_mountinfo();
	test_innodb_page();
	test_statx();
	test_verdicts();
	test_more();
	test_metadata();
	test_dm();
	test_overflow();
	test_print();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			fprintf(stderr, "test_advise: could not remove %s\n", root);
	}
	return tap_done("test_advise");
}
