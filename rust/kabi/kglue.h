/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C glue for what Rust cannot reach in 7.3: inline MSR accessors, x86 topology and CPU
 * identification macros, "%*pbl" formatting and (simulator only) a raw spinlock.
 * Every function is a thin wrapper; the Rust side (rust/kabi/) gives them safe types.
 */
#ifndef SKL_KGLUE_H
#define SKL_KGLUE_H

#include <linux/types.h>

struct cpumask;

/* RDMSR/WRMSR with exception handling: 0, or -EIO if the MSR faulted. */
int skl_glue_rdmsr(u32 msr, u64 *val);
int skl_glue_wrmsr(u32 msr, u64 val);

/* The boot CPU's vendor-family-model (X86_MATCH_VFM encoding) and hypervisor bit. */
u32 skl_glue_cpu_vfm(void);
bool skl_glue_cpu_has_hypervisor(void);

/* Logical package of a CPU, the number of packages, and cores in a package. */
int skl_glue_cpu_package(unsigned int cpu);
unsigned int skl_glue_max_packages(void);
unsigned int skl_glue_cores_per_package(void);

/* An online CPU of @cpu's package other than @cpu, or -1. */
int skl_glue_other_online_cpu_in_package(unsigned int cpu);

struct hlist_node;

/* A multi-instance CPU hotplug state in CPUHP_AP_ONLINE_DYN: returns the state (> 0) or -errno. */
int skl_glue_cpuhp_setup(const char *name, int (*online)(unsigned int cpu, struct hlist_node *node),
			 int (*offline)(unsigned int cpu, struct hlist_node *node));
/* Adds an instance, calling online() for every online CPU now. */
int skl_glue_cpuhp_add_instance(int state, struct hlist_node *node);
/* Removes an instance without calling offline(), then the state. */
void skl_glue_cpuhp_remove(int state, struct hlist_node *node);

/* WRMSR on @cpu, from process context (may sleep). */
int skl_glue_wrmsr_on_cpu(unsigned int cpu, u32 msr, u64 val);

/* PCI 0:0.0's vendor and device IDs and the dword at @offset of its configuration space,
 * read without binding a driver to it. -ENODEV if there is no such device. */
int skl_glue_host_bridge_read(u16 *vendor, u16 *device, u16 offset, u32 *val);

/* ioremap()/iounmap() of MCHBAR and a 32-bit read in it. */
void __iomem *skl_glue_ioremap(u64 phys, size_t size);
void skl_glue_iounmap(void __iomem *addr);
u32 skl_glue_readl(const void __iomem *base, u32 offset);

/* Whether a perf PMU named @name is registered (by another driver). */
bool skl_glue_pmu_name_taken(const char *name);
/* Whether the loadable module @name is loaded (a built-in is never). */
bool skl_glue_module_loaded(const char *name);
/* CONFIG_PERF_EVENTS_INTEL_UNCORE of the kernel built against: 'y', 'm' or 'n'. */
int skl_glue_intel_uncore_config(void);
/* While registered, loading intel_uncore fails with -EBUSY and one log line. */
int skl_glue_block_intel_uncore(void);
void skl_glue_unblock_intel_uncore(void);

/* Production module only: the name of the boot CPU's model if the module supports it (the
 * module's x86cpu device table), else NULL. */
const char *skl_glue_cpu_model_name(void);

/* sysfs_emit(buf, "%*pbl\n", mask). */
ssize_t skl_glue_emit_cpumask(char *buf, const struct cpumask *mask);

/* The simulator's register-file lock: a raw spinlock, legal in PMU callbacks and hard irqs. */
unsigned long skl_glue_sim_lock(void);
void skl_glue_sim_unlock(unsigned long flags);

#endif
