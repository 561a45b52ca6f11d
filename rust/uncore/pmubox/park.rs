// SPDX-License-Identifier: GPL-2.0

//! What a `del` inside a disabled section keeps, and events programmed by `add` itself.
//!
//! Perf takes every event of a context off and puts it back on each open, enable, close and
//! multiplex rotation. The `del` stops the counter and folds the event's count, final; the box
//! keeps where the counter stopped, so that the `add` that follows starts it again with one
//! write: the baseline is the value it stopped at (a stopped counter does not move). Three
//! accesses per event taken out and put back, where stopping and starting from scratch costs
//! four (Linux's), and nothing counts for nobody in between.

use super::{Cx, Fault, Note, Parked, PmuBox, Regs};
use crate::uncore::event::Target;
use crate::uncore::tally::Handle;

impl<H: Handle> PmuBox<H> {
    /// Whether a `del` left a stopped counter to take over.
    pub(super) fn any_parked(&self) -> bool {
        self.parked.iter().any(Option::is_some)
    }

    /// `del` of live slot `i` inside a disabled section: stops its counter, folds its last
    /// counts and keeps where a generic counter stopped, for an `add` to start it again.
    pub(super) fn park<R: Regs, O: FnMut(H, u64)>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) {
        let Some(s) = self.get(i) else {
            return;
        };
        let (Target::Generic(_), Some(c), (_, Some(ctl))) = (s.target, s.ctr, self.source(&s))
        else {
            if let Target::FreeRunning(_) = s.target {
                // An IMC counter counts on whatever the driver does: the event takes its count
                // up from where it stopped when perf puts it back within this section.
                self.leave(cx, i, false);
            } else {
                // The fixed counter is released as by `del`: held on for an event that may
                // never come back (a close), it would count for nobody until the section ends.
                self.hw_stop(cx, i);
            }
            return;
        };
        // Stopped first: nothing counts between this read and the add that starts it again.
        let stopped = cx.regs.wrmsr(ctl, 0).is_ok();
        let fold = cx
            .tallies
            .stop(i)
            .and_then(|src| self.fold(cx, i, src, false));
        if let Some(f) = fold.filter(|f| stopped && !f.reset) {
            self.parked[usize::from(c)] = Some(Parked {
                ctl: Self::expected_control(s.target),
                raw: f.raw,
            });
        }
        self.live.msr -= 1;
        self.edit(i, |s| s.live = false);
        self.dirty = true;
    }

    /// `add` of slot `i` to run: starts again a counter a `del` stopped for the same event, if
    /// any (one write; the baseline is where it stopped). Whether it did.
    pub(super) fn adopt<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) -> bool {
        let Some(s) = self.get(i) else {
            return false;
        };
        let Target::Generic(sel) = s.target else {
            return false;
        };
        let ctl = Self::expected_control(s.target);
        let allowed = self.allowed(sel.evt_sel());
        let Some((c, p)) = (0..self.parked.len()).find_map(|c| {
            let p = self.parked[c].filter(|p| p.ctl == ctl && allowed & (1 << c) != 0)?;
            Some((c, p))
        }) else {
            return false;
        };
        self.parked[c] = None;
        self.edit(i, |s| s.ctr = Some(c as u8));
        let Some(s) = self.get(i) else {
            return false;
        };
        let (src, Some(evtsel)) = self.source(&s) else {
            return false;
        };
        let at = cx.regs.now_ns();
        if cx.regs.wrmsr(evtsel, ctl).is_err() {
            // Proven before, refused now: the ordinary path finds the fault and says so.
            self.edit(i, |s| s.ctr = None);
            return false;
        }
        cx.tallies.start(i, src, p.raw, at);
        self.live.msr += 1;
        self.edit(i, |s| s.live = true);
        true
    }

    /// `enable`: forgets the stopped counters no `add` took over.
    pub(super) fn unpark(&mut self) {
        self.parked = [None; super::sched::MAX_COUNTERS];
    }

    /// `add` inside a disabled section: programs slot `i` now if the counter it gets is one
    /// nobody holds, so a fault is still an error perf sees. An event added stopped gets its
    /// counter's control register tried (written 0) the first time the box uses it. Otherwise
    /// (another event must move first) `enable` programs it.
    pub(super) fn program_early<R: Regs, O>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        i: usize,
    ) -> Result<(), Note> {
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
        if self.counter_held(c) {
            return Ok(());
        }
        // A counter a `del` stopped is free: the event it was stopped for did not come back.
        self.parked[usize::from(c)] = None;
        self.edit(i, |s| s.ctr = Some(c));
        if s.run {
            self.hw_start(cx, i)
        } else if self.proven & (1 << c) == 0 {
            let evtsel = self.evtsel(c);
            cx.regs.wrmsr(evtsel, 0).map_err(|Fault(a)| {
                self.faulted |= 1 << c;
                Note::Faulted(a)
            })?;
            self.proven |= 1 << c;
            Ok(())
        } else {
            Ok(())
        }
    }
}
