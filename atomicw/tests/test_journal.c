// SPDX-License-Identifier: MIT
/*
 * The journal on disk: a complete one loads; a truncated record, a missing
 * end record, a damaged record and a bad header are errors, never a
 * quietly shorter history (a cut mid-record used to turn lost=93 into 0).
 * The header carries a checksum (a changed block count or atomic flag used
 * to load) and a format version, refused by name when it is not this one.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "tap.h"

static char path[] = "/tmp/aw-test-journal-XXXXXX";
static uint64_t target = 1ull << 61; /* the target's size verify passes */

static void make_at(uint32_t block_size, uint64_t base)
{
	struct aw_journal_hdr h = { .magic = AW_JOURNAL_MAGIC, .block_size = block_size,
				    .nblocks = 8, .base = base, .run_id = 0x1234 };
	struct aw_journal j;

	CHECK(aw_journal_create(&j, path, &h) == 0);
	CHECK(aw_journal_add(&j, AW_REC_SUBMIT, 3, 7) == 0);
	CHECK(aw_journal_add(&j, AW_REC_ACK, 3, 7) == 0);
	CHECK(aw_journal_add(&j, AW_REC_FSYNC, 0, 0) == 0);
	CHECK(aw_journal_close(&j) == 0);
}

static void make(uint32_t block_size)
{
	make_at(block_size, 0);
}

static int load(void)
{
	struct aw_journal_state st;
	int ret = aw_journal_load(path, target, &st);

	if (!ret) {
		ret = st.blocks[3].durable == 7 ? 0 : 2;
		aw_journal_state_free(&st);
	}
	return ret;
}

static long size(void)
{
	FILE *f = fopen(path, "r");
	long n;

	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

static void poke(long off, unsigned char v)
{
	FILE *f = fopen(path, "r+");

	fseek(f, off, SEEK_SET);
	fputc(v, f);
	fclose(f);
}

/* load(), and did what it printed on stderr contain needle? */
static int load_says(const char *needle)
{
	char tmp[] = "/tmp/aw-test-journal-err-XXXXXX", text[1024] = "";
	int fd = mkstemp(tmp), saved = dup(2), ret;
	FILE *f;

	fflush(stderr);
	dup2(fd, 2);
	ret = load();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
	fclose(f);
	unlink(tmp);
	fprintf(stderr, "%s", text);
	return ret == -1 && strstr(text, needle) != NULL;
}

int main(void)
{
	int fd = mkstemp(path);

	close(fd);
	make(4096);
	CHECK(load() == 0);

	fprintf(stderr, "(the errors below are expected)\n");
	CHECK(truncate(path, size() - 5) == 0);
	CHECK(load() == -1); /* a record cut in the middle */

	make(4096);
	CHECK(truncate(path, size() - (long)sizeof(struct aw_rec)) == 0);
	CHECK(load() == -1); /* no end record: the writer did not finish */

	make(4096);
	poke(sizeof(struct aw_journal_hdr) + 1, 0x55); /* block 3 -> another */
	CHECK(load() == -1);

	make(100); /* not a power of two */
	CHECK(load() == -1);

	/* base + nblocks * block_size must not wrap (verify's size check did) */
	make_at(4096, UINT64_MAX - 4095);
	CHECK(load() == -1);
	make_at(4096, (1ull << 60) + 4096); /* past the 2^60 the options allow */
	CHECK(load() == -1);
	make_at(4096, 1ull << 40);
	CHECK(load() == 0);

	/* the blocks must fit in the target, checked before they are allocated */
	make_at(4096, 4096); /* 8 blocks from 4k: 36k */
	target = 36864;
	CHECK(load() == 0);
	target = 36863;
	CHECK(load_says("the target is only 36863 bytes"));
	target = 1ull << 61;

	/* the header's fields are covered by its checksum */
	make(4096);
	poke(offsetof(struct aw_journal_hdr, nblocks), 9); /* 8 -> 9 blocks */
	CHECK(load() == -1);
	make(4096);
	poke(offsetof(struct aw_journal_hdr, atomic), 1); /* not atomic -> atomic */
	CHECK(load() == -1);
	make(4096);
	poke(offsetof(struct aw_journal_hdr, run_id) + 7, 0x80);
	CHECK(load() == -1);
	/* another format version is named, not called damaged: version 2 had no
	 * header checksum, 9 is from the future */
	make(4096);
	poke(3, '2');
	CHECK(load_says("format version 2"));
	make(4096);
	poke(3, '9');
	CHECK(load_says("format version 9"));
	make(4096);
	poke(0, 'X');
	CHECK(load_says("not an atomicw journal"));

	unlink(path);
	return tap_done("test_journal");
}
