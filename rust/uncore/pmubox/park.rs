// SPDX-License-Identifier: GPL-2.0

//! What a `del` inside a disabled section keeps, and events programmed by `add` itself.
//!
//! Perf takes every event of a context off and puts it back on each open, enable, close and
//! multiplex rotation. The `del` stops the counter and folds the event's count, final; the box
//! keeps where the counter stopped, so that whichever event `enable` starts on it next (the
//! same one put back, or another one a rotation brings in) starts it with one write: the
//! baseline is the value it stopped at (a stopped counter does not move). Three accesses per
//! event taken out and put back, where stopping and starting from scratch costs four
//! (Linux's), and nothing counts for nobody in between. Events added in the section start at
//! `enable`, once all are in: an over-committed ARB's rotation that brings an occupancy event
//! (counter 0 only) in after another event would otherwise start that one on counter 0 and
//! move it at once.

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
        let suspect = self.asleep_suspect(cx, i);
        // Stopped first: nothing counts between this read and the add that starts it again.
        let stopped = cx.regs.wrmsr(ctl, 0).is_ok();
        let fold = cx
            .tallies
            .stop(i)
            .and_then(|src| self.fold(cx, i, src, suspect));
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

    /// The end of a reconcile: forgets the stopped counters no event took over.
    pub(super) fn unpark(&mut self) {
        self.parked = [None; super::sched::MAX_COUNTERS];
    }

    /// `add` inside a disabled section: programs slot `i` now if the counter it gets is one
    /// nobody holds and no write to it has been tried yet, so a fault is still an error perf
    /// sees (an event added stopped gets the control register written 0). Otherwise `enable`
    /// programs it, once every event of the section is in: an event perf puts in after it may
    /// need its counter, and moving a counter just started costs two accesses more.
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
        if self.counter_held(c) || self.proven & (1 << c) != 0 {
            return Ok(());
        }
        self.edit(i, |s| s.ctr = Some(c));
        if s.run {
            self.hw_start(cx, i)
        } else {
            let evtsel = self.evtsel(c);
            cx.regs.wrmsr(evtsel, 0).map_err(|Fault(a)| {
                self.faulted |= 1 << c;
                Note::Faulted(a)
            })?;
            self.proven |= 1 << c;
            Ok(())
        }
    }
}
