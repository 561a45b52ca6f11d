// SPDX-License-Identifier: GPL-2.0

//! CPU hotplug states: callbacks run as each CPU comes online and goes offline.
//!
//! C header: [`include/linux/cpuhotplug.h`](srctree/include/linux/cpuhotplug.h)
//!
//! A dynamic state of the online section (`CPUHP_AP_ONLINE_DYN`) lies above
//! `CPUHP_AP_PERF_ONLINE` and below `CPUHP_AP_ACTIVE`: a CPU coming up runs its `online` after
//! perf's and before it becomes active; a CPU going down runs its `offline` after it left the
//! active mask and before perf moves its events away.

use core::marker::PhantomData;

use kernel::{
    bindings,
    cpu::CpuId,
    error::{from_result, to_result, VTABLE_DEFAULT_ERROR},
    ffi::{c_int, c_uint},
    prelude::*,
};

/// What a CPU hotplug state does as a CPU comes online or goes offline.
///
/// # Context
///
/// Both run in process context, on the CPU concerned (its hotplug thread), with CPU hotplug
/// held for writing: they may sleep, and must not wait for CPU hotplug themselves.
#[vtable]
pub(crate) trait CpuHotplug: 'static {
    /// The state's name, as `/sys/devices/system/cpu/hotplug/states` lists it.
    const NAME: &'static CStr;

    /// `cpu` is coming online. An error stops it: CPU hotplug takes it down again.
    fn online(_cpu: CpuId) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `cpu` is going offline. An error stops it: CPU hotplug brings it back up.
    fn offline(_cpu: CpuId) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// A dynamic CPU hotplug state whose callbacks are `T`'s, removed when dropped.
///
/// # Invariants
///
/// `state` is a dynamic state of the online section, set up with `T`'s callbacks.
pub(crate) struct Registration<T: CpuHotplug> {
    state: bindings::cpuhp_state,
    /// No `T` is stored (the callbacks are `T`'s functions), so `T` does not decide whether
    /// the registration is `Send` or `Sync`.
    _t: PhantomData<fn() -> T>,
}

impl<T: CpuHotplug> Registration<T> {
    /// Sets up the state for the CPUs that come online and go offline from now on; the CPUs
    /// online now are not called (C's `cpuhp_setup_state_nocalls()`). Process context; it
    /// waits for CPU hotplug.
    pub(crate) fn new_nocalls() -> Result<Self> {
        // SAFETY: `T::NAME` is static, as the state keeps the pointer; the callbacks have the
        // prototype CPU hotplug calls. `invoke` false: none is called now. `drop` removes the
        // state.
        let state = unsafe {
            bindings::__cpuhp_setup_state(
                bindings::cpuhp_state_CPUHP_AP_ONLINE_DYN,
                T::NAME.as_char_ptr(),
                false,
                if T::HAS_ONLINE {
                    Some(Self::online_cb)
                } else {
                    None
                },
                if T::HAS_OFFLINE {
                    Some(Self::offline_cb)
                } else {
                    None
                },
                false,
            )
        };
        to_result(state)?;
        // INVARIANT: for `CPUHP_AP_ONLINE_DYN`, the call returns the state it set up.
        Ok(Self {
            state,
            _t: PhantomData,
        })
    }

    /// # Safety
    ///
    /// Called by CPU hotplug as `cpu` comes online: `cpu` is a possible CPU.
    unsafe extern "C" fn online_cb(cpu: c_uint) -> c_int {
        // SAFETY: A possible CPU's number is below `nr_cpu_ids` (as required of `online_cb`).
        let cpu = unsafe { CpuId::from_u32_unchecked(cpu) };
        from_result(|| T::online(cpu).map(|()| 0))
    }

    /// # Safety
    ///
    /// Called by CPU hotplug as `cpu` goes offline: `cpu` is a possible CPU.
    unsafe extern "C" fn offline_cb(cpu: c_uint) -> c_int {
        // SAFETY: As in `online_cb`.
        let cpu = unsafe { CpuId::from_u32_unchecked(cpu) };
        from_result(|| T::offline(cpu).map(|()| 0))
    }
}

impl<T: CpuHotplug> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: Set up in `new_nocalls` (invariant), not removed since. `invoke` false: no
        // callback is called. It waits for CPU hotplug, after which no callback runs.
        unsafe { bindings::__cpuhp_remove_state(self.state, false) };
    }
}
