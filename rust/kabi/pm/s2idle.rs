// SPDX-License-Identifier: GPL-2.0

//! Suspend-to-idle callbacks for a driver with no device of its own: a platform driver and a
//! platform device named after the module, whose `noirq` PM callbacks run around each sleep.
//!
//! C headers: [`include/linux/platform_device.h`](srctree/include/linux/platform_device.h),
//! [`include/linux/suspend.h`](srctree/include/linux/suspend.h)
//!
//! 7.3's `kernel::platform::Driver` has no PM callbacks, so this fills in the C structures
//! itself. The device binds to the driver by name (the driver has no `probe`), and the PM core
//! then calls the driver's `dev_pm_ops` for it: in process context, every CPU online.

use core::marker::PhantomPinned;

use kernel::{
    bindings,
    error::{from_err_ptr, to_result},
    ffi::c_int,
    prelude::*,
    sync::{
        atomic::{ordering, Atomic},
        Arc,
    },
    types::Opaque,
    ThisModule,
};

use super::PmOps;
use crate::kabi::suspend::{self, SuspendState};

/// A platform driver and device whose `suspend_noirq` calls `T::idle_suspend` when the system
/// is entering suspend-to-idle (S3 and hibernation have syscore's callbacks, which run after
/// the other CPUs went offline), and whose `resume_noirq` calls `T::idle_resume` after a
/// sleep for which `idle_suspend` ran.
///
/// # Invariants
///
/// While `pdev` is not null, `drv` is registered with `pm` as its PM callbacks, and `pdev` is
/// a registered device of the driver's name; both hold `ops`.
#[pin_data(PinnedDrop)]
pub(super) struct Idle<T: PmOps> {
    #[pin]
    drv: Opaque<bindings::platform_driver>,
    #[pin]
    pm: Opaque<bindings::dev_pm_ops>,
    pdev: *mut bindings::platform_device,
    /// `idle_suspend` ran for this sleep. The PM core calls a device's callbacks one at a
    /// time, but not always from one thread (asynchronous suspend).
    asleep: Atomic<bool>,
    ops: Arc<T>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: After registration the C structures are only read, by the driver core; `T` is
// `Send + Sync`.
unsafe impl<T: PmOps> Send for Idle<T> {}
// SAFETY: As above; `&self` only reads, and `asleep` is atomic.
unsafe impl<T: PmOps> Sync for Idle<T> {}

impl<T: PmOps> Idle<T> {
    /// Registers a platform driver and device called `name` (the module's name: the driver
    /// core refuses a second driver of one name with `EBUSY`), calling `ops`.
    pub(super) fn register(
        ops: Arc<T>,
        name: &'static CStr,
        module: &'static ThisModule,
    ) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            drv <- Opaque::zeroed(),
            pm <- Opaque::zeroed(),
            pdev: core::ptr::null_mut(),
            asleep: Atomic::new(false),
            ops,
            _pin: PhantomPinned,
        })
        .pin_chain(move |this| {
            let drv = this.drv.get();
            let pm = this.pm.get();
            // SAFETY: `drv` and `pm` are zeroed, pinned and not yet registered; the callbacks
            // have the PM core's prototypes; `name` is static.
            let pdev = unsafe {
                (*pm).suspend_noirq = Some(suspend_noirq_cb::<T>);
                (*pm).resume_noirq = Some(resume_noirq_cb::<T>);
                (*drv).driver.name = name.as_char_ptr();
                (*drv).driver.pm = pm;
                // No `unbind` file: unbound by hand, the device would stop the hooks silently.
                (*drv).driver.suppress_bind_attrs = true;
                to_result(bindings::__platform_driver_register(
                    drv,
                    module.as_ptr(),
                    name.as_char_ptr(),
                ))?;
                let info = bindings::platform_device_info {
                    name: name.as_char_ptr(),
                    id: bindings::PLATFORM_DEVID_NONE,
                    ..Default::default()
                };
                match from_err_ptr(bindings::platform_device_register_full(&info)) {
                    Ok(pdev) => pdev,
                    Err(e) => {
                        bindings::platform_driver_unregister(drv);
                        return Err(e);
                    }
                }
            };
            // SAFETY: Only a plain field is written; nothing is moved out of the pinned value.
            // INVARIANT: both registered just above.
            unsafe { this.get_unchecked_mut().pdev = pdev };
            Ok(())
        })
    }

    /// The `Idle<T>` whose device `dev` is: `None` for another device of the same name that
    /// something bound to the driver (`driver_override`), which must not run the hooks twice.
    ///
    /// # Safety
    ///
    /// `dev` is bound to the driver of a live `Idle<T>`.
    unsafe fn from_dev<'a>(dev: *mut bindings::device) -> Option<&'a Self> {
        // SAFETY: Guaranteed by the caller: `dev->driver` is the `driver` field of the
        // `platform_driver` in an `Opaque` (same layout) in the `drv` field of an `Idle<T>`.
        let this = unsafe {
            let drv = kernel::container_of!((*dev).driver, bindings::platform_driver, driver);
            &*kernel::container_of!(drv.cast::<Opaque<bindings::platform_driver>>(), Self, drv)
        };
        // System sleep freezes every task first, the one in our module's init or exit
        // included, so `pdev` is not written while the PM core calls us: it is the registered
        // device, or null before `register` stored it. Only its address is taken.
        let pdev = this.pdev;
        // SAFETY: Not null: a registered device (invariant).
        (!pdev.is_null() && unsafe { core::ptr::addr_of_mut!((*pdev).dev) } == dev).then_some(this)
    }
}

#[pinned_drop]
impl<T: PmOps> PinnedDrop for Idle<T> {
    fn drop(self: Pin<&mut Self>) {
        if !self.pdev.is_null() {
            // SAFETY: Both registered (invariant); once they return, no callback runs.
            unsafe {
                bindings::platform_device_unregister(self.pdev);
                bindings::platform_driver_unregister(self.drv.get());
            }
        }
    }
}

/// The hooks' calls since load (`idle_suspend`, `idle_resume`): the simulator's statistics,
/// by which the selftests tell that they ran in suspend-to-idle and only there.
#[cfg(skl_sim)]
static CALLS: [Atomic<u64>; 2] = [const { Atomic::new(0) }; 2];

/// The hooks' calls since load: `idle_suspend`'s, then `idle_resume`'s.
#[cfg(skl_sim)]
pub(crate) fn calls() -> [u64; 2] {
    CALLS.each_ref().map(|c| c.load(ordering::Relaxed))
}

/// # Safety
///
/// Called by the PM core for a device bound to the driver of a live `Idle<T>`.
unsafe extern "C" fn suspend_noirq_cb<T: PmOps>(dev: *mut bindings::device) -> c_int {
    if suspend::target_state() != Some(SuspendState::ToIdle) {
        return 0;
    }
    // SAFETY: As required of `suspend_noirq_cb`.
    if let Some(this) = unsafe { Idle::<T>::from_dev(dev) } {
        #[cfg(skl_sim)]
        CALLS[0].add(1, ordering::Relaxed);
        this.ops.idle_suspend();
        this.asleep.store(true, ordering::Relaxed);
    }
    0
}

/// # Safety
///
/// As for [`suspend_noirq_cb`].
unsafe extern "C" fn resume_noirq_cb<T: PmOps>(dev: *mut bindings::device) -> c_int {
    // SAFETY: As required of `resume_noirq_cb`.
    match unsafe { Idle::<T>::from_dev(dev) } {
        Some(this) if this.asleep.xchg(false, ordering::Relaxed) => {
            #[cfg(skl_sim)]
            CALLS[1].add(1, ordering::Relaxed);
            this.ops.idle_resume();
        }
        _ => {}
    }
    0
}
