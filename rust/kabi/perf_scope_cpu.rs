// SPDX-License-Identifier: GPL-2.0

//! Out of tree only: `perf_pmu_scope_cpu()`, which patch 1 of the series adds to perf (in tree,
//! `sys::perf_pmu_scope_cpu` is that C function and this file is not there).
//!
//! Perf keeps one CPU per package in the cpumask of a `PERF_PMU_SCOPE_PKG` PMU, and when that
//! CPU goes offline it moves the PMU's events from its context to the package's next CPU. Events
//! placed on that CPU therefore share one context, where perf rotates them fairly, and follow
//! it. Perf does not export the mask, but the `cpumask` attribute it gives every PMU's device on
//! the `event_source` bus prints it: this asks that attribute, as `perf stat` does. A
//! `PERF_PMU_SCOPE_SYS_WIDE` PMU (the IMC: one MCHBAR per machine) has one CPU for every package.

use kernel::{
    alloc::{flags::GFP_KERNEL, KBox},
    bindings,
    cpu::{nr_cpu_ids, CpuId},
    cpumask::CpumaskVar,
    error::{code::ENODEV, Result},
    ffi::{c_char, c_int, c_ulong},
    page::PAGE_SIZE,
    prelude::Zeroable,
    str::{CStr, CStrExt},
};

use super::perf_sys as sys;
use super::topology::logical_package_id;

/// A page for a sysfs `show`, which may fill it to its end: page-aligned, as `sysfs_emit()`
/// requires.
#[derive(Zeroable)]
#[repr(C, align(4096))]
struct PageBuf([u8; PAGE_SIZE]);

/// The CPU of `cpu`'s package in the cpumask perf keeps for `pmu`'s scope, or `-ENODEV` (the
/// package has none, or `pmu` has no `cpumask` to ask); `-ENOMEM`. The signature is the C
/// function's, so that the caller is the same code in tree and out of it.
///
/// # Safety
///
/// `pmu` points to a PMU that perf has registered and does not unregister meanwhile, and may
/// sleep (process context).
pub(crate) unsafe fn perf_pmu_scope_cpu(pmu: *mut sys::pmu, cpu: c_int) -> c_int {
    // SAFETY: The caller's guarantees.
    match unsafe { scope_cpu(pmu, cpu) } {
        // `nr_cpu_ids()` fits a `c_int`.
        Ok(target) => target.as_u32() as c_int,
        Err(e) => e.to_errno(),
    }
}

/// [`perf_pmu_scope_cpu`] as a `Result`.
///
/// # Safety
///
/// As for [`perf_pmu_scope_cpu`].
unsafe fn scope_cpu(pmu: *mut sys::pmu, cpu: c_int) -> Result<CpuId> {
    let cpu = u32::try_from(cpu)
        .ok()
        .and_then(CpuId::from_u32)
        .ok_or(ENODEV)?;
    // SAFETY: `pmu` is registered (the caller's guarantee), so `dev` and `scope` are as
    // `perf_pmu_register()` left them until it is unregistered.
    let (dev, sys_wide) = unsafe {
        (
            (*pmu).dev,
            (*pmu).scope == sys::perf_pmu_scope_PERF_PMU_SCOPE_SYS_WIDE,
        )
    };
    if dev.is_null() {
        return Err(ENODEV);
    }
    // SAFETY: `dev` is the registered PMU's device, live until it is unregistered.
    let attr = unsafe { cpumask_attribute(dev) }.ok_or(ENODEV)?;
    // SAFETY: `attr` is an attribute of `dev`'s bus, static in perf.
    let show = unsafe { (*attr).__bindgen_anon_1.show }.ok_or(ENODEV)?;
    let mut page = KBox::<PageBuf>::zeroed(GFP_KERNEL)?;
    let buf = page.0.as_mut_ptr().cast::<c_char>();
    // SAFETY: `show` is the attribute's callback, called as sysfs does: on a live device of
    // its bus, with a page-aligned page to write, in process context.
    let len = unsafe { show(dev, attr, buf) };
    // `show` ends what it prints with a NUL, but a page written to its last byte would not.
    if len <= 0 || page.0[PAGE_SIZE - 1] != 0 {
        return Err(ENODEV);
    }
    let mask = CpumaskVar::new_zero(GFP_KERNEL)?;
    // SAFETY: `buf` is NUL-terminated (checked above). The mask has `nr_cpu_ids()` bits, the
    // `nr_cpumask_bits` that `cpulist_parse()` passes, and only its address is taken here: an
    // off-stack mask is shorter than its type.
    let parsed = unsafe {
        bindings::bitmap_parselist(
            buf,
            (&raw mut (*mask.as_raw()).bits).cast::<c_ulong>(),
            nr_cpu_ids() as c_int,
        )
    };
    if parsed != 0 {
        return Err(ENODEV);
    }
    let pkg = logical_package_id(cpu);
    (0..nr_cpu_ids())
        .filter_map(CpuId::from_u32)
        .find(|&c| mask.test(c) && (sys_wide || logical_package_id(c) == pkg))
        .ok_or(ENODEV)
}

/// The `cpumask` attribute of `dev`'s bus, if it has one.
///
/// # Safety
///
/// `dev` points to a live device.
unsafe fn cpumask_attribute(dev: *mut bindings::device) -> Option<*mut bindings::device_attribute> {
    // SAFETY: `dev` is live (the caller's guarantee); a bus and its NULL-terminated arrays of
    // attribute groups and attributes are static for as long as a device is on it.
    unsafe {
        let bus = (*dev).bus;
        let mut groups = if bus.is_null() {
            core::ptr::null()
        } else {
            (*bus).dev_groups
        };
        while !groups.is_null() && !(*groups).is_null() {
            let mut attrs = (**groups).__bindgen_anon_2.attrs;
            while !attrs.is_null() && !(*attrs).is_null() {
                if CStr::from_char_ptr((**attrs).name) == c"cpumask" {
                    return Some(kernel::container_of!(
                        *attrs,
                        bindings::device_attribute,
                        attr
                    ));
                }
                attrs = attrs.add(1);
            }
            groups = groups.add(1);
        }
    }
    None
}
