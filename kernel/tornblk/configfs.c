// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs side of tornblk, in the style of null_blk: a directory per
 * device under /sys/kernel/config/tornblk, one file per attribute.  Each
 * value is checked when written, with a kernel message when refused;
 * geometry and limits are fixed once the disk exists (EBUSY), and the
 * cross-checks between attributes happen at power on (disk.c).
 *
 * Adding an attribute: a TORNBLK_ATTR() line, its entry in tornblk_attrs[]
 * (which also lists it in tornblk/features), and its use.
 */
#include "tornblk.h"

#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/slab.h>

#define TORNBLK_MAX_BLOCK_SIZE	65536

DEFINE_MUTEX(tornblk_cfg_lock);		/* serializes configuration changes */

static inline struct tornblk_dev *to_tornblk_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct tornblk_dev, group);
}

static int tornblk_fixed(struct tornblk_dev *dev, const char *attr)
{
	if (!dev->disk)
		return 0;
	pr_warn("%s: %s cannot change once the device exists\n",
		dev->name, attr);
	return -EBUSY;
}

static int tornblk_check_bs(struct tornblk_dev *dev, const char *attr, u64 v,
			    bool zero_ok)
{
	if ((zero_ok && !v) ||
	    (is_power_of_2(v) && v >= SECTOR_SIZE && v <= TORNBLK_MAX_BLOCK_SIZE))
		return tornblk_fixed(dev, attr);
	pr_warn("%s: %s=%llu is not a power of two from 512 to 65536%s\n",
		dev->name, attr, v, zero_ok ? " (or 0)" : "");
	return -EINVAL;
}

/*
 * The device keeps its data in RAM: it can never be filled beyond the
 * machine's memory, and the cache holds copies on top of that.
 */
static int tornblk_check_size(struct tornblk_dev *dev, const char *attr, u64 v)
{
	u64 ram_mb = totalram_pages() >> (20 - PAGE_SHIFT);
	u64 max = strcmp(attr, "cache_mb") ? ram_mb : ram_mb / 2;

	if (!v) {
		pr_warn("%s: %s must not be 0\n", dev->name, attr);
		return -EINVAL;
	}
	if (v > max) {
		pr_warn("%s: %s=%llu is more than %s the machine's %llu MiB of memory\n",
			dev->name, attr, v, max == ram_mb ? "" : "half of", ram_mb);
		return -EINVAL;
	}
	return tornblk_fixed(dev, attr);
}

static int tornblk_check_delay(struct tornblk_dev *dev, const char *attr, u64 v)
{
	if (v <= 100000)
		return 0;
	pr_warn("%s: %s=%llu is more than 100000 (0.1 s per page)\n",
		dev->name, attr, v);
	return -EINVAL;
}

static int tornblk_check_tear(struct tornblk_dev *dev, const char *attr, u64 v)
{
	if (is_power_of_2(v) && v >= SECTOR_SIZE && v <= TORNBLK_MAX_BLOCK_SIZE)
		return 0;
	pr_warn("%s: %s=%llu is not a power of two from 512 to 65536\n",
		dev->name, attr, v);
	return -EINVAL;
}

static int tornblk_check_pct(struct tornblk_dev *dev, const char *attr, u64 v)
{
	if (v <= 100)
		return 0;
	pr_warn("%s: %s=%llu is more than 100\n", dev->name, attr, v);
	return -EINVAL;
}

static int tornblk_check_any(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return 0;
}

static int tornblk_check_fixed(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return tornblk_fixed(dev, attr);
}

static int tornblk_check_lbs(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return tornblk_check_bs(dev, attr, v, false);
}

static int tornblk_check_limit(struct tornblk_dev *dev, const char *attr, u64 v)
{
	return tornblk_check_bs(dev, attr, v, true);
}

/*
 * atomic_unit_max is fixed as the other limits until the disk exists; then it
 * can still shrink, or drop to 0 (no atomic writes), as a device's limits do
 * when an NVMe namespace is formatted or rescanned: on a live device the
 * change is checked and applied to the queue here (disk.c).
 */
static int tornblk_check_unit_max(struct tornblk_dev *dev, const char *attr,
				  u64 v)
{
	if (!dev->disk)
		return tornblk_check_limit(dev, attr, v);
	return tornblk_shrink_atomic(dev, v);
}

/*
 * One show/store pair per attribute.  @CHECK validates a new value (and
 * refuses geometry changes once the disk exists) with a kernel message.
 */
#define TORNBLK_ATTR(NAME, CHECK)					\
static ssize_t tornblk_##NAME##_show(struct config_item *item, char *page)\
{									\
	return sysfs_emit(page, "%llu\n", (u64)to_tornblk_dev(item)->NAME);\
}									\
static ssize_t tornblk_##NAME##_store(struct config_item *item,		\
				      const char *page, size_t count)	\
{									\
	struct tornblk_dev *dev = to_tornblk_dev(item);			\
	u64 v;								\
	int ret = kstrtou64(page, 0, &v);				\
									\
	if (ret) {							\
		pr_warn("%s: " #NAME ": not a number\n", dev->name);\
		return ret;						\
	}								\
	if (v != (typeof(dev->NAME))v) {				\
		pr_warn("%s: " #NAME "=%llu is out of range\n", \
			dev->name, v);					\
		return -EINVAL;						\
	}								\
	mutex_lock(&tornblk_cfg_lock);					\
	ret = CHECK(dev, #NAME, v);					\
	if (!ret) {							\
		tornblk_lock(dev);					\
		dev->NAME = v;						\
		tornblk_unlock(dev);					\
	}								\
	mutex_unlock(&tornblk_cfg_lock);				\
	return ret ? ret : count;					\
}									\
CONFIGFS_ATTR(tornblk_, NAME)

TORNBLK_ATTR(size_mb, tornblk_check_size);
TORNBLK_ATTR(logical_block_size, tornblk_check_lbs);
TORNBLK_ATTR(physical_block_size, tornblk_check_lbs);
TORNBLK_ATTR(pawu, tornblk_check_lbs);
TORNBLK_ATTR(atomic_unit_min, tornblk_check_limit);
TORNBLK_ATTR(atomic_unit_max, tornblk_check_unit_max);
TORNBLK_ATTR(atomic_boundary, tornblk_check_limit);
TORNBLK_ATTR(chunk_size, tornblk_check_limit);
TORNBLK_ATTR(cache_mb, tornblk_check_size);
TORNBLK_ATTR(write_cache, tornblk_check_fixed);
TORNBLK_ATTR(fua, tornblk_check_fixed);
TORNBLK_ATTR(seed, tornblk_check_any);
TORNBLK_ATTR(persist_pct, tornblk_check_pct);
TORNBLK_ATTR(cut_after_writes, tornblk_check_any);
TORNBLK_ATTR(cut_min_bytes, tornblk_check_any);
TORNBLK_ATTR(cut_after_mixed, tornblk_check_any);
TORNBLK_ATTR(tear_unit, tornblk_check_tear);
TORNBLK_ATTR(cut_rewind_to, tornblk_check_any);
TORNBLK_ATTR(dma_delay_us, tornblk_check_delay);
TORNBLK_ATTR(stable_writes, tornblk_check_fixed);
TORNBLK_ATTR(partitions, tornblk_check_fixed);

static ssize_t tornblk_cut_group_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", to_tornblk_dev(item)->cut_group);
}

static ssize_t tornblk_cut_group_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	u32 v;
	int ret = kstrtou32(page, 0, &v);

	if (ret) {
		pr_warn("%s: cut_group: not a number\n", dev->name);
		return ret;
	}
	mutex_lock(&tornblk_cfg_lock);
	ret = tornblk_fixed(dev, "cut_group");
	if (!ret)
		ret = tornblk_group_set(dev, v);
	mutex_unlock(&tornblk_cfg_lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(tornblk_, cut_group);

static ssize_t tornblk_hold_flush_show(struct config_item *item, char *page)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool v;

	mutex_lock(&tornblk_cfg_lock);
	tornblk_lock(dev);
	v = dev->hold_flush;
	tornblk_unlock(dev);
	mutex_unlock(&tornblk_cfg_lock);
	return sysfs_emit(page, "%d\n", v);
}

/* 1: park flushes and FUA writes (a cut fails them); 0: run them now. */
static ssize_t tornblk_hold_flush_store(struct config_item *item,
					const char *page, size_t count)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool on;
	int ret = kstrtobool(page, &on);

	if (ret) {
		pr_warn("%s: hold_flush: write 0 or 1\n", dev->name);
		return ret;
	}
	mutex_lock(&tornblk_cfg_lock);
	if (on) {
		tornblk_lock(dev);
		dev->hold_flush = true;
		tornblk_unlock(dev);
	} else {
		tornblk_release_held(dev);
	}
	mutex_unlock(&tornblk_cfg_lock);
	return count;
}
CONFIGFS_ATTR(tornblk_, hold_flush);


static ssize_t tornblk_power_show(struct config_item *item, char *page)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool v;

	mutex_lock(&tornblk_cfg_lock);
	tornblk_lock(dev);
	v = dev->powered;
	tornblk_unlock(dev);
	mutex_unlock(&tornblk_cfg_lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t tornblk_power_store(struct config_item *item, const char *page,
				   size_t count)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);
	bool on;
	int ret = kstrtobool(page, &on);

	if (ret) {
		pr_warn("%s: power: write 0 or 1\n", dev->name);
		return ret;
	}
	mutex_lock(&tornblk_cfg_lock);
	ret = tornblk_set_power(dev, on);
	mutex_unlock(&tornblk_cfg_lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(tornblk_, power);

static struct configfs_attribute *tornblk_attrs[] = {
	&tornblk_attr_size_mb,
	&tornblk_attr_logical_block_size,
	&tornblk_attr_physical_block_size,
	&tornblk_attr_pawu,
	&tornblk_attr_atomic_unit_min,
	&tornblk_attr_atomic_unit_max,
	&tornblk_attr_atomic_boundary,
	&tornblk_attr_chunk_size,
	&tornblk_attr_cache_mb,
	&tornblk_attr_write_cache,
	&tornblk_attr_fua,
	&tornblk_attr_seed,
	&tornblk_attr_persist_pct,
	&tornblk_attr_cut_after_writes,
	&tornblk_attr_cut_min_bytes,
	&tornblk_attr_cut_after_mixed,
	&tornblk_attr_tear_unit,
	&tornblk_attr_cut_rewind_to,
	&tornblk_attr_cut_group,
	&tornblk_attr_hold_flush,
	&tornblk_attr_dma_delay_us,
	&tornblk_attr_stable_writes,
	&tornblk_attr_partitions,
	&tornblk_attr_power,
	NULL,
};

static void tornblk_release(struct config_item *item)
{
	struct tornblk_dev *dev = to_tornblk_dev(item);

	tornblk_del_disk(dev);
	tornblk_debugfs_remove(dev);
	/*
	 * Out of the group before anything is freed: a cut of another member
	 * must not reach this device's cache and stores any more.
	 */
	mutex_lock(&tornblk_cfg_lock);
	tornblk_group_leave(dev);
	mutex_unlock(&tornblk_cfg_lock);
	tornblk_cache_drop(dev);
	tornblk_store_free(&dev->current_data);
	tornblk_store_free(&dev->media);
	kfree(dev);
}

static struct configfs_item_operations tornblk_item_ops = {
	.release	= tornblk_release,
};

static const struct config_item_type tornblk_dev_type = {
	.ct_item_ops	= &tornblk_item_ops,
	.ct_attrs	= tornblk_attrs,
	.ct_owner	= THIS_MODULE,
};

static bool tornblk_name_ok(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len > 16 || !isalpha(name[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!islower(name[i]) && !isdigit(name[i]))
			return false;
	return true;
}

static struct config_group *tornblk_make_group(struct config_group *group,
					       const char *name)
{
	struct tornblk_dev *dev;
	int ret;

	if (!tornblk_name_ok(name)) {
		pr_warn("device name '%s': use 1-16 lower-case letters and digits, starting with a letter\n",
			name);
		return ERR_PTR(-EINVAL);
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	dev->size_mb = 256;
	dev->logical_block_size = SECTOR_SIZE;
	dev->physical_block_size = 4096;
	dev->pawu = 4096;
	dev->cache_mb = 64;
	dev->write_cache = true;
	dev->fua = true;
	dev->persist_pct = 50;
	dev->tear_unit = 8192;		/* a PostgreSQL page */
	bio_list_init(&dev->held);
	dev->dma_wq = alloc_workqueue("tornblk-%s", WQ_UNBOUND | WQ_MEM_RECLAIM, 0, name);
	if (!dev->dma_wq) {
		kfree(dev);
		return ERR_PTR(-ENOMEM);
	}
	INIT_LIST_HEAD(&dev->cache);
	mutex_lock(&tornblk_cfg_lock);
	ret = tornblk_group_set(dev, 0);
	mutex_unlock(&tornblk_cfg_lock);
	if (ret) {
		destroy_workqueue(dev->dma_wq);
		kfree(dev);
		return ERR_PTR(ret);
	}
	tornblk_store_init(&dev->current_data);
	tornblk_store_init(&dev->media);
	tornblk_debugfs_add(dev);
	config_group_init_type_name(&dev->group, name, &tornblk_dev_type);
	return &dev->group;
}

static void tornblk_drop_item(struct config_group *group, struct config_item *item)
{
	config_item_put(item);
}

static struct configfs_group_operations tornblk_group_ops = {
	.make_group	= tornblk_make_group,
	.drop_item	= tornblk_drop_item,
};

/*
 * tornblk/features: the device attributes this build has, comma-separated
 * (as null_blk's), read from tornblk_attrs[] so that it cannot miss one.
 */
static ssize_t tornblk_group_features_show(struct config_item *item,
					   char *page)
{
	struct configfs_attribute **attr;
	int len = 0;

	for (attr = tornblk_attrs; *attr; attr++)
		len += sysfs_emit_at(page, len, "%s%s",
				     attr == tornblk_attrs ? "" : ",",
				     (*attr)->ca_name);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}
CONFIGFS_ATTR_RO(tornblk_group_, features);

static struct configfs_attribute *tornblk_group_attrs[] = {
	&tornblk_group_attr_features,
	NULL,
};

static const struct config_item_type tornblk_group_type = {
	.ct_group_ops	= &tornblk_group_ops,
	.ct_attrs	= tornblk_group_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem tornblk_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "tornblk",
			.ci_type	= &tornblk_group_type,
		},
	},
};

int tornblk_configfs_init(void)
{
	config_group_init(&tornblk_subsys.su_group);
	mutex_init(&tornblk_subsys.su_mutex);
	return configfs_register_subsystem(&tornblk_subsys);
}

void tornblk_configfs_exit(void)
{
	configfs_unregister_subsystem(&tornblk_subsys);
}
