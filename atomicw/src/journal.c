// SPDX-License-Identifier: MIT
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stamp.h"
#include "util.h"

uint32_t aw_rec_csum(uint64_t run_id, uint64_t index, const struct aw_rec *r)
{
	uint64_t z = run_id ^ (index * 0x9e3779b97f4a7c15ull);

	z ^= r->block * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 31)) * 0x94d049bb133111ebull;
	z ^= r->gen * 0xd6e8feb86659fd93ull + r->type;
	z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(z ^ (z >> 32));
}

uint32_t aw_journal_hdr_csum(const struct aw_journal_hdr *h)
{
	struct aw_journal_hdr c = *h;

	c.csum = 0;
	return aw_crc32c(0, &c, sizeof(c));
}

int aw_journal_create(struct aw_journal *j, const char *path,
		      const struct aw_journal_hdr *hdr)
{
	struct aw_journal_hdr h = *hdr;

	h.magic = AW_JOURNAL_MAGIC;
	h.csum = aw_journal_hdr_csum(&h);
	j->path = path;
	j->run_id = hdr->run_id;
	j->nrecs = 0;
	j->f = fopen(path, "w");
	if (!j->f) {
		fprintf(stderr, "atomicw: cannot create journal %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (fwrite(&h, sizeof(h), 1, j->f) != 1) {
		fprintf(stderr, "atomicw: writing journal %s: %s\n", path, strerror(errno));
		fclose(j->f);
		j->f = NULL;
		return -1;
	}
	if (aw_journal_sync(j)) {
		fclose(j->f);
		j->f = NULL;
		return -1;
	}
	return 0;
}

int aw_journal_add(struct aw_journal *j, enum aw_rec_type type, uint64_t block,
		   uint64_t gen)
{
	struct aw_rec r = { .block = block, .gen = gen, .type = type };

	r.csum = aw_rec_csum(j->run_id, j->nrecs++, &r);
	if (fwrite(&r, sizeof(r), 1, j->f) != 1) {
		fprintf(stderr, "atomicw: writing journal %s: %s\n", j->path,
			strerror(errno));
		return -1;
	}
	return 0;
}

int aw_journal_flush(struct aw_journal *j)
{
	if (fflush(j->f)) {
		fprintf(stderr, "atomicw: flushing journal %s: %s\n", j->path,
			strerror(errno));
		return -1;
	}
	return 0;
}

int aw_journal_sync(struct aw_journal *j)
{
	if (aw_journal_flush(j))
		return -1;
	if (fsync(fileno(j->f))) {
		fprintf(stderr, "atomicw: fsync of journal %s: %s\n", j->path,
			strerror(errno));
		return -1;
	}
	return 0;
}

int aw_journal_close(struct aw_journal *j)
{
	int ret = aw_journal_add(j, AW_REC_END, 0, 0);

	if (!ret)
		ret = aw_journal_sync(j);

	if (fclose(j->f) && !ret) {
		fprintf(stderr, "atomicw: closing journal %s: %s\n", j->path,
			strerror(errno));
		ret = -1;
	}
	j->f = NULL;
	return ret;
}

/*
 * Acknowledged blocks wait in p until the next FSYNC record makes them
 * durable; that keeps "durable" exact even when acks and fsyncs interleave.
 */
int aw_journal_apply(struct aw_journal_state *st, struct aw_pending *p,
		     const struct aw_rec *r)
{
	struct aw_expect *e;

	st->records++;
	if (r->type == AW_REC_END)
		return -1; /* only the last record may be END: the loader checks */
	if (r->type == AW_REC_FSYNC) {
		for (uint64_t i = 0; i < p->n; i++) {
			uint64_t b = p->v[i];

			if (st->blocks[b].acked > st->blocks[b].durable)
				st->blocks[b].durable = st->blocks[b].acked;
		}
		p->n = 0;
		st->fsyncs++;
		return 0;
	}
	if (r->block >= st->hdr.nblocks || r->gen == 0)
		return -1;
	e = &st->blocks[r->block];
	if (r->type == AW_REC_SUBMIT) {
		if (r->gen > e->submitted)
			e->submitted = r->gen;
		return 0;
	}
	if (r->type != AW_REC_ACK || r->gen > e->submitted)
		return -1;
	if (r->gen > e->acked)
		e->acked = r->gen;
	if (p->n == p->cap) {
		uint64_t cap = p->cap ? p->cap * 2 : 64;
		uint64_t *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = r->block;
	return 0;
}

/*
 * Why the header cannot be used, or NULL: not a journal, another format
 * version, a checksum mismatch, or fields outside the bounds the options
 * have (2^60 bytes of blocks from an offset of at most 2^60, so that
 * base + nblocks * block_size cannot wrap).
 */
static const char *bad_header(const struct aw_journal_hdr *h, char *why, size_t len)
{
	unsigned int version = h->magic >> 24;

	if ((h->magic & 0xffffffu) != AW_JOURNAL_MAGIC_BASE || version < '0' || version > '9')
		return "it is not an atomicw journal";
	if (h->magic != AW_JOURNAL_MAGIC) {
		snprintf(why, len, "it is in journal format version %c, and this atomicw reads "
			 "only version %d (%s)", version, AW_JOURNAL_VERSION,
			 version - '0' < AW_JOURNAL_VERSION ?
			 "an older atomicw wrote it: verify with that one, or write again" :
			 "a newer atomicw wrote it");
		return why;
	}
	if (h->csum != aw_journal_hdr_csum(h))
		return "its header is damaged (checksum mismatch)";
	if (!aw_is_pow2(h->block_size) || h->block_size < 512 || h->block_size > (1u << 20) ||
	    !h->nblocks || h->nblocks > (1ull << 60) / h->block_size ||
	    h->base % h->block_size || h->base > (1ull << 60) || h->atomic > 1)
		return "its header holds impossible values";
	return NULL;
}

int aw_journal_load(const char *path, uint64_t target_size, struct aw_journal_state *st)
{
	FILE *f = fopen(path, "r");
	struct aw_pending pending = { 0 };
	struct aw_rec r;
	struct stat sb;
	uint64_t nrecs, i;
	const char *bad;
	char why[200];
	int ret = -1;

	memset(st, 0, sizeof(*st));
	if (!f) {
		fprintf(stderr, "atomicw: cannot open journal %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &sb)) {
		fprintf(stderr, "atomicw: cannot stat journal %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (fread(&st->hdr, sizeof(st->hdr), 1, f) != 1) {
		fprintf(stderr, "atomicw: journal %s: %s\n", path, ferror(f) ? strerror(errno) :
			"shorter than a header: it is not an atomicw journal");
		goto out;
	}
	bad = bad_header(&st->hdr, why, sizeof(why));
	if (bad) {
		fprintf(stderr, "atomicw: journal %s: %s\n", path, bad);
		goto out;
	}
	if (((uint64_t)sb.st_size - sizeof(st->hdr)) % sizeof(r)) {
		fprintf(stderr, "atomicw: journal %s ends in a truncated record: it is damaged\n",
			path);
		goto out;
	}
	nrecs = ((uint64_t)sb.st_size - sizeof(st->hdr)) / sizeof(r);
	if (st->hdr.base > target_size ||
	    st->hdr.nblocks > (target_size - st->hdr.base) / st->hdr.block_size) {
		fprintf(stderr, "atomicw: journal %s covers %llu blocks of %u bytes from byte %llu: "
			"the target is only %llu bytes\n", path,
			(unsigned long long)st->hdr.nblocks, st->hdr.block_size,
			(unsigned long long)st->hdr.base, (unsigned long long)target_size);
		goto out;
	}
	st->blocks = calloc(st->hdr.nblocks, sizeof(*st->blocks));
	if (!st->blocks) {
		fprintf(stderr, "atomicw: no memory for %llu journal blocks\n",
			(unsigned long long)st->hdr.nblocks);
		goto out;
	}
	for (i = 0; i < nrecs; i++) {
		if (fread(&r, sizeof(r), 1, f) != 1) {
			fprintf(stderr, "atomicw: reading journal %s: %s\n", path,
				ferror(f) ? strerror(errno) : "it shrank while being read");
			goto out;
		}
		if (r.csum != aw_rec_csum(st->hdr.run_id, i, &r)) {
			fprintf(stderr, "atomicw: journal %s: record %llu is damaged or from another run\n",
				path, (unsigned long long)i);
			goto out;
		}
		if (r.type == AW_REC_END && i == nrecs - 1)
			break;
		if (aw_journal_apply(st, &pending, &r)) {
			fprintf(stderr,
				"atomicw: journal %s: bad record %llu (type %u block %llu gen %llu)\n",
				path, (unsigned long long)i, r.type,
				(unsigned long long)r.block, (unsigned long long)r.gen);
			goto out;
		}
	}
	if (!nrecs || r.type != AW_REC_END) {
		fprintf(stderr, "atomicw: journal %s has no end record: the writer did not finish, so it may miss acknowledged writes\n",
			path);
		goto out;
	}
	ret = 0;
out:
	free(pending.v);
	fclose(f);
	if (ret)
		aw_journal_state_free(st);
	return ret;
}

void aw_journal_state_free(struct aw_journal_state *st)
{
	free(st->blocks);
	st->blocks = NULL;
}
