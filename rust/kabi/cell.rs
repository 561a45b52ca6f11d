// SPDX-License-Identifier: GPL-2.0

//! Interior mutability for state owned by one CPU at a time, without a lock.
//!
//! Perf runs a PMU's callbacks with interrupts off on the event's CPU, and the driver's poll
//! timer is pinned to that CPU in hard-irq context: they never overlap, so the per-box state
//! needs no lock (and a Rust `SpinLock` there would trip lockdep's raw-lock nesting check).
//! [`OwnedCell`] turns that argument into a checked one: entry is an atomic test-and-set, so a
//! violation (a bug) is reported and refused instead of becoming a data race.

use core::cell::UnsafeCell;

use kernel::sync::atomic::{ordering, Atomic};

/// A value touched by one context at a time.
pub(crate) struct OwnedCell<T> {
    busy: Atomic<i32>,
    value: UnsafeCell<T>,
}

// SAFETY: Access to `value` is serialised by `busy` (see `with`).
unsafe impl<T: Send> Sync for OwnedCell<T> {}
// SAFETY: Owning the cell owns the value.
unsafe impl<T: Send> Send for OwnedCell<T> {}

impl<T> OwnedCell<T> {
    /// A cell holding `value`.
    pub(crate) const fn new(value: T) -> Self {
        Self {
            busy: Atomic::new(0),
            value: UnsafeCell::new(value),
        }
    }

    /// Runs `f` on the value, or returns `None` (with a warning) if another context is inside:
    /// the owner-CPU rule was broken.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        if self.busy.cmpxchg(0, 1, ordering::Acquire).is_err() {
            kernel::warn_on!(true);
            return None;
        }
        // SAFETY: `busy` went 0 -> 1 here: no other reference to `value` exists until it is
        // released below.
        let r = f(unsafe { &mut *self.value.get() });
        self.busy.store(0, ordering::Release);
        Some(r)
    }
}
