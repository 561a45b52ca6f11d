// SPDX-License-Identifier: GPL-2.0

//! System sleep hooks: S3 through [`syscore`] (the patch series' abstraction), suspend-to-idle
//! through a device's PM callbacks ([`s2idle`]).
//!
//! S3 and hibernation: syscore callbacks run last before sleep and first after wake, on the
//! boot CPU with interrupts off and every other CPU offline; the uncore loses its registers.
//! Suspend-to-idle runs no syscore callback, but a device's `noirq` PM callbacks: so [`s2idle`]
//! registers, through [`dev_pm`] (the patch series' abstraction), a platform device and driver
//! named after the module, whose `suspend_noirq`
//! acts only when the target is s2idle (S3 has the syscore hook, after the other CPUs went
//! offline), and whose `resume_noirq` only after that suspend ran. Process context, every
//! CPU online. The two never both run for one sleep.

use kernel::{prelude::*, sync::Arc, ThisModule};

use super::dev_pm;
use super::syscore::{self, SyscoreOps};

mod s2idle;

#[cfg(skl_sim)]
pub(crate) use s2idle::calls as s2idle_calls;

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
pub(crate) struct Sleep<T: PmOps> {
    _idle: Option<Pin<KBox<dev_pm::Registration<s2idle::Idle<T>>>>>,
    _syscore: Pin<KBox<syscore::Registration<S3<T>>>>,
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

impl<T: PmOps> Sleep<T> {
    /// Registers `ops` for S3 and for suspend-to-idle, the latter through a platform driver
    /// and device called `name`, the module's (once per module).
    pub(crate) fn register(
        ops: Arc<T>,
        name: &'static CStr,
        module: &'static ThisModule,
    ) -> Result<Self> {
        let mut this = Self::syscore(ops.clone())?;
        this._idle = Some(KBox::pin_init(
            s2idle::Idle::register(ops, name, module),
            GFP_KERNEL,
        )?);
        Ok(this)
    }

    /// Registers `ops` for S3 alone.
    pub(crate) fn syscore(ops: Arc<T>) -> Result<Self> {
        let syscore = KBox::pin_init(syscore::Registration::register(S3(ops)), GFP_KERNEL)?;
        Ok(Self {
            _idle: None,
            _syscore: syscore,
        })
    }
}
