// SPDX-License-Identifier: MIT
#include "advise.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void add(struct aw_advice *a, const char *id, enum aw_result r, const char *why,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(struct aw_advice *a, const char *id, enum aw_result r, const char *why,
		const char *fmt, ...)
{
	struct aw_check *c;
	va_list ap;

	if (a->n >= AW_CHECKS_MAX) {
		/* not shown, but still counted in the verdict */
		a->lost_fail += r == AW_FAIL;
		a->lost_unknown += r == AW_UNKNOWN;
		return;
	}
	c = &a->c[a->n++];
	c->id = id;
	c->res = r;
	snprintf(c->why, sizeof(c->why), "%s", why);
	va_start(ap, fmt);
	vsnprintf(c->found, sizeof(c->found), fmt, ap);
	va_end(ap);
}

void aw_fs_from_statx(struct aw_fs_facts *fs, const struct aw_statx *stx)
{
	fs->statx_atomic = (stx->mask & AW_STATX_WRITE_ATOMIC) &&
			   (stx->attributes & AW_STATX_ATTR_WRITE_ATOMIC) &&
			   stx->atomic_write_unit_max;
	fs->stx_awu_min = fs->statx_atomic ? stx->atomic_write_unit_min : 0;
	fs->stx_awu_max = fs->statx_atomic ? stx->atomic_write_unit_max : 0;
}

static int in_unit_range(uint64_t v, uint64_t min, uint64_t max)
{
	return min && v >= min && v <= max;
}

/* Why the device the filesystem is on keeps no block whole: which layer. */
static void device_cause(const struct aw_stack *s, uint64_t bs, char *buf, size_t len)
{
	for (int i = 0; i < s->n; i++) {
		const struct aw_layer *l = &s->l[i];

		if (l->kind == AW_LAYER_PART || l->kind == AW_LAYER_DISK ||
		    in_unit_range(bs, l->awu_min, l->awu_max))
			continue;
		for (int j = i + 1; j < s->n && s->l[j].depth > l->depth; j++) {
			if (in_unit_range(bs, s->l[j].awu_min, s->l[j].awu_max)) {
				snprintf(buf, len, "%s (%s%s%s) keeps no %" PRIu64 "-byte write whole "
					 "although %s below it does: the layer does not pass the "
					 "atomic write limits up", l->name, aw_layer_kind_name(l->kind),
					 l->detail[0] ? ", " : "", l->detail, bs, s->l[j].name);
				return;
			}
		}
	}
	for (int i = s->n - 1; i >= 0; i--) {
		const struct aw_layer *l = &s->l[i];

		if (l->kind != AW_LAYER_DISK)
			continue;
		if (!l->awu_max)
			snprintf(buf, len, "%s reports no atomic writes (atomic_write_unit_max_bytes "
				 "0): the device, or its driver, promises no write larger than a "
				 "%" PRIu64 "-byte sector to be whole", l->name, l->lbs);
		else
			snprintf(buf, len, "%s keeps %" PRIu64 "..%" PRIu64 " bytes whole, not a "
				 "%" PRIu64 "-byte block", l->name, l->awu_min, l->awu_max, bs);
		return;
	}
	snprintf(buf, len, "%s keeps %" PRIu64 "..%" PRIu64 " bytes whole, not a %" PRIu64
		 "-byte block", s->l[0].name, s->l[0].awu_min, s->l[0].awu_max, bs);
}

static void check_device(const struct aw_advise_in *in, struct aw_advice *a)
{
	const struct aw_stack *s = &in->stack;
	const struct aw_layer *top = &s->l[0];
	uint64_t bs = in->fs.fs_block;
	char cause[300];

	if (!s->n) {
		add(a, "device-atomic", AW_UNKNOWN, "the device decides what a power cut keeps",
		    "no block device under the filesystem");
		return;
	}
	if (!top->has_atomic) {
		add(a, "device-atomic", AW_FAIL,
		    "without it no write larger than a sector is promised whole",
		    "%s: the kernel has no atomic write limits in sysfs (Linux before 6.11)",
		    top->name);
		return;
	}
	if (in_unit_range(bs, top->awu_min, top->awu_max)) {
		add(a, "device-atomic", AW_PASS,
		    "a power cut keeps a block all old or all new on the device",
		    "%s keeps writes of %" PRIu64 "..%" PRIu64 " bytes whole, the %" PRIu64
		    "-byte block included", top->name, top->awu_min, top->awu_max, bs);
		return;
	}
	device_cause(s, bs, cause, sizeof(cause));
	add(a, "device-atomic", AW_FAIL,
	    "a power cut can then keep part of a block: a torn page", "%s", cause);
}

static void check_layers(const struct aw_advise_in *in, struct aw_advice *a)
{
	uint64_t bs = in->fs.fs_block;

	for (int i = 0; i < in->stack.n; i++) {
		const struct aw_layer *l = &in->stack.l[i];

		if (l->kind == AW_LAYER_PART) {
			uint64_t align = bs > l->aw_boundary ? bs : l->aw_boundary;

			if (align && l->part_start % align)
				add(a, "partition-offset", AW_FAIL,
				    "every block then straddles two of the device's atomic units",
				    "%s starts at byte %" PRIu64 ", not a multiple of %" PRIu64,
				    l->name, l->part_start, align);
			else
				add(a, "partition-offset", AW_PASS,
				    "blocks line up with the device's atomic units",
				    "%s starts at byte %" PRIu64 ", a multiple of %" PRIu64, l->name,
				    l->part_start, align);
		}
		/* A partition's limits are its disk's, which come next. */
		if (l->kind == AW_LAYER_PART)
			continue;
		if (l->chunk && bs && l->chunk % bs)
			add(a, "chunk", AW_FAIL,
			    "a block across a chunk boundary is split into two writes (or two "
			    "devices)", "%s (%s) splits I/O every %" PRIu64 " bytes, not a multiple "
			    "of the %" PRIu64 "-byte block", l->name, aw_layer_kind_name(l->kind),
			    l->chunk, bs);
		if (l->aw_boundary && bs && l->aw_boundary % bs)
			add(a, "atomic-boundary", AW_FAIL,
			    "a write across the boundary is not atomic",
			    "%s: atomic write boundary %" PRIu64 " bytes, not a multiple of the "
			    "%" PRIu64 "-byte block", l->name, l->aw_boundary, bs);
		if (l->kind == AW_LAYER_LOOP)
			add(a, "loop", AW_NOTE,
			    "what survives a power cut is decided by the backing file's filesystem",
			    "%s is a loop device (%s)", l->name, l->detail);
	}
}

/*
 * A dm layer's table (sysfs does not show it): each target must start, and
 * map onto each device below, at a multiple of the block, or every block
 * straddles two of that device's blocks; a stripe's chunk must hold whole
 * blocks (the kernel drops a chunk smaller than the physical block from the
 * queue limits, so sysfs may not show it).
 */
static void check_dm(const struct aw_advise_in *in, struct aw_advice *a)
{
	uint64_t bs = in->fs.fs_block;

	for (int i = 0; i < in->stack.n; i++) {
		const struct aw_layer *l = &in->stack.l[i];
		const struct aw_dm_table *tab = &in->dm[i];
		int bad = 0, chunk_bad = 0, checked = 0, other = 0, partial = 0;

		if (l->kind != AW_LAYER_DM || !bs)
			continue;
		if (tab->state < 0) {
			add(a, "dm-table", AW_NOTE,
			    "where its targets map blocks decides whether a block stays one write",
			    "%s: its table was not read (%s)", l->name, tab->why);
			continue;
		}
		for (int j = 0; j < tab->n; j++) {
			const struct aw_dm_target *t = &tab->t[j];

			if (strcmp(t->type, "linear") && strcmp(t->type, "striped")) {
				if (!other++)
					add(a, "dm-table", AW_NOTE,
					    "this tool only knows how linear and striped targets map "
					    "blocks", "%s has a %s target at sector %" PRIu64, l->name,
					    t->type, t->start);
				continue;
			}
			checked++;
			partial |= t->partial;
			if ((t->start * 512) % bs && !bad++)
				add(a, "dm-offset", AW_FAIL,
				    "a block across the boundary of two targets is split into two writes",
				    "%s: a %s target starts at byte %" PRIu64 ", not a multiple of %"
				    PRIu64, l->name, t->type, t->start * 512, bs);
			for (int k = 0; k < t->ndev; k++)
				if ((t->off[k] * 512) % bs && !bad++)
					add(a, "dm-offset", AW_FAIL,
					    "every block then straddles two blocks of the device below",
					    "%s (%s) maps onto %s at byte %" PRIu64 ", not a multiple "
					    "of %" PRIu64, l->name, t->type, t->dev[k], t->off[k] * 512,
					    bs);
			if (t->chunk && (t->chunk * 512) % bs && !l->chunk && !chunk_bad++)
				add(a, "chunk", AW_FAIL,
				    "a block across a chunk boundary is split into two writes (or two "
				    "devices)", "%s (dm striped) has %" PRIu64 "-byte chunks, not a "
				    "multiple of the %" PRIu64 "-byte block (its queue limits do not "
				    "show them)", l->name, t->chunk * 512, bs);
		}
		if (checked && !bad)
			add(a, "dm-offset", tab->more || partial ? AW_UNKNOWN : AW_PASS,
			    "blocks line up with the devices below",
			    "%s: %d linear/striped target%s, each starting and mapping at multiples "
			    "of %" PRIu64 "%s", l->name, checked, checked > 1 ? "s" : "", bs,
			    tab->more || partial ? ", but not all of its table was read" : "");
	}
}

static void check_buffered(const struct aw_advise_in *in, struct aw_advice *a)
{
	const struct aw_fs_facts *fs = &in->fs;
	const char *why = "a database that writes through the page cache needs the kernel to "
			  "keep a block from changing while the device reads it and to write it "
			  "back whole; kernels without this project's buffered patches do neither";

	if (!in->buffered) {
		add(a, "direct-writes", AW_UNKNOWN,
		    "only RWF_ATOMIC writes are promised whole by the kernel; a plain write stays "
		    "whole only if the device keeps ordinary writes of a block whole (NVMe's AWUPF "
		    "does, SCSI needs WRITE ATOMIC), which no interface reports",
		    "the database writes its data files with O_DIRECT but without RWF_ATOMIC");
		return;
	}
	if (fs->untorn_buffered < 0)
		add(a, "buffered-writeback", AW_FAIL, why,
		    "%s is absent: this kernel does not say it keeps buffered blocks untorn",
		    fs->fs_sysfs[0] ? fs->fs_sysfs : "untorn_buffered_bytes");
	else if (!fs->untorn_buffered && fs->nountorn)
		add(a, "buffered-writeback", AW_FAIL, why,
		    "%s is 0: the filesystem is mounted with nountorn, which turns untorn "
		    "buffered writes off (mount it without that option)", fs->fs_sysfs);
	else if (!fs->untorn_buffered || (in->page && (uint64_t)fs->untorn_buffered < in->page))
		add(a, "buffered-writeback", AW_FAIL, why,
		    "%s is %" PRId64 ": buffered writes here are not kept whole", fs->fs_sysfs,
		    fs->untorn_buffered);
	else
		add(a, "buffered-writeback", AW_PASS, why,
		    "%s is %" PRId64 ": buffered writes keep each %" PRId64 "-byte block whole",
		    fs->fs_sysfs, fs->untorn_buffered, fs->untorn_buffered);
}

/*
 * XFS writes its own metadata blocks (directories, btrees) in place.  A
 * block larger than what the device keeps whole of a plain write can tear at
 * a power cut, and v5 log recovery does not repair that: it skips a block
 * whose first sector carries a current LSN, and the torn block then fails
 * its CRC check and the mount with it.  This project's kernel writes them as
 * atomic writes where it keeps file data untorn and says so
 * (untorn_metadata_bytes, patch 0028).  The smallest physical block of the
 * stack stands in for what the device keeps whole: NVMe's is at most its
 * power-fail unit, but may be smaller.  A note, not a failure: the
 * torn-page setting protects database pages, not the filesystem.
 */
static void check_metadata(const struct aw_advise_in *in, struct aw_advice *a)
{
	const struct aw_fs_facts *fs = &in->fs;
	const char *why = "a torn metadata block fails XFS log recovery: the filesystem does "
			  "not mount, whatever the database's setting";
	const char *dev = "";
	uint64_t pbs = 0;

	if (strcmp(fs->fstype, "xfs"))
		return;
	for (int i = 0; i < in->stack.n; i++)
		if (in->stack.l[i].pbs && (!pbs || in->stack.l[i].pbs < pbs)) {
			pbs = in->stack.l[i].pbs;
			dev = in->stack.l[i].name;
		}
	if (fs->untorn_metadata > 0 && (uint64_t)fs->untorn_metadata >= fs->fs_block)
		add(a, "xfs-metadata", AW_PASS, why,
		    "this kernel writes XFS's %" PRId64 "-byte metadata blocks atomically "
		    "(untorn_metadata_bytes)", fs->untorn_metadata);
	else if (fs->nountorn)
		add(a, "xfs-metadata", AW_NOTE, why,
		    "mounted with nountorn: XFS's %" PRIu64 "-byte metadata blocks are written "
		    "plainly, and a power cut can tear one unless the device keeps plain writes "
		    "of that size whole", fs->fs_block);
	else if (pbs && fs->fs_block > pbs)
		add(a, "xfs-metadata", AW_NOTE, why,
		    "XFS's %" PRIu64 "-byte metadata blocks are larger than %s's %" PRIu64
		    "-byte physical block and this kernel does not say it writes them "
		    "atomically: a power cut can tear one unless the device keeps plain writes "
		    "of that size whole (NVMe up to its AWUPF; SCSI promises nothing for a "
		    "plain WRITE)", fs->fs_block, dev, pbs);
	else if (fs->untorn_metadata == 0 && fs->untorn_buffered > 0)
		add(a, "xfs-metadata", AW_NOTE, why,
		    "untorn_metadata_bytes is 0: directory blocks larger than a filesystem "
		    "block are written plainly");
}

void aw_advise(const struct aw_advise_in *in, struct aw_advice *a)
{
	const struct aw_fs_facts *fs = &in->fs;
	const char *knob = in->db == AW_DB_POSTGRES ? "full_page_writes" : "innodb_doublewrite";
	int fails = 0, unknown = 0;

	memset(a, 0, sizeof(*a));
	if (!strcmp(fs->fstype, "xfs"))
		add(a, "filesystem", AW_PASS, "the checks below are the ones XFS needs",
		    "xfs, %" PRIu64 "-byte blocks", fs->fs_block);
	else
		add(a, "filesystem", AW_UNKNOWN, "what keeps a block whole depends on the filesystem",
		    "%s: this tool only knows how XFS writes blocks", fs->fstype);
	if (!in->page)
		add(a, "page-size", AW_UNKNOWN, "the page is what must not tear",
		    "the database page size is unknown (%s; pass --page-size)",
		    in->page_source[0] ? in->page_source : "no way to read it");
	else if (in->page_other)
		add(a, "page-size", AW_FAIL, "the page is what must not tear",
		    "--page-size %" PRIu64 " but %s says %" PRIu64, in->page,
		    in->db == AW_DB_POSTGRES ? "pg_controldata" : "ibdata1", in->page_other);
	else
		add(a, "page-size", AW_PASS, "the page is what must not tear",
		    "%" PRIu64 " bytes (%s)", in->page, in->page_source);
	if (fs->elsewhere[0]) {
		/* A WAL directory holds no database marks: say what advise needs there. */
		char opts[80], page[24] = "P";

		if (in->page)
			snprintf(page, sizeof(page), "%" PRIu64, in->page);
		snprintf(opts, sizeof(opts), "--page-size %s%s", page,
			 in->db == AW_DB_POSTGRES ? "" :
			 in->buffered ? " --innodb --buffered" : " --innodb --direct");
		add(a, "other-filesystems", AW_UNKNOWN,
		    "the setting covers every page of the database, wherever it lives",
		    "%s: run atomicw advise there too, with %s", fs->elsewhere, opts);
	}
	if (in->page && fs->fs_block >= in->page && fs->fs_block % in->page == 0)
		add(a, "block-holds-page", AW_PASS, "a page inside one block is written with it",
		    "each %" PRIu64 "-byte page lies inside one %" PRIu64 "-byte block", in->page,
		    fs->fs_block);
	else if (in->page)
		add(a, "block-holds-page", AW_FAIL,
		    "the blocks of one page are separate writes: a power cut can keep one and "
		    "lose the other", "a %" PRIu64 "-byte page spans %" PRIu64 "-byte blocks",
		    in->page, fs->fs_block);
	if (!fs->probe[0])
		add(a, "statx-atomic", AW_UNKNOWN, "statx answers for regular files only",
		    "no regular file found to ask statx about");
	else if (fs->statx_err)
		add(a, "statx-atomic", AW_UNKNOWN, "statx answers for regular files only",
		    "%s: statx failed: %s", fs->probe, strerror(fs->statx_err));
	else if (fs->statx_atomic && in_unit_range(fs->fs_block, fs->stx_awu_min, fs->stx_awu_max))
		add(a, "statx-atomic", AW_PASS,
		    "the filesystem and the device promise to write a block whole",
		    "%s%s: atomic writes of %" PRIu64 "..%" PRIu64 " bytes", fs->probe,
		    fs->probes > 1 ? " and the other files asked" : "", fs->stx_awu_min,
		    fs->stx_awu_max);
	else
		add(a, "statx-atomic", AW_FAIL,
		    "nothing promises to write a block whole",
		    "%s: statx reports no atomic writes of a %" PRIu64 "-byte block", fs->probe,
		    fs->fs_block);
	check_device(in, a);
	check_layers(in, a);
	check_dm(in, a);
	check_buffered(in, a);
	check_metadata(in, a);
	if (in->stack.n && in->stack.l[0].write_cache == 1)
		add(a, "write-cache", AW_NOTE,
		    "durability rests on cache flushes (fsync), which the device must honour",
		    "%s has a volatile write cache", in->stack.l[0].name);
	fails = a->lost_fail;
	unknown = a->lost_unknown;
	for (int i = 0; i < a->n; i++) {
		fails += a->c[i].res == AW_FAIL;
		unknown += a->c[i].res == AW_UNKNOWN;
	}
	a->verdict = fails ? AW_ADV_UNSAFE : unknown ? AW_ADV_UNKNOWN : AW_ADV_SAFE;
	if (a->verdict == AW_ADV_SAFE)
		snprintf(a->setting, sizeof(a->setting), "%s",
			 in->db == AW_DB_POSTGRES ?
			 "set full_page_writes = off in postgresql.conf, then SELECT pg_reload_conf() "
			 "(pg_rewind refuses a server without it)" :
			 "set innodb_doublewrite = OFF in my.cnf and restart the server");
	else
		snprintf(a->setting, sizeof(a->setting), "keep %s %s%s", knob,
			 in->db == AW_DB_POSTGRES ? "on" : "ON",
			 a->verdict == AW_ADV_UNKNOWN ? " until the unknown checks are settled" : "");
}

const char *aw_result_name(enum aw_result r)
{
	switch (r) {
	case AW_PASS:
		return "ok";
	case AW_FAIL:
		return "FAIL";
	case AW_UNKNOWN:
		return "unknown";
	case AW_NOTE:
		return "note";
	}
	return "?";
}

const char *aw_verdict_adv_name(enum aw_verdict_adv v)
{
	switch (v) {
	case AW_ADV_SAFE:
		return "SAFE";
	case AW_ADV_UNSAFE:
		return "UNSAFE";
	case AW_ADV_UNKNOWN:
		return "UNKNOWN";
	}
	return "?";
}
