// SPDX-License-Identifier: GPL-2.0

//! Counter programming that outlives a `del` inside a disabled section, and events programmed
//! by `add` itself.
//!
//! Perf takes every event of a context off and puts it back on each open, enable, close and
//! multiplex rotation. The count of each is final at its `del`; what the box keeps is the
//! counter's programming, so that the `add` that follows reads a new baseline (one access)
//! instead of stopping and programming the counter again (two writes).

use super::{Cx, Fault, PmuBox, Regs};
use crate::uncore::event::Target;
use crate::uncore::tally::Handle;

impl<H: Handle> PmuBox<H> {
    /// Whether a `del` left any counter programming behind.
    pub(super) fn any_parked(&self) -> bool {
        self.parked_fixed > 0 || self.parked.iter().any(Option::is_some)
    }

    /// `del` of live slot `i` inside a disabled section: folds its last counts and leaves its
    /// counter programmed (the fixed counter: its use) for an `add` to take over.
    pub(super) fn park<R: Regs, O: FnMut(H, u64)>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) {
        let Some(s) = self.get(i) else {
            return;
        };
        if let Target::FreeRunning(_) = s.target {
            // Free-running: there is nothing to keep.
            self.hw_stop(cx, i);
            return;
        }
        if let Some(src) = cx.tallies.stop(i) {
            self.fold(cx, i, src, false);
        }
        match (s.target, s.ctr) {
            (Target::Generic(_), Some(c)) => {
                self.parked[usize::from(c)] = Some(Self::expected_control(s.target));
            }
            _ => self.parked_fixed += 1,
        }
        self.live.msr -= 1;
        self.edit(i, |s| s.live = false);
        self.dirty = true;
    }

    /// `add` of slot `i` to run: takes over a counter a `del` left programmed the same way, if
    /// any (one read: the new baseline). Whether it did.
    pub(super) fn adopt<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) -> bool {
        let Some(s) = self.get(i) else {
            return false;
        };
        match s.target {
            Target::Generic(sel) => {
                let want = Some(Self::expected_control(s.target));
                let allowed = self.unit.allowed_counters(sel.evt_sel()) & !self.faulted;
                let Some(c) = (0..self.parked.len())
                    .find(|&c| allowed & (1 << c) != 0 && self.parked[c] == want)
                else {
                    return false;
                };
                self.parked[c] = None;
                self.edit(i, |s| s.ctr = Some(c as u8));
            }
            Target::Fixed if self.parked_fixed > 0 => self.parked_fixed -= 1,
            _ => return false,
        }
        let Some(s) = self.get(i) else {
            return false;
        };
        let src = self.source(&s).0;
        self.live.msr += 1;
        self.begin(cx, i, src);
        self.edit(i, |s| s.live = true);
        true
    }

    /// `enable`: stops the counters that no `add` took over.
    pub(super) fn unpark<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>) {
        for c in 0..self.parked.len() {
            if self.parked[c].take().is_some() {
                let _ = cx.regs.wrmsr(self.evtsel(c as u8), 0);
            }
        }
        while self.parked_fixed > 0 {
            self.parked_fixed -= 1;
            cx.regs.fixed_put();
        }
    }

    /// `add` inside a disabled section: programs slot `i` now if the counter it gets is one
    /// nobody holds, so a fault is still an error perf sees. An event added stopped gets its
    /// counter's control register tried (written 0) the first time the box uses it. Otherwise
    /// (another event must move first) `enable` programs it.
    pub(super) fn program_early<R: Regs, O>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        i: usize,
    ) -> Result<(), Fault> {
        let Some(s) = self.get(i) else {
            return Ok(());
        };
        let Target::Generic(_) = s.target else {
            // Shared counters: nothing of theirs faults that the box could avoid.
            return if s.run { self.hw_start(cx, i) } else { Ok(()) };
        };
        let Some((who, ctrs, n)) = self.assignment(None) else {
            return Ok(());
        };
        let Some(c) = (0..n).find(|&k| who[k] == i).map(|k| ctrs[k]) else {
            return Ok(());
        };
        let held = self
            .slots
            .iter()
            .flatten()
            .any(|o| o.live && o.ctr == Some(c));
        if held || self.parked[usize::from(c)].is_some() {
            return Ok(());
        }
        self.edit(i, |s| s.ctr = Some(c));
        if s.run {
            self.hw_start(cx, i)
        } else if self.proven & (1 << c) == 0 {
            let evtsel = self.evtsel(c);
            cx.regs
                .wrmsr(evtsel, 0)
                .inspect_err(|_| self.faulted |= 1 << c)?;
            self.proven |= 1 << c;
            Ok(())
        } else {
            Ok(())
        }
    }
}
