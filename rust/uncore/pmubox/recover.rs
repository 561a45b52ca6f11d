// SPDX-License-Identifier: GPL-2.0

//! What a box does when its registers were lost or changed behind its back: S3 resets the
//! uncore, and other tools (pcm, likwid in direct mode, `wrmsr`) write the same MSRs. Reads
//! cost one access and check nothing: the package timer runs [`PmuBox::check`] once a second
//! and [`PmuBox::poll`] before any counter can wrap.

use super::{Cx, Note, PmuBox, Regs, FIXED_BIT, MAX_BOX_EVENTS};
use crate::uncore::event::Target;
use crate::uncore::tally::{Handle, Source};

impl<H: Handle> PmuBox<H> {
    /// Whether the counters are due for their wrap poll at `now_ns`: a quarter of their
    /// shortest wrap time since the last one, less an eighth for a timer whose period is that
    /// interval (it fires a little after its expiry, the poll reads the clock a little later).
    pub(crate) fn poll_due(&self, now_ns: u64) -> bool {
        now_ns.saturating_sub(self.polled_at) >= self.unit.poll_ms * 1_000_000 / 8 * 7
    }

    /// The wrap poll: folds every live counter. IMC counters step modulo 2^32 (read-only:
    /// only a power transition resets them); an MSR counter that stepped further than its
    /// top rate allows since its last fold was reset, and is reported.
    pub(crate) fn poll<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
    ) -> Option<Note> {
        if self.asleep {
            return None;
        }
        self.polled_at = cx.regs.now_ns();
        let mut note = None;
        for i in 0..MAX_BOX_EVENTS {
            let Some(src) = cx.tallies.source(i) else {
                continue;
            };
            match self.fold(cx, i, src, false) {
                Some(f) if f.reset => note = note.or(Some(Note::Changed(src.addr()))),
                Some(_) => {}
                // A counter that stopped answering: its event keeps what it counted, and the
                // counter goes to no event again (the next `add` gets EIO). Said once.
                None => note = note.or(self.lost_counter(i, src)),
            }
        }
        note
    }

    /// The watchdog: compares every live event's control register with what the driver
    /// wrote. Events whose register someone else changed keep what their counter plausibly
    /// counted up to now, are programmed again and count on in a new counting period (from
    /// what their counter shows then); the others keep counting untouched. Returns the first
    /// register found changed, or reset by a read's judgement.
    pub(crate) fn check<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
    ) -> Option<Note> {
        if self.asleep {
            return None;
        }
        let mut note = None;
        // First find every changed slot: the fixed counter's control is shared by its events.
        let mut bad = 0u32;
        for i in 0..MAX_BOX_EVENTS {
            if let Some(a) = cx.tallies.take_reset_seen(i) {
                note = note.or(Some(Note::Changed(a)));
            }
            let Some(s) = self.get(i).filter(|s| s.live) else {
                continue;
            };
            let (_, Some(ctl)) = self.source(&s) else {
                continue;
            };
            let watch = match s.target {
                Target::Fixed => FIXED_BIT,
                _ => 1 << s.ctr.unwrap_or(0),
            };
            if self.unwatched & watch != 0 {
                continue;
            }
            match cx.regs.rdmsr(ctl) {
                // Not a change: nothing to repair, and no reason to read it every tick.
                None => {
                    self.unwatched |= watch;
                    note = note.or(Some(Note::Unwatched(ctl)));
                }
                Some(v) if v != Self::expected_control(s.target) => {
                    note = note.or(Some(Note::Changed(ctl)));
                    bad |= 1 << i;
                }
                Some(_) => {}
            }
        }
        if bad != 0 {
            // The global enable may be gone too (a reset clears everything).
            let _ = cx.regs.global_enable(true);
        }
        for i in (0..MAX_BOX_EVENTS).filter(|i| bad & (1 << i) != 0) {
            let Some(s) = self.get(i) else {
                continue;
            };
            let (src, ctl) = self.source(&s);
            // The period ends before the fold: a read racing with the repair commits into
            // neither this period (its value may be of the rewritten control) nor the next.
            cx.tallies.pause(i);
            // Fold what the counter plausibly counted for us before the change.
            self.fold(cx, i, src, true);
            if let Some(ctl) = ctl {
                let _ = cx.regs.wrmsr(ctl, Self::expected_control(s.target));
            }
            self.restart(cx, i, src);
        }
        note
    }

    /// Opens slot `i`'s next counting period on `src` from what the counter shows now (what
    /// it showed at the last fold if it cannot be read: the next poll finds the fault).
    pub(super) fn restart<R: Regs, O>(&self, cx: &mut Cx<'_, R, O>, i: usize, src: Source) {
        let at = cx.regs.now_ns();
        let base = src.read(cx.regs).unwrap_or_else(|| cx.tallies.last_raw(i));
        cx.tallies.start(i, src, base, at);
    }

    /// Slot `i`'s counter `src` faulted when the poll read it: marks it broken; the note the
    /// first time.
    fn lost_counter(&mut self, i: usize, src: Source) -> Option<Note> {
        let s = self.get(i)?;
        let (faulted, broken) = (self.faulted, self.broken);
        self.mark_broken(&s);
        (faulted != self.faulted || broken != self.broken).then_some(Note::Unreadable(src.addr()))
    }
}
