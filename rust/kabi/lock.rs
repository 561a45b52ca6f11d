// SPDX-License-Identifier: GPL-2.0

//! A raw spinlock around a value (7.3's Rust has `SpinLock` only, which lockdep's raw-lock
//! nesting check rejects inside perf's raw context lock and in hard-irq timers).

use core::{cell::UnsafeCell, marker::PhantomPinned};

use kernel::{
    bindings,
    ffi::c_ulong,
    prelude::*,
    sync::LockClassKey,
    types::{NotThreadSafe, Opaque},
};

use super::perf_sys as sys;

/// `T` behind a `raw_spinlock_t`, taken with interrupts off.
///
/// # Invariants
///
/// `lock` is initialised; `value` is only reached through a [`RawGuard`], which holds `lock`.
#[pin_data]
pub(crate) struct RawSpinLock<T> {
    #[pin]
    lock: Opaque<bindings::raw_spinlock>,
    value: UnsafeCell<T>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: The lock serialises every access to `value`.
unsafe impl<T: Send> Send for RawSpinLock<T> {}
// SAFETY: As above.
unsafe impl<T: Send> Sync for RawSpinLock<T> {}

impl<T> RawSpinLock<T> {
    /// A lock holding `value`, in lockdep class `key` named `name`.
    pub(crate) fn new(
        value: T,
        name: &'static CStr,
        key: Pin<&'static LockClassKey>,
    ) -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `slot` is valid for writes and pinned; the glue initialises it fully.
            lock <- Opaque::ffi_init(|slot: *mut bindings::raw_spinlock| unsafe {
                sys::skl_glue_raw_spin_lock_init(slot.cast(), name.as_char_ptr(), key.as_ptr())
            }),
            value: UnsafeCell::new(value),
            _pin: PhantomPinned,
        })
    }

    /// Takes the lock with interrupts off.
    pub(crate) fn lock(&self) -> RawGuard<'_, T> {
        // SAFETY: `lock` is initialised (invariant); released by the guard.
        let flags = unsafe { sys::skl_glue_raw_spin_lock_irqsave(self.lock.get().cast()) };
        RawGuard {
            lock: self,
            flags,
            _not_send: NotThreadSafe,
        }
    }

    /// Runs `f` on the value with the lock held and interrupts off (the simulator's register
    /// files; the engine keeps its guards).
    #[cfg(skl_sim)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.lock())
    }

    /// Runs `f` on the value if the lock can be had within `wait_ns` of `now()`, spinning on
    /// `try_lock` (the simulator's register files, read in NMI: the holder may be the
    /// context the NMI interrupted, which cannot release it until the NMI returns).
    #[cfg(skl_sim)]
    pub(crate) fn try_with_within<R>(
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

    /// Takes the lock if it is free (hard-irq timers must never wait: the lock's holder may
    /// be cancelling them).
    pub(crate) fn try_lock(&self) -> Option<RawGuard<'_, T>> {
        let mut flags: c_ulong = 0;
        // SAFETY: As for `lock`; `flags` is written only on success.
        let ok =
            unsafe { sys::skl_glue_raw_spin_trylock_irqsave(self.lock.get().cast(), &mut flags) };
        // Lazily: a guard that exists unlocks when dropped.
        ok.then(|| RawGuard {
            lock: self,
            flags,
            _not_send: NotThreadSafe,
        })
    }
}

/// The lock, held.
///
/// Not `Send`: it must be released on the CPU that took it, with the interrupt state it saved
/// there. `Sync` only if `T` is: a shared guard hands out `&T` to other threads. These are the
/// rules of the kernel crate's `Guard`; `static_checks` below keeps them from regressing.
pub(crate) struct RawGuard<'a, T> {
    lock: &'a RawSpinLock<T>,
    flags: c_ulong,
    _not_send: NotThreadSafe,
}

// SAFETY: `&RawGuard` only gives `&T` (`Deref`), which other threads may hold iff `T: Sync`.
unsafe impl<T: Sync> Sync for RawGuard<'_, T> {}

impl<T> core::ops::Deref for RawGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: The guard holds the lock: no other reference to the value exists.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> core::ops::DerefMut for RawGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: As for `deref`; `&mut self` makes this the only reference.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for RawGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: Taken by this guard with these flags, on this CPU (interrupts stayed off).
        unsafe {
            sys::skl_glue_raw_spin_unlock_irqrestore(self.lock.lock.get().cast(), self.flags)
        };
    }
}

/// Build-time checks of [`RawGuard`]'s auto traits: the build fails if it becomes `Send`, or
/// `Sync` over a `T` that is not (`Cell`), or stops being `Sync` over a `T` that is.
// rustc 1.85 (Debian's, for its stock kernels) does not count their uses in a `const` item.
#[allow(dead_code)]
mod static_checks {
    use super::RawGuard;
    use core::cell::Cell;

    /// Implemented twice for every `Send` type, so naming the impl is ambiguous for them.
    trait AmbiguousIfSend<A> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIfSend<()> for T {}
    #[allow(dead_code)]
    struct IsSend;
    impl<T: ?Sized + Send> AmbiguousIfSend<IsSend> for T {}

    /// As [`AmbiguousIfSend`], for `Sync`.
    trait AmbiguousIfSync<A> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIfSync<()> for T {}
    #[allow(dead_code)]
    struct IsSync;
    impl<T: ?Sized + Sync> AmbiguousIfSync<IsSync> for T {}

    const fn is_sync<T: Sync>() {}

    const _: () = {
        let _ = <RawGuard<'static, u32> as AmbiguousIfSend<_>>::check;
        let _ = <RawGuard<'static, Cell<u32>> as AmbiguousIfSync<_>>::check;
        is_sync::<RawGuard<'static, u32>>();
    };
}
