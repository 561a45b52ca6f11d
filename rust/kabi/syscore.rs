// SPDX-License-Identifier: GPL-2.0

//! System-core operations.
//!
//! C header: [`include/linux/syscore_ops.h`](srctree/include/linux/syscore_ops.h)
//!
//! A driver whose hardware loses its state in system sleep, and that has no device to hang
//! power-management callbacks on, registers system-core operations: `suspend` runs last on
//! the way into S3, S1 or hibernation, `resume` first on the way out, `shutdown` at reboot
//! and power-off. Suspend-to-idle runs none of them.

use core::{ffi::c_void, marker::PhantomPinned};

use kernel::{error::VTABLE_DEFAULT_ERROR, ffi::c_int, prelude::*, types::Opaque};

use super::perf_sys as sys;

/// What a driver does in the system-core phases of system sleep and shutdown.
///
/// Every callback is optional (`#[vtable]`): one not implemented is left NULL, and the
/// syscore core skips it.
///
/// # Context
///
/// `suspend` and `resume` run on one CPU with interrupts off and every other CPU offline:
/// they may not sleep, nor take a sleeping lock. `shutdown` runs in process context, under
/// the syscore list's mutex, on the reboot CPU, while the other CPUs may still run.
#[vtable]
pub(crate) trait SyscoreOps: Send + Sync + 'static {
    /// The system is about to sleep. An error aborts the suspend: the operations registered
    /// after this one, which had suspended, are resumed.
    fn suspend(&self) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The system woke up (after a `suspend` that returned `Ok`).
    fn resume(&self) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The system is about to reboot or power off.
    fn shutdown(&self) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// A registration of system-core operations, unregistered when dropped.
///
/// # Invariants
///
/// `syscore` is registered with the syscore core, its `ops` pointing to `Self::VTABLE` and its
/// `data` to `ops`, which lives as long as `self` (it is pinned).
#[pin_data(PinnedDrop)]
pub(crate) struct Registration<T: SyscoreOps> {
    #[pin]
    syscore: Opaque<sys::syscore>,
    ops: T,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: After registration the `struct syscore` is only touched by the syscore core: its
// list under the list's mutex, its callbacks either under that mutex (`shutdown`) or while
// nothing else runs; `ops` is `Send`.
unsafe impl<T: SyscoreOps> Send for Registration<T> {}
// SAFETY: `&self` gives nothing; the syscore core's callbacks reach `&T`, which is `Sync`.
unsafe impl<T: SyscoreOps> Sync for Registration<T> {}

impl<T: SyscoreOps> Registration<T> {
    const VTABLE: sys::syscore_ops = sys::syscore_ops {
        suspend: if T::HAS_SUSPEND {
            Some(suspend_cb::<T>)
        } else {
            None
        },
        resume: if T::HAS_RESUME {
            Some(resume_cb::<T>)
        } else {
            None
        },
        shutdown: if T::HAS_SHUTDOWN {
            Some(shutdown_cb::<T>)
        } else {
            None
        },
    };

    /// Registers `ops`: its callbacks run from the next system sleep or shutdown on.
    pub(crate) fn register(ops: T) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            syscore <- Opaque::zeroed(),
            ops,
            _pin: PhantomPinned,
        })
        .pin_chain(|this| {
            let syscore = this.syscore.get();
            let vtable: &'static sys::syscore_ops = &Self::VTABLE;
            // SAFETY: `syscore` is valid, zeroed and not registered; `vtable` is static, and
            // `ops` is pinned with it and `'static` (no borrow it holds can end first), so
            // both outlive the registration, which `drop` ends.
            // INVARIANT: registered with `ops` and `data` as stated.
            unsafe {
                (*syscore).ops = vtable;
                (*syscore).data = (&raw const this.ops).cast_mut().cast::<c_void>();
                sys::register_syscore(syscore);
            }
            Ok(())
        })
    }
}

#[pinned_drop]
impl<T: SyscoreOps> PinnedDrop for Registration<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: Registered (invariant). No callback runs once this returns: `shutdown`
        // runs under the list's mutex, which `unregister_syscore` takes; `suspend` and
        // `resume` run while nothing else does (one CPU online, its interrupts off).
        unsafe { sys::unregister_syscore(self.syscore.get()) };
    }
}

/// The operations a callback's `data` names.
///
/// # Safety
///
/// `data` is the `data` of a live `Registration<T>`.
unsafe fn ops<'a, T: SyscoreOps>(data: *mut c_void) -> &'a T {
    // SAFETY: Guaranteed by the caller: `data` points to the registration's `ops`.
    unsafe { &*data.cast::<T>() }
}

/// # Safety
///
/// Called by the syscore core with the `data` of a live `Registration<T>`.
unsafe extern "C" fn suspend_cb<T: SyscoreOps>(data: *mut c_void) -> c_int {
    // SAFETY: As required of `suspend_cb`.
    match unsafe { ops::<T>(data) }.suspend() {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// As for [`suspend_cb`].
unsafe extern "C" fn resume_cb<T: SyscoreOps>(data: *mut c_void) {
    // SAFETY: As required of `resume_cb`.
    unsafe { ops::<T>(data) }.resume();
}

/// # Safety
///
/// As for [`suspend_cb`].
unsafe extern "C" fn shutdown_cb<T: SyscoreOps>(data: *mut c_void) {
    // SAFETY: As required of `shutdown_cb`.
    unsafe { ops::<T>(data) }.shutdown();
}
