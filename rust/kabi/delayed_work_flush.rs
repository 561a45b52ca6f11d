// SPDX-License-Identifier: GPL-2.0

//! Out of tree only: `DelayedWork::flush()`, which patch 14 of the series adds to
//! `kernel::workqueue` (in tree the method is the crate's and this file is not there). A trait
//! here, so that the caller's `work.flush()` is the same line in both builds.

use kernel::{bindings, workqueue::DelayedWork};

/// The series' `DelayedWork::flush()`, for kernels without it.
pub(crate) trait DelayedWorkFlush {
    /// Waits until the last queueing of this work item has run: a pending item's timer is cut
    /// short and the work queued at once. Whether it waited (`false`: it was idle). May sleep.
    fn flush(&self) -> bool;
}

impl<T: ?Sized, const ID: u64> DelayedWorkFlush for DelayedWork<T, ID> {
    fn flush(&self) -> bool {
        // SAFETY: `self` is a valid and aligned `DelayedWork`.
        let work = unsafe { DelayedWork::raw_as_work(self) };
        // SAFETY: `work` is the `work` field of `self`'s `delayed_work` (`raw_as_work`), which
        // `DelayedWork::new`, its only constructor, initialized; `flush_delayed_work` needs no
        // more.
        unsafe {
            let dwork = kernel::container_of!(
                work.cast::<bindings::work_struct>(),
                bindings::delayed_work,
                work
            );
            bindings::flush_delayed_work(dwork)
        }
    }
}
