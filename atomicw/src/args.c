// SPDX-License-Identifier: MIT
#include "args.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stamp.h"
#include "util.h"

static const struct {
	const char *name;
	enum aw_cmd cmd;
} cmds[] = {
	{ "info", AW_CMD_INFO },
	{ "write", AW_CMD_WRITE },
	{ "verify", AW_CMD_VERIFY },
	{ "bench", AW_CMD_BENCH },
	{ "probe", AW_CMD_PROBE },
	{ "race", AW_CMD_RACE },
	{ "advise", AW_CMD_ADVISE },
};

enum {
	OPT_JOURNAL = 'j', OPT_BS = 'b', OPT_BLOCKS = 'n', OPT_OFFSET = 'o',
	OPT_QD = 'q', OPT_COUNT = 'c', OPT_TIME = 't', OPT_FSYNC = 'f',
	OPT_SEED = 's', OPT_ATOMIC = 'a', OPT_VERBOSE = 'v', OPT_HELP = 'h',
	OPT_CREATE = 256, OPT_CSV, OPT_JSON, OPT_MODES, OPT_ROUNDS, OPT_GEN_BASE,
	OPT_IOVECS, OPT_BUFFERED, OPT_URING, OPT_UNIT, OPT_RACE_US, OPT_APPEND,
	OPT_FAULT_TAIL, OPT_RIVAL, OPT_ROUNDS_CSV, OPT_PAGE_SIZE, OPT_INNODB, OPT_DIRECT,
	OPT_JOURNAL_SAME_DEV,
};

#define C_W (1u << AW_CMD_WRITE)
#define C_V (1u << AW_CMD_VERIFY)
#define C_B (1u << AW_CMD_BENCH)
#define C_P (1u << AW_CMD_PROBE)
#define C_R (1u << AW_CMD_RACE)
#define C_A (1u << AW_CMD_ADVISE)
#define C_ALL (1u << AW_CMD_INFO | C_W | C_V | C_B | C_P | C_R | C_A)

static const struct option longopts[] = {
	{ "journal", required_argument, NULL, OPT_JOURNAL },
	{ "block-size", required_argument, NULL, OPT_BS },
	{ "blocks", required_argument, NULL, OPT_BLOCKS },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "qd", required_argument, NULL, OPT_QD },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "fsync-every", required_argument, NULL, OPT_FSYNC },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "atomic", no_argument, NULL, OPT_ATOMIC },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "create", required_argument, NULL, OPT_CREATE },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "rounds-csv", required_argument, NULL, OPT_ROUNDS_CSV },
	{ "modes", required_argument, NULL, OPT_MODES },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "gen-base", required_argument, NULL, OPT_GEN_BASE },
	{ "iovecs", required_argument, NULL, OPT_IOVECS },
	{ "buffered", no_argument, NULL, OPT_BUFFERED },
	{ "uring", no_argument, NULL, OPT_URING },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "race-us", required_argument, NULL, OPT_RACE_US },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "fault-tail", no_argument, NULL, OPT_FAULT_TAIL },
	{ "rival", no_argument, NULL, OPT_RIVAL },
	{ "page-size", required_argument, NULL, OPT_PAGE_SIZE },
	{ "innodb", no_argument, NULL, OPT_INNODB },
	{ "direct", no_argument, NULL, OPT_DIRECT },
	{ "journal-same-device", no_argument, NULL, OPT_JOURNAL_SAME_DEV },
	{ NULL, 0, NULL, 0 },
};

/* The commands that take each option, parallel to longopts. */
static const unsigned int opt_cmds[] = {
	C_W | C_V | C_R, C_W | C_V | C_B | C_P | C_R, C_W | C_V | C_B | C_R,
	C_W | C_V | C_B | C_P | C_R,
	C_W | C_B, C_W | C_B | C_P | C_R, C_W | C_B | C_R, C_W | C_R, C_W | C_B | C_P | C_R, C_W,
	C_W | C_V, C_ALL,
	C_W | C_B | C_P, C_B, C_B | C_A, C_B /* rounds-csv */, C_B, C_B, C_W | C_R,
	C_P, C_W | C_P | C_A, C_P, C_V, C_R,
	C_P, C_P, C_P,
	C_A, C_A, C_A,
	C_W | C_R,
};

_Static_assert(sizeof(opt_cmds) / sizeof(opt_cmds[0]) ==
	       sizeof(longopts) / sizeof(longopts[0]) - 1, "one entry per option");

static enum aw_cmd find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return cmds[i].cmd;
	return AW_CMD_NONE;
}

const char *aw_cmd_name(enum aw_cmd cmd)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].cmd == cmd)
			return cmds[i].name;
	return NULL;
}

static int unknown_cmd(const char *name, char *err, size_t len)
{
	return aw_errf(err, len, "unknown command '%s' (info, write, verify, bench, probe, race "
		       "or advise)", name);
}

static const char *opt_name(int val, unsigned int *cmds_out)
{
	for (size_t i = 0; longopts[i].name; i++) {
		if (longopts[i].val == val) {
			*cmds_out = opt_cmds[i];
			return longopts[i].name;
		}
	}
	*cmds_out = 0;
	return "?";
}

static int num(const char *arg, const char *opt, uint64_t *out, int size,
	       char *err, size_t len)
{
	if ((size ? aw_parse_size(arg, out) : aw_parse_u64(arg, out)) == 0)
		return 0;
	return aw_errf(err, len, "--%s: '%s' is not a %s", opt, arg,
		    size ? "byte count (e.g. 16k, 1m)" : "non-negative whole number");
}

static int validate(struct aw_opts *o, char *err, size_t len)
{
	if (!o->path)
		return aw_errf(err, len, "missing PATH (a file or block device)");
	if (o->cmd == AW_CMD_INFO)
		return 0;
	if (o->cmd == AW_CMD_ADVISE) {
		uint64_t lo = o->innodb ? 4096 : 1024, hi = o->innodb ? 65536 : 32768;

		if (o->page_size && (!aw_is_pow2(o->page_size) || o->page_size < lo ||
				     o->page_size > hi))
			return aw_errf(err, len, "--page-size %llu must be a power of two from %lluk "
				       "to %lluk for %s", (unsigned long long)o->page_size,
				       (unsigned long long)lo / 1024, (unsigned long long)hi / 1024,
				       o->innodb ? "InnoDB" : "PostgreSQL");
		if ((o->direct || o->buffered) && !o->innodb)
			return aw_errf(err, len, "--direct and --buffered go with --innodb "
				       "(PostgreSQL writes through the page cache)");
		if (o->innodb && o->direct == o->buffered)
			return aw_errf(err, len, "--innodb needs --direct or --buffered (what "
				       "innodb_flush_method says: O_DIRECT or fsync)");
		return 0;
	}
	if (o->cmd == AW_CMD_PROBE) {
		/* Any length: probing what the kernel refuses is the point. */
		if (!o->block_size || o->block_size > (1u << 20))
			return aw_errf(err, len, "--block-size (the write length) must be 1..1m");
		if (o->iovecs < 1 || o->iovecs > 64 || o->iovecs > o->block_size)
			return aw_errf(err, len, "--iovecs %llu must be 1..64 and at most the length",
				    (unsigned long long)o->iovecs);
		if (o->fault_tail && (o->block_size <= AW_PAGE || o->iovecs != 1))
			return aw_errf(err, len, "--fault-tail needs one iovec longer than a page (%u)",
				    AW_PAGE);
		if (o->rival && !o->count)
			o->count = 1000;
		if (!o->rival && o->count > 1)
			return aw_errf(err, len, "--count above 1 needs --rival");
		if (o->rival && (o->buffered || o->offset % AW_PAGE || o->count > 1000000))
			return aw_errf(err, len, "--rival needs direct I/O, a page-aligned --offset "
				    "and --count of at most 1000000");
		return 0;
	}
	if (o->unit && (o->unit % AW_SECTOR || !aw_is_pow2(o->unit) || o->unit > (1u << 20)))
		return aw_errf(err, len, "--unit %llu must be a power of two from 512 to 1m",
			    (unsigned long long)o->unit);
	if (o->offset > AW_MAX_BYTES)
		return aw_errf(err, len, "--offset %llu is beyond %llu (2^60)",
			    (unsigned long long)o->offset, (unsigned long long)AW_MAX_BYTES);
	if (o->blocks > AW_MAX_BYTES / AW_SECTOR)
		return aw_errf(err, len, "--blocks %llu is too many",
			    (unsigned long long)o->blocks);
	if (o->cmd == AW_CMD_VERIFY && o->journal && o->geometry)
		return aw_errf(err, len, "--%s comes from the journal: give --block-size, "
			       "--blocks and --offset only without --journal", o->geometry);
	if (o->cmd == AW_CMD_VERIFY && o->journal)
		return 0; /* geometry comes from the journal */
	if (!o->block_size)
		return aw_errf(err, len, "--block-size is required");
	if (o->block_size % AW_SECTOR || !aw_is_pow2(o->block_size) ||
	    o->block_size > (1u << 20))
		return aw_errf(err, len,
			    "--block-size %llu must be a power of two from 512 to 1m",
			    (unsigned long long)o->block_size);
	if (o->offset % o->block_size)
		return aw_errf(err, len, "--offset %llu is not a multiple of the block size %llu",
			    (unsigned long long)o->offset,
			    (unsigned long long)o->block_size);
	if (o->blocks > AW_MAX_BYTES / o->block_size)
		return aw_errf(err, len, "--blocks %llu of %llu bytes is beyond 2^60 bytes",
			    (unsigned long long)o->blocks, (unsigned long long)o->block_size);
	if (o->cmd == AW_CMD_VERIFY)
		return 0;
	if (o->seconds > AW_MAX_SECONDS)
		return aw_errf(err, len, "--time %llu s is more than a year",
			    (unsigned long long)o->seconds);
	if (o->gen_base > AW_MAX_GEN_BASE)
		return aw_errf(err, len, "--gen-base %llu is above 2^62 (generations must not wrap)",
			    (unsigned long long)o->gen_base);
	if (o->journal && o->path && !strcmp(o->journal, o->path))
		return aw_errf(err, len, "--journal must not be the target itself");
	if (o->qd < 1 || o->qd > 1024)
		return aw_errf(err, len, "--qd %llu must be between 1 and 1024",
			    (unsigned long long)o->qd);
	if ((o->cmd == AW_CMD_WRITE || o->cmd == AW_CMD_RACE) && !o->journal)
		return aw_errf(err, len, "--journal FILE is required (put it on another disk)");
	if (o->cmd == AW_CMD_RACE && (o->block_size < 2 * AW_SECTOR || o->race_us > 10000000))
		return aw_errf(err, len, "race needs --block-size of at least 1k (two halves) and --race-us up to 10 s");
	if (o->cmd == AW_CMD_RACE && !o->count && !o->seconds)
		return aw_errf(err, len, "race needs --count or --time");
	if (o->count && o->seconds)
		return aw_errf(err, len, "give --count or --time, not both");
	if (o->cmd == AW_CMD_BENCH && !o->count && !o->seconds)
		return aw_errf(err, len, "bench needs --count or --time");
	if (o->cmd == AW_CMD_BENCH && !o->rounds)
		return aw_errf(err, len, "--rounds must be at least 1");
	return 0;
}

int aw_parse_args(int argc, char **argv, struct aw_opts *o, char *err, size_t len)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->qd = 1;
	o->seed = 1;
	o->rounds = 3;
	o->iovecs = 1;
	o->modes = "plain,atomic,doublewrite";
	if (argc < 2)
		return aw_errf(err, len, "missing command (info, write, verify, bench, probe, race or advise)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		/* help CMD: CMD's manual, as CMD --help prints it */
		o->help = 1;
		if (argc > 2 && (o->cmd = find_cmd(argv[2])) == AW_CMD_NONE)
			return unknown_cmd(argv[2], err, len);
		if (argc > 3)
			return aw_errf(err, len, "unexpected argument '%s'", argv[3]);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		o->version = 1;
		return argc > 2 ? aw_errf(err, len, "unexpected argument '%s'", argv[2]) : 0;
	}
	o->cmd = find_cmd(argv[1]);
	if (o->cmd == AW_CMD_NONE)
		return unknown_cmd(argv[1], err, len);

	optind = 1;
	opterr = 0;
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, ":j:b:n:o:q:c:t:f:s:avh", longopts, NULL)) != -1) {
		unsigned int takes;
		const char *name = opt_name(c, &takes);

		if (c == '?')
			return aw_errf(err, len, "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return aw_errf(err, len, "option '%s' needs a value", argv[optind - 1]);
		if (!(takes & (1u << o->cmd)))
			return aw_errf(err, len, "'%s' does not take --%s", argv[0], name);
		if (!o->geometry && (c == OPT_BS || c == OPT_BLOCKS || c == OPT_OFFSET))
			o->geometry = name;
		switch (c) {
		case OPT_JOURNAL: o->journal = optarg; break;
		case OPT_CSV: o->csv = optarg; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_ROUNDS_CSV: o->rounds_csv = optarg; break;
		case OPT_MODES: o->modes = optarg; break;
		case OPT_ATOMIC: o->atomic = 1; break;
		case OPT_VERBOSE: o->verbose = 1; break;
		case OPT_BUFFERED: o->buffered = 1; break;
		case OPT_URING: o->uring = 1; break;
		case OPT_APPEND: o->append = 1; break;
		case OPT_FAULT_TAIL: o->fault_tail = 1; break;
		case OPT_RIVAL: o->rival = 1; break;
		case OPT_INNODB: o->innodb = 1; break;
		case OPT_DIRECT: o->direct = 1; break;
		case OPT_JOURNAL_SAME_DEV: o->journal_same_dev = 1; break;
		case OPT_PAGE_SIZE:
			if (num(optarg, name, &o->page_size, 1, err, len))
				return -1;
			break;
		case OPT_IOVECS: if (num(optarg, name, &o->iovecs, 0, err, len)) return -1; break;
		case OPT_UNIT: if (num(optarg, name, &o->unit, 1, err, len)) return -1; break;
		case OPT_RACE_US: if (num(optarg, name, &o->race_us, 0, err, len)) return -1; break;
		case OPT_HELP: o->help = 1; return 0;
		case OPT_BS:
			if (num(optarg, name, &o->block_size, 1, err, len))
				return -1;
			/* 0 would read as "not given" below */
			if (!o->block_size)
				return aw_errf(err, len, "--block-size 0 is invalid: %s",
					       o->cmd == AW_CMD_PROBE ? "the write length is 1..1m" :
					       "a power of two from 512 to 1m");
			break;
		case OPT_BLOCKS: if (num(optarg, name, &o->blocks, 0, err, len)) return -1; break;
		case OPT_OFFSET: if (num(optarg, name, &o->offset, 1, err, len)) return -1; break;
		case OPT_QD: if (num(optarg, name, &o->qd, 0, err, len)) return -1; break;
		case OPT_COUNT: if (num(optarg, name, &o->count, 0, err, len)) return -1; break;
		case OPT_FSYNC: if (num(optarg, name, &o->fsync_every, 0, err, len)) return -1; break;
		case OPT_SEED: if (num(optarg, name, &o->seed, 0, err, len)) return -1; break;
		case OPT_CREATE: if (num(optarg, name, &o->create, 1, err, len)) return -1; break;
		case OPT_ROUNDS: if (num(optarg, name, &o->rounds, 0, err, len)) return -1; break;
		case OPT_GEN_BASE: if (num(optarg, name, &o->gen_base, 0, err, len)) return -1; break;
		case OPT_TIME:
			if (aw_parse_duration(optarg, &o->seconds))
				return aw_errf(err, len, "--time: '%s' is not a duration (e.g. 30, 30s, 2m)",
					    optarg);
			break;
		}
	}
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		return aw_errf(err, len, "unexpected argument '%s'", argv[optind]);
	return validate(o, err, len);
}
