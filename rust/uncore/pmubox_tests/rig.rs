// SPDX-License-Identifier: GPL-2.0

//! The host tests' rig: a box, its tallies and a package over the simulator, as the engine
//! keeps them.

use super::super::event::Target;
use super::super::pmubox::sleep::{after_s2idle, Wake};
use super::super::pmubox::{AddError, Fault, Note, PmuBox, Regs};
use super::super::regs::{
    FixedCtrl, GlobalCtrl, PerfEvtSel, MSR_UNC_PERF_FIXED_CTRL, MSR_UNC_PERF_GLOBAL_CTRL,
};
use super::super::sim::{count::Rates, model::Stats, SimUncore};
use super::super::tally::{Pending, Tallies};
use super::super::units::{Unit, UnitKind};
use std::rc::Rc;

/// Something that runs on the package between two register accesses of the path it
/// interrupts: an NMI, or another CPU at that moment.
pub(super) struct Hook {
    /// Accesses still to come before it runs (it runs right after the last of them).
    left: u32,
    run: Box<dyn FnMut(&mut Pkg)>,
}

/// The package side of [`Regs`] over a simulated uncore, as the engine keeps it.
pub(super) struct Pkg {
    pub(super) sim: SimUncore,
    /// The simulator's clock, ns.
    pub(super) now: u64,
    pub(super) global_on: bool,
    pub(super) fixed_users: u32,
    /// A register whose writes fault (absent on the part).
    pub(super) absent: Option<u32>,
    /// Writes tried on `absent`.
    pub(super) absent_tries: u32,
    /// Time the driver's clock missed (ns): suspend-to-idle stops CLOCK_MONOTONIC while the
    /// uncore counts on.
    pub(super) clock_missed: u64,
    /// The global enable's write faulted: it is not tried again (as the engine's package).
    pub(super) global_faulted: bool,
    /// The fixed counter's enable faulted: it is not tried again.
    pub(super) fixed_faulted: bool,
    /// Runs after a register access to come, once.
    pub(super) hook: Option<Hook>,
    /// What reads the hooks made counted, per event.
    pub(super) nmi_counts: [u64; 32],
}

impl Pkg {
    pub(super) fn new() -> Self {
        Self {
            sim: SimUncore::new(4, true, Rates::default()),
            now: 1_000,
            global_on: false,
            fixed_users: 0,
            absent: None,
            absent_tries: 0,
            clock_missed: 0,
            global_faulted: false,
            fixed_faulted: false,
            hook: None,
            nmi_counts: [0; 32],
        }
    }

    /// Runs `f` right after the `after`-th register access from now (1: the next one).
    pub(super) fn after_access(&mut self, after: u32, f: impl FnMut(&mut Pkg) + 'static) {
        self.hook = Some(Hook {
            left: after.max(1),
            run: Box::new(f),
        });
    }

    /// One register access made: the hook, if its turn has come.
    fn accessed(&mut self) {
        let Some(h) = self.hook.as_mut() else {
            return;
        };
        h.left -= 1;
        if h.left == 0 {
            let mut h = self.hook.take().unwrap();
            (h.run)(self);
        }
    }

    /// `n` events, a burst of `n` UCLK cycles in the model: they take that long (at 1 GHz), or
    /// a step would be faster than any clock allows.
    pub(super) fn inject(&mut self, unit: UnitKind, box_idx: u32, event: u8, umask: u8, n: u64) {
        self.now += n.max(1_000);
        self.sim
            .inject(unit, box_idx, event, umask, n, self.now)
            .unwrap();
    }

    pub(super) fn stats(&self) -> Stats {
        self.sim.stats
    }

    /// MSR reads and writes since `s0`.
    pub(super) fn accesses_since(&self, s0: Stats) -> (u64, u64) {
        let s = self.stats();
        (s.rdmsr - s0.rdmsr, s.wrmsr - s0.wrmsr)
    }
}

impl Regs for Pkg {
    fn rdmsr(&mut self, msr: u32) -> Option<u64> {
        self.now += 10;
        let v = self.sim.rdmsr(msr, self.now).ok();
        self.accessed();
        v
    }
    fn wrmsr(&mut self, msr: u32, val: u64) -> Result<(), Fault> {
        self.now += 10;
        let res = if self.absent == Some(msr) {
            self.absent_tries += 1;
            Err(Fault(msr))
        } else {
            self.sim.wrmsr(msr, val, self.now).map_err(|_| Fault(msr))
        };
        self.accessed();
        res
    }
    fn imc_read(&mut self, offset: u32) -> Option<u32> {
        self.now += 10;
        let v = self.sim.mmio_read32(offset, self.now).ok();
        self.accessed();
        v
    }
    fn now_ns(&mut self) -> u64 {
        self.now - self.clock_missed
    }
    fn global_enable(&mut self, check: bool) -> Result<bool, Fault> {
        if self.global_faulted {
            return Err(Fault(MSR_UNC_PERF_GLOBAL_CTRL));
        }
        let en = GlobalCtrl::DRIVER_VALUE.into_raw();
        let cleared = if check {
            // A read that faults tells nothing.
            self.rdmsr(MSR_UNC_PERF_GLOBAL_CTRL)
                .is_some_and(|v| v != en)
        } else {
            !self.global_on
        };
        if cleared {
            self.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, en)
                .inspect_err(|_| self.global_faulted = true)?;
        }
        let was = self.global_on;
        self.global_on = true;
        Ok(was && cleared && check)
    }
    fn global_lost(&mut self) {
        self.global_on = false;
    }
    fn fixed_get(&mut self) -> Result<(), Fault> {
        if self.fixed_faulted {
            return Err(Fault(MSR_UNC_PERF_FIXED_CTRL));
        }
        self.fixed_users += 1;
        if self.fixed_users == 1 {
            let v = FixedCtrl::DRIVER_VALUE.into_raw();
            if let Err(f) = self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, v) {
                self.fixed_users -= 1;
                self.fixed_faulted = true;
                return Err(f);
            }
        }
        Ok(())
    }
    fn fixed_put(&mut self) {
        self.fixed_users -= 1;
        if self.fixed_users == 0 {
            let _ = self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, 0);
        }
    }
    fn fixed_lost(&mut self) {
        self.fixed_users -= 1;
    }
}

pub(super) fn generic(config: u64) -> Target {
    Target::Generic(PerfEvtSel::from_raw(config))
}

/// A box, its tallies, the package and the counts delivered per event handle. `added[e]`
/// says perf holds event `e` on the box: a count delivered to any other event is a bug.
pub(super) struct Rig {
    pub(super) p: Pkg,
    pub(super) b: PmuBox<usize>,
    pub(super) t: Rc<Tallies>,
    pub(super) counts: [u64; 32],
    pub(super) added: [bool; 32],
}

/// Runs a box operation with a [`Cx`] over the rig.
macro_rules! op {
    ($r:expr, |$b:ident, $cx:ident| $body:expr) => {{
        let r: &mut Rig = $r;
        let (counts, added) = (&mut r.counts, &r.added);
        let mut out = |ev: usize, d: u64| {
            assert!(
                added[ev],
                "a count of {d} reached event {ev} outside add..del"
            );
            counts[ev] += d;
        };
        let $cx = &mut crate::uncore::pmubox::Cx {
            tallies: &r.t,
            regs: &mut r.p,
            out: &mut out,
        };
        let $b = &mut r.b;
        $body
    }};
}

impl Rig {
    /// Box `box_idx` of `unit` with Table 2-1's generic counters (two).
    pub(super) fn new(unit: &'static Unit, box_idx: u32) -> Self {
        Self::with_counters(unit, box_idx, unit.nr_generic_listed)
    }

    /// Box `box_idx` of `unit` with `nr` generic counters, on a model that has as many.
    pub(super) fn with_counters(unit: &'static Unit, box_idx: u32, nr: u32) -> Self {
        let mut p = Pkg::new();
        p.sim.set_cbo_counters(nr);
        Self {
            p,
            b: PmuBox::new(unit, box_idx, nr),
            t: Rc::new(Tallies::new(unit.max_rate)),
            counts: [0; 32],
            added: [false; 32],
        }
    }

    pub(super) fn add(&mut self, ev: usize, target: Target, start: bool) -> Result<(), AddError> {
        self.added[ev] = true;
        let res = op!(self, |b, cx| b.add(cx, ev, target, start));
        self.added[ev] = res.is_ok();
        res
    }

    pub(super) fn del(&mut self, ev: usize) {
        op!(self, |b, cx| b.del(cx, ev));
        self.added[ev] = false;
    }

    /// Perf takes `ev` off the CPU going offline, to add it on another (in a disabled
    /// section, as perf's `event_sched_out` brackets it).
    pub(super) fn depart(&mut self, ev: usize) {
        self.b.disable();
        op!(self, |b, cx| b.depart(cx, ev));
        self.added[ev] = false;
        assert_eq!(self.enable(), None);
    }

    pub(super) fn start(&mut self, ev: usize) -> Option<Note> {
        op!(self, |b, cx| b.start(cx, ev))
    }

    pub(super) fn stop(&mut self, ev: usize) {
        op!(self, |b, cx| b.stop(cx, ev))
    }

    pub(super) fn enable(&mut self) -> Option<Note> {
        op!(self, |b, cx| b.enable(cx))
    }

    pub(super) fn check(&mut self) -> Option<Note> {
        op!(self, |b, cx| b.check(cx))
    }

    /// The package timer's run over this box: stops what departed events left counting; how
    /// many.
    pub(super) fn expire(&mut self) -> u32 {
        op!(self, |b, cx| b.expire_departed(cx, false))
    }

    pub(super) fn poll(&mut self) -> Option<Note> {
        op!(self, |b, cx| b.poll(cx))
    }

    /// The hook before a sleep, on a CPU of the package.
    pub(super) fn sleep(&mut self) -> Option<Note> {
        op!(self, |b, cx| b.suspend(cx))
    }

    /// The hook before a sleep, for a package none of whose CPUs is online: the live events
    /// left (the engine says so if any).
    pub(super) fn sleep_unreachable(&mut self) -> u32 {
        op!(self, |b, cx| b.suspend_unreachable(cx))
    }

    /// S3 for `ns`: the package's registers reset (its CPUs online again at the end).
    pub(super) fn s3(&mut self, ns: u64) {
        self.p.now += ns;
        self.p.sim.reset(self.p.now);
        // The engine forgets the global enable it wrote.
        self.p.global_lost();
    }

    /// The hook after S3, on the package's CPU.
    pub(super) fn wake_s3(&mut self) -> Option<Note> {
        op!(self, |b, cx| b.resume(cx, Wake::Lost))
    }

    /// The hook after suspend-to-idle, as the engine runs it on the package's CPU.
    pub(super) fn wake_s2idle(&mut self) -> Option<Note> {
        let fixed_live = self.p.fixed_users > 0;
        let wake = after_s2idle(&mut self.p, self.b.live().msr > 0, fixed_live);
        op!(self, |b, cx| b.resume(cx, wake))
    }

    /// A lock-free read(2), as the engine makes it.
    pub(super) fn read(&mut self, ev: usize) {
        if let Some(d) = self.t.read(ev, &mut self.p) {
            assert!(self.added[ev]);
            self.counts[ev] += d;
        }
    }

    /// An NMI that reads `ev` right after the `after`-th register access from now, whatever
    /// path that access is on (its count goes to `p.nmi_counts`).
    pub(super) fn nmi_after(&mut self, after: u32, ev: usize) {
        let t = self.t.clone();
        self.p.after_access(after, move |p| nmi_read(&t, p, ev));
    }

    /// What event `ev` counted, its NMI reads' included.
    pub(super) fn total(&self, ev: usize) -> u64 {
        self.counts[ev] + self.p.nmi_counts[ev]
    }

    /// A lock-free read of `ev` on another CPU: its first step, the loads.
    pub(super) fn reader(&self, ev: usize) -> Option<Reader> {
        self.t.read_begin(ev).map(|p| Reader { ev, p, got: None })
    }

    /// A reader's counter read, between its clock reads: one access. `false` if it faulted
    /// (the read is over).
    pub(super) fn fetch(&mut self, rd: &mut Reader) -> bool {
        let before = self.p.now_ns();
        let Some(now) = rd.p.source().read(&mut self.p) else {
            return false;
        };
        rd.got = Some((now, before, self.p.now_ns()));
        true
    }

    /// A reader's commit (after its counter read): whether the read is over; if not, it
    /// fetches again. What it folds goes to its event, held or not: perf's event outlives
    /// its `del`.
    pub(super) fn commit(&mut self, rd: &mut Reader) -> bool {
        let Some((now, before, after)) = rd.got.take() else {
            return !self.fetch(rd);
        };
        match self.t.read_end(rd.p, now, before, after) {
            Ok(f) => {
                self.counts[rd.ev] += f.delta;
                true
            }
            Err(Some(q)) => {
                rd.p = q;
                false
            }
            Err(None) => true,
        }
    }

    /// The rest of a read that `reader` began: counter reads and commits until it is over.
    pub(super) fn finish_read(&mut self, mut rd: Reader) {
        while self.fetch(&mut rd) && !self.commit(&mut rd) {}
    }
}

/// An NMI's read(2) of `ev` (perf's `perf_event_read_local` from a BPF program).
pub(super) fn nmi_read(t: &Tallies, p: &mut Pkg, ev: usize) {
    if let Some(d) = t.read(ev, p) {
        p.nmi_counts[ev] += d;
    }
}

/// A lock-free read under way on another CPU.
pub(super) struct Reader {
    pub(super) ev: usize,
    p: Pending,
    /// Its counter read and the clock around it, not committed yet.
    got: Option<(u64, u64, u64)>,
}
