// SPDX-License-Identifier: GPL-2.0

//! Rate-limited log lines: refused events (fuzzers open millions) and registers found changed
//! by someone else (one line, not one per read).

use kernel::{
    prelude::*,
    sync::atomic::{ordering, Atomic},
};

use crate::kabi::platform;
use crate::uncore::{pmubox::Note, Describe};

/// Prints a [`Describe`] with the kernel's `fmt!`.
pub(crate) struct Why<T: Describe>(pub(crate) T);

impl<T: Describe> kernel::fmt::Display for Why<T> {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        self.0.describe(f)
    }
}

/// A budget of `per_second` lines, refilled every second.
struct Budget(Atomic<i64>);

impl Budget {
    const fn new() -> Self {
        Self(Atomic::new(0))
    }

    /// Whether one more line may be printed now.
    fn allow(&self, per_second: i64) -> bool {
        let second = (platform::now_ns() / 1_000_000_000) as i64;
        let slot = self.0.load(ordering::Relaxed);
        if slot / 64 != second {
            self.0.store(second * 64 + 1, ordering::Relaxed);
            return true;
        }
        if slot % 64 < per_second {
            self.0.store(slot + 1, ordering::Relaxed);
            return true;
        }
        false
    }
}

static REFUSALS: Budget = Budget::new();
static CHANGES: Budget = Budget::new();

/// Logs why an event was refused (at most 10 lines a second) and returns `err`.
pub(super) fn refuse(
    pmu: impl kernel::fmt::Display,
    err: Error,
    why: impl kernel::fmt::Display,
) -> Error {
    if REFUSALS.allow(10) {
        pr_info!("{}: {}\n", pmu, why);
    }
    err
}

/// Logs that a register faulted: the caller says each fault once.
pub(super) fn fault(pkg: u32, n: Note) {
    pr_warn!("package {}: {}\n", pkg, Why(n));
}

/// Logs (at most once a second) that a register was found changed and was repaired.
pub(super) fn note(pkg: u32, n: Note) {
    if CHANGES.allow(1) {
        pr_warn!("package {}: {}\n", pkg, Why(n));
    }
}
