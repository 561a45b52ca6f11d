// SPDX-License-Identifier: GPL-2.0

//! Perf schedules on a box inside suspend-to-idle (issue 30, item 3): every CPU stays online,
//! and the multiplexing hrtimer rotates an over-committed box in hard-irq between the box's
//! `suspend` and `resume` (after the wake too: our device resumes late).

use super::rig::{generic, nmi_read, Rig};
use crate::uncore::units::{UnitKind, ARB};

/// Three ARB request events on its two counters: 0x81/1, 0x81/2 and 0x84/1.
const EVENTS: [(u8, u8); 3] = [(0x81, 1), (0x81, 2), (0x84, 1)];

fn config(e: usize) -> u64 {
    let (ev, um) = EVENTS[e];
    u64::from(um) << 8 | u64::from(ev)
}

fn inject_all(r: &mut Rig, n: u64) {
    for (ev, um) in EVENTS {
        r.p.inject(UnitKind::Arb, 0, ev, um, n);
    }
}

/// Events 0 and 1 on the ARB's two counters (2 waits), 4,000 counted each, and the box
/// suspended for suspend-to-idle.
fn over_committed_asleep() -> Rig {
    let mut r = Rig::new(&ARB, 0);
    r.add(0, generic(config(0)), true).unwrap();
    r.add(1, generic(config(1)), true).unwrap();
    assert!(
        r.add(2, generic(config(2)), true).is_err(),
        "over-committed"
    );
    inject_all(&mut r, 4_000);
    assert_eq!(r.sleep(), None);
    r
}

/// Perf's rotation, in hard-irq: 0 and 1 off, 1 and 2 on.
fn rotate(r: &mut Rig) {
    r.b.disable();
    r.del(0);
    r.del(1);
    r.add(1, generic(config(1)), true).unwrap();
    r.add(2, generic(config(2)), true).unwrap();
    assert_eq!(r.enable(), None);
}

/// Events 0 and 1 count 4,000 each; suspend-to-idle for 61 s (longer than the ARB's 54.9 s
/// wrap at its top rate), in which the uncore counts 500 more of each, or is reset (a
/// power-gated package). After the wake, before our `resume_noirq`, perf's rotation takes 0
/// and 1 off and puts 1 and 2 on, an NMI reads every event, then the hook runs and 77 more
/// of each happen. Exact either way: 0 keeps what its counter counted for it (4,500 kept,
/// 4,000 reset), 1 that and the 77, 2 its 77 (and the 500 counted after its `add`, kept).
/// The old `del` judged the reset counter against the baseline from before the sleep, with
/// the 61 s the boot clock allows a wrap: event 0 counted 2^44.
#[test]
fn a_rotation_inside_s2idle_counts_no_wrap() {
    for reset in [false, true] {
        let mut r = over_committed_asleep();
        r.p.now += 61_000_000_000;
        if reset {
            r.p.sim.reset(r.p.now);
        } else {
            inject_all(&mut r, 500);
        }
        // After the wake.
        rotate(&mut r);
        if !reset {
            inject_all(&mut r, 500);
        }
        let t = r.t.clone();
        for e in 0..3 {
            nmi_read(&t, &mut r.p, e);
        }
        r.wake_s2idle();
        inject_all(&mut r, 77);
        for e in 0..3 {
            r.read(e);
        }
        let kept = if reset { 0 } else { 500 };
        let got = [r.total(0), r.total(1), r.total(2)];
        assert_eq!(
            got,
            [4_000 + kept, 4_000 + 2 * kept + 77, kept + 77],
            "reset {reset}"
        );
    }
}

/// A spurious wake: perf's rotation runs in it (events 1 and 2 on, 1 taking up where it
/// stopped), 300 of each are counted, and the system sleeps on for 61 s, in which the package
/// resets the uncore. An NMI read before our `resume_noirq` must not judge the reset counter
/// against the rotation's baseline (4,000) with the 61 s that allow a wrap: the periods the
/// rotation started stay paused until the wake has checked the controls. The 300 were counted
/// by registers the reset lost: each event gets them or not, nothing more. The old `add`
/// opened a live period: event 1's NMI read counted 2^44 - 4,000.
#[test]
fn a_period_opened_inside_s2idle_waits_for_the_wake() {
    let mut r = over_committed_asleep();
    r.p.now += 1_000_000_000;
    rotate(&mut r);
    inject_all(&mut r, 300);
    r.p.now += 61_000_000_000;
    r.p.sim.reset(r.p.now);
    let t = r.t.clone();
    for e in 0..3 {
        nmi_read(&t, &mut r.p, e);
    }
    assert!(r.wake_s2idle().is_some(), "the reset is said");
    inject_all(&mut r, 77);
    for e in 0..3 {
        r.read(e);
    }
    assert_eq!(r.total(0), 4_000);
    assert!((4_077..=4_377).contains(&r.total(1)), "{}", r.total(1));
    assert!((77..=377).contains(&r.total(2)), "{}", r.total(2));
}

/// The wake's hook runs on another CPU of the package while perf's rotation is between its
/// `del` and `add` (in suspend-to-idle every CPU is online): event 0's `del` stopped counter 0
/// at 10, the package reset it in the sleep, and event 2 takes it over after the wake. Its
/// baseline is what the counter shows then (0), not where the `del` stopped it: 500 of 500.
/// With the stopped value kept across the wake, 490.
#[test]
fn a_wake_inside_a_rotation_forgets_where_counters_stopped() {
    let mut r = Rig::new(&ARB, 0);
    r.add(0, generic(config(0)), true).unwrap();
    r.add(1, generic(config(1)), true).unwrap();
    r.p.inject(UnitKind::Arb, 0, EVENTS[0].0, EVENTS[0].1, 10);
    assert_eq!(r.sleep(), None);
    r.b.disable();
    r.del(0);
    r.p.now += 61_000_000_000;
    r.p.sim.reset(r.p.now);
    assert!(r.wake_s2idle().is_some(), "the reset is said");
    r.add(2, generic(config(2)), true).unwrap();
    assert_eq!(r.enable(), None);
    assert_eq!(r.b.counter_of(2), Some(0));
    r.p.inject(UnitKind::Arb, 0, EVENTS[2].0, EVENTS[2].1, 500);
    r.read(2);
    assert_eq!([r.total(0), r.total(2)], [10, 500]);
}
