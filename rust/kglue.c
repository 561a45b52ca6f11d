// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-tree stand-in for perf_pmu_scope_cpu(), which patch 1 of the series adds to
 * kernel/events/core.c (scripts/series renames the call). See kabi/kglue.h.
 */
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/topology.h>

#include "kabi/kglue.h"

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
