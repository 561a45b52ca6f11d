// SPDX-License-Identifier: GPL-2.0

//! Out of tree only: `HasHrTimer::start_range()` and `HasHrTimer::cancel()`, which patch 15 of
//! the series adds to `kernel::time::hrtimer` (in tree they are the crate's trait's and this
//! file is not there). A trait here, so that the caller's lines are the same in both builds.

use kernel::{
    bindings,
    time::{
        hrtimer::{HasHrTimer, HrTimerExpires, HrTimerMode},
        Delta,
    },
};

/// The series' `HasHrTimer::start_range()` and `HasHrTimer::cancel()`, for kernels without
/// them.
pub(crate) trait HasHrTimerExt<T>: HasHrTimer<T> {
    /// Starts the timer contained in the `Self` pointed to by `this` to expire at `expires` at
    /// the earliest and `slack` later at the latest (from its own callback too, which then
    /// returns `NoRestart`).
    ///
    /// # Safety
    ///
    /// As for [`HasHrTimer::start`].
    unsafe fn start_range(
        this: *const Self,
        expires: <Self::TimerMode as HrTimerMode>::Expires,
        slack: Delta,
    );

    /// Cancels the timer contained in `self`, waiting for its callback if it is running;
    /// whether it was queued. Not from its own callback.
    fn cancel(&self) -> bool;
}

impl<T, U: HasHrTimer<T> + ?Sized> HasHrTimerExt<T> for U {
    unsafe fn start_range(
        this: *const Self,
        expires: <Self::TimerMode as HrTimerMode>::Expires,
        slack: Delta,
    ) {
        // SAFETY: `this` points to a valid `Self` (the caller's guarantee, as for
        // `HasHrTimer::start`), whose timer `HrTimer::new` set up.
        unsafe {
            bindings::hrtimer_start_range_ns(
                Self::c_timer_ptr(this).cast_mut(),
                expires.as_nanos(),
                u64::try_from(slack.as_nanos()).unwrap_or(0),
                <Self::TimerMode as HrTimerMode>::C_MODE,
            )
        };
    }

    fn cancel(&self) -> bool {
        // SAFETY: `self` is a valid `Self`, so its timer is valid, set up by `HrTimer::new`.
        unsafe { bindings::hrtimer_cancel(Self::c_timer_ptr(self).cast_mut()) != 0 }
    }
}
