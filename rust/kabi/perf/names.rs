// SPDX-License-Identifier: GPL-2.0

//! Whether another driver registered a perf PMU of a given name.
//!
//! Not by a path lookup under `/sys`, whose answer is the caller's mount namespace's (an
//! `insmod` where sysfs is not mounted would see no PMU at all). Every named PMU has a device
//! of its name on perf's `event_source` bus; the kernel exports no handle on that bus, but
//! every PMU's device points to it. A disabled dummy software event (never scheduled, released
//! at once) gives a PMU, the software one, and `bus_find_device()` the answer, from the bus's
//! own list.

use core::ptr::null_mut;

use kernel::{bindings, cpu::CpuId, prelude::*};

use super::KernelCounter;

use super::super::perf_sys as sys;

/// Whether a PMU called `name` is registered. Process context.
///
/// A driver asks before it registers a PMU whose name another driver may hold:
///
/// ```
/// use kernel::perf::pmu_name_taken;
///
/// assert!(pmu_name_taken(c"software")?);
/// assert!(!pmu_name_taken(c"rust_doctest_no_such_pmu")?);
/// # Ok::<(), Error>(())
/// ```
pub(crate) fn pmu_name_taken(name: &CStr) -> Result<bool> {
    // Disabled: never scheduled. On a CPU that was online a moment ago (if it left, this
    // fails).
    let dummy = KernelCounter::new(
        sys::perf_type_id_PERF_TYPE_SOFTWARE,
        sys::perf_sw_ids_PERF_COUNT_SW_DUMMY.into(),
        CpuId::current(),
        true,
    )?;
    // SAFETY: `dummy` is live while borrowed; perf set its `pmu` and registered the PMU's
    // device (on the bus) before any event could be created on it.
    let bus = unsafe {
        let dev = (*(*dummy.as_raw()).pmu).dev;
        if dev.is_null() {
            null_mut()
        } else {
            (*dev).bus
        }
    };
    if bus.is_null() {
        return Err(ENODEV);
    }
    // SAFETY: `bus` is perf's bus, registered for good at boot; `device_match_name` compares
    // a device's name with the C string `name`. The device found comes with a reference,
    // dropped at once (`put_device` accepts NULL).
    unsafe {
        let dev = bindings::bus_find_device(
            bus,
            null_mut(),
            name.as_char_ptr().cast(),
            Some(bindings::device_match_name),
        );
        bindings::put_device(dev);
        Ok(!dev.is_null())
    }
}
