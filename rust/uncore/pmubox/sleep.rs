// SPDX-License-Identifier: GPL-2.0

//! What a box does around a system sleep. S3 resets the uncore (a syscore hook runs on the
//! boot CPU); suspend-to-idle keeps it, or not: a laptop's package may be power-gated, and
//! no syscore hook runs (the device PM `noirq` callbacks do). A counting period ends before
//! the sleep, so no lock-free read judges what the counter shows after it against a baseline
//! from before: once a sleep is longer than a counter's wrap time at its top rate, the boot
//! clock allows any backward step as a wrap, and a reset would count 2^44.

use super::{Cx, Note, PmuBox, Regs, MAX_BOX_EVENTS};
use crate::uncore::event::Target;
use crate::uncore::regs::{
    FixedCtrl, GlobalCtrl, MSR_UNC_PERF_FIXED_CTRL, MSR_UNC_PERF_GLOBAL_CTRL,
};
use crate::uncore::tally::{Handle, Source};

/// What a wake found of the registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// Reset (S3, hibernation): nothing counted for us while asleep.
    Lost,
    /// Kept, as far as the package's global enable tells (suspend-to-idle): each control is
    /// checked, and a counter whose control is intact counted on for its event. The fixed
    /// counter's control, shared by the boxes, was read once for all (`fixed_changed`): the
    /// first box that found it changed would write it again, and the next take the
    /// counter's reset for a wrap.
    Kept { fixed_changed: bool },
    /// The package's global enable was found cleared (suspend-to-idle that reset the uncore,
    /// or another tool): every MSR counter is judged as one whose control was changed.
    Cleared,
}

/// After suspend-to-idle, on a CPU of the package, before any box resumes: what the
/// package's global enable tells of its registers, and, if it was kept and the fixed counter
/// has users (`fixed_live`), its control. Each read (the global enable set again) once for
/// all its boxes, which share them: a box that found one changed and wrote it again would
/// leave the others to judge a reset counter as a wrap. With no MSR event live (`msr_live`
/// false) nothing needs them now, and the next event's start writes them again, as after S3.
pub(crate) fn after_s2idle(regs: &mut impl Regs, msr_live: bool, fixed_live: bool) -> Wake {
    if !msr_live {
        regs.global_lost();
        Wake::Kept {
            fixed_changed: false,
        }
    } else if regs.global_enable(true) == Ok(true) {
        Wake::Cleared
    } else {
        let want = FixedCtrl::DRIVER_VALUE.into_raw();
        Wake::Kept {
            fixed_changed: fixed_live
                && regs
                    .rdmsr(MSR_UNC_PERF_FIXED_CTRL)
                    .is_some_and(|v| v != want),
        }
    }
}

impl<H: Handle> PmuBox<H> {
    /// Between [`PmuBox::suspend`] and [`PmuBox::resume`]: the timer leaves the package's
    /// shared registers alone too (the wake judges the sleep by them).
    pub(crate) fn asleep(&self) -> bool {
        self.asleep
    }

    /// Opens slot `i`'s counting period on `src` from `base`, read no earlier than `at`. While
    /// asleep (perf schedules in suspend-to-idle: every CPU stays online, and its multiplexing
    /// timer rotates the box, after the wake too), paused: the registers may still be reset
    /// after this baseline, and no lock-free read may judge across that; [`PmuBox::resume`]
    /// folds it with the wake's evidence and opens the next.
    pub(super) fn open<R, O>(
        &self,
        cx: &mut Cx<'_, R, O>,
        i: usize,
        src: Source,
        base: u64,
        at: u64,
    ) {
        if self.asleep {
            cx.tallies.start_paused(i, src, base, at);
        } else {
            cx.tallies.start(i, src, base, at);
        }
    }

    /// Whether the fold of live slot `i`'s period must treat its step as suspect (see
    /// [`judge`]): while asleep, unless the package's global enable and the slot's control
    /// still hold what the driver wrote, as the wake checks them. Once a sleep is longer than
    /// the counter's wrap time at its top rate, only they tell a reset from a wrap. Called
    /// before the caller stops the counter (its control written 0). IMC counters: never
    /// (read-only, every step modular).
    ///
    /// [`judge`]: crate::uncore::tally::judge
    pub(super) fn asleep_suspect<R: Regs, O>(&self, cx: &mut Cx<'_, R, O>, i: usize) -> bool {
        let Some(s) = self.get(i).filter(|_| self.asleep) else {
            return false;
        };
        let (_, Some(ctl)) = self.source(&s) else {
            return false;
        };
        let en = GlobalCtrl::DRIVER_VALUE.into_raw();
        cx.regs
            .rdmsr(MSR_UNC_PERF_GLOBAL_CTRL)
            .is_none_or(|v| v & en != en)
            || cx.regs.rdmsr(ctl) != Some(Self::expected_control(s.target))
    }

    /// Before a sleep, on a CPU of the package: drops the records of departed events (their
    /// moves are over: only an event closed on its way leaves one), ends every live slot's
    /// counting period and folds its counts. Until [`PmuBox::resume`], reads return the
    /// count as folded here, and the timer's runs do nothing. What a fold found reset, once.
    pub(crate) fn suspend<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
    ) -> Option<Note> {
        self.drop_all_departed(cx);
        self.asleep = true;
        let mut note = None;
        for i in 0..MAX_BOX_EVENTS {
            let Some(src) = cx.tallies.source(i) else {
                continue;
            };
            cx.tallies.pause(i);
            if self.fold(cx, i, src, false).is_some_and(|f| f.reset) {
                note = note.or(Some(Note::Changed(src.addr())));
            }
        }
        note
    }

    /// Before a sleep, for a package none of whose CPUs is online (the hook cannot reach its
    /// registers): perf took every event off when its last CPU went (`del` folded each), so
    /// only the records of departed events are left. They are dropped without a register
    /// access (the sleep resets the counters they kept counting), their fixed-counter uses
    /// with them ([`Regs::fixed_lost`]). Returns the live events left: none, unless perf
    /// left one (then its counts since the last fold are lost, and the caller says so).
    pub(crate) fn suspend_unreachable<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>) -> u32 {
        let mut regs = Unreachable(&mut *cx.regs);
        let mut none = |_: H, _: u64| {};
        self.drop_all_departed(&mut Cx {
            tallies: cx.tallies,
            regs: &mut regs,
            out: &mut none,
        });
        self.live.msr + self.live.imc
    }

    /// After a sleep, on a CPU of the package, before anything else counts: every live slot
    /// starts its next counting period. After [`Wake::Lost`] its control is written again and
    /// the counter counts from what it shows; otherwise a slot whose control is intact folds
    /// what the counter counted in the sleep and goes on from there, and one whose control
    /// changed folds what it plausibly counted (see [`judge`]) and is programmed again.
    ///
    /// [`judge`]: crate::uncore::tally::judge
    pub(crate) fn resume<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        wake: Wake,
    ) -> Option<Note> {
        self.asleep = false;
        // Where a `del` in the sleep stopped a counter is no baseline after it (a reset).
        self.unpark();
        let mut note = None;
        for i in 0..MAX_BOX_EVENTS {
            let Some(s) = self.get(i).filter(|s| s.live) else {
                continue;
            };
            let (src, ctl) = self.source(&s);
            let want = Self::expected_control(s.target);
            // A slot perf added while asleep counts already: its period ends here too.
            cx.tallies.pause(i);
            // After suspend-to-idle the package set it again already (`after_s2idle`).
            if ctl.is_some() && wake == Wake::Lost {
                let _ = cx.regs.global_enable(false);
            }
            let changed = match (wake, ctl) {
                (Wake::Lost, _) => true,
                (_, None) => false,
                (Wake::Cleared, Some(_)) => true,
                (Wake::Kept { fixed_changed }, Some(_)) if s.target == Target::Fixed => {
                    fixed_changed
                }
                (Wake::Kept { .. }, Some(ctl)) => cx.regs.rdmsr(ctl).is_some_and(|v| v != want),
            };
            // No later than the fold's counter read: a stamp for its value.
            let folded_at = cx.regs.now_ns();
            if wake != Wake::Lost {
                let f = self.fold(cx, i, src, changed);
                if changed || f.is_some_and(|f| f.reset) {
                    note = note.or(Some(Note::Changed(ctl.unwrap_or(src.addr()))));
                }
            }
            if let Some(ctl) = ctl.filter(|_| changed) {
                let _ = cx.regs.wrmsr(ctl, want);
            }
            let (base, at) = if changed {
                let at = cx.regs.now_ns();
                (src.read(cx.regs), at)
            } else {
                // Nothing lost between the fold and here: the fold's value is the baseline.
                (None, folded_at)
            };
            let base = base.unwrap_or_else(|| cx.tallies.last_raw(i));
            cx.tallies.start(i, src, base, at);
        }
        note
    }
}

/// The registers of a package no CPU of which is online, about to be reset by a sleep:
/// nothing is reached.
struct Unreachable<'a, R>(&'a mut R);

impl<R: Regs> Regs for Unreachable<'_, R> {
    fn rdmsr(&mut self, _: u32) -> Option<u64> {
        None
    }
    fn wrmsr(&mut self, _: u32, _: u64) -> Result<(), super::Fault> {
        Ok(())
    }
    fn imc_read(&mut self, _: u32) -> Option<u32> {
        None
    }
    fn now_ns(&mut self) -> u64 {
        self.0.now_ns()
    }
    fn global_enable(&mut self, _: bool) -> Result<bool, super::Fault> {
        Ok(false)
    }
    fn global_lost(&mut self) {
        self.0.global_lost();
    }
    fn fixed_get(&mut self) -> Result<(), super::Fault> {
        Err(super::Fault(crate::uncore::regs::MSR_UNC_PERF_FIXED_CTRL))
    }
    fn fixed_put(&mut self) {
        self.0.fixed_lost();
    }
    fn fixed_lost(&mut self) {
        self.0.fixed_lost();
    }
}
