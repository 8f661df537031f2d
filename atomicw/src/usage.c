// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "args.h"
#include "journal.h"
#include "version.h"

static const char overview[] =
"usage: atomicw COMMAND [OPTIONS] PATH\n"
"\n"
"Atomic (RWF_ATOMIC) direct writes, torn-block verification and benchmarks\n"
"on a file or block device, through io_uring.\n"
"\n"
"commands:\n"
"  info PATH     statx atomic write limits, device queue limits, fs block size\n"
"  write PATH    stamped random block writes, recorded in a journal\n"
"  verify PATH   classify every block after a crash and check the journal\n"
"  bench PATH    IOPS and latency: plain O_DIRECT, RWF_ATOMIC, doublewrite\n"
"  probe PATH    one RWF_ATOMIC write, reporting exactly what the kernel said\n"
"  race FILE     buffered half-block writes racing their block's writeback\n"
"  advise DIR    may this database directory turn off torn-page protection?\n"
"\n"
"Sizes take k, m, g suffixes (powers of 1024).  'atomicw COMMAND --help'\n"
"describes each command; 'atomicw --version' prints the version.\n";

static const char info_help[] =
"usage: atomicw info PATH\n"
"\n"
"Prints, one 'key: value' per line: the file type, the filesystem block\n"
"size, statx's direct I/O alignment and atomic write unit min/max and\n"
"segment count, whether STATX_ATTR_WRITE_ATOMIC is set, and the block\n"
"device's queue limits from sysfs (logical/physical block size,\n"
"atomic_write_unit_{min,max}_bytes, atomic_write_max_bytes,\n"
"atomic_write_boundary_bytes).\n";

static const char write_help[] =
"usage: atomicw write PATH --journal FILE --block-size B [options]\n"
"\n"
"Writes blocks of B bytes at random block numbers with O_DIRECT through\n"
"io_uring.  Every 512-byte sector carries (block, generation, sector,\n"
"crc32c).  Each submission, completion and fsync is appended to FILE,\n"
"which must live on another disk than PATH: one that is PATH under any\n"
"name is refused, and one on PATH's filesystem or device unless\n"
"--journal-same-device says so.\n"
"\n"
"  -j, --journal FILE    the journal (required)\n"
"      --journal-same-device  allow FILE on PATH's filesystem or device (a\n"
"                        cut that tears PATH can take the journal with it)\n"
"  -b, --block-size B    block size: a power of two, 512..1m (required)\n"
"  -n, --blocks N        blocks in the working set (default: all that fit)\n"
"  -o, --offset O        byte offset of block 0 (multiple of B)\n"
"  -q, --qd N            queue depth (default 1)\n"
"  -c, --count N         number of writes (default: one per block)\n"
"  -t, --time T          run for T (30, 30s, 2m) instead of a count\n"
"  -f, --fsync-every N   drain and fsync after every N completed writes\n"
"  -s, --seed S          random block sequence seed (default 1)\n"
"  -a, --atomic          use RWF_ATOMIC\n"
"      --create SIZE     create or extend a regular file to SIZE once every\n"
"                        check has passed (a refused run leaves none)\n"
"      --gen-base G      number generations from G+1 (default: the clock,\n"
"                        so later runs stamp newer generations)\n"
"  -v, --verbose         progress every second\n"
"\n"
"exit: 0 done; 1 bad usage or setup; 2 the kernel refused the write\n"
"(explained); 3 I/O error, e.g. a tornblk device lost power.\n";

static const char verify_help[] =
"usage: atomicw verify PATH [--journal FILE | --block-size B --blocks N]\n"
"\n"
"Reads every block and classifies it: unwritten, intact-new, intact-old,\n"
"torn (sectors from different writes), corrupt (a sector no write made),\n"
"lost (older than a write the journal says was fsynced).  With a journal,\n"
"sectors stamped by another run count as the target's earlier content\n"
"(as zeros do), whatever their generation.  Without a journal only torn\n"
"and corrupt blocks can be found.\n"
"\n"
"  -j, --journal FILE    journal written by 'atomicw write'\n"
"  -b, --block-size B    block size (only without a journal, which says it)\n"
"  -n, --blocks N        blocks (only without a journal; default: all that fit)\n"
"  -o, --offset O        byte offset of block 0 (only without a journal)\n"
"  -v, --verbose         one line per block that is not intact\n"
"      --unit U          also count torn-units: U-aligned pieces of U bytes\n"
"                        holding sectors of different writes.  A device that\n"
"                        persists U bytes at a time must show none.\n"
"\n"
"exit: 0 nothing torn, corrupt or lost; 1 bad usage or I/O error;\n"
"otherwise 16 + 1 (torn) + 2 (corrupt) + 4 (lost durable data).\n";

static const char bench_help[] =
"usage: atomicw bench PATH --block-size B (--count N | --time T) [options]\n"
"\n"
"Measures page writes of B bytes at random offsets, in batches of the\n"
"queue depth, each batch followed by an fsync as a database flushes:\n"
"  plain        O_DIRECT writes (no torn-write protection)\n"
"  atomic       RWF_ATOMIC writes\n"
"  doublewrite  each batch first written to a doublewrite area and\n"
"               fsynced, then written in place (InnoDB's protection)\n"
"Modes run interleaved in rounds so machine noise hits all of them.\n"
"\n"
"  -b, --block-size B    page size (required)\n"
"  -n, --blocks N        pages in the data area (default: 3/4 of PATH)\n"
"  -o, --offset O        byte offset of the data area\n"
"  -q, --qd N            queue depth = batch size (default 1)\n"
"  -c, --count N         writes per mode per round\n"
"  -t, --time T          time per mode per round\n"
"  -s, --seed S          random offset seed\n"
"      --modes LIST      comma list (default plain,atomic,doublewrite)\n"
"      --rounds R        interleaved rounds (default 3)\n"
"      --create SIZE     create or extend a regular file to SIZE once every\n"
"                        check has passed (a refused run leaves none)\n"
"      --csv FILE        write results as CSV\n"
"      --json FILE       write results as JSON\n"
"      --rounds-csv FILE one row per round and mode (round, mode, block_size,\n"
"                        writes, seconds, iops): per-round ratios\n";

static const char probe_help[] =
"usage: atomicw probe PATH --block-size LEN [options]\n"
"\n"
"Issues exactly one RWF_ATOMIC write of LEN bytes (any length) and prints\n"
"the kernel's answer: 'ok LEN' or the errno name.  No checks of its own,\n"
"so it shows which writes the kernel refuses and why.  PATH is created if\n"
"missing.  The buffer is filled with the low byte of --seed.\n"
"\n"
"  -b, --block-size LEN  write length, 1..1m (required)\n"
"  -o, --offset O        byte offset (default 0, need not be aligned)\n"
"      --iovecs N        split the buffer into N iovecs (default 1)\n"
"      --buffered        open without O_DIRECT\n"
"      --uring           submit through io_uring instead of pwritev2()\n"
"      --create SIZE     extend the file to SIZE (sparse) before writing\n"
"      --append          open with O_APPEND (the kernel picks the offset)\n"
"      --fault-tail      make the buffer's last page inaccessible (PROT_NONE)\n"
"      --rival           issue --count writes (default 1000) while a child\n"
"                        keeps storing into the same range through a shared\n"
"                        mapping, and print how many got which answer\n"
"  -c, --count N         writes in --rival mode\n"
"  -s, --seed S          fill byte (default 1)\n"
"\n"
"exit: 0 written (every write, with --rival); 1 bad usage or setup; 2 the\n"
"kernel refused (errno printed); 3 a short write.\n";

static const char race_help[] =
"usage: atomicw race FILE --journal J --block-size BS (--count N | --time T)\n"
"\n"
"The page-cache writeback race of buffered database writes.  Each round\n"
"picks a block of FILE (BS: the filesystem block, e.g. 16k), writes its\n"
"first half with a new stamp, starts writeback of the block\n"
"(sync_file_range), rewrites the second half with new stamps for\n"
"--race-us microseconds, then starts writeback again.  Without stable\n"
"writes a device that reads the data after submission (tornblk\n"
"dma_delay_us) can capture a second half that is part of one write and\n"
"part of another.  Every half is\n"
"written once and fsynced first.  Halves are journalled as blocks of BS/2:\n"
"after a cut, 'atomicw verify FILE --journal J' counts torn halves.\n"
"It prints how long the first write() after each writeback start took\n"
"(p50, p99): with stable writes it waits for that writeback.\n"
"FILE must exist (a regular file of at least BS bytes).\n"
"\n"
"  -j, --journal FILE    where to record the writes (another disk)\n"
"      --journal-same-device  allow the journal on FILE's filesystem\n"
"  -b, --block-size BS   the block whose writeback races (required)\n"
"  -n, --blocks N        blocks to use (default: all that fit)\n"
"  -o, --offset O        byte offset of block 0 (multiple of BS)\n"
"  -c, --count N         rounds\n"
"  -t, --time T          run for T (e.g. 30s)\n"
"  -f, --fsync-every N   fsync every N rounds (default never)\n"
"      --race-us US      how long to rewrite the second half (default 0: once)\n"
"  -s, --seed S          block choice seed\n"
"      --gen-base G      first generation (default: the clock)\n"
"\n"
"exit: 0 done; 1 bad usage or an I/O error.\n";

static const char advise_help[] =
"usage: atomicw advise DIR [--page-size P] [--innodb --direct|--buffered]\n"
"                          [--json FILE|-]\n"
"\n"
"Says whether the database in DIR (a PostgreSQL data directory, or with\n"
"--innodb an InnoDB one) may turn off its torn-page protection\n"
"(full_page_writes, innodb_doublewrite): SAFE, UNSAFE or UNKNOWN, with one\n"
"line per check: the filesystem and its block size against the page size,\n"
"statx's atomic write limits of a file in DIR, the block device stack in\n"
"sysfs (atomic write unit of each layer, partition offsets, md and dm\n"
"layers, chunks, atomic boundaries, loop devices, the write cache), where\n"
"each linear or striped dm target starts and maps (its table, read through\n"
"/dev/mapper/control: as root; a note otherwise), and,\n"
"for a database that writes through the page cache, whether the kernel\n"
"keeps buffered blocks untorn (/sys/fs/xfs/DEV/untorn_buffered_bytes);\n"
"whether XFS's metadata blocks are written atomically (untorn_metadata_bytes),\n"
"with a note where they are larger than the physical block and the kernel\n"
"does not say so (a torn one can fail log recovery).\n"
"Parts of DIR on other filesystems (tablespaces) make the verdict UNKNOWN:\n"
"run it there too.  It reads only; nothing is written to the device.  A\n"
"directory with none of PG_VERSION, global/pg_control, ibdata1, mysql.ibd,\n"
"ib_logfile0 and #innodb_redo is no database directory and is refused.\n"
"\n"
"      --page-size P     the database page size; by default read from the\n"
"                        directory (PostgreSQL: pg_controldata's 'Database\n"
"                        block size'; InnoDB: the tablespace flags of\n"
"                        ibdata1), which must agree with P when both exist\n"
"      --innodb          an InnoDB data directory (innodb_doublewrite), with\n"
"      --direct          innodb_flush_method=O_DIRECT (no RWF_ATOMIC: at best\n"
"                        UNKNOWN), or\n"
"      --buffered        innodb_flush_method=fsync (through the page cache)\n"
"      --json FILE       also write the result as JSON ('-': JSON only, on stdout);\n"
"                        never inside DIR (resolved through symlinks)\n"
"\n"
"exit: 0 SAFE; 1 bad usage, DIR cannot be examined or the result cannot be\n"
"written; 2 UNSAFE; 3 UNKNOWN.\n";

void aw_usage(enum aw_cmd cmd)
{
	static const char *const text[] = {
		[AW_CMD_NONE] = overview,  [AW_CMD_INFO] = info_help,
		[AW_CMD_WRITE] = write_help, [AW_CMD_VERIFY] = verify_help,
		[AW_CMD_BENCH] = bench_help, [AW_CMD_PROBE] = probe_help,
		[AW_CMD_RACE] = race_help, [AW_CMD_ADVISE] = advise_help,
	};

	fputs(text[cmd], stdout);
}

void aw_print_version(void)
{
	printf("atomicw %s (journal format %d)\n", AW_VERSION, AW_JOURNAL_VERSION);
}
