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

void aw_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
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
