// SPDX-License-Identifier: GPL-2.0

//! The property test: random perf schedules on one box, with the package timer's runs, waits,
//! sleeps (S3 and suspend-to-idle, with or without a reset inside, perf scheduling inside
//! suspend-to-idle), lock-free readers on other CPUs and NMI reads at any register access of
//! the path they interrupt.

use proptest::prelude::*;

use super::super::event::Target;
use super::super::pmubox::{depart::MOVE_NS, Fault, Regs, MAX_BOX_EVENTS};
use super::super::regs::{
    FixedCtrl, GlobalCtrl, PerfEvtSel, MSR_UNC_PERF_FIXED_CTRL, MSR_UNC_PERF_GLOBAL_CTRL,
};
use super::super::units::{Unit, UnitKind, ARB, CBOX, CLOCK, IMC};
use super::rig::{generic, Reader, Rig};

/// One step of a random perf schedule on one box.
#[derive(Clone, Debug)]
enum Op {
    Add(usize, bool),
    Del(usize),
    /// Perf moves event `e` to another CPU: `del` on the CPU going offline.
    Move(usize),
    Start(usize),
    Stop(usize),
    Read(usize),
    Disable,
    Enable,
    Inject(usize, u64),
    /// A reader on another CPU loads event `e`'s state ...
    Begin(usize),
    /// ... reader `k` (of those under way) reads the counter ...
    Fetch(usize),
    /// ... and commits what it read, or retries.
    Commit(usize),
    /// An NMI reads event `e` right after the `k`-th register access from now.
    Nmi(usize, u32),
    /// The package timer runs over the box, as the engine's does.
    Timer,
    /// Time passes (ns).
    Wait(u64),
    /// The system sleeps: S3 (`true`, the registers are lost), else suspend-to-idle, for so
    /// long (ns) on the boot clock: 61 s and 2 h outlast the ARB's and a CBo's wrap at their
    /// top rates, so a reset inside may pass for a wrap.
    Sleep(bool, u64),
    /// Inside suspend-to-idle, the package resets the uncore's MSRs.
    IdleReset,
    /// The system wakes.
    Wake,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..6usize, any::<bool>()).prop_map(|(e, s)| Op::Add(e, s)),
        (0..6usize).prop_map(Op::Del),
        (0..6usize).prop_map(Op::Move),
        (0..6usize).prop_map(Op::Start),
        (0..6usize).prop_map(Op::Stop),
        (0..6usize).prop_map(Op::Read),
        Just(Op::Disable),
        Just(Op::Enable),
        (0..6usize, 1u64..1_000_000).prop_map(|(e, n)| Op::Inject(e, n)),
        (0..6usize).prop_map(Op::Begin),
        (0..4usize).prop_map(Op::Fetch),
        (0..4usize).prop_map(Op::Commit),
        (0..6usize, 1u32..12).prop_map(|(e, k)| Op::Nmi(e, k)),
        Just(Op::Timer),
        (0u64..=3_000_000_000).prop_map(Op::Wait),
        (
            any::<bool>(),
            prop_oneof![Just(0), Just(61_000_000_000), Just(7_200_000_000_000)]
        )
            .prop_map(|(s3, ns)| Op::Sleep(s3, ns)),
        Just(Op::IdleReset),
        Just(Op::Wake),
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

/// Cases per run: `SKL_PROPTEST_CASES` (`make stress` sets 20,000), else 3,000.
fn cases() -> u32 {
    std::env::var("SKL_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

/// The package timer's run over one box, as the engine's `run` makes it.
fn timer(r: &mut Rig) {
    r.expire();
    if r.b.live().msr > 0 && !r.b.asleep() {
        r.check();
        // The engine checks the shared global enable after the boxes.
        if let Err(Fault(a)) = r.p.global_enable(true) {
            panic!("{a:#x} faulted");
        }
    }
    let now = r.p.now_ns();
    if r.b.poll_due(now) {
        r.poll();
    }
}

/// A sleep under way: its kind, and per event what its counter counted meanwhile for it,
/// still to be counted (suspend-to-idle with no reset since): by the wake, or by whatever
/// perf does that ends its counting on that counter inside the sleep.
struct Asleep {
    s3: bool,
    kept: [u64; 6],
}

/// Whether live event `e`'s MSR counter counts now, by the registers: a reset inside a sleep
/// clears the global enable and every control until the driver writes them again (a `del` and
/// `add` inside the sleep may). IMC counters always count.
fn counting(r: &mut Rig, unit: &Unit, e: usize, t: Target) -> bool {
    let ctl = match (t, r.b.counter_of(e)) {
        (Target::FreeRunning(_), _) => return true,
        (Target::Fixed, _) => (MSR_UNC_PERF_FIXED_CTRL, FixedCtrl::CNT_EN.mask()),
        (Target::Generic(_), Some(c)) => {
            (PerfEvtSel::addr(unit, 0, c.into()), PerfEvtSel::EN.mask())
        }
        (Target::Generic(_), None) => return false,
    };
    let now = r.p.now;
    let mut on = |(a, bit): (u32, u64)| r.p.sim.rdmsr(a, now).is_ok_and(|v| v & bit != 0);
    on((MSR_UNC_PERF_GLOBAL_CTRL, GlobalCtrl::EN.mask())) && on(ctl)
}

/// The system wakes from `asleep`, if it sleeps: what its counters counted in a sleep that
/// kept them is expected too.
fn wake(r: &mut Rig, asleep: Option<Asleep>, expect: &mut [u64; 6]) {
    match asleep {
        Some(a) if a.s3 => {
            r.s3(0);
            assert_eq!(r.wake_s3(), None);
        }
        Some(a) => {
            r.wake_s2idle();
            for (x, k) in expect.iter_mut().zip(a.kept) {
                *x += k;
            }
        }
        None => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    /// Any schedule perf can issue: counts are exact (every injection an event's programmed
    /// counter saw while perf held the event reaches that event, once; none reaches it after
    /// its `del`: the rig asserts it), no constraint is violated, and the hardware matches the
    /// box after every step. CBos with Table 2-1's two counters and with the i7-6700K's four.
    /// Lock-free readers on other CPUs run between any two steps of the box, each split into
    /// its loads, its counter read and its commit, and NMI reads right after any register
    /// access: none moves a count between events, loses one or counts one twice. The timer
    /// runs, time passes (up to 3 s a step), and the system sleeps: across S3 what the units
    /// counted asleep is lost (the registers reset) and nothing else; across suspend-to-idle,
    /// in which perf schedules on, every count is kept, unless the package reset the MSRs
    /// inside it (then what the MSR counters counted in that sleep before the driver wrote
    /// them again is lost, and no wrap is invented).
    #[test]
    fn random_schedules_count_exactly(
        unit in prop::sample::select(vec![&CBOX, &ARB, &CLOCK, &IMC]),
        nr in prop::sample::select(vec![2u32, 4]),
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let evs = events_of(unit);
        let mut r = Rig::with_counters(unit, 0, nr);
        let mut expect = [0u64; 6];
        // What may also reach an event: what its counter counted while it was on its way to
        // another CPU (counted if it lands on the same counter, else not).
        let mut moving = [0u64; 6];
        let mut departed = [false; 6];
        // ... or while it was off its shared counter inside a disabled section.
        let mut parked = [false; 6];
        let mut running = [false; 6];
        let mut disabled = 0;
        let mut readers: Vec<Reader> = Vec::new();
        let mut asleep: Option<Asleep> = None;
        for op in ops {
            // In S3 perf schedules nothing (its other CPUs are offline, interrupts off): only
            // the hardware, time and readers move. In suspend-to-idle every CPU is online, and
            // perf's multiplexing timer reschedules the box (after the wake too, before our
            // hook); no CPU goes offline.
            let perf = asleep.as_ref().is_none_or(|a| !a.s3);
            let awake = asleep.is_none();
            // Where each event counts before the step.
            let on: [_; 6] = std::array::from_fn(|e| (r.b.is_live(e), r.b.counter_of(e)));
            match op {
                Op::Add(e, s) if perf && !r.added[e] => {
                    // Only this add may take up a move's count.
                    let ok = r.add(e, evs[e].0, s).is_ok();
                    departed[e] = false;
                    parked[e] = false;
                    running[e] = ok && s;
                }
                Op::Move(e) if awake && r.added[e] && disabled == 0 => {
                    departed[e] = r.b.is_live(e);
                    r.depart(e);
                    running[e] = false;
                }
                Op::Del(e) if perf && r.added[e] => {
                    // A shared counter counts on for an event perf puts back in this section.
                    let shared = !matches!(evs[e].0, Target::Generic(_));
                    parked[e] = disabled > 0 && shared && r.b.is_live(e);
                    r.del(e);
                    running[e] = false;
                }
                Op::Start(e) if perf && r.added[e] => {
                    prop_assert_eq!(r.start(e), None);
                    running[e] = true;
                }
                Op::Stop(e) if perf && r.added[e] => {
                    r.stop(e);
                    running[e] = false;
                }
                Op::Read(e) if r.added[e] => r.read(e),
                Op::Begin(e) => readers.extend(r.reader(e)),
                Op::Fetch(k) if k < readers.len() => {
                    if !r.fetch(&mut readers[k]) {
                        readers.swap_remove(k);
                    }
                }
                Op::Commit(k) if k < readers.len() => {
                    if r.commit(&mut readers[k]) {
                        readers.swap_remove(k);
                    }
                }
                Op::Nmi(e, k) => r.nmi_after(k, e),
                Op::Disable if perf => { r.b.disable(); disabled += 1; }
                Op::Enable if perf && disabled > 0 => {
                    prop_assert_eq!(r.enable(), None);
                    disabled -= 1;
                    if disabled == 0 {
                        parked = [false; 6];
                    }
                }
                Op::Timer => timer(&mut r),
                Op::Wait(ns) => r.p.now += ns,
                Op::Sleep(s3, ns) if awake && disabled == 0 => {
                    prop_assert_eq!(r.sleep(), None);
                    r.p.now += ns;
                    // Moves are over: the records went with the sleep.
                    departed = [false; 6];
                    asleep = Some(Asleep { s3, kept: [0; 6] });
                }
                Op::IdleReset => {
                    if let Some(a) = asleep.as_mut().filter(|a| !a.s3) {
                        let now = r.p.now;
                        r.p.sim.reset_msrs(now);
                        // The MSR counters' counts of this sleep are lost; the IMC's count on.
                        for (e, k) in a.kept.iter_mut().enumerate() {
                            if !matches!(evs[e].0, Target::FreeRunning(_)) {
                                *k = 0;
                            }
                        }
                    }
                }
                Op::Wake => wake(&mut r, asleep.take(), &mut expect),
                Op::Inject(e, n) => {
                    let (t, ev, um) = evs[e];
                    let (ku, kev) = match t {
                        Target::Fixed => (UnitKind::Clock, 0xff),
                        _ => (unit.kind, ev),
                    };
                    for (j, &(tj, evj, umj)) in evs.iter().enumerate() {
                        let same_counter = match (t, tj) {
                            (Target::Fixed, Target::Fixed) => true,
                            (Target::FreeRunning(a), Target::FreeRunning(b2)) => a == b2,
                            (Target::Generic(_), Target::Generic(_)) => evj == ev && umj & um == um,
                            _ => false,
                        };
                        if !same_counter {
                            continue;
                        }
                        let live = r.b.is_live(j);
                        // Asleep, what counts it: the counters enabled now (a reset in the sleep
                        // disabled every MSR one).
                        if !awake && live && !counting(&mut r, unit, j, tj) {
                            continue;
                        }
                        match asleep.as_mut() {
                            // Counted by registers S3 resets before anyone reads them.
                            Some(a) if a.s3 => {}
                            Some(a) if live => a.kept[j] += n,
                            Some(_) if parked[j] => moving[j] += n,
                            Some(_) => {}
                            None if r.b.is_live(j) => expect[j] += n,
                            None if departed[j] || parked[j] => moving[j] += n,
                            None => {}
                        }
                    }
                    r.p.inject(ku, 0, kev, um, n);
                }
                _ => {}
            }
            // Inside suspend-to-idle, an event's counting on its counter that ended was
            // folded, by the controls' evidence: what its counter counted for it so far.
            if let Some(a) = asleep.as_mut() {
                for e in 0..6 {
                    if on[e].0 && (r.b.is_live(e), r.b.counter_of(e)) != on[e] {
                        expect[e] += std::mem::take(&mut a.kept[e]);
                    }
                }
            }
            prop_assert_eq!(r.p.stats().constraint_violations, 0);
            prop_assert_eq!(r.p.stats().faults, 0);
            prop_assert!(r.b.len() <= MAX_BOX_EVENTS);
            // Outside a disabled section, every event perf added and started counts.
            if disabled == 0 {
                for e in 0..6 {
                    prop_assert_eq!(r.b.is_live(e), running[e], "event {} live", e);
                }
            }
        }
        // An NMI armed for an access that never came does not fire.
        r.p.hook = None;
        wake(&mut r, asleep.take(), &mut expect);
        for rd in readers {
            r.finish_read(rd);
        }
        while disabled > 0 { prop_assert_eq!(r.enable(), None); disabled -= 1; }
        for e in 0..6 {
            if r.added[e] { r.del(e); }
        }
        // Moves that never landed give their counters back at the next enable after 2 s.
        r.p.now += MOVE_NS;
        r.b.disable();
        prop_assert_eq!(r.enable(), None);
        prop_assert_eq!(r.b.live().msr + r.b.live().imc, 0);
        prop_assert_eq!(r.p.fixed_users, 0);
        for e in 0..6 {
            let got = r.total(e);
            prop_assert!(
                (expect[e]..=expect[e] + moving[e]).contains(&got),
                "event {}: {} not in {}..={}", e, got, expect[e], expect[e] + moving[e]
            );
        }
    }
}
