/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-tree modules' own C, declared for their bindgen run: the stand-in for
 * perf_pmu_scope_cpu(), which patch 1 of the series adds to perf (kglue.c). The Rust side
 * (rust/kabi/perf/event.rs) gives it a safe type.
 */
#ifndef SKL_KGLUE_H
#define SKL_KGLUE_H

#include <linux/types.h>

struct pmu;

/* The CPU of @cpu's package in the cpumask perf keeps for @pmu's scope, or -ENODEV. */
int skl_glue_pmu_scope_cpu(struct pmu *pmu, int cpu);

#endif
