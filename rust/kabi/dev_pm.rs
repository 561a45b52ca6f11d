// SPDX-License-Identifier: GPL-2.0

//! Device power-management callbacks for code that has no device of its own.
//!
//! C headers: [`include/linux/pm.h`](srctree/include/linux/pm.h),
//! [`include/linux/platform_device.h`](srctree/include/linux/platform_device.h)
//!
//! System-core operations run in S3 and hibernation, with one CPU online, but not in
//! suspend-to-idle, where the PM core calls devices' callbacks alone. A driver without a device
//! of its own (a PMU of the uncore, for one) that must act around every system sleep registers a
//! [`Registration`]: a platform driver and a platform device of one name, which bind to each
//! other (the driver has no `probe`), and whose `dev_pm_ops` call a [`DevPmOps`].
//!
//! # Examples
//!
//! ```
//! use kernel::{pm, prelude::*};
//!
//! struct Hooks;
//!
//! #[vtable]
//! impl pm::DevPmOps for Hooks {
//!     fn suspend_noirq(&self) -> Result {
//!         pr_info!("the system is about to sleep\n");
//!         Ok(())
//!     }
//! }
//!
//! # let module = kernel::module::this_module::<crate::LocalModule>();
//! let name = c"rust_doctest_pm";
//! let hooks = KBox::pin_init(pm::Registration::register(Hooks, name, module), GFP_KERNEL)?;
//! // The driver core takes one driver of a name.
//! let again = KBox::pin_init(pm::Registration::register(Hooks, name, module), GFP_KERNEL);
//! assert_eq!(again.err(), Some(EBUSY));
//! drop(hooks);
//! // Unregistered: the name is free again.
//! drop(KBox::pin_init(pm::Registration::register(Hooks, name, module), GFP_KERNEL)?);
//! # Ok::<(), Error>(())
//! ```

use core::marker::PhantomPinned;

use kernel::{
    bindings,
    error::{from_err_ptr, to_result, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    prelude::*,
    sync::atomic::{ordering::Relaxed, Atomic},
    types::Opaque,
    ThisModule,
};

/// What a driver does around a system suspend, in the devices' `noirq` phases.
///
/// Every callback is optional (`#[vtable]`): one not implemented is left NULL, and the PM core
/// skips it.
///
/// # Context
///
/// Process context, every CPU online and device interrupts off, on the way into and out of
/// suspend to RAM, standby and suspend-to-idle alike (`kernel::suspend::target_state()` tells
/// them apart), not hibernation. The PM core calls them one at a time, though not always from
/// one thread (asynchronous suspend).
#[vtable]
pub(crate) trait DevPmOps: Send + Sync + 'static {
    /// The system is about to suspend. An error aborts the suspend.
    fn suspend_noirq(&self) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The system resumes, after a `suspend_noirq` that returned `Ok` or is not implemented.
    fn resume_noirq(&self) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// A platform driver and a platform device of one name, bound to each other, whose PM
/// callbacks are `T`'s; both are unregistered when it is dropped.
///
/// # Invariants
///
/// While `pdev` is not null, `drv` is registered with `Self::VTABLE` as its PM callbacks, and
/// `pdev` is a registered platform device of the driver's name. `dev` is zero or the address of
/// `pdev`'s `struct device`.
#[pin_data(PinnedDrop)]
pub(crate) struct Registration<T: DevPmOps> {
    #[pin]
    drv: Opaque<bindings::platform_driver>,
    pdev: *mut bindings::platform_device,
    /// `pdev`'s device, for the callbacks: an atomic, because a task the freezer leaves
    /// running (a kernel thread) may register while the PM core calls them.
    dev: Atomic<usize>,
    ops: T,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: The driver core registers and unregisters the C structures from any thread, under its
// own locks; `T` is `Send`.
unsafe impl<T: DevPmOps> Send for Registration<T> {}
// SAFETY: `&self` gives nothing; the PM core's callbacks reach `&T`, which is `Sync`.
unsafe impl<T: DevPmOps> Sync for Registration<T> {}

impl<T: DevPmOps> Registration<T> {
    const VTABLE: bindings::dev_pm_ops = bindings::dev_pm_ops {
        suspend_noirq: if T::HAS_SUSPEND_NOIRQ {
            Some(suspend_noirq_cb::<T>)
        } else {
            None
        },
        resume_noirq: if T::HAS_RESUME_NOIRQ {
            Some(resume_noirq_cb::<T>)
        } else {
            None
        },
        // SAFETY: All zeroes is a `dev_pm_ops` without callbacks (NULL pointers).
        ..unsafe { core::mem::zeroed() }
    };

    /// Registers a platform driver and device called `name`, calling `ops`. The driver core
    /// takes one driver of a name: `EBUSY` for a second.
    pub(crate) fn register(
        ops: T,
        name: &'static CStr,
        module: &'static ThisModule,
    ) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            drv <- Opaque::zeroed(),
            pdev: core::ptr::null_mut(),
            dev: Atomic::new(0),
            ops,
            _pin: PhantomPinned,
        })
        .pin_chain(move |this| {
            let drv = this.drv.get();
            let vtable: &'static bindings::dev_pm_ops = &Self::VTABLE;
            // SAFETY: `drv` is zeroed, pinned and not yet registered; `vtable` and `name` are
            // static, and `ops` is pinned with `drv` and `'static`, so all outlive the
            // registrations, which `drop` ends.
            let pdev = unsafe {
                (*drv).driver.name = name.as_char_ptr();
                (*drv).driver.pm = vtable;
                // No `unbind` file: unbound by hand, the device would stop the callbacks
                // silently.
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
            // SAFETY: `pdev` is the device registered just above, and only the address of its
            // `dev` is taken; `this`'s fields are written in place, nothing is moved out of it.
            // INVARIANT: both registered just above; `dev` is `pdev`'s device.
            unsafe {
                let this = this.get_unchecked_mut();
                this.dev
                    .store(core::ptr::addr_of_mut!((*pdev).dev).addr(), Relaxed);
                this.pdev = pdev;
            }
            Ok(())
        })
    }

    /// The operations of the `Registration<T>` whose device `dev` is: `None` for another
    /// device of the same name that something bound to the driver (`driver_override`), which
    /// must not run them twice.
    ///
    /// # Safety
    ///
    /// `dev` is bound to the driver of a live `Registration<T>`.
    unsafe fn ops<'a>(dev: *mut bindings::device) -> Option<&'a T> {
        // SAFETY: Guaranteed by the caller: `dev->driver` is the `driver` field of the
        // `platform_driver` in an `Opaque` (same layout) in the `drv` field of a
        // `Registration<T>`.
        let this = unsafe {
            let drv = kernel::container_of!((*dev).driver, bindings::platform_driver, driver);
            &*kernel::container_of!(drv.cast::<Opaque<bindings::platform_driver>>(), Self, drv)
        };
        // Zero until `register` stores it: a callback that comes first (the device is bound
        // before `register` returns) runs nothing, as for a device that is not ours.
        (this.dev.load(Relaxed) == dev.addr()).then_some(&this.ops)
    }
}

#[pinned_drop]
impl<T: DevPmOps> PinnedDrop for Registration<T> {
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

/// # Safety
///
/// Called by the PM core for a device bound to the driver of a live `Registration<T>`.
unsafe extern "C" fn suspend_noirq_cb<T: DevPmOps>(dev: *mut bindings::device) -> c_int {
    // SAFETY: As required of `suspend_noirq_cb`.
    match unsafe { Registration::<T>::ops(dev) }.map(T::suspend_noirq) {
        Some(Err(e)) => e.to_errno(),
        _ => 0,
    }
}

/// # Safety
///
/// As for [`suspend_noirq_cb`].
unsafe extern "C" fn resume_noirq_cb<T: DevPmOps>(dev: *mut bindings::device) -> c_int {
    // SAFETY: As required of `resume_noirq_cb`.
    match unsafe { Registration::<T>::ops(dev) }.map(T::resume_noirq) {
        Some(Err(e)) => e.to_errno(),
        _ => 0,
    }
}
