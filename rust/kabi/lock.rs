// SPDX-License-Identifier: GPL-2.0

//! What the simulator adds to [`RawSpinLockIrqSave`]: its register files are behind one, and
//! are read in NMI too.

use super::raw_spinlock::RawSpinLockIrqSave;

/// The simulator's ways of holding a register file's lock.
pub(crate) trait SimLock<T> {
    /// Runs `f` on the value with the lock held and interrupts off.
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R;

    /// Runs `f` on the value if the lock can be had within `wait_ns` of `now()`, spinning on
    /// `try_lock` (a read in NMI: the holder may be the context the NMI interrupted, which
    /// cannot release it until the NMI returns).
    fn try_with_within<R>(
        &self,
        wait_ns: u64,
        now: impl Fn() -> u64,
        f: impl FnOnce(&mut T) -> R,
    ) -> Option<R>;
}

impl<T: Unpin> SimLock<T> for RawSpinLockIrqSave<T> {
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.lock())
    }

    fn try_with_within<R>(
        &self,
        wait_ns: u64,
        now: impl Fn() -> u64,
        f: impl FnOnce(&mut T) -> R,
    ) -> Option<R> {
        let end = now().saturating_add(wait_ns);
        loop {
            if let Some(mut g) = self.try_lock() {
                return Some(f(&mut g));
            }
            if now() > end {
                return None;
            }
            core::hint::spin_loop();
        }
    }
}
