// SPDX-License-Identifier: GPL-2.0

//! What a box is given and what it answers: register access, the context of each call, and
//! the outcomes perf and the log see.

use crate::uncore::tally::Tallies;

/// Register access for a box, and the package-wide controls it shares with other boxes.
pub(crate) trait Regs {
    /// RDMSR; `None` if it faulted.
    fn rdmsr(&mut self, msr: u32) -> Option<u64>;
    /// WRMSR.
    fn wrmsr(&mut self, msr: u32, val: u64) -> Result<(), Fault>;
    /// 32-bit read of the IMC counter at MCHBAR + `offset`.
    fn imc_read(&mut self, offset: u32) -> Option<u32>;
    /// A monotonic clock in ns, readable in any context (NMI included).
    fn now_ns(&mut self) -> u64;
    /// Makes sure `MSR_UNC_PERF_GLOBAL_CTRL.EN` is set; `check` reads it first (a read that
    /// faults tells nothing and writes nothing), else it is only written when the package has
    /// not been enabled yet. Returns `true` if it had to be set again after someone cleared
    /// it; the fault if the write faulted, now or before (then it is not tried again).
    fn global_enable(&mut self, check: bool) -> Result<bool, Fault>;
    /// The global enable may have been reset behind the driver's back (a sleep) while no
    /// MSR event counted: the next `global_enable(false)` writes it again.
    fn global_lost(&mut self);
    /// One more user of the package's fixed counter: the first enables it. On a fault (now,
    /// or before: then it is not tried again) the caller is not a user.
    fn fixed_get(&mut self) -> Result<(), Fault>;
    /// One user less: the last disables it.
    fn fixed_put(&mut self);
    /// One user less, whose use a sleep ended (the package's registers are being reset and
    /// cannot be reached): nothing is written.
    fn fixed_lost(&mut self);
}

/// A register write that faulted: the register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fault(pub(crate) u32);

/// Something a box operation found that deserves the one log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Note {
    /// A register found reset or changed by someone else (an MSR, or the MCHBAR offset of an
    /// IMC counter), and repaired.
    Changed(u32),
    /// A register that faulted when written: its counter is not used again.
    Faulted(u32),
    /// A counter whose read faulted: it is not used again.
    Unreadable(u32),
    /// A control register whose read faulted: its counter counts, but a change by someone
    /// else is not seen; it is not read again.
    Unwatched(u32),
}

impl Note {
    /// The register the note names.
    pub(crate) const fn addr(self) -> u32 {
        match self {
            Self::Changed(a) | Self::Faulted(a) | Self::Unreadable(a) | Self::Unwatched(a) => a,
        }
    }

    /// Whether it reports a fault: said once per register, not rate-limited.
    pub(crate) const fn is_fault(self) -> bool {
        !matches!(self, Self::Changed(_))
    }
}

/// Why `add` refused an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddError {
    /// No counter free now: perf multiplexes it.
    Busy,
    /// A register its counter needs faulted, just now (for the one log line).
    Fault(Note),
    /// Every counter it may use faulted before: it can never count here.
    Faulted,
}

/// What a box works with besides itself: its lock-free tallies, the registers, and where folded
/// counts go.
pub(crate) struct Cx<'a, R, O> {
    /// The box's lock-free counting state.
    pub(crate) tallies: &'a Tallies,
    /// The package's registers.
    pub(crate) regs: &'a mut R,
    /// Receives each folded count, with its event.
    pub(crate) out: &'a mut O,
}
