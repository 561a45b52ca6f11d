// SPDX-License-Identifier: GPL-2.0

//! CPU topology on x86: the packages (sockets) CPUs sit in, and which CPUs are active.
//!
//! C headers: [`arch/x86/include/asm/topology.h`](srctree/arch/x86/include/asm/topology.h),
//! [`include/linux/cpumask.h`](srctree/include/linux/cpumask.h)
//!
//! A logical package number is dense, `0..max_packages()`, whatever the firmware numbered the
//! sockets: a driver with one instance per package indexes an array with it. The kernel fills
//! in a CPU's topology when the CPU comes up: ask it of a CPU that has been online.

use core::ptr::addr_of;

use kernel::{
    bindings,
    cpu::{nr_cpu_ids, CpuId},
    cpumask::Cpumask,
};

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

/// The CPUs that are online (`cpu_online_mask`): running, possibly on their way down or not
/// yet ready for work.
///
/// The mask changes under CPU hotplug, unless the caller holds it off.
#[cfg_attr(not(skl_sim), allow(dead_code))] // Out of tree: only the simulator's hooks ask.
pub(crate) fn online_mask() -> &'static Cpumask {
    // SAFETY: A static of `nr_cpu_ids()` bits; `Cpumask` tolerates its concurrent updates.
    unsafe { Cpumask::from_raw(addr_of!(bindings::__cpu_online_mask)) }
}

/// The CPUs that are active (`cpu_active_mask`): online and not on their way down. A CPU
/// going offline leaves it first, before CPU hotplug callbacks move its work away; a CPU coming
/// up joins it last.
///
/// The mask changes under CPU hotplug, unless the caller holds it off.
pub(crate) fn active_mask() -> &'static Cpumask {
    // SAFETY: As for `online_mask`.
    unsafe { Cpumask::from_raw(addr_of!(bindings::__cpu_active_mask)) }
}

/// Whether `cpu` is active: in [`active_mask`].
pub(crate) fn cpu_active(cpu: CpuId) -> bool {
    active_mask().test(cpu)
}

/// The active CPUs of logical package `pkg`, in increasing order.
///
/// As for [`cpu_active`], a CPU may leave or join meanwhile.
pub(crate) fn active_cpus_of_package(pkg: u32) -> impl Iterator<Item = CpuId> {
    (0..nr_cpu_ids())
        .filter_map(CpuId::from_u32)
        .filter(move |&cpu| cpu_active(cpu) && logical_package_id(cpu) == pkg)
}
