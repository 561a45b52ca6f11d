// SPDX-License-Identifier: GPL-2.0

//! Moves between collectors: perf takes every event off a CPU going offline and adds it on
//! another CPU of the package, an RCU grace period later. Nothing the counters count in
//! between is lost, and nothing reaches another event.

use super::super::event::Target;
use super::super::pmubox::depart::MOVE_NS;
use super::super::units::{UnitKind, CBOX, CLOCK, IMC};
use super::rig::{generic, Rig};

/// Each kind of counter: 500 before the move, 1000 during its gap, 250 after: 1750.
#[test]
fn a_move_counts_its_gap() {
    let cases = [
        (&IMC, Target::FreeRunning(0), UnitKind::Imc, 1, 0),
        (&CBOX, generic(0x8f34), UnitKind::Cbox, 0x34, 0x8f),
        (&CLOCK, Target::Fixed, UnitKind::Clock, 0xff, 0),
    ];
    for (unit, target, kind, ev, um) in cases {
        let mut r = Rig::new(unit, 0);
        r.add(1, target, true).unwrap();
        r.p.inject(kind, 0, ev, um, 500);
        r.depart(1);
        assert_eq!(r.counts[1], 500, "{kind:?}: folded at the del");
        // Its counter counts on for it: live for the package's timer.
        assert_eq!(r.b.live().msr + r.b.live().imc, 1, "{kind:?}");
        r.p.inject(kind, 0, ev, um, 1000);
        r.b.disable();
        r.add(1, target, true).unwrap();
        assert_eq!(r.enable(), None);
        r.p.inject(kind, 0, ev, um, 250);
        r.read(1);
        assert_eq!(r.counts[1], 1750, "{kind:?}");
        r.del(1);
        assert_eq!((r.b.live().msr, r.b.live().imc, r.p.fixed_users), (0, 0, 0));
        assert_eq!(r.check(), None);
    }
}

/// A departed event that does not come back in time: its counter is stopped (the fixed
/// counter's use given back), and if it comes back later it starts afresh.
#[test]
fn a_move_that_never_lands_stops_its_counter() {
    for (unit, target, kind, ev, um) in [
        (&CBOX, generic(0x8f34), UnitKind::Cbox, 0x34, 0x8f),
        (&CLOCK, Target::Fixed, UnitKind::Clock, 0xff, 0),
    ] {
        let mut r = Rig::new(unit, 0);
        r.add(1, target, true).unwrap();
        r.p.inject(kind, 0, ev, um, 500);
        r.depart(1);
        r.p.now += MOVE_NS;
        r.b.disable();
        assert_eq!(r.enable(), None);
        assert_eq!(r.p.fixed_users, 0, "{kind:?}");
        assert_eq!(r.p.sim.rdmsr(0x700, r.p.now).unwrap(), 0, "{kind:?}");
        r.p.inject(kind, 0, ev, um, 1000);
        r.add(1, target, true).unwrap();
        r.p.inject(kind, 0, ev, um, 250);
        r.read(1);
        assert_eq!(r.counts[1], 750, "{kind:?}");
    }
}

/// A departed event that never comes back (closed on its way) on a box where nothing else
/// happens: the package's timer stops its counter once the move is overdue, and until then
/// the record keeps the timer going.
#[test]
fn the_timer_stops_a_move_that_never_lands() {
    let cases = [
        (&IMC, Target::FreeRunning(0)),
        (&CBOX, generic(0x8f34)),
        (&CLOCK, Target::Fixed),
    ];
    for (unit, target) in cases {
        let mut r = Rig::new(unit, 0);
        r.add(1, target, true).unwrap();
        r.depart(1);
        r.p.now += MOVE_NS / 2;
        assert_eq!(r.expire(), 0, "{target:?}");
        assert_eq!(
            r.b.live().msr + r.b.live().imc,
            1,
            "{target:?}: not overdue yet"
        );
        r.p.now += MOVE_NS / 2;
        // The timer takes what it ended off its live count.
        assert_eq!(r.expire(), 1, "{target:?}");
        assert_eq!(r.b.live(), Default::default(), "{target:?}");
        assert_eq!(r.p.fixed_users, 0, "{target:?}");
        assert_eq!(r.p.sim.rdmsr(0x700, r.p.now).unwrap(), 0, "{target:?}");
        assert_eq!(r.p.sim.rdmsr(0x394, r.p.now).unwrap(), 0, "{target:?}");
    }
}

/// Another event takes the departed one's counter first: each counts only its own.
#[test]
fn a_counter_taken_meanwhile_carries_nothing() {
    let mut r = Rig::with_counters(&CBOX, 0, 2);
    r.add(1, generic(0x8f34), true).unwrap();
    assert_eq!(r.b.counter_of(1), Some(0));
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 500);
    r.depart(1);
    r.add(2, generic(0x4122), true).unwrap();
    assert_eq!(r.b.counter_of(2), Some(0));
    r.p.inject(UnitKind::Cbox, 0, 0x22, 0x41, 1000);
    r.add(1, generic(0x8f34), true).unwrap();
    assert_eq!(r.b.counter_of(1), Some(1));
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 250);
    r.read(1);
    r.read(2);
    assert_eq!((r.counts[1], r.counts[2]), (750, 1000));
}

/// Perf reschedules a context (another event opens or closes): every event is taken off and
/// put back inside one disabled section. A free-running IMC counter counts on meanwhile, for
/// the event: the gap is counted. Put back only after the section (a disable, a rotation), it
/// is not.
#[test]
fn a_reschedule_keeps_a_free_running_count() {
    let mut r = Rig::new(&IMC, 0);
    r.add(1, Target::FreeRunning(0), true).unwrap();
    r.p.inject(UnitKind::Imc, 0, 1, 0, 500);
    r.b.disable();
    r.del(1);
    r.p.inject(UnitKind::Imc, 0, 1, 0, 1000);
    r.add(1, Target::FreeRunning(0), true).unwrap();
    assert_eq!(r.enable(), None);
    r.p.inject(UnitKind::Imc, 0, 1, 0, 250);
    r.read(1);
    assert_eq!(r.counts[1], 1750);
    r.b.disable();
    r.del(1);
    assert_eq!(r.enable(), None);
    r.p.inject(UnitKind::Imc, 0, 1, 0, 1000);
    r.add(1, Target::FreeRunning(0), true).unwrap();
    r.p.inject(UnitKind::Imc, 0, 1, 0, 7);
    r.read(1);
    assert_eq!(r.counts[1], 1757);
}
