// SPDX-License-Identifier: MIT
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parse_scaled(const char *s, uint64_t *out, const char *suffixes,
			const uint64_t *scales)
{
	char *end;
	unsigned long long v;
	uint64_t scale = 1;

	/* strtoull skips blanks and takes a sign: only a digit may start */
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end) {
		const char *p = strchr(suffixes, *end | 0x20);

		if (!p || end[1])
			return -1;
		scale = scales[p - suffixes];
	}
	if (v > UINT64_MAX / scale)
		return -1;
	*out = v * scale;
	return 0;
}

int aw_parse_size(const char *s, uint64_t *out)
{
	static const uint64_t scales[] = { 1ull << 10, 1ull << 20, 1ull << 30 };

	return parse_scaled(s, out, "kmg", scales);
}

int aw_parse_u64(const char *s, uint64_t *out)
{
	return parse_scaled(s, out, "", NULL);
}

int aw_parse_duration(const char *s, uint64_t *seconds)
{
	static const uint64_t scales[] = { 1, 60, 3600 };

	return parse_scaled(s, seconds, "smh", scales);
}

void aw_rng_seed(struct aw_rng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
}

uint64_t aw_rng_next(struct aw_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

uint64_t aw_rng_below(struct aw_rng *r, uint64_t n)
{
	return n ? aw_rng_next(r) % n : 0;
}

uint64_t aw_new_run_id(struct aw_rng *r, uint64_t gen, int reproducible)
{
	uint64_t id = aw_rng_next(r) ^ gen * 0xd6e8feb86659fd93ull;

	if (!reproducible) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		id ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
		      (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_sec;
	}
	return id ? id : 1;
}

uint64_t aw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *aw_alloc_aligned(uint64_t len)
{
	void *p = NULL;
	int err = posix_memalign(&p, 4096, len);

	if (err) {
		fprintf(stderr, "atomicw: cannot allocate %llu aligned bytes: %s\n",
			(unsigned long long)len, strerror(err));
		return NULL;
	}
	memset(p, 0, len);
	return p;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A JSON string.  Paths are bytes, JSON is UTF-8: a byte that is not part
 * of a valid UTF-8 sequence becomes U+FFFD, so the output always parses.
 */
void aw_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int n = utf8_len(p);

		if (!n) {
			fputs("\\ufffd", f);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, (size_t)n, f);
			p += n;
		}
	}
	fputc('"', f);
}

int aw_errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}
