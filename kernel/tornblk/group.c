// SPDX-License-Identifier: GPL-2.0
/*
 * Cut groups: devices that lose power at the same instant, such as a
 * database's data and WAL volumes.  A device is alone in a private group
 * until its cut_group attribute names a shared one (before power on).  The
 * group's mutex is the I/O lock of all its members, so a cut that stops
 * every member happens between two I/Os of any of them: no member can take
 * a write after another member lost power.
 *
 * Membership changes only under the configuration lock and only while the
 * device has no disk, so the I/O path can follow dev->grp without it.
 *
 * A cut fails the bios its members held; they are ended with
 * tornblk_end_failed() once the group lock is dropped.
 */
#include "tornblk.h"

#include <linux/slab.h>

static LIST_HEAD(tornblk_groups);	/* the shared ones, under cfg lock */

static struct tornblk_group *group_new(u32 id)
{
	struct tornblk_group *grp = kzalloc(sizeof(*grp), GFP_KERNEL);

	if (!grp)
		return NULL;
	grp->id = id;
	mutex_init(&grp->lock);
	INIT_LIST_HEAD(&grp->devs);
	INIT_LIST_HEAD(&grp->node);
	if (id)
		list_add(&grp->node, &tornblk_groups);
	return grp;
}

void tornblk_group_leave(struct tornblk_dev *dev)
{
	struct tornblk_group *grp = dev->grp;

	if (!grp)
		return;
	mutex_lock(&grp->lock);
	list_del(&dev->grp_node);
	grp->nr_devs--;
	mutex_unlock(&grp->lock);
	dev->grp = NULL;
	if (!grp->nr_devs) {
		list_del(&grp->node);
		mutex_destroy(&grp->lock);
		kfree(grp);
	}
}

/* Join group @id (0: a private one).  Called with the cfg lock held. */
int tornblk_group_set(struct tornblk_dev *dev, u32 id)
{
	struct tornblk_group *grp = NULL, *g;

	if (dev->grp && dev->grp->id == id)
		return 0;
	if (id) {
		list_for_each_entry(g, &tornblk_groups, node)
			if (g->id == id)
				grp = g;
	}
	if (!grp)
		grp = group_new(id);
	if (!grp)
		return -ENOMEM;
	tornblk_group_leave(dev);
	mutex_lock(&grp->lock);
	list_add_tail(&dev->grp_node, &grp->devs);
	grp->nr_devs++;
	mutex_unlock(&grp->lock);
	dev->grp = grp;
	dev->cut_group = id;
	return 0;
}

/*
 * Cut the power of every powered member, disarm every armed cut, and move
 * the bios they held into @failed for the caller to end after unlocking.
 */
void tornblk_group_cut(struct tornblk_dev *dev, const char *why,
		       struct bio_list *failed)
{
	struct tornblk_dev *m;

	tornblk_assert_locked(dev);
	list_for_each_entry(m, &dev->grp->devs, grp_node) {
		m->cut_after_writes = 0;
		m->cut_after_mixed = false;
		m->hold_flush = false;
		bio_list_merge(failed, &m->held);
		bio_list_init(&m->held);
		if (!m->disk || !m->powered)
			continue;
		tornblk_power_cut(m);
		pr_info("%s: power cut (%s%s%s): %llu cached writes (%llu rewound), %llu torn, units %llu kept %llu lost, atomic %llu kept %llu lost, %u-byte pieces %llu in flight %llu partial %llu torn (%llu in metadata writes)\n",
			m->name, why, m == dev ? "" : " on ",
			m == dev ? "" : dev->name,
			m->stats.cut_writes, m->stats.cut_rewound,
			m->stats.cut_writes_torn, m->stats.cut_units_persisted,
			m->stats.cut_units_dropped, m->stats.cut_atomic_persisted,
			m->stats.cut_atomic_dropped, m->tear_unit,
			m->stats.cut_pieces, m->stats.cut_pieces_partial,
			m->stats.cut_pieces_torn,
			m->stats.cut_pieces_torn_meta);
	}
}

/* End bios that a cut or power off failed, with no lock held. */
void tornblk_end_failed(struct bio_list *failed)
{
	struct bio *bio;

	while ((bio = bio_list_pop(failed))) {
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
	}
}
