// SPDX-License-Identifier: GPL-2.0

//! The monotonic and boot clocks, read in any context, NMI included.
//!
//! C header: [`include/linux/timekeeping.h`](srctree/include/linux/timekeeping.h)
//!
//! [`Instant::now`] reads its clock under the timekeeper's sequence count: an NMI that
//! interrupted the count's writer on the same CPU would wait for it forever. The reads here
//! take the copies the timekeeper keeps for such readers instead (`ktime_get_mono_fast_ns()`,
//! `ktime_get_boot_fast_ns()`), as perf's `clockid` and the tracers' `mono` and `boot` clocks
//! do. A PMU's `read`, which a BPF program may call from an NMI, can use them.
//!
//! The price is order across a clock update. A read on another CPU during an update, or from
//! an NMI that interrupted one, may return a later time than a read that follows it; reads on
//! one CPU outside such an NMI do not go back. [`boot_time`] may also count a resume's sleep a
//! moment early, and on 32-bit machines read a half-written offset while a resume writes it.
//! A caller that subtracts two reads of different CPUs or contexts must allow for a negative
//! [`Delta`].
//!
//! # Examples
//!
//! ```
//! use kernel::time::{delay::fsleep, fast, Delta};
//!
//! let mono = fast::monotonic();
//! let boot = fast::boot_time();
//! fsleep(Delta::from_millis(10));
//! // Both clocks ran through the sleep. The task may have moved to another CPU meanwhile:
//! // a clock update there can make a read lag by nanoseconds, never by milliseconds.
//! assert!(fast::monotonic() - mono >= Delta::from_millis(10));
//! assert!(fast::boot_time() - boot >= Delta::from_millis(10));
//! ```
//!
//! [`Instant::now`]: kernel::time::Instant::now

use kernel::{bindings, time::Delta};

/// A read in nanoseconds as a [`Delta`] (a clock of the kernel's reaches `i64::MAX` only after
/// 292 years).
fn delta(ns: u64) -> Delta {
    Delta::from_nanos(i64::try_from(ns).unwrap_or(i64::MAX))
}

/// [`Monotonic`] time: how long the system has run since boot, not counting suspend.
///
/// [`Monotonic`]: kernel::time::Monotonic
#[inline]
pub(crate) fn monotonic() -> Delta {
    // SAFETY: `ktime_get_mono_fast_ns()` may be called in any context, NMI included.
    delta(unsafe { bindings::ktime_get_mono_fast_ns() })
}

/// [`BootTime`] time: how long since boot, suspend included.
///
/// [`BootTime`]: kernel::time::BootTime
#[inline]
pub(crate) fn boot_time() -> Delta {
    // SAFETY: `ktime_get_boot_fast_ns()` may be called in any context, NMI included.
    delta(unsafe { bindings::ktime_get_boot_fast_ns() })
}
