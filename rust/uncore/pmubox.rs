// SPDX-License-Identifier: GPL-2.0

//! One box (one PMU on one package): which events it holds, which counter each uses, what is
//! programmed, and the counts folded so far.
//!
//! This is the driver's state machine, kept free of the kernel so the host tests drive it
//! against the simulator model. The engine wraps each [`PmuBox`] in a raw spinlock, so every
//! method here runs serialised; register access goes through [`Regs`].
//!
//! Perf brackets scheduling with `pmu_disable`/`pmu_enable`. While disabled, `del` only parks
//! an event (its counter keeps running) and `add` only checks that the events fit; the last
//! `enable` then touches just the counters whose assignment changed. An event perf takes out
//! and puts back (every other event's open, enable and close reschedules them all) costs no
//! register access, as in `arch/x86/events/core.c` for the core PMU.
//!
//! # Invariants
//!
//! - An event has at most one slot (`add` of an event already held is refused as a bug).
//! - `n_live` (by kind) equals the number of slots whose counter is programmed for them.
//! - Live generic slots hold distinct counters, each allowed by the unit's constraints.

use super::counter::delta;
use super::event::Target;
use super::regs::{
    FixedCtrl, PerfCtr, PerfEvtSel, FIXED_CTR_WIDTH, IMC_COUNTERS, IMC_CTR_WIDTH,
    MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL, PERFCTR_WIDTH,
};
use super::sched::{self, Request};
use super::units::Unit;

mod changed;
mod recover;

/// Most events one box holds at once (generic counters are far fewer; the shared fixed and
/// free-running counters take any number up to this). More are multiplexed by perf.
pub(crate) const MAX_BOX_EVENTS: usize = 16;

/// Register access for a box, and the package-wide controls it shares with other boxes.
pub(crate) trait Regs {
    /// RDMSR; `None` if it faulted.
    fn rdmsr(&mut self, msr: u32) -> Option<u64>;
    /// WRMSR; a fault is ignored (the next check finds the register wrong and says so).
    fn wrmsr(&mut self, msr: u32, val: u64);
    /// 32-bit read of the IMC counter at MCHBAR + `offset`.
    fn imc_read(&mut self, offset: u32) -> Option<u32>;
    /// Makes sure `MSR_UNC_PERF_GLOBAL_CTRL.EN` is set; `check` reads it first, else it is
    /// only written when the package has not been enabled yet. Returns `true` if it had to be
    /// set again after someone cleared it.
    fn global_enable(&mut self, check: bool) -> bool;
    /// One more user of the package's fixed counter: the first enables it.
    fn fixed_get(&mut self);
    /// One user less: the last disables it.
    fn fixed_put(&mut self);
}

/// A register found changed by someone else: its address (an MSR, or the MCHBAR offset of an
/// IMC counter that went backwards), for the one log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Changed(pub(crate) u32);

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
    /// Deleted while disabled, counter still running: stopped at `enable` unless added back.
    parked: bool,
    /// Last raw counter value folded into the count.
    prev: u64,
}

/// Live events by kind of counter: the MSR ones need the package watchdog, the IMC ones only
/// the wrap poll.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Live {
    /// Events on generic or fixed MSR counters.
    pub(crate) msr: u32,
    /// Events on IMC free-running counters.
    pub(crate) imc: u32,
}

/// Why `add` refused an event; perf multiplexes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Busy;

/// One box's events. `H` names an event (the kernel's handle to a `struct perf_event`, or an
/// index in the host tests); counts are delivered through the `out` callbacks.
pub(crate) struct PmuBox<H: Copy + PartialEq> {
    unit: &'static Unit,
    box_idx: u32,
    slots: [Option<Slot<H>>; MAX_BOX_EVENTS],
    /// CPUs inside `pmu_disable` .. `pmu_enable` (events of a package may sit on any of its
    /// CPUs, each with its own perf context).
    disabled: u32,
    /// Added or started since the last reconcile: `enable` has work to do.
    dirty: bool,
    live: Live,
}

/// Width of the counter behind `target`.
const fn width_of(target: Target) -> u32 {
    match target {
        Target::Generic(_) => PERFCTR_WIDTH,
        Target::Fixed => FIXED_CTR_WIDTH,
        Target::FreeRunning(_) => IMC_CTR_WIDTH,
    }
}

impl<H: Copy + PartialEq> PmuBox<H> {
    /// An empty box `box_idx` of `unit`.
    pub(crate) const fn new(unit: &'static Unit, box_idx: u32) -> Self {
        Self {
            unit,
            box_idx,
            slots: [None; MAX_BOX_EVENTS],
            disabled: 0,
            dirty: false,
            live: Live { msr: 0, imc: 0 },
        }
    }

    /// Live events by kind.
    pub(crate) fn live(&self) -> Live {
        self.live
    }

    /// Events held, parked ones included.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Whether `ev` is in the box with its counter programmed.
    #[cfg(test)]
    pub(crate) fn is_live(&self, ev: H) -> bool {
        self.find(ev).is_some_and(|i| self.slot(i).live)
    }

    /// The generic counter `ev` holds, if any.
    #[cfg(test)]
    pub(crate) fn counter_of(&self, ev: H) -> Option<u8> {
        self.find(ev).and_then(|i| self.slot(i).ctr)
    }

    fn find(&self, ev: H) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.is_some_and(|s| s.ev == ev))
    }

    fn slot(&self, i: usize) -> &Slot<H> {
        // Callers pass indices of occupied slots only.
        self.slots[i].as_ref().expect("occupied slot")
    }

    fn slot_mut(&mut self, i: usize) -> &mut Slot<H> {
        self.slots[i].as_mut().expect("occupied slot")
    }

    /// Counter and control register addresses of slot `s`.
    fn addrs(&self, s: &Slot<H>) -> (u32, Option<u32>) {
        match (s.target, s.ctr) {
            (Target::Generic(_), Some(c)) => (
                PerfCtr::addr(self.unit, self.box_idx, u32::from(c)),
                Some(PerfEvtSel::addr(self.unit, self.box_idx, u32::from(c))),
            ),
            (Target::Generic(_), None) => (0, None),
            (Target::Fixed, _) => (MSR_UNC_PERF_FIXED_CTR, Some(MSR_UNC_PERF_FIXED_CTRL)),
            (Target::FreeRunning(i), _) => (IMC_COUNTERS[usize::from(i)].offset, None),
        }
    }

    /// What the control register of a live slot must hold.
    fn expected_control(s: &Slot<H>) -> u64 {
        match s.target {
            Target::Generic(mut sel) => {
                sel.set_en(true);
                sel.into_raw()
            }
            Target::Fixed => FixedCtrl::DRIVER_VALUE.into_raw(),
            Target::FreeRunning(_) => 0,
        }
    }

    fn read_counter(&self, r: &mut impl Regs, s: &Slot<H>) -> Option<u64> {
        let (ctr, _) = self.addrs(s);
        match s.target {
            Target::FreeRunning(_) => r.imc_read(ctr).map(u64::from),
            _ => r.rdmsr(ctr),
        }
    }

    /// Folds slot `i`'s progress since its last read into its count.
    ///
    /// The poll interval is half a counter's wrap time at its highest rate, so between two
    /// reads it advances by less than half its range: a larger step means it was reset or
    /// rewritten, not wrapped. So does one that went backwards while `suspect` (its control
    /// register was found changed). Either is re-based and reported, counting what it shows
    /// if that is plausible (a reset counter restarts from zero).
    fn update(
        &mut self,
        r: &mut impl Regs,
        i: usize,
        suspect: bool,
        out: &mut impl FnMut(H, u64),
    ) -> Option<Changed> {
        let s = *self.slot(i);
        let now = self.read_counter(r, &s)?;
        let bound = 1u64 << (width_of(s.target) - 1);
        let d = delta(s.prev, now, width_of(s.target));
        let (d, changed) = if d > bound || (suspect && now < s.prev) {
            let since_reset = if now <= bound { now } else { 0 };
            (since_reset, Some(Changed(self.addrs(&s).0)))
        } else {
            (d, None)
        };
        self.slot_mut(i).prev = now;
        if d != 0 {
            out(s.ev, d);
        }
        changed
    }

    /// Programs slot `i`'s counter and takes its baseline: it counts from now on.
    fn hw_start(&mut self, r: &mut impl Regs, i: usize) {
        let s = *self.slot(i);
        // Baseline first: a generic counter does not move until enabled.
        let prev = self.read_counter(r, &s).unwrap_or(0);
        match s.target {
            Target::Generic(_) => {
                r.global_enable(false);
                if let (_, Some(ctl)) = self.addrs(&s) {
                    r.wrmsr(ctl, Self::expected_control(&s));
                }
                self.live.msr += 1;
            }
            Target::Fixed => {
                r.global_enable(false);
                r.fixed_get();
                self.live.msr += 1;
            }
            Target::FreeRunning(_) => self.live.imc += 1,
        }
        let slot = self.slot_mut(i);
        slot.prev = prev;
        slot.live = true;
    }

    /// Stops slot `i`'s counter and folds its last counts.
    fn hw_stop(&mut self, r: &mut impl Regs, i: usize, out: &mut impl FnMut(H, u64)) {
        let s = *self.slot(i);
        match s.target {
            Target::Generic(_) => {
                if let (_, Some(ctl)) = self.addrs(&s) {
                    r.wrmsr(ctl, 0);
                }
                self.live.msr -= 1;
            }
            Target::Fixed => {
                r.fixed_put();
                self.live.msr -= 1;
            }
            Target::FreeRunning(_) => self.live.imc -= 1,
        }
        // Disabled first: nothing counts between this read and the counter's next user.
        let _ = self.update(r, i, false, out);
        self.slot_mut(i).live = false;
    }

    /// The scheduler's request for an event on `target`.
    fn request(&self, target: Target, current: Option<u8>) -> Option<Request> {
        match target {
            Target::Generic(sel) => Some(Request {
                allowed: self.unit.allowed_counters(sel.evt_sel()),
                current,
            }),
            _ => None,
        }
    }

    /// Assigns counters to the held (not parked) generic slots, plus one more event on
    /// `extra` if given; `None` if they do not fit. Returns the slot indices (`usize::MAX` for
    /// `extra`), their counters and how many there are. Live slots keep their counter where
    /// the constraints allow.
    fn assignment(
        &self,
        extra: Option<Target>,
    ) -> Option<(
        [usize; sched::MAX_COUNTERS],
        [u8; sched::MAX_COUNTERS],
        usize,
    )> {
        let mut reqs = [Request {
            allowed: 0,
            current: None,
        }; sched::MAX_COUNTERS];
        let mut who = [usize::MAX; sched::MAX_COUNTERS];
        let mut n = 0;
        let held = self.slots.iter().enumerate().filter_map(|(i, s)| {
            let s = s.filter(|s| !s.parked)?;
            let req = self.request(s.target, if s.live { s.ctr } else { None })?;
            Some((i, req))
        });
        let extra = extra
            .and_then(|t| self.request(t, None))
            .map(|r| (usize::MAX, r));
        for (i, req) in held.chain(extra) {
            if n == reqs.len() {
                return None;
            }
            reqs[n] = req;
            who[n] = i;
            n += 1;
        }
        let mut out = [0u8; sched::MAX_COUNTERS];
        sched::assign(&reqs[..n], self.unit.nr_generic as usize, &mut out[..n])
            .then_some((who, out, n))
    }

    /// Whether an event on `target` fits beside the events held (fixed and free-running
    /// counters are shared: always).
    fn fits(&self, target: Target) -> bool {
        self.assignment(Some(target)).is_some()
    }

    /// Brings the hardware in line with the box: stops parked events, gives every generic
    /// event a counter (live ones stay where they are unless a constraint forces a move) and
    /// starts every event perf wants running. Only what changed touches a register.
    fn reconcile(&mut self, r: &mut impl Regs, out: &mut impl FnMut(H, u64)) {
        self.dirty = false;
        for i in 0..MAX_BOX_EVENTS {
            if self.slots[i].is_some_and(|s| s.parked) {
                if self.slot(i).live {
                    self.hw_stop(r, i, out);
                }
                self.slots[i] = None;
            }
        }
        // `add` admits only events that fit, so an assignment exists.
        let Some((who, ctrs, n)) = self.assignment(None) else {
            return;
        };
        // Events perf stopped: stop, keeping the count.
        for i in 0..MAX_BOX_EVENTS {
            if self.slots[i].is_some_and(|s| s.live && !s.run) {
                self.hw_stop(r, i, out);
            }
        }
        for k in 0..n {
            let i = who[k];
            if self.slot(i).ctr != Some(ctrs[k]) {
                if self.slot(i).live {
                    self.hw_stop(r, i, out);
                }
                self.slot_mut(i).ctr = Some(ctrs[k]);
            }
        }
        for i in 0..MAX_BOX_EVENTS {
            if self.slots[i].is_some_and(|s| s.run && !s.live) {
                self.hw_start(r, i);
            }
        }
    }

    /// Perf schedules `ev` (on `target`) onto the box, running if `start`.
    pub(crate) fn add(
        &mut self,
        r: &mut impl Regs,
        out: &mut impl FnMut(H, u64),
        ev: H,
        target: Target,
        start: bool,
    ) -> Result<(), Busy> {
        if let Some(i) = self.find(ev) {
            if !self.slot(i).parked {
                return Err(Busy);
            }
            // A parked event comes back with its counter still running, if it still fits
            // beside the events added since.
            self.slot_mut(i).parked = false;
            if self.assignment(None).is_none() {
                self.slot_mut(i).parked = true;
                return Err(Busy);
            }
            self.slot_mut(i).run = start;
        } else {
            let free = self.slots.iter().position(Option::is_none).ok_or(Busy)?;
            if !self.fits(target) {
                return Err(Busy);
            }
            self.slots[free] = Some(Slot {
                ev,
                target,
                ctr: None,
                live: false,
                run: start,
                parked: false,
                prev: 0,
            });
        }
        self.dirty = true;
        if self.disabled == 0 {
            self.reconcile(r, out);
        }
        Ok(())
    }

    /// Perf takes `ev` off the box; its last counts are folded (now, or at `enable`).
    pub(crate) fn del(&mut self, r: &mut impl Regs, out: &mut impl FnMut(H, u64), ev: H) {
        let Some(i) = self.find(ev) else {
            return;
        };
        if !self.slot(i).live {
            self.slots[i] = None;
        } else if self.disabled > 0 {
            let s = self.slot_mut(i);
            s.parked = true;
            s.run = false;
        } else {
            self.hw_stop(r, i, out);
            self.slots[i] = None;
        }
    }

    /// Perf (re)starts `ev`.
    pub(crate) fn start(&mut self, r: &mut impl Regs, out: &mut impl FnMut(H, u64), ev: H) {
        if let Some(i) = self.find(ev) {
            self.slot_mut(i).run = true;
            self.dirty = true;
            if self.disabled == 0 {
                self.reconcile(r, out);
            }
        }
    }

    /// Perf stops `ev`: its counter stops and its counts are folded.
    pub(crate) fn stop(&mut self, r: &mut impl Regs, out: &mut impl FnMut(H, u64), ev: H) {
        if let Some(i) = self.find(ev) {
            self.slot_mut(i).run = false;
            if self.slot(i).live {
                self.hw_stop(r, i, out);
            }
        }
    }

    /// A CPU of the package starts rescheduling this PMU.
    pub(crate) fn disable(&mut self) {
        self.disabled += 1;
    }

    /// That CPU is done: the last one out programs what changed.
    pub(crate) fn enable(&mut self, r: &mut impl Regs, out: &mut impl FnMut(H, u64)) {
        self.disabled = self.disabled.saturating_sub(1);
        if self.disabled == 0 && (self.dirty || self.slots.iter().flatten().any(|s| s.parked)) {
            self.reconcile(r, out);
        }
    }
}
