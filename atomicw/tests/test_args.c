// SPDX-License-Identifier: MIT
/* Argument parsing: accepted forms and the messages for bad input. */
#include <string.h>

#include "args.h"
#include "tap.h"

static char err[256];
static struct aw_opts o;

#define ARGV(...) ((char *[]){ "atomicw", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "atomicw", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(...) aw_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), &o, err, sizeof(err))

static int said(const char *needle)
{
	return strstr(err, needle) != NULL;
}

int main(void)
{
	CHECK(PARSE("write", "/dev/x", "-b", "16k", "-j", "/tmp/j", "-q", "8", "--atomic",
		    "--fsync-every", "100", "--time", "2m") == 0);
	CHECK(o.cmd == AW_CMD_WRITE && o.block_size == 16384 && o.qd == 8 && o.atomic &&
	      o.fsync_every == 100 && o.seconds == 120 && !strcmp(o.path, "/dev/x"));
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "--gen-base", "1000") == 0 &&
	      o.gen_base == 1000);
	CHECK(PARSE("bench", "x", "-b", "4k", "-c", "1", "--gen-base", "1") == -1 &&
	      said("does not take --gen-base"));
	CHECK(PARSE("info", "/mnt/f") == 0 && o.cmd == AW_CMD_INFO);
	CHECK(PARSE("verify", "/dev/x", "--journal", "/tmp/j") == 0);
	CHECK(PARSE("bench", "f", "-b", "8k", "-t", "5", "--modes", "plain,atomic") == 0);
	CHECK(PARSE("write", "--help") == 0 && o.help);
	/* help CMD is CMD --help */
	CHECK(PARSE("help", "write") == 0 && o.help && o.cmd == AW_CMD_WRITE);
	CHECK(PARSE("--help", "advise") == 0 && o.help && o.cmd == AW_CMD_ADVISE);
	CHECK(PARSE("help") == 0 && o.help && o.cmd == AW_CMD_NONE);
	CHECK(PARSE("help", "frob") == -1 && said("unknown command 'frob'"));
	CHECK(PARSE("help", "write", "x") == -1 && said("unexpected argument 'x'"));

	CHECK(PARSE("frobnicate", "x") == -1 && said("unknown command"));
	CHECK(PARSE("write", "-b", "16k", "-j", "j") == -1 && said("missing PATH"));
	CHECK(PARSE("write", "x", "-b", "12k", "-j", "j") == -1 && said("power of two"));
	CHECK(PARSE("write", "x", "-b", "256", "-j", "j") == -1 && said("power of two"));
	CHECK(PARSE("write", "x", "-b", "16q", "-j", "j") == -1 && said("not a byte count"));
	CHECK(PARSE("write", "x", "-b", "-16k", "-j", "j") == -1 && said("not a byte count"));
	/* -b 0 is a bad value, not a missing option */
	CHECK(PARSE("write", "x", "-b", "0", "-j", "j") == -1 && said("--block-size 0 is invalid") &&
	      said("power of two") && !said("required"));
	CHECK(PARSE("bench", "x", "-b", "0", "-c", "1") == -1 && said("--block-size 0 is invalid"));
	CHECK(PARSE("verify", "x", "--block-size", "0") == -1 && said("--block-size 0 is invalid"));
	CHECK(PARSE("race", "x", "-b", "0k", "-j", "j", "-c", "1") == -1 &&
	      said("--block-size 0 is invalid"));
	CHECK(PARSE("probe", "x", "-b", "0") == -1 && said("--block-size 0 is invalid") &&
	      said("1..1m"));
	CHECK(PARSE("write", "x", "-j", "j") == -1 && said("--block-size is required"));
	CHECK(PARSE("race", "f", "-b", "16k", "-j", "j", "-t", "10", "--race-us", "4000") == 0 &&
	      o.cmd == AW_CMD_RACE && o.race_us == 4000 && o.seconds == 10);
	CHECK(PARSE("race", "f", "-b", "16k", "-j", "j") == -1 && said("--count or --time"));
	CHECK(PARSE("race", "f", "-b", "16k", "-c", "5") == -1 && said("--journal"));
	CHECK(PARSE("race", "f", "-b", "16k", "-j", "j", "-c", "5", "-q", "4") == -1 &&
	      said("does not take --qd"));
	CHECK(PARSE("write", "f", "-b", "16k", "-j", "j", "--race-us", "5") == -1 &&
	      said("does not take --race-us"));
	/* a leading blank or tab used to slip past the sign check */
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "-n", " -1") == -1 &&
	      said("not a non-negative"));
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "-n", "\t-1") == -1 &&
	      said("not a non-negative"));
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "-c", " 5") == -1);
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "-t", "100000000h") == -1 &&
	      said("more than a year"));
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "-o", "8000000000g") == -1 &&
	      said("beyond"));
	CHECK(PARSE("write", "x", "-b", "1m", "-j", "j", "-n", "4000000000000") == -1 &&
	      said("beyond 2^60"));
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "--gen-base",
		    "18446744073709551000") == -1 && said("must not wrap"));
	CHECK(PARSE("write", "/dev/x", "-b", "4k", "-j", "/dev/x") == -1 &&
	      said("must not be the target"));
	CHECK(PARSE("write", "x", "-b", "16k") == -1 && said("--journal"));
	CHECK(PARSE("write", "x", "-b", "16k", "-j", "j", "-o", "4096") == -1 &&
	      said("not a multiple"));
	CHECK(PARSE("write", "x", "-b", "16k", "-j", "j", "-q", "0") == -1 && said("--qd"));
	CHECK(PARSE("write", "x", "-b", "16k", "-j", "j", "-c", "5", "-t", "5") == -1 &&
	      said("not both"));
	CHECK(PARSE("write", "x", "-b", "16k", "-j", "j", "-t", "5x") == -1 &&
	      said("not a duration"));
	CHECK(PARSE("verify", "x", "--qd", "4") == -1 && said("does not take --qd"));
	/* the journal says the geometry: options that would be ignored are refused */
	CHECK(PARSE("verify", "x", "-j", "j", "-b", "4k") == -1 &&
	      said("--block-size comes from the journal"));
	CHECK(PARSE("verify", "x", "-n", "8", "--journal", "j") == -1 &&
	      said("--blocks comes from the journal"));
	CHECK(PARSE("verify", "x", "-j", "j", "-o", "0") == -1 &&
	      said("--offset comes from the journal"));
	CHECK(PARSE("verify", "x", "-b", "4k", "-n", "8", "-o", "8k") == 0 &&
	      o.blocks == 8 && o.offset == 8192);
	CHECK(PARSE("verify", "x", "--journal", "j", "--unit", "16k") == 0 && o.unit == 16384);
	CHECK(PARSE("verify", "x", "--journal", "j", "--unit", "3000") == -1 &&
	      said("--unit 3000 must be a power of two"));
	CHECK(PARSE("write", "x", "--journal", "j", "-b", "4k", "--unit", "4k") == -1 &&
	      said("does not take --unit"));
	CHECK(PARSE("info", "x", "--atomic") == -1 && said("does not take --atomic"));
	CHECK(PARSE("write", "x", "y", "-b", "16k", "-j", "j") == -1 && said("unexpected"));
	CHECK(PARSE("write", "x", "--bogus") == -1 && said("unknown option"));
	CHECK(PARSE("write", "x", "-b") == -1 && said("needs a value"));
	CHECK(PARSE("bench", "x", "-b", "16k") == -1 && said("--count or --time"));
	/* probe takes any length and offset: the kernel is what is being tested */
	CHECK(PARSE("probe", "f", "-b", "12k", "-o", "512", "--iovecs", "2", "--uring",
		    "--buffered") == 0);
	CHECK(o.cmd == AW_CMD_PROBE && o.block_size == 12288 && o.offset == 512 &&
	      o.iovecs == 2 && o.uring && o.buffered);
	CHECK(PARSE("probe", "f", "-b", "16k") == 0 && o.iovecs == 1 && !o.uring);
	CHECK(PARSE("probe", "f") == -1 && said("write length"));
	CHECK(PARSE("probe", "f", "-b", "2m") == -1 && said("write length"));
	CHECK(PARSE("probe", "f", "-b", "4k", "--iovecs", "65") == -1 && said("--iovecs"));
	CHECK(PARSE("probe", "f", "-b", "16k", "--append", "--fault-tail") == 0 && o.append &&
	      o.fault_tail && !o.rival);
	CHECK(PARSE("probe", "f", "-b", "4k", "--fault-tail") == -1 && said("--fault-tail"));
	CHECK(PARSE("probe", "f", "-b", "16k", "--fault-tail", "--iovecs", "2") == -1 &&
	      said("--fault-tail"));
	CHECK(PARSE("probe", "f", "-b", "16k", "--rival") == 0 && o.rival && o.count == 1000);
	CHECK(PARSE("probe", "f", "-b", "16k", "--rival", "-c", "5") == 0 && o.count == 5);
	CHECK(PARSE("probe", "f", "-b", "16k", "-c", "5") == -1 && said("--rival"));
	CHECK(PARSE("probe", "f", "-b", "16k", "--rival", "-o", "512") == -1 && said("page-aligned"));
	CHECK(PARSE("probe", "f", "-b", "16k", "--rival", "--buffered") == -1 && said("direct"));
	CHECK(PARSE("write", "x", "-b", "16k", "-j", "j", "--uring") == -1 &&
	      said("does not take --uring"));
	/* advise */
	CHECK(PARSE("advise", "/db", "--innodb", "--direct", "--page-size", "16k", "--json", "-") == 0 &&
	      o.cmd == AW_CMD_ADVISE && o.innodb && o.direct && o.page_size == 16384 &&
	      !strcmp(o.json, "-"));
	CHECK(PARSE("advise") == -1 && said("missing PATH"));
	CHECK(PARSE("advise", "/db", "--page-size", "3000") == -1 && said("power of two"));
	CHECK(PARSE("advise", "/db", "--page-size", "64k") == -1 && said("32k for PostgreSQL"));
	CHECK(PARSE("advise", "/db", "--page-size", "512") == -1 && said("from 1k"));
	CHECK(PARSE("advise", "/db", "--innodb", "--buffered", "--page-size", "128k") == -1 &&
	      said("64k for InnoDB"));
	CHECK(PARSE("advise", "/db", "--direct") == -1 && said("go with --innodb"));
	CHECK(PARSE("advise", "/db", "--innodb") == -1 && said("--direct or --buffered"));
	CHECK(PARSE("advise", "/db", "--innodb", "--direct", "--buffered") == -1 &&
	      said("--direct or --buffered"));
	CHECK(PARSE("advise", "/db", "--innodb", "--buffered") == 0 && o.buffered && !o.direct);
	CHECK(PARSE("write", "f", "-b", "16k", "-j", "/j", "--buffered", "--atomic") == 0 &&
	      o.buffered && o.atomic);
	CHECK(PARSE("bench", "f", "-b", "16k", "-c", "10", "--buffered") == -1 &&
	      said("does not take --buffered"));
	CHECK(PARSE("verify", "f", "-j", "/j", "--buffered") == -1 && said("does not take --buffered"));
	CHECK(PARSE("advise", "/db", "-b", "16k") == -1 && said("does not take --block-size"));
	CHECK(PARSE("write", "x", "-b", "4k", "-j", "j", "--innodb") == -1 &&
	      said("does not take --innodb"));

	return tap_done("test_args");
}
