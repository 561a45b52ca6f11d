/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-tree modules' own C, declared for their bindgen run: the stand-in for
 * perf_pmu_scope_cpu(), which patch 1 of the series adds to perf (kglue.c), and the
 * simulator's test hooks (kglue_sim.c). The Rust side (rust/kabi/) gives them safe types.
 */
#ifndef SKL_KGLUE_H
#define SKL_KGLUE_H

#include <linux/types.h>

struct pmu;

/* Simulator only, a test hook: calls @fn(@data) from a work item @ms later (-EBUSY while one
 * is pending); flush waits for it. */
int skl_glue_defer(void (*fn)(void *data), void *data, unsigned int ms);
void skl_glue_defer_flush(void);

/* The CPU of @cpu's package in the cpumask perf keeps for @pmu's scope, or -ENODEV. */
int skl_glue_pmu_scope_cpu(struct pmu *pmu, int cpu);

#endif
