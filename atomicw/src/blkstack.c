// SPDX-License-Identifier: MIT
#include "blkstack.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Read DIR/REL into buf without the trailing newline: 0, 1 if absent, -1. */
static int read_str(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* DIR/REL as a number: 0, 1 if absent, -1 (with err) if it is not one. */
static int read_u64(const char *dir, const char *rel, uint64_t *v, char *err, size_t len)
{
	char buf[64];
	int r = read_str(dir, rel, buf, sizeof(buf));

	if (r)
		return r < 0 ? aw_errf(err, len, "reading %s/%s: %s", dir, rel, strerror(errno)) : 1;
	if (aw_parse_u64(buf, v))
		return aw_errf(err, len, "%s/%s: '%s' is not a number", dir, rel, buf);
	return 0;
}

const char *aw_layer_kind_name(enum aw_layer_kind k)
{
	switch (k) {
	case AW_LAYER_DISK:
		return "disk";
	case AW_LAYER_PART:
		return "partition";
	case AW_LAYER_DM:
		return "dm";
	case AW_LAYER_MD:
		return "md";
	case AW_LAYER_LOOP:
		return "loop";
	}
	return "?";
}

/* The queue limits of the disk at dir into l. */
static int read_queue(const char *dir, struct aw_layer *l, char *err, size_t len)
{
	static const struct {
		const char *attr;
		size_t off;
	} nums[] = {
		{ "queue/logical_block_size", offsetof(struct aw_layer, lbs) },
		{ "queue/physical_block_size", offsetof(struct aw_layer, pbs) },
		{ "queue/atomic_write_unit_min_bytes", offsetof(struct aw_layer, awu_min) },
		{ "queue/atomic_write_unit_max_bytes", offsetof(struct aw_layer, awu_max) },
		{ "queue/atomic_write_boundary_bytes", offsetof(struct aw_layer, aw_boundary) },
		{ "queue/atomic_write_max_bytes", offsetof(struct aw_layer, aw_max) },
	};
	char buf[64];
	uint64_t v;
	int r;

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		r = read_u64(dir, nums[i].attr, (uint64_t *)((char *)l + nums[i].off), err, len);
		if (r < 0)
			return -1;
		if (i == 0 && r)
			return aw_errf(err, len, "%s has no queue/logical_block_size: not a block device",
				    dir);
		if (i == 2)
			l->has_atomic = r == 0;
	}
	r = read_u64(dir, "queue/chunk_sectors", &v, err, len);
	if (r < 0)
		return -1;
	if (r == 0 && v)
		l->chunk = v * 512;
	l->write_cache = -1;
	if (read_str(dir, "queue/write_cache", buf, sizeof(buf)) == 0)
		l->write_cache = !strcmp(buf, "write back") ? 1 :
				 !strcmp(buf, "write through") ? 0 : -1;
	l->stable_writes = -1;
	r = read_u64(dir, "queue/stable_writes", &v, err, len);
	if (r < 0)
		return -1;
	if (r == 0)
		l->stable_writes = v != 0;
	return 0;
}

/* What kind of disk dir is, with its detail and (md) chunk. */
static int read_kind(const char *dir, struct aw_layer *l, char *err, size_t len)
{
	char buf[128];
	uint64_t v;
	int r;

	if (read_str(dir, "dm/name", buf, sizeof(buf)) == 0) {
		l->kind = AW_LAYER_DM;
		snprintf(l->detail, sizeof(l->detail), "dm name %s", buf);
	} else if (read_str(dir, "md/level", buf, sizeof(buf)) == 0) {
		l->kind = AW_LAYER_MD;
		snprintf(l->detail, sizeof(l->detail), "md %s", buf);
		r = read_u64(dir, "md/chunk_size", &v, err, len);
		if (r < 0)
			return -1;
		if (r == 0 && v)
			l->chunk = v;
	} else if (read_str(dir, "loop/backing_file", buf, sizeof(buf)) == 0) {
		l->kind = AW_LAYER_LOOP;
		snprintf(l->detail, sizeof(l->detail), "backing file %s", buf);
	} else {
		l->kind = AW_LAYER_DISK;
	}
	return 0;
}

static int walk(const char *dir, int depth, struct aw_stack *s, char *err, size_t len);

static struct aw_layer *new_layer(const char *dir, int depth, struct aw_stack *s,
				  char *err, size_t len)
{
	struct aw_layer *l;
	const char *base = strrchr(dir, '/');

	if (s->n >= AW_STACK_MAX) {
		aw_errf(err, len, "more than %d block device layers under the filesystem",
		     AW_STACK_MAX);
		return NULL;
	}
	l = &s->l[s->n++];
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", base ? base + 1 : dir);
	l->depth = depth;
	l->below = -1;
	return l;
}

/* The devices under a dm, md or loop layer: its slaves/ entries. */
static int walk_slaves(const char *dir, int depth, struct aw_stack *s, char *err, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/slaves", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while (!ret && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/slaves/%s", dir, e->d_name) >=
			    sizeof(path) || !realpath(path, real)) {
			ret = aw_errf(err, len, "resolving %s/slaves/%s: %s", dir, e->d_name,
				   strerror(errno));
			break;
		}
		ret = walk(real, depth, s, err, len);
	}
	closedir(d);
	return ret;
}

static int walk(const char *dir, int depth, struct aw_stack *s, char *err, size_t len)
{
	struct aw_layer *l = new_layer(dir, depth, s, err, len);
	int idx = s->n - 1;
	uint64_t start;
	char disk[PATH_MAX];
	char *slash;

	if (!l)
		return -1;
	if (read_str(dir, "dev", disk, sizeof(disk)) == 0 &&
	    sscanf(disk, "%u:%u", &l->maj, &l->min) != 2)
		return aw_errf(err, len, "%s/dev: '%s' is not MAJOR:MINOR", dir, disk);
	if (read_u64(dir, "partition", &start, err, len) == 0) {
		l->kind = AW_LAYER_PART;
		if (read_u64(dir, "start", &start, err, len))
			return aw_errf(err, len, "partition %s has no readable start", dir);
		l->part_start = start * 512;
		snprintf(disk, sizeof(disk), "%s", dir);
		slash = strrchr(disk, '/');
		if (!slash)
			return aw_errf(err, len, "partition %s has no parent directory", dir);
		*slash = '\0';
		if (read_queue(disk, l, err, len))
			return -1;
		s->l[idx].below = s->n;
		return walk(disk, depth + 1, s, err, len);
	}
	if (read_kind(dir, l, err, len) || read_queue(dir, l, err, len))
		return -1;
	if (l->kind == AW_LAYER_DISK)
		return 0;
	s->l[idx].below = s->n;
	if (walk_slaves(dir, depth + 1, s, err, len))
		return -1;
	if (s->l[idx].below == s->n)
		s->l[idx].below = -1;
	return 0;
}

int aw_stack_walk(const char *root, unsigned int maj, unsigned int min,
		  struct aw_stack *s, char *err, size_t errlen)
{
	char path[PATH_MAX], real[PATH_MAX];

	s->n = 0;
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", root, maj, min);
	if (!realpath(path, real))
		return aw_errf(err, errlen, "%s: %s (is %u:%u a block device?)", path,
			    strerror(errno), maj, min);
	return walk(real, 0, s, err, errlen);
}
