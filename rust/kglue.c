// SPDX-License-Identifier: GPL-2.0
/* See kabi/kglue.h. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/workqueue.h>
#include <asm/processor.h>
#include <asm/topology.h>

#include "kabi/kglue.h"

#ifdef SKL_GLUE_SIM
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
#endif

/*
 * perf keeps one CPU per package in the cpumask of a PERF_PMU_SCOPE_PKG PMU (the one its
 * cpumask file shows), and when that CPU goes offline it moves the PMU's events from its
 * context to the package's next CPU. Events placed on that CPU therefore all share one
 * context, where perf rotates them fairly, and follow it. perf does not export the mask; its
 * "cpumask" device attribute on the event_source bus prints it, so ask that attribute. A
 * PERF_PMU_SCOPE_SYS_WIDE PMU (the IMC: one MCHBAR per machine) has one CPU for every package.
 */
int skl_glue_pmu_scope_cpu(struct pmu *pmu, int cpu)
{
	const struct attribute_group *const *groups;
	struct device_attribute *cpumask_attr = NULL;
	cpumask_var_t mask;
	unsigned int target;
	char *buf;
	int ret = -ENODEV;

	if (!pmu->dev || !pmu->dev->bus || cpu < 0 || cpu >= nr_cpu_ids)
		return -ENODEV;
	for (groups = pmu->dev->bus->dev_groups; groups && *groups && !cpumask_attr; groups++) {
		struct attribute **a;

		for (a = (*groups)->attrs; a && *a; a++) {
			if (!strcmp((*a)->name, "cpumask")) {
				cpumask_attr = container_of(*a, struct device_attribute, attr);
				break;
			}
		}
	}
	if (!cpumask_attr || !cpumask_attr->show)
		return -ENODEV;
	buf = (char *)get_zeroed_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL)) {
		free_page((unsigned long)buf);
		return -ENOMEM;
	}
	if (cpumask_attr->show(pmu->dev, cpumask_attr, buf) > 0) {
		strim(buf);
		if (!cpulist_parse(buf, mask)) {
			if (pmu->scope == PERF_PMU_SCOPE_SYS_WIDE)
				target = cpumask_first(mask);
			else
				target = cpumask_any_and(mask, topology_core_cpumask(cpu));
			if (target < nr_cpu_ids)
				ret = target;
		}
	}
	free_cpumask_var(mask);
	free_page((unsigned long)buf);
	return ret;
}

#ifdef SKL_GLUE_SIM
bool skl_glue_in_nmi(void)
{
	return in_nmi();
}
#endif
