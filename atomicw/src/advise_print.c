// SPDX-License-Identifier: MIT
/* atomicw advise's output: the checks, the device stack and the verdict. */
#include "advise_print.h"

#include <inttypes.h>

#include "util.h"

void aw_advise_print_text(FILE *f, const char *path, const struct aw_advise_in *in,
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

		fprintf(f, "  %*s%s (%s%s%s): logical block %" PRIu64 ", physical block %" PRIu64
			", atomic %" PRIu64 "..%" PRIu64 "%s", 2 * l->depth, "", l->name,
			aw_layer_kind_name(l->kind), l->detail[0] ? ", " : "", l->detail, l->lbs,
			l->pbs, l->awu_min, l->awu_max, l->has_atomic ? "" : " (not reported)");
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

void aw_advise_print_json(FILE *f, const char *path, const struct aw_advise_in *in,
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
			", \"physical_block_size\": %" PRIu64
			", \"atomic_write_unit_min_bytes\": %" PRIu64
			", \"atomic_write_unit_max_bytes\": %" PRIu64
			", \"atomic_write_boundary_bytes\": %" PRIu64
			", \"partition_start_bytes\": %" PRIu64 ", \"chunk_bytes\": %" PRIu64
			", \"write_cache\": %d}", l->depth, l->lbs, l->pbs, l->awu_min, l->awu_max,
			l->aw_boundary, l->part_start, l->chunk, l->write_cache);
	}
	fputs("]}\n", f);
}
