// SPDX-License-Identifier: GPL-2.0

//! One box (one PMU on one package): which events it holds, which counter each uses and what
//! is programmed.
//!
//! This is the driver's state machine, kept free of the kernel so the host tests drive it
//! against the simulator model. The engine wraps each [`PmuBox`] in a raw spinlock, so every
//! method here runs serialised; the counting state that reads reach without that lock is in
//! [`Tallies`], and register access goes through [`Regs`].
//!
//! Perf brackets scheduling with `pmu_disable`/`pmu_enable`, and every `del` there is final:
//! the counter stops, the event's last count is folded before `del` returns and the box
//! forgets it. What a `del` inside the bracket keeps is where the counter stopped (`parked`),
//! as the core PMU keeps an event's counter assignment (`x86_pmu_del`): the event started on
//! it next, the same one or another, starts it with one write and no read. An `add` programs
//! its event at once where it gets a counter nobody holds and no write has been tried on, so
//! that a register that faults is an error perf reports (`EIO`), not an event that counts
//! nothing; the others start at `enable`.
//!
//! # Invariants
//!
//! - An event has at most one slot, and its tally slot is the same index.
//! - `live` (by kind) equals the number of slots whose counter is programmed for them plus
//!   the departed records (counters counting on for an event on its way back), and a slot is
//!   live iff its tally has a source.
//! - Live generic slots hold distinct counters, each allowed by the unit's constraints, never
//!   a `faulted` one nor a `parked` one.

use super::event::Target;
use super::regs::{
    FixedCtrl, PerfCtr, PerfEvtSel, IMC_COUNTERS, MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL,
};
use super::sched;
use super::tally::{Fold, Handle, Source};
use super::units::Unit;
use depart::Departed;

mod api;
mod assign;
mod broken;
mod changed;
pub(crate) mod depart;
mod park;
mod recover;
pub(crate) mod sleep;
use broken::FIXED_BIT;

pub(crate) use api::{AddError, Cx, Fault, Note, Regs};

/// Most events one box holds at once (generic counters are far fewer; the shared fixed and
/// free-running counters take any number up to this). More are multiplexed by perf.
pub(crate) const MAX_BOX_EVENTS: usize = 16;

/// One event in the box.
#[derive(Clone, Copy, Debug)]
struct Slot<H> {
    ev: H,
    target: Target,
    /// Generic counter assigned, if any.
    ctr: Option<u8>,
    /// The counter is programmed and counting for this event.
    live: bool,
    /// Perf wants it counting (not `PERF_HES_STOPPED`).
    run: bool,
}

/// A generic counter a `del` (or a move) inside a disabled section stopped: the event `enable`
/// starts on it next starts it with one write, its baseline where it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parked {
    /// Its `PERFEVTSEL` value while it counted.
    ctl: u64,
    /// The counter's value when it stopped (it has not moved since).
    raw: u64,
}

/// Live events by kind of counter (departed ones included: their counters count): the MSR
/// ones need the package watchdog, the IMC ones only the wrap poll.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Live {
    /// Events on generic or fixed MSR counters.
    pub(crate) msr: u32,
    /// Events on IMC free-running counters.
    pub(crate) imc: u32,
}

/// One box's events. `H` names an event (the kernel's handle to a `struct perf_event`, or an
/// index in the host tests); counts are delivered through [`Cx::out`].
pub(crate) struct PmuBox<H: Handle> {
    unit: &'static Unit,
    box_idx: u32,
    /// Generic counters this part's box has (probed at load for a CBo).
    nr_generic: u32,
    slots: [Option<Slot<H>>; MAX_BOX_EVENTS],
    /// Generic counters a `del` inside a disabled section stopped, with what they were
    /// programmed for and where they stopped.
    parked: [Option<Parked>; sched::MAX_COUNTERS],
    /// Events on their way to another CPU, with where their counts stopped.
    departed: [Option<Departed<H>>; MAX_BOX_EVENTS],
    /// Generic counters whose control faulted when written or counter when read: never used
    /// again; the fixed and IMC counters likewise (`broken`), controls whose read faulted
    /// (`unwatched`: the watchdog no longer reads them). Bits: see [`broken`].
    faulted: u32,
    broken: u32,
    unwatched: u32,
    /// Generic counters whose `PERFEVTSEL` took a write.
    proven: u32,
    /// CPUs inside `pmu_disable` .. `pmu_enable`.
    disabled: u32,
    /// Added or started since the last reconcile: `enable` has work to do.
    dirty: bool,
    live: Live,
    /// When the counters were last polled (ns).
    polled_at: u64,
    /// Between `suspend` and `resume`: no counting period is open, the timer does nothing.
    asleep: bool,
}

impl<H: Handle> PmuBox<H> {
    /// An empty box `box_idx` of `unit`, with `nr_generic` generic counters (any beyond the
    /// unit's [`Unit::nr_generic`] are never allowed to an event).
    pub(crate) const fn new(unit: &'static Unit, box_idx: u32, nr_generic: u32) -> Self {
        Self {
            unit,
            box_idx,
            nr_generic,
            slots: [None; MAX_BOX_EVENTS],
            parked: [None; sched::MAX_COUNTERS],
            departed: [None; MAX_BOX_EVENTS],
            faulted: 0,
            broken: 0,
            unwatched: 0,
            proven: 0,
            disabled: 0,
            dirty: false,
            live: Live { msr: 0, imc: 0 },
            polled_at: 0,
            asleep: false,
        }
    }

    /// Live events by kind.
    pub(crate) fn live(&self) -> Live {
        self.live
    }

    /// Events held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Whether `ev` is in the box with its counter programmed.
    #[cfg(test)]
    pub(crate) fn is_live(&self, ev: H) -> bool {
        self.find(ev)
            .is_some_and(|i| self.slots[i].is_some_and(|s| s.live))
    }

    /// The generic counter `ev` holds, if any.
    #[cfg(test)]
    pub(crate) fn counter_of(&self, ev: H) -> Option<u8> {
        self.find(ev)
            .and_then(|i| self.slots[i].and_then(|s| s.ctr))
    }

    fn find(&self, ev: H) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.is_some_and(|s| s.ev == ev))
    }

    /// Slot `i`, copied out (`None` if free: callers pass occupied indices).
    fn get(&self, i: usize) -> Option<Slot<H>> {
        self.slots[i]
    }

    /// Runs `f` on slot `i` if it is occupied.
    fn edit(&mut self, i: usize, f: impl FnOnce(&mut Slot<H>)) {
        if let Some(s) = self.slots[i].as_mut() {
            f(s);
        }
    }

    /// The `PERFEVTSEL` of generic counter `c`.
    fn evtsel(&self, c: u8) -> u32 {
        PerfEvtSel::addr(self.unit, self.box_idx, u32::from(c))
    }

    /// The counter slot `s` counts on, and its control register if it has one.
    fn source(&self, s: &Slot<H>) -> (Source, Option<u32>) {
        match (s.target, s.ctr) {
            (Target::Generic(_), c) => {
                let c = u32::from(c.unwrap_or(0));
                (
                    Source::Generic(PerfCtr::addr(self.unit, self.box_idx, c)),
                    Some(PerfEvtSel::addr(self.unit, self.box_idx, c)),
                )
            }
            (Target::Fixed, _) => (
                Source::Fixed(MSR_UNC_PERF_FIXED_CTR),
                Some(MSR_UNC_PERF_FIXED_CTRL),
            ),
            (Target::FreeRunning(i), _) => {
                let offset = IMC_COUNTERS.get(usize::from(i)).map_or(0, |c| c.offset);
                (Source::Imc(offset), None)
            }
        }
    }

    /// What the control register of a live slot must hold.
    fn expected_control(target: Target) -> u64 {
        match target {
            Target::Generic(mut sel) => {
                sel.set_en(true);
                sel.into_raw()
            }
            Target::Fixed => FixedCtrl::DRIVER_VALUE.into_raw(),
            Target::FreeRunning(_) => 0,
        }
    }

    /// Folds slot `i`'s progress on `src` into its event's count; what the fold found (`None`
    /// if the counter could not be read).
    fn fold<R: Regs, O: FnMut(H, u64)>(
        &self,
        cx: &mut Cx<'_, R, O>,
        i: usize,
        src: Source,
        suspect: bool,
    ) -> Option<Fold> {
        let s = self.get(i)?;
        let f = cx.tallies.fold(i, src, cx.regs, suspect)?;
        if f.delta != 0 {
            (cx.out)(s.ev, f.delta);
        }
        Some(f)
    }

    /// Programs slot `i`'s counter and takes its baseline: it counts from now on. A fault (the
    /// counter's read, its control's write, the shared enables) fails it for good.
    fn hw_start<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) -> Result<(), Note> {
        let Some(s) = self.get(i) else {
            return Ok(());
        };
        let (src, ctl) = self.source(&s);
        if let (Target::Generic(_), Some(c)) = (s.target, s.ctr) {
            // Another event's now: what it counts is not a departed one's.
            self.forget_departed_on(c);
        }
        if !matches!(src, Source::Imc(_)) {
            cx.regs
                .global_enable(false)
                .map_err(|Fault(a)| Note::Faulted(a))?;
        }
        // Baseline first: a generic counter (the fixed one, for its first user) is stopped.
        // One a `del` stopped in this section has not moved since: its value is known.
        let at = cx.regs.now_ns();
        let parked = s.ctr.and_then(|c| self.parked[usize::from(c)].take());
        let base = match (src, parked) {
            (Source::Generic(_), Some(p)) => Some(p.raw),
            (Source::Imc(a), _) => cx.regs.imc_read(a).map(u64::from),
            (Source::Generic(a) | Source::Fixed(a), _) => cx.regs.rdmsr(a),
        };
        let Some(base) = base else {
            self.mark_broken(&s);
            return Err(Note::Unreadable(src.addr()));
        };
        match (s.target, ctl) {
            (Target::Generic(_), Some(ctl)) => {
                if cx
                    .regs
                    .wrmsr(ctl, Self::expected_control(s.target))
                    .is_err()
                {
                    self.mark_broken(&s);
                    return Err(Note::Faulted(ctl));
                }
                self.proven |= 1 << s.ctr.unwrap_or(0);
                self.live.msr += 1;
            }
            (Target::Fixed, _) => {
                cx.regs.fixed_get().map_err(|Fault(a)| {
                    self.broken |= FIXED_BIT;
                    Note::Faulted(a)
                })?;
                self.live.msr += 1;
            }
            _ => self.live.imc += 1,
        }
        self.open(cx, i, src, base, at);
        self.edit(i, |s| s.live = true);
        Ok(())
    }

    /// Stops slot `i`'s counter and folds its last counts.
    fn hw_stop<R: Regs, O: FnMut(H, u64)>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) {
        let suspect = self.asleep_suspect(cx, i);
        self.hw_off(cx, i);
        // Disabled first: nothing counts between this read and the counter's next user.
        if let Some(src) = cx.tallies.stop(i) {
            self.fold(cx, i, src, suspect);
        }
        self.edit(i, |s| s.live = false);
    }

    /// Stops live slot `i`'s counter (the fixed one: its use), and counts it out of `live`.
    fn hw_off<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) {
        let Some(s) = self.get(i) else {
            return;
        };
        match (s.target, self.source(&s).1) {
            (Target::Generic(_), Some(ctl)) => {
                // A fault here leaves a counter counting for nobody: harmless.
                let _ = cx.regs.wrmsr(ctl, 0);
                self.live.msr -= 1;
            }
            (Target::Fixed, _) => {
                cx.regs.fixed_put();
                self.live.msr -= 1;
            }
            _ => self.live.imc -= 1,
        }
    }

    /// Brings the hardware in line with the box: gives every generic event a counter (live
    /// ones stay where they are unless a constraint forces a move) and starts every event perf
    /// wants running, on a counter a `del` or a move stopped with one write. Only what changed
    /// touches a register; the stopped counters no event took stay stopped.
    fn reconcile<R: Regs, O: FnMut(H, u64)>(&mut self, cx: &mut Cx<'_, R, O>) -> Option<Note> {
        let note = self.assignment(None).and_then(|(who, ctrs, n)| {
            // Events perf stopped: stop, keeping the count.
            for i in 0..MAX_BOX_EVENTS {
                if self.slots[i].is_some_and(|s| s.live && !s.run) {
                    self.hw_stop(cx, i);
                }
            }
            for k in 0..n {
                let i = who[k];
                if self.get(i).is_some_and(|s| s.ctr != Some(ctrs[k])) {
                    if self.get(i).is_some_and(|s| s.live) {
                        self.park(cx, i);
                    }
                    self.edit(i, |s| s.ctr = Some(ctrs[k]));
                }
            }
            let mut note = None;
            for i in 0..MAX_BOX_EVENTS {
                if self.slots[i].is_some_and(|s| s.run && !s.live) {
                    if let Err(n) = self.hw_start(cx, i) {
                        note = note.or(Some(n));
                    }
                }
            }
            note
        });
        self.unpark();
        self.dirty = false;
        note
    }

    /// Perf schedules `ev` (on `target`) onto the box, running if `start`.
    pub(crate) fn add<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        ev: H,
        target: Target,
        start: bool,
    ) -> Result<(), AddError> {
        if self.find(ev).is_some() {
            return Err(AddError::Busy);
        }
        let free = self
            .slots
            .iter()
            .position(Option::is_none)
            .ok_or(AddError::Busy)?;
        if !self.can_count(target) {
            return Err(AddError::Faulted);
        }
        if self.assignment(Some(target)).is_none() {
            return Err(AddError::Busy);
        }
        self.slots[free] = Some(Slot {
            ev,
            target,
            ctr: None,
            live: false,
            run: start,
        });
        cx.tallies.claim(free, ev);
        self.dirty = true;
        self.expire_departed(cx, false);
        let res = if self.arrive(cx, free) {
            Ok(())
        } else if self.disabled == 0 {
            match self.reconcile(cx) {
                Some(n) if n.is_fault() && start && !self.slots[free].is_some_and(|s| s.live) => {
                    Err(n)
                }
                _ => Ok(()),
            }
        } else {
            self.program_early(cx, free)
        };
        res.map_err(|n| {
            // Refused: the box forgets the event.
            self.forget(cx, free);
            AddError::Fault(n)
        })
    }

    /// Perf takes `ev` off the box. Its last counts are folded before this returns; inside a
    /// disabled section its counter's programming is kept for an `add` of the same event.
    pub(crate) fn del<R: Regs, O: FnMut(H, u64)>(&mut self, cx: &mut Cx<'_, R, O>, ev: H) {
        let Some(i) = self.find(ev) else {
            return;
        };
        if self.get(i).is_some_and(|s| s.live) {
            if self.disabled > 0 {
                self.park(cx, i);
            } else {
                self.hw_stop(cx, i);
            }
        }
        self.forget(cx, i);
    }

    /// Frees slot `i` and its tally slot: the event is no longer the box's.
    fn forget<R: Regs, O>(&mut self, cx: &mut Cx<'_, R, O>, i: usize) {
        cx.tallies.release(i);
        self.slots[i] = None;
    }

    /// Perf (re)starts `ev`.
    pub(crate) fn start<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
        ev: H,
    ) -> Option<Note> {
        let i = self.find(ev)?;
        self.edit(i, |s| s.run = true);
        self.dirty = true;
        if self.disabled == 0 {
            self.reconcile(cx)
        } else {
            None
        }
    }

    /// Perf stops `ev`: its counter stops and its counts are folded.
    pub(crate) fn stop<R: Regs, O: FnMut(H, u64)>(&mut self, cx: &mut Cx<'_, R, O>, ev: H) {
        if let Some(i) = self.find(ev) {
            self.edit(i, |s| s.run = false);
            if self.get(i).is_some_and(|s| s.live) {
                self.hw_stop(cx, i);
            }
        }
    }

    /// A CPU of the package starts rescheduling this PMU.
    pub(crate) fn disable(&mut self) {
        self.disabled += 1;
    }

    /// That CPU is done: the last one out programs what changed.
    pub(crate) fn enable<R: Regs, O: FnMut(H, u64)>(
        &mut self,
        cx: &mut Cx<'_, R, O>,
    ) -> Option<Note> {
        self.disabled = self.disabled.saturating_sub(1);
        self.expire_departed(cx, self.disabled == 0);
        if self.disabled == 0 && (self.dirty || self.any_parked()) {
            self.reconcile(cx)
        } else {
            None
        }
    }
}
