// SPDX-License-Identifier: GPL-2.0

//! CPU topology on x86: the packages (sockets) CPUs sit in, and which CPUs are active.
//!
//! C headers: [`arch/x86/include/asm/topology.h`](srctree/arch/x86/include/asm/topology.h),
//! [`include/linux/cpumask.h`](srctree/include/linux/cpumask.h)
//!
//! A logical package number is dense, `0..max_packages()`, whatever the firmware numbered the
//! sockets: a driver with one instance per package indexes an array with it. The kernel fills
//! in a CPU's topology when the CPU comes up: ask it of a CPU that has been online.

use kernel::cpu::{nr_cpu_ids, CpuId};

use super::perf_sys as sys;

/// The logical package of `cpu` (`topology_logical_package_id()`): below [`max_packages`].
pub(crate) fn logical_package_id(cpu: CpuId) -> u32 {
    // SAFETY: Reads `cpu_data(cpu)`, which exists for every possible CPU; on x86 every CPU
    // below `nr_cpu_ids()`, as `cpu` is, is possible (topology_init_possible_cpus()).
    unsafe { sys::rust_helper_topology_logical_package_id(cpu.as_u32()) }
}

/// How many logical packages the system can have (`topology_max_packages()`), CPUs not yet
/// online included; at least 1.
pub(crate) fn max_packages() -> u32 {
    // SAFETY: Reads a variable the boot CPU sets before any module or initcall runs.
    unsafe { sys::rust_helper_topology_max_packages() }.max(1)
}

/// How many cores a package has (`topology_num_cores_per_package()`); at least 1.
#[cfg_attr(skl_sim, allow(dead_code))] // Out of tree: the simulator's model has its own.
pub(crate) fn num_cores_per_package() -> u32 {
    // SAFETY: Reads a variable the boot CPU sets before any module or initcall runs.
    unsafe { sys::rust_helper_topology_num_cores_per_package() }.max(1)
}

/// Whether `cpu` is active (`cpu_active()`): online and not on its way down. A CPU going
/// offline leaves the active mask first, before CPU hotplug callbacks move its work away; a CPU
/// coming up joins it last.
///
/// The answer may change as soon as it is read, unless CPU hotplug is held off.
pub(crate) fn cpu_active(cpu: CpuId) -> bool {
    // SAFETY: Tests bit `cpu` of the active mask, which has `nr_cpu_ids()` bits.
    unsafe { sys::rust_helper_cpu_active(cpu.as_u32()) }
}

/// The active CPUs of logical package `pkg`, in increasing order.
///
/// As for [`cpu_active`], a CPU may leave or join meanwhile.
pub(crate) fn active_cpus_of_package(pkg: u32) -> impl Iterator<Item = CpuId> {
    (0..nr_cpu_ids())
        .filter_map(CpuId::from_u32)
        .filter(move |&cpu| cpu_active(cpu) && logical_package_id(cpu) == pkg)
}
