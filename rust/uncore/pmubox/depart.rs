// SPDX-License-Identifier: GPL-2.0

//! A move between collectors: when the package's collector CPU goes offline, perf takes
//! every event off it (`del` there) and, after an RCU grace period, puts each back on another
//! CPU of the package (`add`). The counters are the package's and count on meanwhile: what
//! they count belongs to the events. So a `del` on a CPU going offline folds the event's
//! count, leaves its counter counting (a generic one programmed, the fixed one enabled, an
//! IMC one is free-running anyway) and keeps where the count stopped; the `add` of the same
//! event takes the same counter up from there, and the move's gap is counted. A departed
//! event that does not come back within [`MOVE_NS`] (the package went offline, or the event
//! was closed) has its counter stopped; so has one whose counter another event takes first.

use super::{Cx, PmuBox, Regs, MAX_BOX_EVENTS};
use crate::uncore::event::Target;
use crate::uncore::tally::Handle;

/// An event perf took off a CPU going offline, to add it on another CPU of the package: its
/// counter counts on for it until then.
#[derive(Clone, Copy, Debug)]
pub(super) struct Departed<H> {
    ev: H,
    target: Target,
    /// Generic counter it left counting, if any.
    ctr: Option<u8>,
    /// Where its count stopped, and when (ns).
    raw: u64,
    at: u64,
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
        let Some(s) = self.get(i).filter(|s| s.live) else {
            return self.del(cx, ev);
        };
        let Some(k) = self.departed.iter().position(Option::is_none) else {
            return self.del(cx, ev);
        };
        let at = cx.regs.now_ns();
        let fold = cx
            .tallies
            .stop(i)
            .and_then(|src| self.fold(cx, i, src, false));
        match fold.filter(|f| !f.reset) {
            Some(f) => {
                self.departed[k] = Some(Departed {
                    ev,
                    target: s.target,
                    ctr: s.ctr.filter(|_| matches!(s.target, Target::Generic(_))),
                    raw: f.raw,
                    at,
                });
                match s.target {
                    Target::FreeRunning(_) => self.live.imc -= 1,
                    _ => self.live.msr -= 1,
                }
            }
            // Its counter cannot be trusted to carry the count: stopped, as by `del`.
            None => self.hw_off(cx, i),
        }
        self.edit(i, |s| s.live = false);
        cx.tallies.release(i);
        self.slots[i] = None;
    }

    /// `add` of slot `i` to run: takes up where its event's count stopped when it departed
    /// another CPU, on the same counter, if it is still counting for it. Whether it did.
    pub(super) fn arrive<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) -> bool {
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
        let Some(d) = self.departed[k].take() else {
            return false;
        };
        if let Some(c) = d.ctr {
            let Target::Generic(sel) = s.target else {
                return false;
            };
            let held = self
                .slots
                .iter()
                .flatten()
                .any(|o| o.live && o.ctr == Some(c));
            if held || self.allowed(sel.evt_sel()) & (1 << c) == 0 {
                // Not the counter it may have now: stopped, and the event starts afresh.
                let _ = cx.regs.wrmsr(self.evtsel(c), 0);
                return false;
            }
            self.parked[usize::from(c)] = None;
        }
        self.edit(i, |s| s.ctr = d.ctr);
        let Some(s) = self.get(i) else {
            return false;
        };
        let (src, _) = self.source(&s);
        cx.tallies.start(i, src, d.raw, d.at);
        match s.target {
            Target::FreeRunning(_) => self.live.imc += 1,
            _ => self.live.msr += 1,
        }
        self.edit(i, |s| s.live = true);
        true
    }

    /// Another event's `hw_start` programs generic counter `c`: no departed event takes it
    /// up any more.
    pub(super) fn forget_departed_on(&mut self, c: u8) {
        for d in self.departed.iter_mut() {
            if d.is_some_and(|d| d.ctr == Some(c)) {
                *d = None;
            }
        }
    }

    /// Stops the counters of departed events that did not come back within [`MOVE_NS`].
    pub(super) fn expire_departed<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>) {
        if self.departed.iter().all(Option::is_none) {
            return;
        }
        let now = cx.regs.now_ns();
        for k in 0..MAX_BOX_EVENTS {
            let Some(d) = self.departed[k] else {
                continue;
            };
            if now.saturating_sub(d.at) < MOVE_NS {
                continue;
            }
            self.departed[k] = None;
            match (d.target, d.ctr) {
                (Target::Generic(_), Some(c)) => {
                    // Never another event's: whoever took the counter dropped the record.
                    if !self.counter_held(c) {
                        let _ = cx.regs.wrmsr(self.evtsel(c), 0);
                    }
                }
                (Target::Fixed, _) => cx.regs.fixed_put(),
                _ => {}
            }
        }
    }
}
