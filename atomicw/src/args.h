/* SPDX-License-Identifier: MIT */
/* Command line parsing and validation for every subcommand. */
#ifndef AW_ARGS_H
#define AW_ARGS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Bounds that keep offset, time and generation arithmetic from wrapping. */
#define AW_MAX_BYTES (1ull << 60)
#define AW_MAX_SECONDS (366ull * 24 * 3600)
#define AW_MAX_GEN_BASE (1ull << 62)
/* The base page of x86_64, the only architecture the guest runs; probe
 * checks it against sysconf() before relying on it. */
#define AW_PAGE 4096u

enum aw_cmd {
	AW_CMD_NONE, AW_CMD_INFO, AW_CMD_WRITE, AW_CMD_VERIFY, AW_CMD_BENCH, AW_CMD_PROBE,
	AW_CMD_RACE, AW_CMD_ADVISE
};

struct aw_opts {
	enum aw_cmd cmd;
	const char *path;
	const char *journal;
	const char *csv;
	const char *json;
	const char *rounds_csv; /* bench: one row per round and mode */
	const char *modes; /* bench: comma list of plain,atomic,doublewrite */
	const char *geometry; /* the first of --block-size, --blocks, --offset given */
	uint64_t block_size;
	uint64_t blocks;   /* 0: as many as fit */
	uint64_t offset;   /* byte offset of block 0 */
	uint64_t qd;
	uint64_t count;	   /* writes; 0 with seconds == 0 means one per block */
	uint64_t seconds;
	uint64_t fsync_every;
	uint64_t seed;
	uint64_t create;   /* create/extend a regular file to this size */
	uint64_t rounds;   /* bench: interleaved rounds per mode */
	uint64_t gen_base; /* write: first generation - 1; 0 = wall clock */
	uint64_t iovecs;   /* probe: split the buffer into this many iovecs */
	uint64_t unit;	   /* verify: also count torn pieces of this size */
	uint64_t race_us;  /* race: longest pause between the two halves */
	uint64_t page_size; /* advise: the database page size (0: find out) */
	int innodb;	   /* advise: an InnoDB data directory */
	int direct;	   /* advise: InnoDB writes with O_DIRECT */
	int buffered;	   /* write, probe: no O_DIRECT; advise: InnoDB writes through the cache */
	int uring;	   /* probe: io_uring instead of pwritev2 */
	int append;	   /* probe: open with O_APPEND */
	int fault_tail;	   /* probe: the buffer's last page is PROT_NONE */
	int rival;	   /* probe: --count writes while a child dirties the range */
	int journal_same_dev; /* write, race: the journal may share the target's device */
	int atomic;
	int verbose;
	int help;
	int version;	   /* --version: print it and exit */
};

/*
 * Parse argv (argv[0] is the program, argv[1] the subcommand).  Returns 0,
 * or -1 with a one-line message in err.
 */
int aw_parse_args(int argc, char **argv, struct aw_opts *o, char *err, size_t errlen);

/* The command's name as typed ("write"); NULL for AW_CMD_NONE. */
const char *aw_cmd_name(enum aw_cmd cmd);

/* Print the manual for cmd (AW_CMD_NONE: overview) to stdout. */
void aw_usage(enum aw_cmd cmd);

/* Print "atomicw VERSION (journal format N)" to stdout. */
void aw_print_version(void);

#endif
