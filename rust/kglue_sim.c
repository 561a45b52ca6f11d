// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator build's C: the glue and the series' helpers both modules have (an object
 * belongs to one module), and the simulator's test hook that Rust cannot write in 7.3: a
 * work item flushed at unload (kernel::workqueue has no flush).
 */
#include <linux/workqueue.h>

#include "kglue.c"
#include "kabi/helpers.c"

/* The simulator's late-IPI test hook: one deferred call at a time. */
static void (*skl_deferred_fn)(void *data);
static void *skl_deferred_data;
static unsigned long skl_defer_busy;

static void skl_deferred(struct work_struct *work)
{
	void (*fn)(void *data) = skl_deferred_fn;
	void *data = skl_deferred_data;

	clear_bit(0, &skl_defer_busy);
	fn(data);
}

static DECLARE_DELAYED_WORK(skl_defer_work, skl_deferred);

int skl_glue_defer(void (*fn)(void *data), void *data, unsigned int ms)
{
	if (test_and_set_bit(0, &skl_defer_busy))
		return -EBUSY;
	skl_deferred_fn = fn;
	skl_deferred_data = data;
	schedule_delayed_work(&skl_defer_work, msecs_to_jiffies(ms));
	return 0;
}

void skl_glue_defer_flush(void)
{
	flush_delayed_work(&skl_defer_work);
}
