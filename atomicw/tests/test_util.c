// SPDX-License-Identifier: MIT
/* Number parsing, the random generator and percentiles. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "tap.h"
#include "util.h"

/* aw_json_str into a string. */
static int json_is(const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ok;

	aw_json_str(f, in);
	fclose(f);
	ok = !strcmp(buf, want);
	free(buf);
	return ok;
}

int main(void)
{
	uint64_t v;
	struct aw_rng r1, r2;
	struct aw_samples s = { 0 };

	CHECK(aw_parse_size("16k", &v) == 0 && v == 16384);
	CHECK(aw_parse_size("2M", &v) == 0 && v == 2u << 20);
	CHECK(aw_parse_size("1g", &v) == 0 && v == 1u << 30);
	CHECK(aw_parse_size("512", &v) == 0 && v == 512);
	CHECK(aw_parse_size("", &v) == -1);
	CHECK(aw_parse_size("k", &v) == -1);
	CHECK(aw_parse_size("16kb", &v) == -1);
	CHECK(aw_parse_size("-1", &v) == -1);
	CHECK(aw_parse_size("99999999999999999999", &v) == -1);
	CHECK(aw_parse_size("17179869184g", &v) == -1); /* 2^64 bytes: overflow */
	CHECK(aw_parse_u64("12k", &v) == -1);
	CHECK(aw_parse_duration("90", &v) == 0 && v == 90);
	CHECK(aw_parse_duration("2h", &v) == 0 && v == 7200);

	aw_rng_seed(&r1, 42);
	aw_rng_seed(&r2, 42);
	for (int i = 0; i < 100; i++)
		CHECK(aw_rng_next(&r1) == aw_rng_next(&r2));
	for (int i = 0; i < 1000; i++)
		CHECK(aw_rng_below(&r1, 7) < 7);

	/* Run ids: reproducible from seed and generation when asked, never 0,
	 * and different for two runs that start alike otherwise. */
	aw_rng_seed(&r1, 7);
	aw_rng_seed(&r2, 7);
	CHECK(aw_new_run_id(&r1, 1000, 1) == aw_new_run_id(&r2, 1000, 1));
	aw_rng_seed(&r1, 7);
	aw_rng_seed(&r2, 7);
	{
		uint64_t x = aw_new_run_id(&r1, 1000, 0);
		struct timespec pause = { 0, 1000 };

		nanosleep(&pause, NULL);
		CHECK(x != aw_new_run_id(&r2, 1000, 0) && x != 0);
	}

	CHECK(aw_samples_pct(&s, 50) == 0);
	for (uint64_t i = 1000; i >= 1; i--)
		CHECK(aw_samples_add(&s, i) == 0);
	CHECK(aw_samples_pct(&s, 50) == 500);
	CHECK(aw_samples_pct(&s, 99) == 990);
	CHECK(aw_samples_pct(&s, 99.9) == 999);
	CHECK(aw_samples_pct(&s, 100) == 1000);
	aw_samples_free(&s);
	/* Valid UTF-8 passes as is; bytes that are not UTF-8 become U+FFFD. */
	CHECK(json_is("/srv/caf\xc3\xa9", "\"/srv/caf\xc3\xa9\""));
	CHECK(json_is("a\xff" "b", "\"a\\ufffdb\""));
	CHECK(json_is("\xc3", "\"\\ufffd\""));			/* cut short */
	CHECK(json_is("\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\""));	/* overlong */
	CHECK(json_is("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""));	/* surrogate */
	CHECK(json_is("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""));
	CHECK(json_is("/dev/tb0", "\"/dev/tb0\""));
	CHECK(json_is("a\"b\\c", "\"a\\\"b\\\\c\""));
	CHECK(json_is("x\ny\t", "\"x\\u000ay\\u0009\""));
	CHECK(aw_parse_u64("\t-1", &v) == -1 && aw_parse_u64(" 1", &v) == -1);

	return tap_done("test_util");
}
