// SPDX-License-Identifier: GPL-2.0

//! System-core suspend and resume (7.3 has no Rust abstraction): the uncore loses its
//! registers in S3, so the driver folds its counts before and programs them again after.
//!
//! Syscore callbacks run last before sleep and first after wake, on the boot CPU with
//! interrupts off and every other CPU offline.

use core::ffi::c_void;

use kernel::{ffi::c_int, prelude::*, sync::Arc};

use super::perf_sys as sys;

/// What to do around a system sleep.
pub(crate) trait PmOps: Send + Sync {
    /// The registers are about to be lost.
    fn suspend(&self);
    /// The registers are back at their power-on values.
    fn resume(&self);
}

/// A registered syscore hook calling `T`.
///
/// # Invariants
///
/// `handle` is a live registration whose `data` is `Arc::as_ptr(&ops)`.
pub(crate) struct Syscore<T: PmOps> {
    handle: *mut c_void,
    ops: Arc<T>,
}

// SAFETY: The registration is only touched at creation and drop; `T` is `Send + Sync`.
unsafe impl<T: PmOps> Send for Syscore<T> {}
// SAFETY: As above.
unsafe impl<T: PmOps> Sync for Syscore<T> {}

impl<T: PmOps> Syscore<T> {
    /// Registers `ops` for suspend and resume.
    pub(crate) fn register(ops: Arc<T>) -> Result<Self> {
        let data = Arc::as_ptr(&ops).cast_mut().cast::<c_void>();
        // SAFETY: The callbacks have the syscore prototypes; `data` stays valid while `ops`
        // is held, which is until the registration is dropped.
        let handle = unsafe {
            sys::skl_glue_syscore_register(Some(suspend_cb::<T>), Some(resume_cb::<T>), data)
        };
        if handle.is_null() {
            return Err(ENOMEM);
        }
        // INVARIANT: registered with `data` pointing to `ops`.
        Ok(Self { handle, ops })
    }
}

impl<T: PmOps> Drop for Syscore<T> {
    fn drop(&mut self) {
        // SAFETY: Registered (invariant); no callback runs after this returns.
        unsafe { sys::skl_glue_syscore_unregister(self.handle) };
        let _ = &self.ops;
    }
}

/// # Safety
///
/// `data` is the `data` of a live `Syscore<T>`.
unsafe extern "C" fn suspend_cb<T: PmOps>(data: *mut c_void) -> c_int {
    // SAFETY: Guaranteed by the caller: `data` points to the `T` the registration holds.
    unsafe { &*data.cast::<T>() }.suspend();
    0
}

/// # Safety
///
/// As for [`suspend_cb`].
unsafe extern "C" fn resume_cb<T: PmOps>(data: *mut c_void) {
    // SAFETY: As for `suspend_cb`.
    unsafe { &*data.cast::<T>() }.resume();
}
