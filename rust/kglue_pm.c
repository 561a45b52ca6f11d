// SPDX-License-Identifier: GPL-2.0
/*
 * The power-management glue (7.3's kernel crate has no abstraction of a device's PM
 * callbacks): suspend-to-idle, which runs no syscore hook (S3 and S1 have rust/kabi/syscore.rs),
 * through the noirq callbacks of a platform device named after the module.
 */

#include <linux/device.h>
#include <linux/err.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/slab.h>
#include <linux/suspend.h>

#include "kabi/kglue.h"

struct skl_idle {
	struct platform_driver drv;
	struct dev_pm_ops ops;
	struct platform_device *pdev;
	void (*suspend)(void *data);
	void (*resume)(void *data);
	void *data;
	bool asleep;
};

/* The module's one registration: the callbacks get only the device. */
static struct skl_idle *skl_idle;

static int skl_idle_suspend_noirq(struct device *dev)
{
	/* S3 and S1 go through syscore, with the other CPUs offline: not here. */
	if (pm_suspend_target_state != PM_SUSPEND_TO_IDLE)
		return 0;
	skl_idle->suspend(skl_idle->data);
	skl_idle->asleep = true;
	return 0;
}

static int skl_idle_resume_noirq(struct device *dev)
{
	if (!skl_idle->asleep)
		return 0;
	skl_idle->asleep = false;
	skl_idle->resume(skl_idle->data);
	return 0;
}

void *skl_glue_idle_register(void (*suspend)(void *data), void (*resume)(void *data),
			     void *data)
{
	struct skl_idle *s;
	int err;

	if (skl_idle)
		return ERR_PTR(-EBUSY);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->suspend = suspend;
	s->resume = resume;
	s->data = data;
	s->ops.suspend_noirq = skl_idle_suspend_noirq;
	s->ops.resume_noirq = skl_idle_resume_noirq;
	s->drv.driver.name = KBUILD_MODNAME;
	s->drv.driver.pm = &s->ops;
	skl_idle = s;
	err = platform_driver_register(&s->drv);
	if (err)
		goto free;
	s->pdev = platform_device_register_simple(KBUILD_MODNAME, PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(s->pdev)) {
		err = PTR_ERR(s->pdev);
		goto unregister;
	}
	return s;
unregister:
	platform_driver_unregister(&s->drv);
free:
	skl_idle = NULL;
	kfree(s);
	return ERR_PTR(err);
}

void skl_glue_idle_unregister(void *handle)
{
	struct skl_idle *s = handle;

	platform_device_unregister(s->pdev);
	platform_driver_unregister(&s->drv);
	skl_idle = NULL;
	kfree(s);
}
