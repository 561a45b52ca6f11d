// SPDX-License-Identifier: GPL-2.0

//! Host tests of [`PmuBox`] against the simulator model: exact counts, the register accesses
//! each operation makes, constraints, and recovery from resets and foreign writes.

use proptest::prelude::*;

use super::event::Target;
use super::pmubox::{Changed, PmuBox, Regs, MAX_BOX_EVENTS};
use super::regs::{FixedCtrl, GlobalCtrl, PerfEvtSel, MSR_UNC_PERF_GLOBAL_CTRL};
use super::sim::{count::Rates, model::Stats, SimUncore};
use super::units::{Unit, UnitKind, ARB, CBOX, CLOCK, IMC};

/// The package side of [`Regs`] over a simulated uncore, as the engine keeps it.
struct Pkg {
    sim: SimUncore,
    now: u64,
    global_on: bool,
    fixed_users: u32,
}

impl Pkg {
    fn new() -> Self {
        Self {
            sim: SimUncore::new(4, true, Rates::default()),
            now: 1_000,
            global_on: false,
            fixed_users: 0,
        }
    }

    fn inject(&mut self, unit: UnitKind, box_idx: u32, event: u8, umask: u8, n: u64) {
        self.now += 1_000;
        self.sim
            .inject(unit, box_idx, event, umask, n, self.now)
            .unwrap();
    }

    fn stats(&self) -> Stats {
        self.sim.stats
    }
}

impl Regs for Pkg {
    fn rdmsr(&mut self, msr: u32) -> Option<u64> {
        self.now += 10;
        self.sim.rdmsr(msr, self.now).ok()
    }
    fn wrmsr(&mut self, msr: u32, val: u64) {
        self.now += 10;
        let _ = self.sim.wrmsr(msr, val, self.now);
    }
    fn imc_read(&mut self, offset: u32) -> Option<u32> {
        self.now += 10;
        self.sim.mmio_read32(offset, self.now).ok()
    }
    fn global_enable(&mut self, check: bool) -> bool {
        let en = GlobalCtrl::DRIVER_VALUE.into_raw();
        if check {
            let ok = self.rdmsr(MSR_UNC_PERF_GLOBAL_CTRL) == Some(en);
            if !ok {
                self.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, en);
            }
            self.global_on = true;
            return !ok;
        }
        if !self.global_on {
            self.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, en);
            self.global_on = true;
        }
        false
    }
    fn fixed_get(&mut self) {
        self.fixed_users += 1;
        if self.fixed_users == 1 {
            let v = FixedCtrl::DRIVER_VALUE.into_raw();
            self.wrmsr(0x394, v);
        }
    }
    fn fixed_put(&mut self) {
        self.fixed_users -= 1;
        if self.fixed_users == 0 {
            self.wrmsr(0x394, 0);
        }
    }
}

fn generic(config: u64) -> Target {
    Target::Generic(PerfEvtSel::from_raw(config))
}

/// Counts delivered per event handle.
#[derive(Default)]
struct Counts([u64; 32]);

impl Counts {
    fn sink(&mut self) -> impl FnMut(usize, u64) + '_ {
        |ev, d| self.0[ev] += d
    }
}

#[test]
fn add_start_read_del_accesses_and_count() {
    let mut p = Pkg::new();
    let mut c = Counts::default();
    let mut b = PmuBox::<usize>::new(&CBOX, 0);
    let s0 = p.stats();
    b.add(&mut p, &mut c.sink(), 1, generic(0x8f34), true)
        .unwrap();
    // Baseline read, global enable, PERFEVTSEL.
    let s1 = p.stats();
    assert_eq!((s1.rdmsr - s0.rdmsr, s1.wrmsr - s0.wrmsr), (1, 2));
    p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 12345);
    assert_eq!(b.read(&mut p, &mut c.sink(), 1), None);
    // Counter and control: two accesses.
    let s2 = p.stats();
    assert_eq!((s2.rdmsr - s1.rdmsr, s2.wrmsr - s1.wrmsr), (2, 0));
    assert_eq!(c.0[1], 12345);
    b.del(&mut p, &mut c.sink(), 1);
    assert_eq!(b.len(), 0);
    assert_eq!(b.live().msr, 0);
    assert_eq!(p.sim.rdmsr(0x700, p.now).unwrap(), 0);
}

#[test]
fn disabled_section_parks_and_costs_nothing() {
    let mut p = Pkg::new();
    let mut c = Counts::default();
    let mut b = PmuBox::<usize>::new(&CBOX, 1);
    b.add(&mut p, &mut c.sink(), 1, generic(0x8f34), true)
        .unwrap();
    let s0 = p.stats();
    // Perf reschedules: del and add back inside disable/enable.
    b.disable();
    b.del(&mut p, &mut c.sink(), 1);
    b.add(&mut p, &mut c.sink(), 1, generic(0x8f34), true)
        .unwrap();
    b.enable(&mut p, &mut c.sink());
    assert_eq!(p.stats(), s0);
    p.inject(UnitKind::Cbox, 1, 0x34, 0x8f, 7);
    b.read(&mut p, &mut c.sink(), 1);
    assert_eq!(c.0[1], 7);
}

#[test]
fn arb_occupancy_moves_the_other_event() {
    let mut p = Pkg::new();
    let mut c = Counts::default();
    let mut b = PmuBox::<usize>::new(&ARB, 0);
    b.add(&mut p, &mut c.sink(), 1, generic(0x181), true)
        .unwrap();
    assert_eq!(b.counter_of(1), Some(0));
    b.add(&mut p, &mut c.sink(), 2, generic(0x180), true)
        .unwrap();
    assert_eq!((b.counter_of(1), b.counter_of(2)), (Some(1), Some(0)));
    assert_eq!(
        b.add(&mut p, &mut c.sink(), 3, generic(0x180), true),
        Err(super::pmubox::Busy)
    );
    assert_eq!(p.stats().constraint_violations, 0);
}

#[test]
fn foreign_global_clear_is_repaired_at_read() {
    let mut p = Pkg::new();
    let mut c = Counts::default();
    let mut b = PmuBox::<usize>::new(&CBOX, 0);
    b.add(&mut p, &mut c.sink(), 1, generic(0x8f34), true)
        .unwrap();
    p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 100);
    // Another tool clears the global enable: nothing counts until it is repaired.
    p.sim.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, 0, p.now).unwrap();
    p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 50);
    assert_eq!(
        b.read(&mut p, &mut c.sink(), 1),
        Some(Changed(MSR_UNC_PERF_GLOBAL_CTRL))
    );
    p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 1000);
    assert_eq!(b.read(&mut p, &mut c.sink(), 1), None);
    assert_eq!(c.0[1], 1100);
}

#[test]
fn rewritten_evtsel_is_repaired_by_the_watchdog() {
    let mut p = Pkg::new();
    let mut c = Counts::default();
    let mut b = PmuBox::<usize>::new(&CBOX, 2);
    b.add(&mut p, &mut c.sink(), 1, generic(0x8f34), true)
        .unwrap();
    p.inject(UnitKind::Cbox, 2, 0x34, 0x8f, 10);
    p.sim.wrmsr(0x720, 0x40_0122, p.now).unwrap();
    assert_eq!(b.check(&mut p, &mut c.sink()), Some(Changed(0x720)));
    assert_eq!(b.check(&mut p, &mut c.sink()), None);
    p.inject(UnitKind::Cbox, 2, 0x34, 0x8f, 5);
    b.read(&mut p, &mut c.sink(), 1);
    assert_eq!(c.0[1], 15);
}

#[test]
fn reset_counts_no_wrap() {
    // A counter near its wrap point, then a reset to power-on (as in S3): the count must not
    // jump by 2^44.
    let mut p = Pkg::new();
    let mut c = Counts::default();
    let mut b = PmuBox::<usize>::new(&CBOX, 0);
    b.add(&mut p, &mut c.sink(), 1, generic(0x8f34), true)
        .unwrap();
    p.sim
        .preset(UnitKind::Cbox, 0, 0, (1 << 44) - 100, p.now)
        .unwrap();
    b.check(&mut p, &mut c.sink());
    b.poll(&mut p, &mut c.sink());
    let before = c.0[1];
    p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 30);
    b.poll(&mut p, &mut c.sink());
    assert_eq!(c.0[1] - before, 30);
    p.sim.reset(p.now);
    assert!(b.check(&mut p, &mut c.sink()).is_some());
    p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 40);
    b.read(&mut p, &mut c.sink(), 1);
    assert_eq!(c.0[1] - before, 70);
}

#[test]
fn suspend_resume_keeps_counting() {
    let mut p = Pkg::new();
    let mut c = Counts::default();
    let mut clk = PmuBox::<usize>::new(&CLOCK, 0);
    let mut imc = PmuBox::<usize>::new(&IMC, 0);
    clk.add(&mut p, &mut c.sink(), 1, Target::Fixed, true)
        .unwrap();
    imc.add(&mut p, &mut c.sink(), 2, Target::FreeRunning(0), true)
        .unwrap();
    p.inject(UnitKind::Clock, 0, 0xff, 0, 500);
    p.inject(UnitKind::Imc, 0, 1, 0, 600);
    clk.suspend(&mut p, &mut c.sink());
    imc.suspend(&mut p, &mut c.sink());
    p.sim.reset(p.now);
    p.global_on = false;
    clk.resume(&mut p);
    imc.resume(&mut p);
    p.inject(UnitKind::Clock, 0, 0xff, 0, 5);
    p.inject(UnitKind::Imc, 0, 1, 0, 6);
    clk.read(&mut p, &mut c.sink(), 1);
    imc.read(&mut p, &mut c.sink(), 2);
    assert_eq!((c.0[1], c.0[2]), (505, 606));
}

/// One step of a random perf schedule on one box.
#[derive(Clone, Debug)]
enum Op {
    Add(usize, bool),
    Del(usize),
    Start(usize),
    Stop(usize),
    Read(usize),
    Disable,
    Enable,
    Inject(usize, u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..4usize, any::<bool>()).prop_map(|(e, s)| Op::Add(e, s)),
        (0..4usize).prop_map(Op::Del),
        (0..4usize).prop_map(Op::Start),
        (0..4usize).prop_map(Op::Stop),
        (0..4usize).prop_map(Op::Read),
        Just(Op::Disable),
        Just(Op::Enable),
        (0..4usize, 1u64..1_000_000).prop_map(|(e, n)| Op::Inject(e, n)),
    ]
}

/// Six events per unit: their configs (event, umask) as perf would pass them.
fn events_of(unit: &Unit) -> [(Target, u8, u8); 6] {
    let g = |ev: u8, um: u8| (generic(u64::from(um) << 8 | u64::from(ev)), ev, um);
    match unit.kind {
        UnitKind::Arb => [
            g(0x80, 1),
            g(0x81, 1),
            g(0x80, 1),
            g(0x81, 2),
            g(0x84, 1),
            (Target::Fixed, 0xff, 0),
        ],
        UnitKind::Clock => [(Target::Fixed, 0xff, 0); 6],
        UnitKind::Imc => [0, 1, 2, 3, 4, 0].map(|i| (Target::FreeRunning(i), i + 1, 0)),
        UnitKind::Cbox => [
            g(0x34, 0x8f),
            g(0x34, 0x11),
            g(0x22, 0x41),
            (Target::Fixed, 0xff, 0),
            g(0x22, 0x48),
            g(0x34, 0x8f),
        ],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// Any schedule perf can issue: counts are exact (every injection an event's programmed
    /// counter saw reaches that event, once), no constraint is violated, and the hardware
    /// matches the box after every step.
    #[test]
    fn random_schedules_count_exactly(
        unit in prop::sample::select(vec![&CBOX, &ARB, &CLOCK, &IMC]),
        ops in prop::collection::vec(op(), 1..60),
    ) {
        let evs = events_of(unit);
        let mut p = Pkg::new();
        let mut c = Counts::default();
        let mut b = PmuBox::<usize>::new(unit, 0);
        let mut expect = [0u64; 6];
        let mut added = [false; 6];
        let mut running = [false; 6];
        let mut disabled = 0;
        for op in ops {
            match op {
                Op::Add(e, s) if !added[e] => {
                    added[e] = b.add(&mut p, &mut c.sink(), e, evs[e].0, s).is_ok();
                    running[e] = added[e] && s;
                }
                Op::Add(..) => {}
                Op::Del(e) if added[e] => {
                    b.del(&mut p, &mut c.sink(), e);
                    added[e] = false;
                    running[e] = false;
                }
                Op::Del(_) => {}
                Op::Start(e) if added[e] => {
                    b.start(&mut p, &mut c.sink(), e);
                    running[e] = true;
                }
                Op::Stop(e) if added[e] => {
                    b.stop(&mut p, &mut c.sink(), e);
                    running[e] = false;
                }
                Op::Read(e) if added[e] => {
                    prop_assert_eq!(b.read(&mut p, &mut c.sink(), e), None);
                }
                Op::Start(_) | Op::Stop(_) | Op::Read(_) => {}
                Op::Disable => { b.disable(); disabled += 1; }
                Op::Enable if disabled > 0 => { b.enable(&mut p, &mut c.sink()); disabled -= 1; }
                Op::Enable => {}
                Op::Inject(e, n) => {
                    let (t, ev, um) = evs[e];
                    let k = unit.kind;
                    let (ku, kev) = match t {
                        Target::Fixed => (UnitKind::Clock, 0xff),
                        _ => (k, ev),
                    };
                    for (j, &(tj, evj, umj)) in evs.iter().enumerate() {
                        let same_counter = match (t, tj) {
                            (Target::Fixed, Target::Fixed) => true,
                            (Target::FreeRunning(a), Target::FreeRunning(b2)) => a == b2,
                            (Target::Generic(_), Target::Generic(_)) => evj == ev && umj & um == um,
                            _ => false,
                        };
                        if same_counter && b.is_live(j) {
                            expect[j] += n;
                        }
                    }
                    p.inject(ku, 0, kev, um, n);
                }
            }
            prop_assert_eq!(p.stats().constraint_violations, 0);
            prop_assert_eq!(p.stats().faults, 0);
            prop_assert!(b.len() <= MAX_BOX_EVENTS);
            // Outside a disabled section, every event perf added and started counts.
            if disabled == 0 {
                for e in 0..6 {
                    prop_assert_eq!(b.is_live(e), running[e], "event {} live", e);
                }
            }
        }
        while disabled > 0 { b.enable(&mut p, &mut c.sink()); disabled -= 1; }
        for e in 0..6 {
            if added[e] { b.del(&mut p, &mut c.sink(), e); }
        }
        prop_assert_eq!(b.live().msr + b.live().imc, 0);
        for e in 0..6 {
            prop_assert_eq!(c.0[e], expect[e], "event {}", e);
        }
    }
}
