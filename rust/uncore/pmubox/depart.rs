// SPDX-License-Identifier: GPL-2.0

//! A move between collectors: when the package's collector CPU goes offline, perf takes
//! every event off it (`del` there) and, after an RCU grace period, puts each back on another
//! CPU of the package (`add`). The counters are the package's and count on meanwhile: what
//! they count belongs to the events. So a `del` on a CPU going offline folds the event's
//! count, leaves its counter counting (a generic one programmed, the fixed one enabled, an
//! IMC one is free-running anyway) and keeps where the count stopped; the `add` of the same
//! event takes the same counter up from there, and the move's gap is counted. A departed
//! event that does not come back within [`MOVE_NS`] (it was closed on its way, or perf could
//! not schedule it where it went) has its counter stopped; so has one whose counter another
//! event takes first. Until then the record counts as live, so the package's timer runs and
//! stops that counter even if nothing else happens on the box.

use super::{Cx, PmuBox, Regs, MAX_BOX_EVENTS};
use crate::uncore::event::Target;
use crate::uncore::tally::{Handle, Source};

/// An event perf took off a CPU going offline, to add it on another CPU of the package: its
/// counter counts on for it until then.
#[derive(Clone, Copy, Debug)]
pub(super) struct Departed<H> {
    /// The event, matched by the whole handle, never by its key: the record outlives the
    /// event's `del`, and a closed event's address may name the next event opened (the
    /// engine's handle adds perf's `event->id`, which never repeats).
    ev: H,
    target: Target,
    /// Generic counter it left counting, if any.
    ctr: Option<u8>,
    /// Where its count stopped, and when (ns).
    raw: u64,
    at: u64,
    /// To another CPU (else back within this disabled section).
    moving: bool,
}

/// The longest move whose gap is counted, ns: perf's takes an RCU grace period. Within it
/// even an IMC counter at the top DRAM rate does not wrap (2^32 lines take 2.68 s).
pub(crate) const MOVE_NS: u64 = 2_000_000_000;

impl<H: Handle> PmuBox<H> {
    /// Perf takes `ev` off a CPU going offline, to add it on another CPU of the package: its
    /// count is folded, as by `del`, and its counter counts on for it until that `add`.
    pub(crate) fn depart<R: Regs, O: FnMut(H, u64)>(&mut self, cx: &mut Cx<'_, R, O>, ev: H) {
        let Some(i) = self.find(ev) else {
            return;
        };
        if !self.get(i).is_some_and(|s| s.live) {
            return self.del(cx, ev);
        }
        self.leave(cx, i, true);
        self.forget(cx, i);
    }

    /// Live slot `i` leaves its counter counting for its event, to be taken up by the event's
    /// next `add`: folds its count and keeps where it stopped. For a move (`moving`), or, for
    /// an IMC counter, a `del` inside a disabled section: perf puts the event back before the
    /// section ends, and the counter counted for it meanwhile. The record stays in `live`
    /// until taken up or dropped. If it cannot (no room, the counter unreadable) it stops the
    /// counter as `del` does.
    pub(super) fn leave<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        i: usize,
        moving: bool,
    ) {
        let Some(s) = self.get(i) else {
            return;
        };
        let k = self.departed.iter().position(Option::is_none);
        let suspect = self.asleep_suspect(cx, i);
        let at = cx.regs.now_ns();
        let fold = cx
            .tallies
            .stop(i)
            .and_then(|src| self.fold(cx, i, src, suspect));
        match (k, fold.filter(|f| !f.reset)) {
            (Some(k), Some(f)) => {
                self.departed[k] = Some(Departed {
                    ev: s.ev,
                    target: s.target,
                    ctr: s.ctr.filter(|_| matches!(s.target, Target::Generic(_))),
                    raw: f.raw,
                    at,
                    moving,
                });
            }
            // Its counter cannot carry the count: stopped, as by `del`.
            _ => self.hw_off(cx, i),
        }
        self.edit(i, |s| s.live = false);
    }

    /// `add` of slot `i`: if it is to run, takes up where its event's count stopped when it
    /// left its counter counting (a move, a reschedule), on the same counter, if that still
    /// counts for it. Whether it did.
    pub(super) fn arrive<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        i: usize,
    ) -> bool {
        let Some(s) = self.get(i) else {
            return false;
        };
        let Some(k) = self
            .departed
            .iter()
            .position(|d| d.is_some_and(|d| d.ev == s.ev && d.target == s.target))
        else {
            return false;
        };
        if !s.run {
            // Added stopped: the move is over, and a later start counts from then.
            self.drop_departed(cx, k);
            return false;
        }
        if let Target::Generic(sel) = s.target {
            let allowed = self.allowed(sel.evt_sel());
            let c = self.departed[k]
                .and_then(|d| d.ctr)
                .filter(|&c| allowed & (1 << c) != 0 && !self.counter_held(c));
            let Some(c) = c else {
                // Not the counter it may have now: stopped, and the event starts afresh.
                self.drop_departed(cx, k);
                return false;
            };
            self.parked[usize::from(c)] = None;
        }
        // The record's place in `live` passes to the slot.
        let Some(d) = self.departed[k].take() else {
            return false;
        };
        self.edit(i, |s| s.ctr = d.ctr);
        let Some(s) = self.get(i) else {
            return false;
        };
        let (src, _) = self.source(&s);
        self.open(cx, i, src, d.raw, d.at);
        self.edit(i, |s| s.live = true);
        if d.moving && matches!(src, Source::Imc(_)) {
            // The baseline is as old as the move (up to `MOVE_NS`), and the first poll may come
            // a timer period later: together more than an IMC counter's wrap at the top DRAM
            // rate (2 s + 1.006 s against 2.68 s). Folded now, the next poll judges a step of
            // one period. MSR counters wrap in 54.9 s at the least: their carry waits.
            self.fold(cx, i, src, false);
        }
        true
    }

    /// Another event's `hw_start` programs generic counter `c`: no departed event takes it
    /// up any more.
    pub(super) fn forget_departed_on(&mut self, c: u8) {
        for d in self.departed.iter_mut() {
            if d.is_some_and(|d| d.ctr == Some(c)) {
                *d = None;
                self.live.msr -= 1;
            }
        }
    }

    /// When the first record of an event on its way to another CPU is overdue (ns, the
    /// box's clock): the package's timer must run by then.
    pub(crate) fn departed_due(&self) -> Option<u64> {
        self.departed
            .iter()
            .flatten()
            .filter(|d| d.moving)
            .map(|d| d.at.saturating_add(MOVE_NS))
            .min()
    }

    /// Whether a departed event's counter still counts for it.
    pub(crate) fn any_departed(&self) -> bool {
        self.departed.iter().any(Option::is_some)
    }

    /// Stops the counters of departed events that did not come back within [`MOVE_NS`], and,
    /// at the end of a disabled section (`section_over`), of those that left for it only.
    /// The package's timer runs it too: a departed event may never come back (closed on its
    /// way), and nothing else may happen on the box. How many records it ended: each was
    /// live, and the timer takes them off its count.
    pub(crate) fn expire_departed<R: Regs, O>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        section_over: bool,
    ) -> u32 {
        if self.departed.iter().all(Option::is_none) {
            return 0;
        }
        let now = cx.regs.now_ns();
        let mut ended = 0;
        for k in 0..MAX_BOX_EVENTS {
            let Some(d) = self.departed[k] else {
                continue;
            };
            let over = if d.moving {
                now.saturating_sub(d.at) >= MOVE_NS
            } else {
                section_over
            };
            if over {
                self.drop_departed(cx, k);
                ended += 1;
            }
        }
        ended
    }

    /// At unload: stops the counter of every departed event, whenever it left.
    pub(crate) fn drop_all_departed<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>) {
        for k in 0..MAX_BOX_EVENTS {
            self.drop_departed(cx, k);
        }
    }

    /// Forgets departed record `k`, stopping the counter it kept counting.
    fn drop_departed<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>, k: usize) {
        let Some(d) = self.departed[k].take() else {
            return;
        };
        match (d.target, d.ctr) {
            (Target::Generic(_), c) => {
                // Never another event's: whoever took the counter dropped the record.
                if let Some(c) = c.filter(|&c| !self.counter_held(c)) {
                    let _ = cx.regs.wrmsr(self.evtsel(c), 0);
                }
                self.live.msr -= 1;
            }
            (Target::Fixed, _) => {
                cx.regs.fixed_put();
                self.live.msr -= 1;
            }
            (Target::FreeRunning(_), _) => self.live.imc -= 1,
        }
    }
}
