// SPDX-License-Identifier: MIT
/* atomicw advise: may this database directory drop its torn-page protection? */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "advise_facts.h"
#include "advise_print.h"
#include "cmds.h"
#include "util.h"
#include "where.h"

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
		aw_advise_print_json(stdout, o->path, &in, &a);
	} else {
		aw_advise_print_text(stdout, o->path, &in, &a);
		if (jf) {
			aw_advise_print_json(jf, o->path, &in, &a);
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
