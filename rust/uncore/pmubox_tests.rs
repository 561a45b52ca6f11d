// SPDX-License-Identifier: GPL-2.0

//! Host tests of [`PmuBox`] and its [`Tallies`] against the simulator model: exact counts, the
//! register accesses each operation makes, constraints, faults, and recovery from resets and
//! foreign writes.

use super::event::Target;
use super::pmubox::{AddError, Note, Regs};
use super::regs::MSR_UNC_PERF_GLOBAL_CTRL;
use super::units::{UnitKind, ARB, CBOX, CLOCK, IMC};

#[macro_use]
mod rig;
mod asleep;
mod carry;
mod faults;
mod groups;
mod moves;
mod overcommit;
mod power;
mod readers;
mod recycled;
mod schedules;
mod sleep;
mod timers;

use rig::{generic, Rig};

#[test]
fn add_start_read_del_accesses_and_count() {
    let mut r = Rig::new(&CBOX, 0);
    let s0 = r.p.stats();
    r.add(1, generic(0x8f34), true).unwrap();
    // Baseline read, global enable, PERFEVTSEL.
    assert_eq!(r.p.accesses_since(s0), (1, 2));
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 12345);
    let s1 = r.p.stats();
    r.read(1);
    // The counter alone: one access.
    assert_eq!(r.p.accesses_since(s1), (1, 0));
    assert_eq!(r.counts[1], 12345);
    r.del(1);
    assert_eq!(r.b.len(), 0);
    assert_eq!(r.b.live().msr, 0);
    assert_eq!(r.p.sim.rdmsr(0x700, r.p.now).unwrap(), 0);
    // Read after del: nothing (perf never does; an NMI between del and its bookkeeping might).
    r.read(1);
}

#[test]
fn del_is_final_and_the_counter_is_taken_over() {
    let mut r = Rig::new(&CBOX, 1);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 1, 0x34, 0x8f, 7);
    let s0 = r.p.stats();
    // Perf reschedules: del and add back inside disable/enable.
    r.b.disable();
    r.del(1);
    // Final at del: the 7 are counted, and what happens before the add is not.
    assert_eq!(r.counts[1], 7);
    r.p.inject(UnitKind::Cbox, 1, 0x34, 0x8f, 1000);
    r.add(1, generic(0x8f34), true).unwrap();
    assert_eq!(r.enable(), None);
    // At del a write (stop) and a read (the fold); at enable a write (start): the counter did not
    // move meanwhile, so where it stopped is the new baseline.
    assert_eq!(r.p.accesses_since(s0), (1, 2));
    r.p.inject(UnitKind::Cbox, 1, 0x34, 0x8f, 5);
    r.read(1);
    assert_eq!(r.counts[1], 12);
    // A counter nobody takes over stays stopped, and counts for nobody.
    r.b.disable();
    r.del(1);
    assert_eq!(r.p.sim.rdmsr(0x710, r.p.now).unwrap(), 0);
    assert_eq!(r.enable(), None);
    assert_eq!(r.p.sim.rdmsr(0x710, r.p.now).unwrap(), 0);
}

/// A part with four counters per CBo (the i7-6700K) runs four events at once, on counters 0 to
/// 3; a part with two (Table 2-1, the i7-8665U) runs two and never touches the others.
#[test]
fn counters_per_cbo_as_the_part_has_them() {
    let evs = [0x8f34, 0x1f34, 0x4822, 0x4122, 0x2f34];
    for nr in [4u32, 2] {
        let mut r = Rig::with_counters(&CBOX, 2, nr);
        for (e, &config) in evs.iter().enumerate() {
            let res = r.add(e, generic(config), true);
            assert_eq!(
                res.is_ok(),
                e < nr as usize,
                "{nr} counters, event {e}: {res:?}"
            );
            if res.is_err() {
                assert_eq!(res, Err(AddError::Busy));
            }
        }
        // The driver never touched a register the part lacks.
        assert_eq!(r.p.stats().faults, 0);
        for i in 0..4u32 {
            // Absent ones fault: None.
            let sel = r.p.sim.rdmsr(0x720 + i, r.p.now).ok();
            let want = (i < nr).then(|| evs[i as usize] | 1 << 22);
            assert_eq!(sel, want, "{nr} counters, PERFEVTSEL{i}");
        }
        r.p.inject(UnitKind::Cbox, 2, 0x34, 0x0f, 100);
        r.p.inject(UnitKind::Cbox, 2, 0x34, 0x1f, 20);
        r.p.inject(UnitKind::Cbox, 2, 0x22, 0x48, 3);
        for e in 0..nr as usize {
            r.read(e);
        }
        // An event counts an injection whose umask lies within its own: 0x8f34 the 100,
        // 0x1f34 the 100 and the 20, 0x4822 the 3, 0x4122 nothing.
        let want: &[u64] = if nr == 4 {
            &[100, 120, 3, 0]
        } else {
            &[100, 120]
        };
        assert_eq!(&r.counts[..nr as usize], want);
    }
}

#[test]
fn arb_occupancy_moves_the_other_event() {
    let mut r = Rig::new(&ARB, 0);
    r.add(1, generic(0x181), true).unwrap();
    assert_eq!(r.b.counter_of(1), Some(0));
    r.add(2, generic(0x180), true).unwrap();
    assert_eq!((r.b.counter_of(1), r.b.counter_of(2)), (Some(1), Some(0)));
    assert_eq!(r.add(3, generic(0x180), true), Err(AddError::Busy));
    assert_eq!(r.p.stats().constraint_violations, 0);
}

#[test]
fn foreign_global_clear_is_repaired_by_the_watchdog() {
    let mut r = Rig::new(&CBOX, 0);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 100);
    // Another tool clears the global enable: nothing counts until it is repaired.
    r.p.sim.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, 0, r.p.now).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 50);
    r.read(1);
    assert_eq!(r.counts[1], 100);
    // The timer's check, within a second: the control registers are intact, the global
    // enable is not.
    assert_eq!(r.check(), None);
    assert_eq!(r.p.global_enable(true), Ok(true));
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 1000);
    r.read(1);
    assert_eq!(r.counts[1], 1100);
}

#[test]
fn rewritten_evtsel_is_repaired_by_the_watchdog() {
    let mut r = Rig::new(&CBOX, 2);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 2, 0x34, 0x8f, 10);
    r.p.sim.wrmsr(0x720, 0x40_0122, r.p.now).unwrap();
    assert_eq!(r.check(), Some(Note::Changed(0x720)));
    assert_eq!(r.check(), None);
    r.p.inject(UnitKind::Cbox, 2, 0x34, 0x8f, 5);
    r.read(1);
    assert_eq!(r.counts[1], 15);
}

#[test]
fn reset_counts_no_wrap() {
    // A counter near its wrap point (as another tool left it), then a reset to power-on (as
    // in S3): the count must not jump by 2^44.
    let mut r = Rig::new(&CBOX, 0);
    r.p.sim
        .preset(UnitKind::Cbox, 0, 0, (1 << 44) - 100, r.p.now)
        .unwrap();
    r.add(1, generic(0x8f34), true).unwrap();
    let before = r.counts[1];
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 30);
    assert_eq!(r.poll(), None);
    assert_eq!(r.counts[1] - before, 30);
    r.p.sim.reset(r.p.now);
    assert!(r.check().is_some());
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 40);
    r.read(1);
    assert_eq!(r.counts[1] - before, 70);
}

#[test]
fn a_late_poll_is_no_reset() {
    // The IMC at 1.6e9 lines/s for 2.5 s: more than half of 2^32, less than all of it. A poll
    // that late (interrupts off, suspend-to-idle) still counts every line: IMC counters are
    // read-only, their steps modular.
    let mut r = Rig::new(&IMC, 0);
    r.add(1, Target::FreeRunning(0), true).unwrap();
    r.p.now += 2_500_000_000;
    r.p.inject(UnitKind::Imc, 0, 1, 0, 4_000_000_000);
    assert_eq!(r.poll(), None);
    assert_eq!(r.counts[1], 4_000_000_000);
    // An MSR counter late by as much: 2^43 + 1 in 1800 s at 5 GHz is counting, not a reset.
    let mut r = Rig::new(&CBOX, 0);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.now += 1_800_000_000_000;
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, (1 << 43) + 1);
    assert_eq!(r.poll(), None);
    assert_eq!(r.check(), None);
    assert_eq!(r.counts[1], (1 << 43) + 1);
}

#[test]
fn a_read_finds_a_foreign_counter_write() {
    // Another tool zeroes the counter: the next read's step is one no clock allows. It counts
    // what the counter shows since (plausible), and the timer logs it.
    let mut r = Rig::new(&CBOX, 0);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 500);
    r.read(1);
    r.p.sim.wrmsr(0x706, 0, r.p.now).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 20);
    r.read(1);
    assert_eq!(r.counts[1], 520);
    assert_eq!(r.check(), Some(Note::Changed(0x706)));
    assert_eq!(r.check(), None);
}

#[test]
fn a_faulting_counter_is_an_error_once() {
    // PERFEVTSEL1 of CBo 0 is absent on this part.
    let mut r = Rig::new(&CBOX, 0);
    r.p.absent = Some(0x701);
    r.add(1, generic(0x8f34), true).unwrap();
    assert_eq!(
        r.add(2, generic(0x1134), true),
        Err(AddError::Fault(Note::Faulted(0x701)))
    );
    assert_eq!(r.b.len(), 1);
    // Never tried again: the box uses counter 0 alone, and multiplexes.
    assert_eq!(r.add(2, generic(0x1134), true), Err(AddError::Busy));
    r.b.disable();
    r.del(1);
    r.add(2, generic(0x1134), true).unwrap();
    assert_eq!(r.add(1, generic(0x8f34), true), Err(AddError::Busy));
    assert_eq!(r.enable(), None);
    assert_eq!(r.b.counter_of(2), Some(0));
    assert_eq!(r.p.absent_tries, 1);
    // Inside a disabled section too, the first use of a counter is tried at add.
    let mut r = Rig::new(&CBOX, 0);
    r.p.absent = Some(0x701);
    r.add(1, generic(0x8f34), true).unwrap();
    r.b.disable();
    assert_eq!(
        r.add(2, generic(0x1134), false),
        Err(AddError::Fault(Note::Faulted(0x701)))
    );
    assert_eq!(r.enable(), None);
    assert_eq!(r.p.absent_tries, 1);
}

#[test]
fn suspend_resume_keeps_counting() {
    let mut clk = Rig::new(&CLOCK, 0);
    let mut imc = Rig::new(&IMC, 0);
    // One package: the IMC rig reads the clock rig's simulator.
    clk.add(1, Target::Fixed, true).unwrap();
    imc.add(2, Target::FreeRunning(0), true).unwrap();
    for (rig, unit, ev, n) in [
        (&mut clk, UnitKind::Clock, 0xff, 500),
        (&mut imc, UnitKind::Imc, 1, 600),
    ] {
        rig.p.inject(unit, 0, ev, 0, n);
        assert_eq!(rig.sleep(), None);
        rig.s3(1_000_000_000);
        assert_eq!(rig.wake_s3(), None);
        rig.p.inject(unit, 0, ev, 0, 5);
    }
    clk.read(1);
    imc.read(2);
    assert_eq!((clk.counts[1], imc.counts[2]), (505, 605));
}
