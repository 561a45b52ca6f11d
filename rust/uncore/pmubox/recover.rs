// SPDX-License-Identifier: GPL-2.0

//! What a box does when its registers were lost or changed behind its back: S3 resets the
//! uncore, and other tools (pcm, likwid in direct mode, `wrmsr`) write the same MSRs.

use super::{Changed, PmuBox, Regs, MAX_BOX_EVENTS};
use crate::uncore::regs::MSR_UNC_PERF_GLOBAL_CTRL;

impl<H: Copy + PartialEq> PmuBox<H> {
    /// A read(2): folds `ev`'s counts. For an MSR counter it also reads
    /// `MSR_UNC_PERF_GLOBAL_CTRL`, which a reset (S3) or another tool clears, and repairs the
    /// box when it is clear: two accesses. A counter another tool rewrote shows as a step
    /// larger than it can take (see `update`); a `PERFEVTSEL` rewritten to another event is
    /// the watchdog's to find, within a second.
    pub(crate) fn read(
        &mut self,
        r: &mut impl Regs,
        out: &mut impl FnMut(H, u64),
        ev: H,
    ) -> Option<Changed> {
        let i = self.find(ev).filter(|&i| self.slot(i).live)?;
        let s = *self.slot(i);
        if self.addrs(&s).1.is_some() && r.global_enable(true) {
            // Cleared: by a reset too, which took the control registers with it.
            let _ = self.check(r, out);
            return Some(Changed(MSR_UNC_PERF_GLOBAL_CTRL));
        }
        self.update(r, i, false, out)
    }

    /// The wrap poll: folds every live counter.
    pub(crate) fn poll(
        &mut self,
        r: &mut impl Regs,
        out: &mut impl FnMut(H, u64),
    ) -> Option<Changed> {
        let mut changed = None;
        for i in 0..MAX_BOX_EVENTS {
            if self.slots[i].is_some_and(|s| s.live) {
                changed = changed.or(self.update(r, i, false, out));
            }
        }
        changed
    }

    /// The watchdog: compares every live event's control register with what the driver
    /// wrote. Events whose register someone else changed keep what their counter plausibly
    /// counted up to now, are programmed again and re-based; the others keep counting
    /// untouched. Returns the first register found changed.
    pub(crate) fn check(
        &mut self,
        r: &mut impl Regs,
        out: &mut impl FnMut(H, u64),
    ) -> Option<Changed> {
        // First find every changed slot: the fixed counter's control is shared by its events.
        let mut changed = None;
        let mut bad = 0u32;
        for i in 0..MAX_BOX_EVENTS {
            let Some(s) = self.slots[i].filter(|s| s.live) else {
                continue;
            };
            if let (_, Some(ctl)) = self.addrs(&s) {
                if r.rdmsr(ctl) != Some(Self::expected_control(&s)) {
                    changed = changed.or(Some(Changed(ctl)));
                    bad |= 1 << i;
                }
            }
        }
        if bad != 0 {
            // The global enable may be gone too (a reset clears everything).
            r.global_enable(true);
        }
        for i in (0..MAX_BOX_EVENTS).filter(|i| bad & (1 << i) != 0) {
            let s = *self.slot(i);
            // Fold what the counter plausibly counted for us before the change.
            let _ = self.update(r, i, true, out);
            if let (_, Some(ctl)) = self.addrs(&s) {
                r.wrmsr(ctl, Self::expected_control(&s));
            }
            self.rebase(r, i);
        }
        changed
    }

    /// Takes a new baseline for slot `i`: its count continues from the counter's value now.
    fn rebase(&mut self, r: &mut impl Regs, i: usize) {
        let s = *self.slot(i);
        self.slot_mut(i).prev = self.read_counter(r, &s).unwrap_or(0);
    }

    /// Before the package loses its registers (suspend): folds every live counter.
    pub(crate) fn suspend(
        &mut self,
        r: &mut impl Regs,
        out: &mut impl FnMut(H, u64),
    ) -> Option<Changed> {
        self.poll(r, out)
    }

    /// After the package lost its registers (resume): programs every live event again and
    /// takes new baselines; the counts folded at `suspend` continue from there.
    pub(crate) fn resume(&mut self, r: &mut impl Regs) {
        for i in 0..MAX_BOX_EVENTS {
            let Some(s) = self.slots[i].filter(|s| s.live) else {
                continue;
            };
            if let (_, Some(ctl)) = self.addrs(&s) {
                r.global_enable(true);
                r.wrmsr(ctl, Self::expected_control(&s));
            }
            self.rebase(r, i);
        }
    }
}
