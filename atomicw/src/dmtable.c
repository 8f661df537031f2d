// SPDX-License-Identifier: MIT
#include "dmtable.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

/* The next blank-separated word of *p into buf: 0, or -1 if there is none. */
static int word(const char **p, char *buf, size_t len)
{
	size_t n = 0;

	while (**p == ' ')
		(*p)++;
	if (!**p)
		return -1;
	while (**p && **p != ' ') {
		if (n + 1 >= len)
			return -1;
		buf[n++] = *(*p)++;
	}
	buf[n] = '\0';
	return 0;
}

static int number(const char **p, uint64_t *v)
{
	char buf[32];

	return word(p, buf, sizeof(buf)) || aw_parse_u64(buf, v) ? -1 : 0;
}

int aw_dm_parse_target(const char *type, uint64_t start, uint64_t len, const char *params,
		       struct aw_dm_target *t, char *err, size_t errlen)
{
	const char *p = params;
	uint64_t stripes;

	memset(t, 0, sizeof(*t));
	t->start = start;
	t->len = len;
	snprintf(t->type, sizeof(t->type), "%s", type);
	if (!strcmp(type, "linear")) {
		if (word(&p, t->dev[0], sizeof(t->dev[0])) || number(&p, &t->off[0]))
			return aw_errf(err, errlen, "linear target '%s': not DEVICE OFFSET", params);
		t->ndev = 1;
	} else if (!strcmp(type, "striped")) {
		if (number(&p, &stripes) || !stripes || number(&p, &t->chunk) || !t->chunk)
			return aw_errf(err, errlen, "striped target '%s': not STRIPES CHUNK ...",
				       params);
		for (uint64_t i = 0; i < stripes && i < AW_DM_DEVS; i++) {
			if (word(&p, t->dev[i], sizeof(t->dev[i])) || number(&p, &t->off[i]))
				return aw_errf(err, errlen,
					       "striped target '%s': stripe %" PRIu64
					       " has no DEVICE OFFSET", params, i + 1);
			t->ndev++;
		}
		t->partial = stripes > AW_DM_DEVS;
	}
	return 0;
}

void aw_dm_read_table(unsigned int maj, unsigned int min, struct aw_dm_table *tab)
{
	union {
		struct dm_ioctl io;
		char buf[32768];
	} *u = calloc(1, sizeof(*u));
	const char *data, *end;
	int fd;

	memset(tab, 0, sizeof(*tab));
	tab->state = -1;
	if (!u) {
		snprintf(tab->why, sizeof(tab->why), "out of memory");
		return;
	}
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(tab->why, sizeof(tab->why), "opening /dev/mapper/control: %s%s",
			 strerror(errno), errno == EACCES ? " (run as root)" : "");
		free(u);
		return;
	}
	u->io.version[0] = DM_VERSION_MAJOR;
	u->io.data_size = sizeof(*u);
	u->io.data_start = sizeof(u->io);
	u->io.dev = makedev(maj, min);
	u->io.flags = DM_STATUS_TABLE_FLAG;
	if (ioctl(fd, DM_TABLE_STATUS, &u->io) < 0) {
		snprintf(tab->why, sizeof(tab->why), "DM_TABLE_STATUS of %u:%u: %s", maj, min,
			 strerror(errno));
		close(fd);
		free(u);
		return;
	}
	close(fd);
	tab->state = 1;
	tab->more = !!(u->io.flags & DM_BUFFER_FULL_FLAG);
	data = u->buf + u->io.data_start;
	end = u->buf + (u->io.data_size < sizeof(*u) ? u->io.data_size : sizeof(*u));
	for (uint32_t i = 0, next = 0; i < u->io.target_count; i++) {
		const struct dm_target_spec *spec = (const void *)(data + next);
		const char *params = (const char *)(spec + 1);
		char type[DM_MAX_TYPE_NAME + 1], err[128];

		if ((const char *)(spec + 1) > end || !memchr(params, '\0', (size_t)(end - params))) {
			tab->more = 1; /* cut short: what was read stands */
			break;
		}
		if (tab->n == AW_DM_TARGETS) {
			tab->more = 1;
			break;
		}
		memcpy(type, spec->target_type, DM_MAX_TYPE_NAME);
		type[DM_MAX_TYPE_NAME] = '\0';
		if (aw_dm_parse_target(type, spec->sector_start, spec->length, params,
				       &tab->t[tab->n], err, sizeof(err))) {
			tab->state = -1;
			snprintf(tab->why, sizeof(tab->why), "%s", err);
			break;
		}
		tab->n++;
		if (spec->next <= next)
			break;
		next = spec->next;
	}
	free(u);
}
