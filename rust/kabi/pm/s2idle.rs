// SPDX-License-Identifier: GPL-2.0

//! Suspend-to-idle hooks: device PM callbacks ([`dev_pm`]: a platform driver and device named
//! after the module) that act only when the system suspends to idle.
//!
//! The PM core calls a device's `noirq` callbacks around every suspend, in process context,
//! every CPU online. S3 has syscore's callbacks, which run after the other CPUs went offline,
//! so these act only when the target is suspend-to-idle.

use kernel::{
    prelude::*,
    sync::{
        atomic::{ordering, Atomic},
        Arc,
    },
    ThisModule,
};

use super::PmOps;
use crate::kabi::dev_pm::{self, DevPmOps};
use crate::kabi::suspend::{self, SuspendState};

/// Device PM callbacks whose `suspend_noirq` calls `T::idle_suspend` when the system is
/// entering suspend-to-idle, and whose `resume_noirq` calls `T::idle_resume` after a sleep for
/// which `idle_suspend` ran.
pub(super) struct Idle<T: PmOps> {
    /// `idle_suspend` ran for this sleep. The PM core calls a device's callbacks one at a
    /// time, but not always from one thread (asynchronous suspend).
    asleep: Atomic<bool>,
    ops: Arc<T>,
}

impl<T: PmOps> Idle<T> {
    /// Registers a platform driver and device called `name` (the module's name: the driver
    /// core refuses a second driver of one name with `EBUSY`), calling `ops`.
    pub(super) fn register(
        ops: Arc<T>,
        name: &'static CStr,
        module: &'static ThisModule,
    ) -> impl PinInit<dev_pm::Registration<Self>, Error> {
        let idle = Self {
            asleep: Atomic::new(false),
            ops,
        };
        dev_pm::Registration::register(idle, name, module)
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

#[vtable]
impl<T: PmOps> DevPmOps for Idle<T> {
    fn suspend_noirq(&self) -> Result {
        if suspend::target_state() == Some(SuspendState::ToIdle) {
            #[cfg(skl_sim)]
            CALLS[0].add(1, ordering::Relaxed);
            self.ops.idle_suspend();
            self.asleep.store(true, ordering::Relaxed);
        }
        Ok(())
    }

    fn resume_noirq(&self) -> Result {
        if self.asleep.xchg(false, ordering::Relaxed) {
            #[cfg(skl_sim)]
            CALLS[1].add(1, ordering::Relaxed);
            self.ops.idle_resume();
        }
        Ok(())
    }
}
