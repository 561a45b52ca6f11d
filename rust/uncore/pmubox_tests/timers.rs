// SPDX-License-Identifier: GPL-2.0

//! The package timer over a box, by the rules of [`timer`]: how late a departed record's
//! counter is stopped, and how often a timer with no CPU of its package online wakes.

use super::super::event::Target;
use super::super::pmubox::depart::MOVE_NS;
use super::super::timer::{self, Found};
use super::super::units::{Unit, CBOX, CLOCK, IMC};
use super::rig::{generic, Rig};

/// The package timer as `kabi/poller.rs` runs it, over one box, each run at the latest its
/// expiry and slack allow (the worst case).
struct Timer {
    /// The latest time of the next run (the rig's clock), if armed.
    due: Option<u64>,
    /// Runs so far.
    runs: u32,
}

impl Timer {
    /// A box call (`with_box`): `f` on the box, then the timer follows its live events.
    fn call(&mut self, r: &mut Rig, f: impl FnOnce(&mut Rig)) {
        let (before, due_before) = (r.b.live(), r.b.departed_due());
        f(r);
        let (after, due_after) = (r.b.live(), r.b.departed_due());
        let now = r.p.now;
        let within = timer::within(before, after, due_before, due_after, now);
        let live = after.msr + after.imc;
        self.due = match (self.due, live) {
            (_, 0) => None,
            // `Poller::track` starts a stopped timer within the period, exactly.
            (None, _) => Some(now + within.unwrap_or(u64::MAX).min(timer::TICK.after_ns)),
            (Some(due), _) => Some(match within {
                Some(w) => now + timer::rearm(due.saturating_sub(now), w),
                None => due,
            }),
        };
    }

    /// Lets time pass to the next run and runs it: what `PkgState::run` does with this box.
    fn run(&mut self, r: &mut Rig) {
        let Some(due) = self.due else {
            return;
        };
        r.p.now = r.p.now.max(due);
        self.runs += 1;
        r.expire();
        if r.b.live().msr > 0 {
            r.check();
        }
        let now = r.p.now;
        if r.b.poll_due(now) {
            r.poll();
        }
        let found = Found {
            any_imc: r.b.live().imc > 0,
            busy: false,
            departed_due: r.b.departed_due(),
        };
        let live = r.b.live();
        self.due = (live.msr + live.imc > 0).then(|| now + timer::after_run(now, found).latest());
    }
}

/// Issue 30, item 6: an event departs (its CPU goes offline) just after a timer run and never
/// lands (closed on its way). Its counter is stopped no sooner than [`MOVE_NS`] after the
/// depart (a move that takes longer than an RCU grace period still lands) and no later than
/// 2.5 s after it, whatever else is live on the box: an MSR event (the timer's period 10 s,
/// 12.5 s at the latest), an IMC event (1.006 s), or nothing. (Before: 12.5 s.)
#[test]
fn a_move_that_never_lands_is_stopped_within_2_5_s() {
    let cases: [(&Unit, Target, Option<Target>); 4] = [
        (&CBOX, generic(0x8f34), Some(generic(0x4122))),
        (&CLOCK, Target::Fixed, None),
        (&IMC, Target::FreeRunning(0), Some(Target::FreeRunning(1))),
        (&IMC, Target::FreeRunning(0), None),
    ];
    for (unit, target, other) in cases {
        for lag in [1_000_000, 600_000_000, 1_005_000_000] {
            let mut r = Rig::new(unit, 0);
            let mut t = Timer { due: None, runs: 0 };
            t.call(&mut r, |r| r.add(1, target, true).unwrap());
            if let Some(o) = other {
                t.call(&mut r, |r| r.add(2, o, true).unwrap());
            }
            t.run(&mut r);
            let first = r.p.now;
            r.p.now += lag;
            t.call(&mut r, |r| r.depart(1));
            let departed = r.p.now;
            let live = |r: &Rig| r.b.live().msr + r.b.live().imc;
            let with_record = live(&r);
            while live(&r) == with_record {
                t.run(&mut r);
                assert!(
                    r.p.now - first < 60_000_000_000,
                    "{target:?}: never stopped"
                );
            }
            let took = r.p.now - departed;
            assert!(
                (MOVE_NS..=MOVE_NS + 500_000_000).contains(&took),
                "{target:?} beside {other:?}, {lag} ns after a run: stopped {took} ns after \
                 the depart"
            );
            assert_eq!(r.p.fixed_users, 0, "{target:?}");
        }
    }
}

/// Issue 30, item 6: a timer that CPU hotplug moved off its package, with no CPU of the
/// package online (a departed record keeps it armed), wakes at most 20 times in a minute
/// (before: every 1 ms, 60,000), and a CPU of the package that comes online is found within
/// the watchdog's period (10 s).
#[test]
fn a_homeless_timer_backs_off() {
    let (mut at, mut runs, mut tries, mut longest) = (0u64, 0u32, 0u32, 0u64);
    while at < 60_000_000_000 {
        let next = timer::homeless(tries).latest();
        longest = longest.max(next);
        at += next;
        runs += 1;
        tries += 1;
    }
    assert!(runs <= 20, "{runs} runs in a minute");
    assert!(longest <= timer::TICK.after_ns, "{longest} ns between runs");
    assert_eq!(timer::homeless(0).latest(), 1_000_000);
}
