// SPDX-License-Identifier: GPL-2.0

//! An over-committed ARB (issue 30, item 7): `make bench`'s three events on its two counters
//! and its probe, rescheduled and rotated as perf does, every register access counted.

use super::rig::{generic, Rig};
use crate::uncore::units::{UnitKind, ARB};

/// `make bench`'s events: occupancy (event 0x80, counter 0 only), two request events, and the
/// probe it opens among them. Each counts what is injected with its (event, umask).
const EVENTS: [(u8, u8); 4] = [(0x80, 1), (0x81, 2), (0x84, 1), (0x81, 1)];

/// Perf's flexible groups of the PMU on the collector's context.
struct Ctx {
    /// Scheduling order (perf's group index).
    order: Vec<usize>,
    /// Scheduled in.
    active: Vec<usize>,
}

impl Ctx {
    /// `ctx_resched`, or with `rotate` `perf_rotate_context` (the first active group goes last):
    /// every active event out, then in, in order, until the first `add` that fails
    /// (`can_add_hw`), inside one disabled section.
    fn resched(&mut self, r: &mut Rig, rotate: bool) {
        r.b.disable();
        for &e in &self.active {
            r.del(e);
        }
        if rotate {
            let first = self.active[0];
            self.order.retain(|&e| e != first);
            self.order.push(first);
        }
        self.active.clear();
        for &e in &self.order {
            let (ev, um) = EVENTS[e];
            let config = u64::from(um) << 8 | u64::from(ev);
            if r.add(e, generic(config), true).is_err() {
                break;
            }
            self.active.push(e);
        }
        assert_eq!(r.enable(), None);
    }
}

#[test]
fn an_over_committed_arb_rotation_costs_six_accesses() {
    let mut r = Rig::new(&ARB, 0);
    let mut ctx = Ctx {
        order: vec![0, 1, 2],
        active: vec![],
    };
    ctx.resched(&mut r, false);
    let mut expect = [0u64; 4];
    let mut traffic = |r: &mut Rig, active: &[usize]| {
        for (e, &(ev, um)) in EVENTS.iter().enumerate() {
            let n = 100 * (e as u64 + 1);
            r.p.inject(UnitKind::Arb, 0, ev, um, n);
            if active.contains(&e) {
                expect[e] += n;
            }
        }
    };
    traffic(&mut r, &ctx.active);
    // A whole cycle, each event out once. The second rotation brings occupancy in after event
    // 2, which must leave counter 0 to it: started once both are in, neither moves.
    for want in [[1, 2], [2, 0], [0, 1]] {
        let s0 = r.p.stats();
        ctx.resched(&mut r, true);
        assert_eq!(ctx.active, want);
        // Two counters stopped and read, two started with one write each (Linux's driver: 9,
        // and 13 where occupancy comes in; this engine before: 7, and 11).
        assert_eq!(r.p.accesses_since(s0), (2, 4));
        traffic(&mut r, &ctx.active);
    }
    // The bench's probe opened among them: the same cost (Linux's: 9).
    ctx.order.push(3);
    let s0 = r.p.stats();
    ctx.resched(&mut r, false);
    assert_eq!(r.p.accesses_since(s0), (2, 4));
    for _ in 0..4 {
        ctx.resched(&mut r, true);
        traffic(&mut r, &ctx.active);
    }
    assert_eq!(r.p.stats().constraint_violations, 0);
    for &e in &ctx.active.clone() {
        r.del(e);
    }
    // Every event counted exactly what happened while perf had it in, and nothing else.
    assert_eq!(r.counts[..4], expect);
}
