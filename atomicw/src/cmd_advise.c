// SPDX-License-Identifier: MIT
/* atomicw advise: may this database directory drop its torn-page protection? */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "advise_facts.h"
#include "cmds.h"
#include "util.h"
#include "where.h"

static void print_text(FILE *f, const char *path, const struct aw_advise_in *in,
		       const struct aw_advice *a)
{
	fprintf(f, "atomicw advise: %s (%s", path,
		in->db == AW_DB_POSTGRES ? "PostgreSQL" : "InnoDB");
	if (in->page)
		fprintf(f, ", %" PRIu64 "-byte pages", in->page);
	fprintf(f, ", %s)\n", in->buffered ? "writes through the page cache" : "O_DIRECT");
	for (int i = 0; i < a->n; i++) {
		const struct aw_check *c = &a->c[i];

		fprintf(f, "  %-7s %-18s %s\n", aw_result_name(c->res), c->id, c->found);
		if (c->res != AW_PASS)
			fprintf(f, "  %-7s %-18s (%s)\n", "", "", c->why);
	}
	fprintf(f, "device stack:\n");
	if (!in->stack.n)
		fprintf(f, "  none (not on a block device)\n");
	for (int i = 0; i < in->stack.n; i++) {
		const struct aw_layer *l = &in->stack.l[i];

		fprintf(f, "  %*s%s (%s%s%s): logical block %" PRIu64 ", atomic %" PRIu64
			"..%" PRIu64 "%s", 2 * l->depth, "", l->name, aw_layer_kind_name(l->kind),
			l->detail[0] ? ", " : "", l->detail, l->lbs, l->awu_min, l->awu_max,
			l->has_atomic ? "" : " (not reported)");
		if (l->kind == AW_LAYER_PART)
			fprintf(f, ", starts at byte %" PRIu64, l->part_start);
		if (l->chunk)
			fprintf(f, ", chunk %" PRIu64, l->chunk);
		if (l->write_cache >= 0)
			fprintf(f, ", %s cache", l->write_cache ? "write-back" : "write-through");
		fputc('\n', f);
		for (int j = 0; j < in->dm[i].n; j++) {
			const struct aw_dm_target *t = &in->dm[i].t[j];

			fprintf(f, "  %*s  sectors %" PRIu64 "+%" PRIu64 ": %s", 2 * l->depth, "",
				t->start, t->len, t->type);
			if (t->chunk)
				fprintf(f, ", chunk %" PRIu64 " sectors", t->chunk);
			for (int k = 0; k < t->ndev; k++)
				fprintf(f, "%s %s at sector %" PRIu64, k ? "," : "", t->dev[k],
					t->off[k]);
			fputc('\n', f);
		}
	}
	fprintf(f, "verdict: %s: %s\n", aw_verdict_adv_name(a->verdict), a->setting);
}

static void json_kv(FILE *f, const char *k, const char *v, int comma)
{
	aw_json_str(f, k);
	fputs(": ", f);
	aw_json_str(f, v);
	if (comma)
		fputs(", ", f);
}

static void print_json(FILE *f, const char *path, const struct aw_advise_in *in,
		       const struct aw_advice *a)
{
	fputs("{", f);
	json_kv(f, "path", path, 1);
	json_kv(f, "database", in->db == AW_DB_POSTGRES ? "postgresql" : "innodb", 1);
	fprintf(f, "\"page_size\": %" PRIu64 ", \"buffered\": %s, ", in->page,
		in->buffered ? "true" : "false");
	json_kv(f, "verdict", aw_verdict_adv_name(a->verdict), 1);
	json_kv(f, "setting", a->setting, 1);
	fputs("\"checks\": [", f);
	for (int i = 0; i < a->n; i++) {
		fputs(i ? ", {" : "{", f);
		json_kv(f, "id", a->c[i].id, 1);
		json_kv(f, "result", aw_result_name(a->c[i].res), 1);
		json_kv(f, "found", a->c[i].found, 1);
		json_kv(f, "why", a->c[i].why, 0);
		fputs("}", f);
	}
	fputs("], \"stack\": [", f);
	for (int i = 0; i < in->stack.n; i++) {
		const struct aw_layer *l = &in->stack.l[i];

		fputs(i ? ", {" : "{", f);
		json_kv(f, "name", l->name, 1);
		json_kv(f, "kind", aw_layer_kind_name(l->kind), 1);
		json_kv(f, "detail", l->detail, 1);
		fprintf(f, "\"depth\": %d, \"logical_block_size\": %" PRIu64
			", \"atomic_write_unit_min_bytes\": %" PRIu64
			", \"atomic_write_unit_max_bytes\": %" PRIu64
			", \"atomic_write_boundary_bytes\": %" PRIu64
			", \"partition_start_bytes\": %" PRIu64 ", \"chunk_bytes\": %" PRIu64
			", \"write_cache\": %d}", l->depth, l->lbs, l->awu_min, l->awu_max,
			l->aw_boundary, l->part_start, l->chunk, l->write_cache);
	}
	fputs("]}\n", f);
}

/*
 * advise only reads: the JSON file may not be in the directory it judges,
 * under any name (resolved with realpath; a file still to be made by its
 * parent directory), nor a hard link of a file on that filesystem.
 */
static int json_outside(const char *dir, const char *json)
{
	char real[PATH_MAX], err[PATH_MAX + 64];
	struct aw_where w;
	struct stat dst;

	if (!json || !strcmp(json, "-"))
		return 0;
	if (!realpath(dir, real) || stat(real, &dst)) {
		fprintf(stderr, "atomicw advise: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (aw_where(json, &w, err, sizeof(err))) {
		fprintf(stderr, "atomicw advise: --json: %s\n", err);
		return -1;
	}
	if (aw_path_inside(real, w.real)) {
		fprintf(stderr, "atomicw advise: --json %s is inside the data directory %s, "
			"which advise only reads\n", w.real, real);
		return -1;
	}
	if (w.exists && w.st.st_nlink > 1 && w.st.st_dev == dst.st_dev) {
		fprintf(stderr, "atomicw advise: --json %s has other hard links on the filesystem "
			"of %s: it may be a file of the data directory\n", w.real, real);
		return -1;
	}
	return 0;
}

int aw_cmd_advise(const struct aw_opts *o)
{
	static struct aw_advise_in in;
	static struct aw_advice a;
	FILE *jf = NULL;

	if (json_outside(o->path, o->json))
		return 1;
	if (aw_advise_gather(o->path, o->innodb ? AW_DB_INNODB : AW_DB_POSTGRES, o->page_size,
			     o->direct, &in))
		return 1;
	aw_advise(&in, &a);
	if (o->json && strcmp(o->json, "-")) {
		jf = fopen(o->json, "we");
		if (!jf) {
			fprintf(stderr, "atomicw advise: opening %s: %s\n", o->json, strerror(errno));
			return 1;
		}
	}
	if (o->json && !jf) {
		print_json(stdout, o->path, &in, &a);
	} else {
		print_text(stdout, o->path, &in, &a);
		if (jf) {
			print_json(jf, o->path, &in, &a);
			if (fclose(jf)) {
				fprintf(stderr, "atomicw advise: writing %s: %s\n", o->json,
					strerror(errno));
				return 1;
			}
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "atomicw advise: writing the result: %s\n", strerror(errno));
		return 1;
	}
	return a.verdict == AW_ADV_SAFE ? 0 : a.verdict == AW_ADV_UNSAFE ? 2 : 3;
}
