// SPDX-License-Identifier: GPL-2.0

//! Counting periods that end: the watchdog's repair and the system's sleeps, with lock-free
//! reads (another CPU, NMI) landing between any two register accesses of the path they
//! interrupt (issue 30, items 1, 3 and 5).

use super::super::event::Target;
use super::super::pmubox::sleep::after_s2idle;
use super::super::pmubox::PmuBox;
use super::super::regs::{GlobalCtrl, MSR_UNC_PERF_FIXED_CTRL, MSR_UNC_PERF_GLOBAL_CTRL};
use super::super::tally::Tallies;
use super::super::units::{UnitKind, ARB, CBOX, CLOCK};
use super::rig::{generic, nmi_read, Rig};
use std::rc::Rc;

/// Register accesses `f` makes on a fresh copy of the rig `setup` builds.
fn accesses(setup: &dyn Fn() -> Rig, f: &dyn Fn(&mut Rig)) -> u32 {
    let mut r = setup();
    let s0 = r.p.stats();
    f(&mut r);
    let (rd, wr) = r.p.accesses_since(s0);
    (rd + wr) as u32
}

/// Runs `then` on a fresh rig from `setup` for every point an NMI read of event 1 can land in
/// `path`: right before it (`k` = 0; `then` runs `path`), and after each of its register
/// accesses (`k`).
fn with_an_nmi_anywhere(
    setup: &dyn Fn() -> Rig,
    path: &dyn Fn(&mut Rig),
    then: &dyn Fn(&mut Rig, u32),
) {
    for k in 0..=accesses(setup, path) {
        let mut r = setup();
        if k == 0 {
            nmi_read(&r.t.clone(), &mut r.p, 1);
        } else {
            r.nmi_after(k, 1);
        }
        then(&mut r, k);
    }
}

/// The watchdog finds a CBo event's `PERFEVTSEL` rewritten by another tool and repairs it,
/// while a reader on another CPU (or an NMI) counts 700 more events and commits right after
/// any one of the repair's register accesses. 2,200 events happen in all; the 700 may be
/// lost to the repair (the counter counted them between two of its accesses), nothing may
/// be counted twice. The old repair read the counter, then stored that value as the new
/// baseline over whatever a read committed meanwhile: 2,900.
#[test]
fn a_repair_never_recounts_a_racing_read() {
    let setup = || {
        let mut r = Rig::new(&CBOX, 0);
        r.add(1, generic(0x8f34), true).unwrap();
        r.p.inject(UnitKind::Cbox, 0, 0x34, 0x0f, 1000);
        // Another tool's event on the same counter: it counts the same injections.
        let now = r.p.now;
        r.p.sim.foreign_wrmsr(0x700, 0x40_0f34, now).unwrap();
        r.p.inject(UnitKind::Cbox, 0, 0x34, 0x0f, 200);
        r
    };
    let n = accesses(&setup, &|r| {
        r.check();
    });
    assert!(n >= 4, "{n}");
    for k in 1..=n {
        let mut r = setup();
        let t = r.t.clone();
        r.p.after_access(k, move |p| {
            p.inject(UnitKind::Cbox, 0, 0x34, 0x0f, 700);
            nmi_read(&t, p, 1);
        });
        assert!(r.check().is_some());
        assert!(r.p.hook.is_none());
        r.p.inject(UnitKind::Cbox, 0, 0x34, 0x0f, 300);
        r.read(1);
        let got = r.total(1);
        assert!((1500..=2200).contains(&got), "NMI after access {k}: {got}");
    }
}

/// A CBo event counted 12,345 before S3; the machine sleeps 2 h (long enough for the boot
/// clock to allow a 44-bit wrap at the CBo's top rate) and the counter comes back at 0. An
/// NMI read lands before the resume hook, or right after any register access of it: no read
/// may judge the reset counter against the baseline from before the sleep. The old resume
/// left the period open: +17,592,186,032,071.
#[test]
fn an_nmi_read_across_s3_counts_no_wrap() {
    let setup = || {
        let mut r = Rig::new(&CBOX, 0);
        r.add(1, generic(0x8f34), true).unwrap();
        r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 12_345);
        assert_eq!(r.sleep(), None);
        r.s3(7_200_000_000_000);
        r
    };
    with_an_nmi_anywhere(
        &setup,
        &|r| {
            r.wake_s3();
        },
        &|r, k| {
            assert_eq!(r.wake_s3(), None);
            r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 55);
            nmi_read(&r.t.clone(), &mut r.p, 1);
            r.read(1);
            assert_eq!(r.total(1), 12_400, "NMI after access {k} of the resume");
        },
    );
}

/// Suspend-to-idle that resets the uncore (a power-gated package), for longer than the
/// counter's wrap time at its top rate: 61 s for the ARB (54.9 s), 2 h for a CBo (58.6 min).
/// No syscore hook runs; the device PM hooks do. A read right after the wake (before the
/// hook, or after any of its accesses) and the timer's first check must count no wrap: the
/// old code, with no hook, counted 2^44 less what the counter showed before the sleep.
#[test]
fn a_reset_in_a_long_s2idle_is_no_wrap() {
    for (unit, kind, ev, um, sleep) in [
        (&ARB, UnitKind::Arb, 0x81, 0x01, 61_000_000_000),
        (&CBOX, UnitKind::Cbox, 0x34, 0x8f, 7_200_000_000_000),
    ] {
        let setup = || {
            let mut r = Rig::new(unit, 0);
            r.add(1, generic(u64::from(um) << 8 | u64::from(ev)), true)
                .unwrap();
            r.p.inject(kind, 0, ev, um, 4_000);
            assert_eq!(r.sleep(), None);
            // Asleep: the clock the driver judges by (the boot clock) counts the sleep.
            r.p.now += sleep;
            r.p.sim.reset(r.p.now);
            r
        };
        with_an_nmi_anywhere(
            &setup,
            &|r| {
                r.wake_s2idle();
            },
            &|r, k| {
                assert!(r.wake_s2idle().is_some(), "the reset is said");
                r.check();
                r.p.inject(kind, 0, ev, um, 77);
                r.read(1);
                assert_eq!(r.total(1), 4_077, "{kind:?}, NMI after access {k}");
            },
        );
    }
}

/// Suspend-to-idle that keeps the uncore counting: 2 h of a CBo counter that wraps once in
/// the sleep (its control intact), and a read right after the wake. Every count is kept.
#[test]
fn a_long_s2idle_that_keeps_counting_keeps_every_count() {
    let mut r = Rig::new(&CBOX, 0);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 4_000);
    assert_eq!(r.sleep(), None);
    r.read(1);
    let big = (1u64 << 44) - 1_000;
    r.p.now += 7_200_000_000_000;
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, big);
    r.read(1);
    assert_eq!(r.wake_s2idle(), None);
    r.read(1);
    assert_eq!(r.check(), None);
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 5);
    r.read(1);
    assert_eq!(r.total(1), 4_005 + big);
}

/// Two packages, S3. Package 1's last CPUs went offline on the way: its UCLK event moved
/// between two of them and was closed on its way, leaving a departed record (its counter
/// kept counting, its fixed-counter use held). The hook cannot reach package 1: it drops the
/// record without a register access, so it says no counts lost (nothing live is left), and
/// after the wake a new UCLK event there (of another PMU) counts at once. The old hook left
/// the record: one event "live" (a false "counts lost" line), and `fixed_users` at 1, so
/// the new event's `add` did not enable the reset fixed counter: 0 of 900 counted (until
/// the timer ran there and dropped the record).
#[test]
fn suspend_drops_departed_records_on_every_package() {
    let mut r = Rig::new(&CLOCK, 0);
    r.add(1, Target::Fixed, true).unwrap();
    r.p.inject(UnitKind::Clock, 0, 0xff, 0, 100);
    r.depart(1);
    // Closed on its way: it never arrives.
    assert_eq!(r.counts[1], 100);
    assert_eq!(r.sleep_unreachable(), 0);
    assert_eq!(r.b.live().msr, 0);
    assert_eq!(r.p.fixed_users, 0);
    r.s3(20_000_000_000);
    // Nothing was live on package 1: no hook runs there at the wake. A UCLK event of
    // uncore_cbox_0 (another box, the same fixed counter) opens there.
    let _clock = std::mem::replace(&mut r.b, PmuBox::new(&CBOX, 0, 2));
    r.t = Rc::new(Tallies::new(CBOX.max_rate));
    r.add(2, Target::Fixed, true).unwrap();
    r.p.inject(UnitKind::Clock, 0, 0xff, 0, 900);
    r.read(2);
    assert_eq!(r.counts[2], 900);
    assert_eq!(r.p.fixed_users, 1);
    let ctl = r.p.sim.rdmsr(MSR_UNC_PERF_FIXED_CTRL, r.p.now).unwrap();
    assert_ne!(ctl, 0);
    // The home package's hook drops its records too, stopping their counters.
    let mut h = Rig::new(&CLOCK, 0);
    h.add(1, Target::Fixed, true).unwrap();
    h.depart(1);
    assert_eq!(h.sleep(), None);
    assert_eq!((h.b.live().msr, h.p.fixed_users), (0, 0));
    assert_eq!(h.p.sim.rdmsr(MSR_UNC_PERF_FIXED_CTRL, h.p.now), Ok(0));
}

/// Suspend-to-idle for 20 h (longer than the 48-bit fixed counter's wrap at the top UCLK
/// rate, 15.6 h) in which the package reset the uncore and firmware set the global enable
/// again: a wake the global enable calls kept. The fixed counter counts for two boxes
/// (uncore_clock and uncore_cbox_0), each with a UCLK event at 4,000. Both must find its
/// control changed: the old resume checked it box by box, the first rewrote it and the
/// second folded the reset counter unsuspecting, as a wrap: 2^48 + 77 for 4,077.
#[test]
fn a_fixed_control_found_changed_is_said_to_every_box() {
    let mut r = Rig::new(&CLOCK, 0);
    let mut other = (
        PmuBox::new(&CBOX, 0, 2),
        Rc::new(Tallies::new(CBOX.max_rate)),
    );
    let swap = |r: &mut Rig, o: &mut (PmuBox<usize>, Rc<Tallies>)| {
        std::mem::swap(&mut r.b, &mut o.0);
        std::mem::swap(&mut r.t, &mut o.1);
    };
    r.add(1, Target::Fixed, true).unwrap();
    swap(&mut r, &mut other);
    r.add(2, Target::Fixed, true).unwrap();
    swap(&mut r, &mut other);
    r.p.inject(UnitKind::Clock, 0, 0xff, 0, 4_000);
    for _ in 0..2 {
        assert_eq!(r.sleep(), None);
        swap(&mut r, &mut other);
    }
    r.p.now += 72_000_000_000_000;
    let now = r.p.now;
    r.p.sim.reset_msrs(now);
    let en = GlobalCtrl::DRIVER_VALUE.into_raw();
    r.p.sim
        .foreign_wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, en, now)
        .unwrap();
    let wake = after_s2idle(&mut r.p, true, true);
    let mut said = [false; 2];
    for s in &mut said {
        *s = op!(&mut r, |b, cx| b.resume(cx, wake)).is_some();
        swap(&mut r, &mut other);
    }
    r.p.inject(UnitKind::Clock, 0, 0xff, 0, 77);
    r.read(1);
    swap(&mut r, &mut other);
    r.read(2);
    assert_eq!([r.total(1), r.total(2)], [4_077, 4_077]);
    assert_eq!(said, [true, true]);
}
