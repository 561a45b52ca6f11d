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

use kernel::{bindings, cpu::CpuId, error::from_err_ptr, prelude::*};

use super::perf_sys as sys;

/// Whether a PMU called `name` is registered. Process context.
pub(crate) fn pmu_name_taken(name: &CStr) -> Result<bool> {
    let mut attr = sys::perf_event_attr {
        type_: sys::perf_type_id_PERF_TYPE_SOFTWARE,
        size: core::mem::size_of::<sys::perf_event_attr>() as u32,
        config: sys::perf_sw_ids_PERF_COUNT_SW_DUMMY.into(),
        ..Default::default()
    };
    attr.set_disabled(1);
    // SAFETY: `attr` is a valid attribute for the call; the CPU is one that was online a
    // moment ago (if it left, the call fails). No overflow handler, no task: a per-CPU event.
    let event = from_err_ptr(unsafe {
        sys::perf_event_create_kernel_counter(
            &mut attr,
            i32::from(CpuId::current()),
            null_mut(),
            None,
            null_mut(),
        )
    })?;
    // SAFETY: `event` is ours until released below; perf set its `pmu` and registered the
    // PMU's device (on the bus) before any event could be created on it.
    let bus = unsafe {
        let dev = (*(*event).pmu).dev;
        if dev.is_null() {
            null_mut()
        } else {
            (*dev).bus
        }
    };
    let taken = if bus.is_null() {
        Err(ENODEV)
    } else {
        // SAFETY: `bus` is perf's bus, registered for good at boot; `device_match_name`
        // compares a device's name with the C string `name`. The device found comes with a
        // reference, dropped at once (`put_device` accepts NULL).
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
    };
    // SAFETY: Created above, never enabled, not used after.
    unsafe { sys::perf_event_release_kernel(event) };
    taken
}
