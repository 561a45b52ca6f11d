// SPDX-License-Identifier: GPL-2.0

//! Registers that fault (issue 21, item 3): an event never reports success while its counter
//! cannot count, each fault is reported once, and nothing is tried again.

use super::rig::{generic, Rig};
use crate::uncore::event::Target;
use crate::uncore::pmubox::{AddError, Note};
use crate::uncore::regs::{MSR_UNC_PERF_FIXED_CTRL, MSR_UNC_PERF_GLOBAL_CTRL};
use crate::uncore::units::{UnitKind, CBOX, CLOCK};

/// CBo 0's `PERFEVTSEL0` and `PERFCTR0`.
const EVTSEL0: u32 = 0x700;
const CTR0: u32 = 0x706;

#[test]
fn a_counter_whose_read_faults_is_an_error_not_a_zero_baseline() {
    let mut r = Rig::new(&CBOX, 0);
    r.p.sim.set_read_faults(CTR0);
    // Counter 0 first: refused after the one read (and the package's global enable); its
    // control was never written.
    let s0 = r.p.stats();
    assert_eq!(
        r.add(1, generic(0x8f34), true),
        Err(AddError::Fault(Note::Unreadable(CTR0)))
    );
    assert_eq!(r.p.accesses_since(s0), (1, 1));
    assert_eq!(r.b.len(), 0);
    // The same event again (perf's next rotation): counter 1, which counts.
    r.add(1, generic(0x8f34), true).unwrap();
    assert_eq!(r.b.counter_of(1), Some(1));
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 300);
    r.read(1);
    assert_eq!(r.counts[1], 300);
    // A second event: only counter 0 is left, and it is never tried again.
    let s1 = r.p.stats();
    assert_eq!(r.add(2, generic(0x8f34), true), Err(AddError::Busy));
    assert_eq!(r.p.accesses_since(s1), (0, 0));
    assert_eq!(r.p.stats().faults, 1);
}

#[test]
fn a_counter_that_stops_answering_keeps_its_count_and_is_said_once() {
    let mut r = Rig::new(&CBOX, 0);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 400);
    r.read(1);
    r.p.sim.set_read_faults(CTR0);
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 50);
    assert_eq!(r.poll(), Some(Note::Unreadable(CTR0)));
    assert_eq!(r.poll(), None);
    r.read(1);
    assert_eq!(r.counts[1], 400);
    // Perf's next schedule: the event gets the counter that works, or an error.
    r.b.disable();
    r.del(1);
    r.add(1, generic(0x8f34), true).unwrap();
    assert_eq!(r.enable(), None);
    assert_eq!(r.b.counter_of(1), Some(1));
}

#[test]
fn a_control_register_whose_read_faults_is_no_foreign_change() {
    let mut r = Rig::new(&CBOX, 0);
    r.p.sim.set_read_faults(EVTSEL0);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 100);
    // Said once; then the watchdog reads it no more, and the event counts on.
    assert_eq!(r.check(), Some(Note::Unwatched(EVTSEL0)));
    let s0 = r.p.stats();
    assert_eq!(r.check(), None);
    assert_eq!(r.p.accesses_since(s0), (0, 0));
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 23);
    r.read(1);
    assert_eq!(r.counts[1], 123);
}

#[test]
fn a_fixed_enable_that_faults_fails_the_clock_at_add() {
    let mut r = Rig::new(&CLOCK, 0);
    r.p.sim.set_en_faults(MSR_UNC_PERF_FIXED_CTRL);
    assert_eq!(
        r.add(1, Target::Fixed, true),
        Err(AddError::Fault(Note::Faulted(MSR_UNC_PERF_FIXED_CTRL)))
    );
    assert_eq!(r.b.len(), 0);
    assert!(!r.b.can_count(Target::Fixed));
    // Known from now on: no register access, and the error without a new note.
    let s0 = r.p.stats();
    assert_eq!(r.add(1, Target::Fixed, true), Err(AddError::Faulted));
    assert_eq!(r.p.accesses_since(s0), (0, 0));
    assert_eq!(r.p.stats().faults, 1);
    assert_eq!(r.counts[1], 0);
}

#[test]
fn a_global_enable_that_faults_fails_every_msr_event_without_retrying() {
    let mut r = Rig::new(&CBOX, 0);
    r.p.sim.set_en_faults(MSR_UNC_PERF_GLOBAL_CTRL);
    let gfault = Err(AddError::Fault(Note::Faulted(MSR_UNC_PERF_GLOBAL_CTRL)));
    assert_eq!(r.add(1, generic(0x8f34), true), gfault);
    assert_eq!(r.b.len(), 0);
    let s0 = r.p.stats();
    assert_eq!(r.add(1, generic(0x8f34), true), gfault);
    assert_eq!(r.p.accesses_since(s0), (0, 0));
    assert_eq!(r.p.stats().faults, 1);
    // The counters themselves are fine: no event loses them.
    assert!(r.b.can_count(generic(0x8f34)));
}

#[test]
fn counters_a_late_probe_found_missing_are_never_given() {
    // A box made for 4 counters on a package (a model) with 2, told so before any event.
    let mut r = Rig::with_counters(&CBOX, 0, 4);
    r.p.sim.set_cbo_counters(2);
    r.b.lacks_counters_from(2);
    assert_eq!(r.b.allowed(0x34), 0b11);
    r.add(1, generic(0x8f34), true).unwrap();
    r.add(2, generic(0x1f34), true).unwrap();
    // A third has no counter: perf multiplexes it, no register of counters 2 and 3 touched.
    assert_eq!(r.add(3, generic(0x4822), true), Err(AddError::Busy));
    assert_eq!(r.p.stats().faults, 0);
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x0f, 100);
    r.read(1);
    r.read(2);
    // Both umasks hold 0x0f.
    assert_eq!(&r.counts[1..3], &[100, 100]);
    // Only a CBo's counters, and never fewer than the box has: the ARB keeps its two.
    let mut arb = Rig::new(&crate::uncore::units::ARB, 0);
    arb.b.lacks_counters_from(0);
    assert_eq!(arb.b.allowed(0x81), 0b11);
    let mut all = Rig::with_counters(&CBOX, 0, 4);
    all.b.lacks_counters_from(4);
    assert_eq!(all.b.allowed(0x34), 0b1111);
}
