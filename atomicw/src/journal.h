/* SPDX-License-Identifier: MIT */
/*
 * The write journal: an append-only record, kept on a disk other than the
 * one under test, of which generations were submitted, acknowledged and
 * made durable by fsync.  verify reads it back to know what must survive.
 */
#ifndef AW_JOURNAL_H
#define AW_JOURNAL_H

#include <stdint.h>
#include <stdio.h>

/*
 * "AWJ" and the format version as one ASCII digit.  Version 3 added the
 * header checksum; the loader names any other version instead of calling
 * the file damaged.
 */
#define AW_JOURNAL_VERSION 3
#define AW_JOURNAL_MAGIC_BASE 0x004a5741u /* "AWJ\0" */
#define AW_JOURNAL_MAGIC (AW_JOURNAL_MAGIC_BASE | ('0' + AW_JOURNAL_VERSION) << 24)

enum aw_rec_type {
	AW_REC_SUBMIT = 1, /* a write of (block, gen) was submitted */
	AW_REC_ACK = 2,	   /* ... and completed successfully */
	AW_REC_FSYNC = 3,  /* every write acknowledged before this is durable */
	AW_REC_END = 4,	   /* the writer closed the journal: nothing is missing */
};

struct aw_journal_hdr {
	uint32_t magic;
	uint32_t block_size;
	uint64_t nblocks;
	uint64_t base; /* byte offset of block 0 in the target */
	uint32_t atomic;
	uint32_t csum;	 /* crc32c of the header with this field zero */
	uint64_t run_id; /* random per run: salts every record's checksum */
};

/*
 * csum covers the run id, the record's index in the journal and its fields:
 * a record from another run, out of place or damaged does not match.
 */
struct aw_rec {
	uint64_t block;
	uint64_t gen;
	uint32_t type;
	uint32_t csum;
};

struct aw_journal {
	FILE *f;
	const char *path;
	uint64_t run_id;
	uint64_t nrecs;
};

uint32_t aw_rec_csum(uint64_t run_id, uint64_t index, const struct aw_rec *r);
uint32_t aw_journal_hdr_csum(const struct aw_journal_hdr *h);

/* Create path and write hdr to it, with this version's magic and the
 * header checksum filled in. */
int aw_journal_create(struct aw_journal *j, const char *path,
		      const struct aw_journal_hdr *hdr);
int aw_journal_add(struct aw_journal *j, enum aw_rec_type type, uint64_t block,
		   uint64_t gen);
int aw_journal_flush(struct aw_journal *j);
/* Flush and fsync: the journal survives a crash of the machine too. */
int aw_journal_sync(struct aw_journal *j);
/* Append the END record, sync and close. */
int aw_journal_close(struct aw_journal *j);

/* What the journal says each block must hold after a crash. */
struct aw_expect {
	uint64_t durable; /* newest gen acknowledged before an fsync (0: none) */
	uint64_t acked;	  /* newest gen acknowledged */
	uint64_t submitted; /* newest gen submitted */
};

struct aw_journal_state {
	struct aw_journal_hdr hdr;
	struct aw_expect *blocks; /* hdr.nblocks entries */
	uint64_t records;
	uint64_t fsyncs;
};

/* Blocks acknowledged since the last FSYNC record. */
struct aw_pending {
	uint64_t *v;
	uint64_t n, cap;
};

/* Apply one record to the state; returns -1 for a malformed record. */
int aw_journal_apply(struct aw_journal_state *st, struct aw_pending *p,
		     const struct aw_rec *r);

/*
 * Read a journal file for a target of target_size bytes; prints an error
 * and returns -1 on failure: a bad header, blocks beyond the target (found
 * before anything is allocated for them), a truncated or damaged record,
 * or no END record (the writer did not finish, so acknowledged writes may
 * be missing from the journal).
 */
int aw_journal_load(const char *path, uint64_t target_size, struct aw_journal_state *st);
void aw_journal_state_free(struct aw_journal_state *st);

#endif
