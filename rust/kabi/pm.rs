// SPDX-License-Identifier: GPL-2.0

//! System sleep hooks: S3 through [`syscore`] (the patch series' abstraction), suspend-to-idle
//! through the C glue (7.3 has no Rust abstraction of a device's PM callbacks).
//!
//! S3 and hibernation: syscore callbacks run last before sleep and first after wake, on the
//! boot CPU with interrupts off and every other CPU offline; the uncore loses its registers.
//! Suspend-to-idle runs no syscore callback, but a device's `noirq` PM callbacks: so the glue
//! registers a platform device and driver named after the module, whose `suspend_noirq`
//! acts only when the target is s2idle (S3 has the syscore hook, after the other CPUs went
//! offline), and whose `resume_noirq` only after that suspend ran. Process context, every
//! CPU online. The two never both run for one sleep.

use core::ffi::c_void;

use kernel::{error::from_err_ptr, prelude::*, sync::Arc};

use super::{
    perf_sys as sys,
    syscore::{self, SyscoreOps},
};

/// What to do around a system sleep.
pub(crate) trait PmOps: Send + Sync + 'static {
    /// S3: the registers are about to be lost.
    fn suspend(&self);
    /// After S3: the registers are back at their power-on values.
    fn resume(&self);
    /// Suspend-to-idle begins: the registers may be kept, or reset by the package's power.
    fn idle_suspend(&self) {}
    /// Suspend-to-idle ended.
    fn idle_resume(&self) {}
}

/// The registered sleep hooks calling `T`.
///
/// # Invariants
///
/// `idle` is null or a live registration whose `data` is `Arc::as_ptr(&ops)`.
pub(crate) struct Sleep<T: PmOps> {
    idle: *mut c_void,
    _syscore: Pin<KBox<syscore::Registration<S3<T>>>>,
    ops: Arc<T>,
}

/// `T`'s S3 hooks as system-core operations.
struct S3<T>(Arc<T>);

#[vtable]
impl<T: PmOps> SyscoreOps for S3<T> {
    fn suspend(&self) -> Result {
        self.0.suspend();
        Ok(())
    }

    fn resume(&self) {
        self.0.resume();
    }
}

// SAFETY: The registrations are only touched at creation and drop; `T` is `Send + Sync`.
unsafe impl<T: PmOps> Send for Sleep<T> {}
// SAFETY: As above.
unsafe impl<T: PmOps> Sync for Sleep<T> {}

impl<T: PmOps> Sleep<T> {
    /// Registers `ops` for S3 and for suspend-to-idle (once per module).
    pub(crate) fn register(ops: Arc<T>) -> Result<Self> {
        let mut this = Self::syscore(ops)?;
        let data = Arc::as_ptr(&this.ops).cast_mut().cast::<c_void>();
        // SAFETY: The callbacks have the glue's prototypes; `data` stays valid while `ops` is
        // held, which is until the registration is dropped.
        this.idle = from_err_ptr(unsafe {
            sys::skl_glue_idle_register(Some(idle_suspend_cb::<T>), Some(idle_resume_cb::<T>), data)
        })?;
        // INVARIANT: registered with `data` pointing to `ops`.
        Ok(this)
    }

    /// Registers `ops` for S3 alone.
    pub(crate) fn syscore(ops: Arc<T>) -> Result<Self> {
        let syscore = KBox::pin_init(syscore::Registration::register(S3(ops.clone())), GFP_KERNEL)?;
        // INVARIANT: no `idle`.
        Ok(Self {
            idle: core::ptr::null_mut(),
            _syscore: syscore,
            ops,
        })
    }
}

impl<T: PmOps> Drop for Sleep<T> {
    fn drop(&mut self) {
        if !self.idle.is_null() {
            // SAFETY: Registered (invariant); no callback runs after this returns.
            unsafe { sys::skl_glue_idle_unregister(self.idle) };
        }
    }
}

/// The `T` a callback's `data` names.
///
/// # Safety
///
/// `data` is the `data` of a live `Sleep<T>`.
unsafe fn ops<'a, T: PmOps>(data: *mut c_void) -> &'a T {
    // SAFETY: Guaranteed by the caller: `data` points to the `T` the registration holds.
    unsafe { &*data.cast::<T>() }
}

/// # Safety
///
/// `data` is the `data` of a live `Sleep<T>`'s `idle`.
unsafe extern "C" fn idle_suspend_cb<T: PmOps>(data: *mut c_void) {
    // SAFETY: As required of `idle_suspend_cb`.
    unsafe { ops::<T>(data) }.idle_suspend();
}

/// # Safety
///
/// As for [`idle_suspend_cb`].
unsafe extern "C" fn idle_resume_cb<T: PmOps>(data: *mut c_void) {
    // SAFETY: As required of `idle_resume_cb`.
    unsafe { ops::<T>(data) }.idle_resume();
}
