/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel crate's helpers that the patch series adds (rust/helpers/ in tree), as the
 * out-of-tree module compiles them (rust/kabi/helpers.c) and its bindgen run sees them. In
 * tree, bindgen reads the helper files themselves and drops the rust_helper_ prefix.
 */
#ifndef SKL_HELPERS_H
#define SKL_HELPERS_H

#include <linux/types.h>

struct lock_class_key;
struct raw_spinlock;

/* helpers/raw_spinlock.c: raw_spinlock_t for kernel::sync's RawSpinLockIrqSave. */
void rust_helper_raw_spin_lock_init_key(struct raw_spinlock *lock, const char *name,
					struct lock_class_key *key);
unsigned long rust_helper_raw_spin_lock_irqsave(struct raw_spinlock *lock);
bool rust_helper_raw_spin_trylock_irqsave(struct raw_spinlock *lock, unsigned long *flags);
void rust_helper_raw_spin_unlock_irqrestore(struct raw_spinlock *lock, unsigned long flags);
void rust_helper_raw_spin_assert_is_held(struct raw_spinlock *lock);

/* helpers/cpufeature.c: the boot CPU's feature flags for kernel::x86_cpu (x86). */
bool rust_helper_boot_cpu_has(u16 bit);

/* helpers/msr.c: MSR access on this CPU for kernel::msr (x86). */
int rust_helper_rdmsrq_safe(u32 msr, u64 *val);
int rust_helper_wrmsrq_safe(u32 msr, u64 val);

/* helpers/perf.c: in_nmi() for kernel::perf (a read may run in NMI). */
bool rust_helper_in_nmi(void);

/* helpers/topology.c: packages for kernel::topology (x86). */
unsigned int rust_helper_topology_logical_package_id(unsigned int cpu);
unsigned int rust_helper_topology_max_packages(void);
unsigned int rust_helper_topology_num_cores_per_package(void);

#endif
