// SPDX-License-Identifier: GPL-2.0

//! A kernel raw spinlock, taken with local interrupts saved and disabled.
//!
//! This module allows Rust code to use the kernel's `raw_spinlock_t` with
//! `raw_spin_lock_irqsave()`. Under `PREEMPT_RT` a `spinlock_t` sleeps and a `raw_spinlock_t`
//! still spins, so code that runs with interrupts off in any configuration needs the raw one:
//! a PMU's callbacks (perf calls them under its own raw context lock), a hard-irq `hrtimer`,
//! an IPI handler. Lockdep's `CONFIG_PROVE_RAW_LOCK_NESTING` reports a [`SpinLock`] taken
//! there.
//!
//! The guard keeps the interrupt state `lock` saved and `unlock` restores it, so the lock may
//! be taken with interrupts on or off, and [`Lock::try_lock`] does not spin: code that must
//! never wait (a timer callback that the lock's holder may be cancelling) takes it that way.
//! The critical section must be short and may not sleep.
//!
//! Guards of two such locks must be dropped in the reverse order of taking: dropping the
//! outer one first restores the interrupt state of before both, with the inner lock still
//! held (lockdep reports it). `SpinLockIrq`'s per-CPU count has no such rule.
//!
//! Nor is it for a [`CondVar`]: `wait` takes the wait queue's `spinlock_t` with this lock
//! still held, the nesting that lockdep's check reports.
//!
//! [`CondVar`]: kernel::sync::CondVar
//! [`SpinLock`]: kernel::sync::SpinLock

use kernel::{
    bindings,
    sync::lock::{Backend, Guard, Lock},
};

use super::perf_sys as sys;

/// Creates a [`RawSpinLockIrqSave`] initialiser with the given name and a lockdep class of its
/// own, as `new_spinlock!` does: without a name, the file and line name it.
#[macro_export]
macro_rules! new_raw_spinlock_irqsave {
    ($inner:expr $(, $name:literal)? $(,)?) => {
        $crate::kabi::raw_spinlock::RawSpinLockIrqSave::new(
            $inner, ::kernel::optional_name!($($name)?), ::kernel::static_lock_class!())
    };
}
pub(crate) use new_raw_spinlock_irqsave;

/// A mutual exclusion primitive around a `raw_spinlock_t`, held with local interrupts
/// disabled.
///
/// [`new_raw_spinlock_irqsave!`] makes one, with a name and a lockdep class of its own.
pub(crate) type RawSpinLockIrqSave<T> = Lock<T, RawSpinLockIrqSaveBackend>;

/// A kernel `raw_spinlock_t` lock backend, taken with `raw_spin_lock_irqsave()`.
pub(crate) struct RawSpinLockIrqSaveBackend;

/// A [`Guard`] acquired from locking a [`RawSpinLockIrqSave`]: it releases the lock and
/// restores the interrupt state when dropped, on the CPU that took it (a `Guard` is not
/// `Send`).
#[allow(dead_code)] // Out of tree: the driver names no guard type.
pub(crate) type RawSpinLockIrqSaveGuard<'a, T> = Guard<'a, T, RawSpinLockIrqSaveBackend>;

// SAFETY: The underlying kernel `raw_spinlock_t` object ensures mutual exclusion. The guard
// state is the interrupt state saved when the lock was taken, restored when it is released;
// `relock` uses the default implementation, which saves it again.
unsafe impl Backend for RawSpinLockIrqSaveBackend {
    type State = bindings::raw_spinlock;
    type GuardState = kernel::ffi::c_ulong;

    #[inline]
    unsafe fn init(
        ptr: *mut Self::State,
        name: *const kernel::ffi::c_char,
        key: *mut bindings::lock_class_key,
    ) {
        // SAFETY: The safety requirements ensure that `ptr` is valid for writes, and `name`
        // and `key` are valid for read indefinitely.
        unsafe { sys::rust_helper_raw_spin_lock_init_key(ptr, name, key) }
    }

    #[inline]
    unsafe fn lock(ptr: *mut Self::State) -> Self::GuardState {
        // SAFETY: The safety requirements of this function ensure that `ptr` points to valid
        // memory, and that it has been initialised before.
        unsafe { sys::rust_helper_raw_spin_lock_irqsave(ptr) }
    }

    #[inline]
    unsafe fn unlock(ptr: *mut Self::State, guard_state: &Self::GuardState) {
        // SAFETY: The safety requirements of this function ensure that `ptr` is valid and that
        // the caller is the owner of the lock; `guard_state` is what `lock` or `try_lock`
        // saved, on this CPU (the guard is not `Send`).
        unsafe { sys::rust_helper_raw_spin_unlock_irqrestore(ptr, *guard_state) }
    }

    #[inline]
    unsafe fn try_lock(ptr: *mut Self::State) -> Option<Self::GuardState> {
        let mut flags = 0;
        // SAFETY: The `ptr` pointer is guaranteed to be valid and initialised before use;
        // `flags` is the interrupt state saved for the taken lock (the helper saves it either
        // way, and restores it if the lock is busy).
        unsafe { sys::rust_helper_raw_spin_trylock_irqsave(ptr, &mut flags) }.then_some(flags)
    }

    #[inline]
    unsafe fn assert_is_held(ptr: *mut Self::State) {
        // SAFETY: The `ptr` pointer is guaranteed to be valid and initialised before use.
        unsafe { sys::rust_helper_raw_spin_assert_is_held(ptr) }
    }
}
