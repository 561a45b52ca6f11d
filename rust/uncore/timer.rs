// SPDX-License-Identifier: GPL-2.0

//! When a package's timer runs: its period for what is live, how much sooner a box call needs
//! it, and how often a timer that CPU hotplug moved off its package looks for a way home.
//!
//! The engine's timer (`engine/package.rs` over `kabi/poller.rs`) follows these rules; kept
//! here, free of the kernel, so the host tests run the timer over a box
//! (`pmubox_tests/timers.rs`).

use super::pmubox::Live;
use super::units::IMC;

const MS: u64 = 1_000_000;

/// When the timer runs again: not before `after_ns` from now, and at the latest `slack_ns`
/// later. Within the slack it runs in the interrupt of any other timer of its CPU, so a run
/// that may be late costs no wakeup of its own when the CPU wakes anyway.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Next {
    /// Earliest run, from now (ns).
    pub(crate) after_ns: u64,
    /// How much later it may run (ns).
    pub(crate) slack_ns: u64,
}

impl Next {
    /// Exactly `after_ns` from now.
    pub(crate) const fn at(after_ns: u64) -> Self {
        Self {
            after_ns,
            slack_ns: 0,
        }
    }

    /// The latest run, from now (ns).
    #[cfg(test)]
    pub(crate) const fn latest(self) -> u64 {
        self.after_ns + self.slack_ns
    }
}

/// The watchdog's period: registers changed behind our back are found within it and its
/// slack. MSR counters wrap in 54.9 s at the least (the ARB's, at 64 increments a cycle of a
/// 5 GHz clock): a late run loses nothing, so the package may sleep through the slack.
pub(crate) const TICK: Next = Next {
    after_ns: 10_000 * MS,
    slack_ns: 2_500 * MS,
};

/// The period while an IMC event is live: 3/8 of the IMC counters' wrap time at the top DRAM
/// rate (2.68 s at [`MAX_DRAM_LINES_PER_S`]), so a run 1.68 s late still reads them before they
/// lap. No slack: that lateness is the margin.
///
/// [`MAX_DRAM_LINES_PER_S`]: super::units::MAX_DRAM_LINES_PER_S
pub(crate) const IMC_TICK: Next = Next::at(IMC.poll_ms * 3 / 2 * MS);

/// Retry delay of a run that found a box busy.
pub(crate) const RETRY: Next = Next::at(200_000);

/// How much later than its deadline a run may stop a departed record's counter, after one
/// at the deadline was not due: it may wait for another timer's interrupt that long.
const DEPARTED_SLACK_NS: u64 = 500 * MS;

/// The first delay of a timer off its package with no CPU of it online; each run in a row
/// doubles it, up to the watchdog's period ([`TICK`]): a CPU of the package that comes online
/// is found within that, and a package offline for a minute costs 20 runs, not 60,000. (Any
/// box call on the package brings it home at once, `Poller::track`.)
const HOMELESS_FIRST_NS: u64 = MS;

/// What one run found on the package's boxes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Found {
    /// An IMC event is live.
    pub(crate) any_imc: bool,
    /// A box was busy: it was not looked at.
    pub(crate) busy: bool,
    /// When the first departed record still kept is overdue (ns, the boxes' clock).
    pub(crate) departed_due: Option<u64>,
}

/// The next run after one at `now` that found `found`: the period for what is live, and no
/// later than [`DEPARTED_SLACK_NS`] after the first departed record is overdue.
pub(crate) fn after_run(now: u64, found: Found) -> Next {
    if found.busy {
        return RETRY;
    }
    let period = if found.any_imc { IMC_TICK } else { TICK };
    match found.departed_due.map(|due| due.saturating_sub(now)) {
        Some(left) if left < period.after_ns => Next {
            after_ns: left,
            slack_ns: DEPARTED_SLACK_NS.min(period.after_ns - left),
        },
        _ => period,
    }
}

/// How soon, at the latest, the timer must run after a box call at `now` that changed the
/// box's live events from `before` to `after` and when its first departed record is overdue
/// from `due_before` to `due_after` (ns, the box's clock); `None` if as armed.
pub(crate) fn within(
    before: Live,
    after: Live,
    due_before: Option<u64>,
    due_after: Option<u64>,
    now: u64,
) -> Option<u64> {
    // The first IMC event: the next poll within the IMC period, whatever was armed for the MSR
    // events (their period is longer than the IMC counters' wrap).
    let imc = (before.imc == 0 && after.imc > 0).then_some(IMC_TICK.after_ns);
    // A record overdue sooner than any before (an event departed): the timer runs by then,
    // not at the end of a period that may be 12.5 s away.
    let departed = due_after
        .filter(|&a| !matches!(due_before, Some(b) if b <= a))
        .map(|due| due.saturating_sub(now));
    imc.into_iter().chain(departed).min()
}

/// The delay of a timer restarted to run `within_ns` from now, that was due in
/// `remaining_ns`: never later than it was.
pub(crate) fn rearm(remaining_ns: u64, within_ns: u64) -> u64 {
    remaining_ns.min(within_ns)
}

/// The delay of the `tries`-th run in a row that found the timer off its package with no CPU
/// of the package online (counted from 0): doubling from [`HOMELESS_FIRST_NS`] up to
/// [`TICK`]'s period.
pub(crate) fn homeless(tries: u32) -> Next {
    let ns = HOMELESS_FIRST_NS.saturating_mul(1 << tries.min(32));
    Next::at(ns.min(TICK.after_ns))
}
