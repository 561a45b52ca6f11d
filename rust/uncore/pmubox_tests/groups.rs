// SPDX-License-Identifier: GPL-2.0

//! `event_init`'s check of a group against a box's counters: one call under the box's lock
//! for the whole group.

use super::rig::{generic, Rig};
use crate::uncore::event::Target;
use crate::uncore::pmubox::{AddError, Note, MAX_BOX_EVENTS};
use crate::uncore::units::ARB;

/// The ARB's `PERFEVTSEL1`.
const ARB_EVTSEL1: u32 = 0x3B3;

#[test]
fn a_group_fits_the_counters_the_box_can_give() {
    let mut r = Rig::new(&ARB, 0);
    let (occ, req, fixed) = (generic(0x180), generic(0x181), Target::Fixed);
    assert!(r.b.group_fits(&[occ, req]));
    assert!(r.b.group_fits(&[req, fixed, req]));
    // Occupancy counts on counter 0 alone; two counters, not three.
    assert!(!r.b.group_fits(&[occ, occ]));
    assert!(!r.b.group_fits(&[req, req, req]));
    // Shared counters: any number up to what a box holds.
    assert!(r.b.group_fits(&[fixed; MAX_BOX_EVENTS]));
    assert!(!r.b.group_fits(&[fixed; MAX_BOX_EVENTS + 1]));
    // Events already in the box are perf's to multiplex: they take nothing from a group.
    r.add(1, req, true).unwrap();
    assert!(r.b.group_fits(&[occ, req]));
    // Counter 1 faults: the pair no longer fits, either event alone still does.
    r.p.absent = Some(ARB_EVTSEL1);
    assert_eq!(
        r.add(2, req, true),
        Err(AddError::Fault(Note::Faulted(ARB_EVTSEL1)))
    );
    assert!(!r.b.group_fits(&[occ, req]));
    assert!(r.b.group_fits(&[req]) && r.b.group_fits(&[occ]));
}
