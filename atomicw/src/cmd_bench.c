// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "explain.h"
#include "ring.h"
#include "stamp.h"
#include "stats.h"
#include "target.h"
#include "util.h"

enum mode { M_PLAIN, M_ATOMIC, M_DOUBLEWRITE, M_NR };

static const char *const mode_names[M_NR] = { "plain", "atomic", "doublewrite" };

struct mode_result {
	int enabled;
	uint64_t writes, ns, device_bytes;
	struct aw_samples lat; /* per page: batch start to in-place completion */
};

struct bench {
	const struct aw_opts *o;
	FILE *csv, *json;	/* opened before the run: a bad path fails early */
	FILE *rounds;		/* --rounds-csv */
	struct aw_target t;
	struct aw_ring ring;
	struct aw_rng rng;
	uint64_t pages, qd;
	unsigned char *bufs;
	uint64_t *batch;
	struct mode_result r[M_NR];
};

#define FSYNC_TAG UINT64_MAX

/* Submit n writes (page numbers in pages[]) at base + page * bs; record per-write completion times. */
static int write_batch(struct bench *b, const uint64_t *pages, uint64_t n, uint64_t base,
		       int rw_flags, uint64_t *done_ns)
{
	uint64_t bs = b->o->block_size, tag;
	int res;

	for (uint64_t i = 0; i < n; i++)
		if (aw_ring_write(&b->ring, b->t.fd, b->bufs + i * bs, (uint32_t)bs,
				  base + pages[i] * bs, rw_flags, i))
			return -1;
	if (aw_ring_submit(&b->ring))
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		if (aw_ring_reap(&b->ring, &tag, &res))
			return -1;
		if (res != (int)bs) {
			aw_explain_write_error(&b->t, res < 0 ? -res : EIO, base + pages[tag] * bs,
					       (uint32_t)bs, rw_flags != 0);
			return -1;
		}
		if (done_ns)
			done_ns[tag] = aw_now_ns();
	}
	return 0;
}

static int fsync_now(struct bench *b)
{
	uint64_t tag;
	int res;

	if (aw_ring_fsync(&b->ring, b->t.fd, FSYNC_TAG) || aw_ring_submit(&b->ring) ||
	    aw_ring_reap(&b->ring, &tag, &res))
		return -1;
	if (res < 0) {
		fprintf(stderr, "atomicw: fsync %s: %s\n", b->t.path, strerror(-res));
		return -1;
	}
	return 0;
}

static int one_batch(struct bench *b, enum mode m, uint64_t *done_ns)
{
	uint64_t bs = b->o->block_size, base = b->o->offset, t0 = aw_now_ns();
	struct mode_result *r = &b->r[m];

	for (uint64_t i = 0; i < b->qd; i++) {
		uint64_t p;
		int dup;

		do { /* distinct pages within a batch */
			p = aw_rng_below(&b->rng, b->pages);
			dup = 0;
			for (uint64_t k = 0; k < i; k++)
				dup |= b->batch[k] == p;
		} while (dup);
		b->batch[i] = p;
	}
	if (m == M_DOUBLEWRITE) {
		uint64_t dw_slots[1024];

		for (uint64_t i = 0; i < b->qd; i++)
			dw_slots[i] = b->pages + i; /* the doublewrite area follows the data */
		if (write_batch(b, dw_slots, b->qd, base, 0, NULL) || fsync_now(b))
			return -1;
		r->device_bytes += b->qd * bs;
	}
	if (write_batch(b, b->batch, b->qd, base, m == M_ATOMIC ? RWF_ATOMIC : 0, done_ns) ||
	    fsync_now(b))
		return -1;
	for (uint64_t i = 0; i < b->qd; i++)
		if (aw_samples_add(&r->lat, done_ns[i] - t0))
			return -1;
	r->writes += b->qd;
	r->device_bytes += b->qd * bs;
	return 0;
}

/* One mode's share of a round; with --rounds-csv, its own row. */
static int run_mode(struct bench *b, enum mode m, uint64_t round)
{
	const struct aw_opts *o = b->o;
	uint64_t done_ns[1024], t0 = aw_now_ns(), n = 0, ns;
	uint64_t limit_ns = o->seconds * 1000000000ull;

	while (o->seconds ? aw_now_ns() - t0 < limit_ns : n < o->count) {
		if (one_batch(b, m, done_ns))
			return -1;
		n += b->qd;
	}
	ns = aw_now_ns() - t0;
	b->r[m].ns += ns;
	if (b->rounds)
		fprintf(b->rounds, "%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%.3f,%.1f\n", round + 1,
			mode_names[m], o->block_size, n, (double)ns / 1e9,
			ns ? (double)n * 1e9 / (double)ns : 0);
	return 0;
}

static int parse_modes(struct bench *b, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int any = 0;

	if (!copy)
		return -1;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int m = 0; m < M_NR; m++)
			if (!strcmp(tok, mode_names[m]))
				b->r[m].enabled = found = any = 1;
		if (!found) {
			fprintf(stderr, "atomicw: unknown bench mode '%s' (plain, atomic, doublewrite)\n",
				tok);
			free(copy);
			return -1;
		}
	}
	free(copy);
	if (!any)
		fprintf(stderr, "atomicw: --modes names no mode\n");
	return any ? 0 : -1;
}

static double iops(const struct mode_result *r)
{
	return r->ns ? (double)r->writes * 1e9 / (double)r->ns : 0;
}

/* Close an output file; its write errors show up here. */
static int close_out(FILE *f, const char *path)
{
	if (f && (ferror(f) | fclose(f))) {
		fprintf(stderr, "atomicw: writing %s failed: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_out(FILE **f, const char *path)
{
	if (path && !(*f = fopen(path, "w"))) {
		fprintf(stderr, "atomicw: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int report(struct bench *b)
{
	const struct aw_opts *o = b->o;
	double base = b->r[M_PLAIN].enabled ? iops(&b->r[M_PLAIN]) : 0;
	FILE *csv = b->csv, *json = b->json;
	int first = 1, ret;

	if (csv)
		fprintf(csv, "mode,block_size,qd,rounds,writes,seconds,iops,p50_us,p99_us,"
			"p999_us,device_bytes_per_write,iops_vs_plain\n");
	if (json) {
		fputs("{\"path\": ", json);
		aw_json_str(json, o->path);
		fprintf(json, ", \"block_size\": %" PRIu64 ", \"qd\": %" PRIu64
			", \"rounds\": %" PRIu64 ", \"modes\": [", o->block_size, b->qd,
			o->rounds);
	}
	printf("%-12s %10s %10s %10s %10s %10s %8s\n", "mode", "writes", "IOPS", "p50 us",
	       "p99 us", "p99.9 us", "vs plain");
	for (int m = 0; m < M_NR; m++) {
		struct mode_result *r = &b->r[m];
		double p50, p99, p999, ratio;

		if (!r->enabled)
			continue;
		p50 = (double)aw_samples_pct(&r->lat, 50) / 1e3;
		p99 = (double)aw_samples_pct(&r->lat, 99) / 1e3;
		p999 = (double)aw_samples_pct(&r->lat, 99.9) / 1e3;
		ratio = base ? iops(r) / base : 0;
		printf("%-12s %10" PRIu64 " %10.1f %10.1f %10.1f %10.1f %8.3f\n", mode_names[m],
		       r->writes, iops(r), p50, p99, p999, ratio);
		if (csv)
			fprintf(csv, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.1f,"
				"%.1f,%.1f,%.1f,%" PRIu64 ",%.4f\n", mode_names[m], o->block_size,
				b->qd, o->rounds, r->writes, (double)r->ns / 1e9, iops(r), p50, p99,
				p999, r->writes ? r->device_bytes / r->writes : 0, ratio);
		if (json)
			fprintf(json, "%s\n  {\"mode\": \"%s\", \"writes\": %" PRIu64 ", \"seconds\": "
				"%.3f, \"iops\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f, "
				"\"p999_us\": %.1f, \"device_bytes_per_write\": %" PRIu64
				", \"iops_vs_plain\": %.4f}", first ? "" : ",", mode_names[m],
				r->writes, (double)r->ns / 1e9, iops(r), p50, p99, p999,
				r->writes ? r->device_bytes / r->writes : 0, ratio);
		first = 0;
	}
	if (json)
		fprintf(json, "\n]}\n");
	ret = close_out(json, o->json);
	if (close_out(csv, o->csv))
		ret = -1;
	b->csv = b->json = NULL;
	return ret;
}

/* The data area's pages in size bytes (o->blocks, or 3/4 of what is there),
 * with room for the doublewrite area after it; 0 if they do not fit. */
static uint64_t data_pages(const struct aw_opts *o, uint64_t qd, uint64_t size)
{
	uint64_t bs = o->block_size, pages = o->blocks;

	if (!pages && size > o->offset)
		pages = (size - o->offset) / bs * 3 / 4;
	if (pages < qd || o->offset > size || pages + qd > (size - o->offset) / bs) {
		fprintf(stderr, "atomicw: %s is too small for %" PRIu64 " pages plus a %" PRIu64
			"-page doublewrite area of %" PRIu64 " bytes\n", o->path, pages, qd, bs);
		return 0;
	}
	return pages;
}

/*
 * The checks run before the target is created or grown and before the
 * output files are made; only the atomic write limits need the file, and a
 * refusal there, or a failure to set up io_uring, takes back what --create
 * made.
 */
int aw_cmd_bench(const struct aw_opts *o)
{
	struct bench b = { .o = o };
	uint64_t bs = o->block_size, size;
	int ret = 1;

	b.t.fd = -1;
	b.qd = o->qd > 1024 ? 1024 : o->qd;
	if (parse_modes(&b, o->modes) || aw_target_size_ahead(o->path, o->create, &size) ||
	    !data_pages(o, b.qd, size) || aw_target_open(&b.t, o->path, O_WRONLY | O_DIRECT, o->create))
		goto out;
	b.pages = data_pages(o, b.qd, b.t.size);
	if (!b.pages)
		goto undo;
	if (b.r[M_ATOMIC].enabled && !aw_target_atomic_ok(&b.t, (uint32_t)bs)) {
		aw_explain_write_error(&b.t, EOPNOTSUPP, o->offset, (uint32_t)bs, 1);
		ret = 2;
		goto undo;
	}
	b.bufs = aw_alloc_aligned(b.qd * bs);
	b.batch = calloc(b.qd, sizeof(*b.batch));
	if (!b.bufs || !b.batch) {
		fprintf(stderr, "atomicw: out of memory for a queue of %" PRIu64 "\n", b.qd);
		goto undo;
	}
	/* The ring before the output files: a run that cannot start makes none. */
	if (aw_ring_init(&b.ring, (unsigned int)b.qd + 1))
		goto undo;
	if (open_out(&b.csv, o->csv) || open_out(&b.json, o->json) ||
	    open_out(&b.rounds, o->rounds_csv))
		goto undo_ring;
	if (b.rounds)
		fprintf(b.rounds, "round,mode,block_size,writes,seconds,iops\n");
	for (uint64_t i = 0; i < b.qd; i++)
		aw_stamp_block(b.bufs + i * bs, (uint32_t)bs, 1, i, 1);
	aw_rng_seed(&b.rng, o->seed);
	for (uint64_t round = 0; round < o->rounds; round++) {
		for (int k = 0; k < M_NR; k++) {
			int m = (int)((k + round) % M_NR); /* rotate the order each round */

			if (!b.r[m].enabled)
				continue;
			fprintf(stderr, "atomicw: bench round %" PRIu64 "/%" PRIu64 ": %s\n",
				round + 1, o->rounds, mode_names[m]);
			if (run_mode(&b, (enum mode)m, round))
				goto out_ring;
		}
	}
	ret = report(&b) ? 1 : 0;
	if (close_out(b.rounds, o->rounds_csv))
		ret = 1;
	b.rounds = NULL;
out_ring:
	aw_ring_exit(&b.ring);
	goto out;
undo_ring:
	aw_ring_exit(&b.ring);
undo:
	aw_target_undo_create(&b.t);
out:
	for (int m = 0; m < M_NR; m++)
		aw_samples_free(&b.r[m].lat);
	free(b.bufs);
	free(b.batch);
	aw_target_close(&b.t);
	if (b.csv)
		fclose(b.csv);
	if (b.json)
		fclose(b.json);
	if (b.rounds)
		fclose(b.rounds);
	return ret;
}
