// SPDX-License-Identifier: GPL-2.0

//! A departed record and a recycled event: perf frees a closed event an RCU grace period
//! after its last `del`, and the slab may give the same address to the next event opened.
//! The box names events by the engine's handle, which is the event's address and perf's
//! `event->id` (`kabi/perf/event.rs`, `EventRef`): [`Ev`] is that handle on the host.

use super::super::event::Target;
use super::super::pmubox::{depart::MOVE_NS, Cx, PmuBox};
use super::super::tally::{Handle, Tallies};
use super::super::units::{Unit, UnitKind, CBOX, CLOCK, IMC};
use super::rig::{generic, Pkg};

/// A perf event as the engine names it: its address (reads find its tally slot by it) and
/// perf's id, which perf gives each event from a 64-bit counter at its allocation and never
/// gives again. Equal only for the same event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ev {
    addr: usize,
    id: u64,
}

impl Handle for Ev {
    fn key(self) -> usize {
        self.addr
    }
}

/// Where a box call's folds go.
type Out<'a> = &'a mut dyn FnMut(Ev, u64);

/// A box named by [`Ev`]s, over the simulator: counts per event id.
struct Bench {
    p: Pkg,
    b: PmuBox<Ev>,
    t: Tallies,
    counts: [u64; 4],
}

impl Bench {
    fn new(unit: &'static Unit) -> Self {
        Self {
            p: Pkg::new(),
            b: PmuBox::new(unit, 0, unit.nr_generic_listed),
            t: Tallies::new(unit.max_rate),
            counts: [0; 4],
        }
    }

    /// Runs `f` on the box with a [`Cx`] that credits events by id.
    fn op<T>(&mut self, f: impl FnOnce(&mut PmuBox<Ev>, &mut Cx<'_, Pkg, Out<'_>>) -> T) -> T {
        let counts = &mut self.counts;
        let mut credit = |ev: Ev, d: u64| counts[ev.id as usize] += d;
        let mut out: Out<'_> = &mut credit;
        let cx = &mut Cx {
            tallies: &self.t,
            regs: &mut self.p,
            out: &mut out,
        };
        f(&mut self.b, cx)
    }

    /// Perf's `add` of `ev`, on a CPU of the package, inside a disabled section.
    fn add(&mut self, ev: Ev, target: Target) {
        self.b.disable();
        self.op(|b, cx| b.add(cx, ev, target, true)).unwrap();
        assert_eq!(self.op(|b, cx| b.enable(cx)), None);
    }

    /// Perf's `del` of `ev` on a CPU going offline: a move.
    fn depart(&mut self, ev: Ev) {
        self.b.disable();
        self.op(|b, cx| b.depart(cx, ev));
        assert_eq!(self.op(|b, cx| b.enable(cx)), None);
    }

    /// A read(2) of `ev`.
    fn read(&mut self, ev: Ev) {
        if let Some(d) = self.t.read(ev, &mut self.p) {
            self.counts[ev.id as usize] += d;
        }
    }
}

/// Issue 30, item 2: an event closed after its CPU left the active mask leaves a record
/// (its `del` looks like a move); a new event of the same config at the same address, added
/// within [`MOVE_NS`], counts only its own 250, not the 1,000,000 the counter counted since
/// the close. Each kind of counter. (Matched by the address alone, as before: 1,000,250.)
#[test]
fn a_recycled_event_inherits_nothing() {
    let cases = [
        (&CBOX, generic(0x8f34), UnitKind::Cbox, 0x34, 0x8f),
        (&CLOCK, Target::Fixed, UnitKind::Clock, 0xff, 0),
        (&IMC, Target::FreeRunning(0), UnitKind::Imc, 1, 0),
    ];
    for (unit, target, kind, ev, um) in cases {
        let mut r = Bench::new(unit);
        let old = Ev { addr: 0x40, id: 1 };
        let new = Ev { addr: 0x40, id: 2 };
        r.add(old, target);
        r.p.inject(kind, 0, ev, um, 500);
        // Closed while its CPU goes offline: never added again.
        r.depart(old);
        assert_eq!(r.counts[1], 500, "{kind:?}");
        r.p.inject(kind, 0, ev, um, 1_000_000);
        // Freed after a grace period; the slab gives its address to the next event.
        r.add(new, target);
        r.p.inject(kind, 0, ev, um, 250);
        r.read(new);
        assert_eq!((r.counts[1], r.counts[2]), (500, 250), "{kind:?}");
        // The record still stops what its counter counts for nobody: the new event's counter
        // alone counts on.
        r.p.now += MOVE_NS;
        r.op(|b, cx| b.expire_departed(cx, false));
        let live = r.b.live();
        assert_eq!(live.msr + live.imc, 1, "{kind:?}");
        assert_eq!(
            r.p.fixed_users,
            u32::from(kind == UnitKind::Clock),
            "{kind:?}"
        );
        r.p.inject(kind, 0, ev, um, 7);
        r.read(new);
        assert_eq!(r.counts[2], 257, "{kind:?}");
    }
}
