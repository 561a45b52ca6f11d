// SPDX-License-Identifier: GPL-2.0

//! Lock-free reads from another CPU (perf's `PERF_EV_CAP_READ_SCOPE`, BPF, NMI) interleaved
//! with what the scope CPU does to the box meanwhile.

use super::super::units::{UnitKind, CBOX};
use super::rig::{generic, Rig};

/// A reader on another CPU loads E1's baseline; before it reads the counter, the scope CPU
/// rotates E1 out and E2 in on the same slot and counter, and E2 counts 1000. The reader's
/// counter read holds E2's counts: none of them may reach E1.
#[test]
fn a_reader_never_moves_counts_between_events() {
    let mut r = Rig::new(&CBOX, 0);
    r.add(1, generic(0x8f34), true).unwrap();
    r.p.inject(UnitKind::Cbox, 0, 0x34, 0x8f, 507);
    let rd = r.reader(1).unwrap();
    // Perf's multiplexing rotation on the scope CPU.
    r.b.disable();
    r.del(1);
    r.add(2, generic(0x4122), true).unwrap();
    assert_eq!(r.enable(), None);
    assert_eq!(r.b.counter_of(2), Some(0));
    r.p.inject(UnitKind::Cbox, 0, 0x22, 0x41, 1000);
    r.finish_read(rd);
    r.read(2);
    r.del(2);
    assert_eq!((r.counts[1], r.counts[2]), (507, 1000));
}
