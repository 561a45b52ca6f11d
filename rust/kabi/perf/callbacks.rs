// SPDX-License-Identifier: GPL-2.0

//! Perf's C callbacks of a [`PmuRegistration`], each handing its [`PmuOps`] method the event as
//! the type that callback's context allows.

use kernel::{error::code::ENOENT, ffi::c_int};

use super::{event, Event, EventFlags, InitEvent, PmuOps, PmuRegistration, ReadEvent};

use super::super::perf_sys as sys;

/// The registration behind a callback's event.
///
/// # Safety
///
/// `event` is a live event of a PMU registered by `PmuRegistration<T>`.
unsafe fn reg_of<'a, T: PmuOps>(event: *mut sys::perf_event) -> &'a PmuRegistration<T> {
    // SAFETY: Guaranteed by the caller; `event->pmu` was set by perf before the callback and
    // does not change.
    unsafe { PmuRegistration::<T>::from_pmu((*event).pmu) }
}

/// The registration and the event of a scheduling callback.
///
/// # Safety
///
/// As for [`reg_of`], and the caller is `add`, `del`, `start` or `stop`, which perf calls on
/// the event's CPU (with its context lock held, but for a throttled group's `stop`), for the
/// duration of the callback.
unsafe fn sched_of<'a, T: PmuOps>(
    event: *mut sys::perf_event,
) -> (&'a PmuRegistration<T>, &'a Event<T::Config>) {
    // SAFETY: Guaranteed by the caller: the event is live for the callback, a scheduling
    // callback on its CPU, as `Event` requires. Perf calls the scheduling callbacks only
    // for an event whose `event_init` succeeded, which stored its `T::Config` in `hw.config`.
    unsafe { (reg_of::<T>(event), Event::from_raw(event)) }
}

/// # Safety
///
/// Called by perf with an event whose `pmu` is a `PmuRegistration<T>`.
pub(super) unsafe extern "C" fn event_init_cb<T: PmuOps>(event: *mut sys::perf_event) -> c_int {
    // SAFETY: Guaranteed by perf for our own pmu; the event is in `event_init`.
    let reg = unsafe { reg_of::<T>(event) };
    // SAFETY: As above.
    let ev = unsafe { InitEvent::from_raw(event) };
    // Events of other PMUs are not ours to judge.
    if ev.attr_type() != reg.pmu_type() {
        return ENOENT.to_errno();
    }
    match reg.ops.event_init(ev) {
        Ok(config) => {
            // SAFETY: Our own event, in `event_init`.
            unsafe { event::set_hw_config(event, config) };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// As for [`event_init_cb`].
pub(super) unsafe extern "C" fn add_cb<T: PmuOps>(
    event: *mut sys::perf_event,
    flags: c_int,
) -> c_int {
    // SAFETY: Guaranteed by perf for our own pmu, in a scheduling callback.
    let (reg, ev) = unsafe { sched_of::<T>(event) };
    match reg.ops.add(ev, EventFlags(flags as u32)) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// As for [`event_init_cb`].
pub(super) unsafe extern "C" fn del_cb<T: PmuOps>(event: *mut sys::perf_event, flags: c_int) {
    // SAFETY: Guaranteed by perf for our own pmu, in a scheduling callback.
    let (reg, ev) = unsafe { sched_of::<T>(event) };
    reg.ops.del(ev, EventFlags(flags as u32));
}

/// # Safety
///
/// As for [`event_init_cb`].
pub(super) unsafe extern "C" fn start_cb<T: PmuOps>(event: *mut sys::perf_event, flags: c_int) {
    // SAFETY: Guaranteed by perf for our own pmu, in a scheduling callback.
    let (reg, ev) = unsafe { sched_of::<T>(event) };
    reg.ops.start(ev, EventFlags(flags as u32));
}

/// # Safety
///
/// As for [`event_init_cb`].
pub(super) unsafe extern "C" fn stop_cb<T: PmuOps>(event: *mut sys::perf_event, flags: c_int) {
    // SAFETY: Guaranteed by perf for our own pmu, in a scheduling callback.
    let (reg, ev) = unsafe { sched_of::<T>(event) };
    reg.ops.stop(ev, EventFlags(flags as u32));
}

/// # Safety
///
/// As for [`event_init_cb`].
pub(super) unsafe extern "C" fn read_cb<T: PmuOps>(event: *mut sys::perf_event) {
    // SAFETY: Guaranteed by perf for our own pmu: the event is live for the callback (perf
    // holds a reference, or its context lock); `ReadEvent` needs nothing more.
    let (reg, ev) = unsafe { (reg_of::<T>(event), ReadEvent::from_raw(event)) };
    reg.ops.read(ev);
}

/// # Safety
///
/// Called by perf with a `pmu` registered by `PmuRegistration<T>`.
pub(super) unsafe extern "C" fn pmu_enable_cb<T: PmuOps>(pmu: *mut sys::pmu) {
    // SAFETY: Guaranteed by perf for our own pmu.
    unsafe { PmuRegistration::<T>::from_pmu(pmu) }
        .ops
        .pmu_enable();
}

/// # Safety
///
/// As for [`pmu_enable_cb`].
pub(super) unsafe extern "C" fn pmu_disable_cb<T: PmuOps>(pmu: *mut sys::pmu) {
    // SAFETY: Guaranteed by perf for our own pmu.
    unsafe { PmuRegistration::<T>::from_pmu(pmu) }
        .ops
        .pmu_disable();
}
