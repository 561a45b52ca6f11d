// SPDX-License-Identifier: GPL-2.0

//! Counting through sleep: suspend-to-idle keeps the uncore's registers and may keep it
//! counting, while the clock the driver judges steps by may have stopped.

use super::super::event::Target;
use super::super::regs::MSR_UNC_PERF_FIXED_CTR;
use super::super::sim::{count::Rates, SimUncore};
use super::super::units::CLOCK;
use super::rig::Rig;

/// UCLK at 800 MHz: 1 s, then 60 s of suspend-to-idle that CLOCK_MONOTONIC does not see,
/// a read at wake-up and another 1 s later. Every one of the 62 s of UCLK cycles is counted,
/// and nothing is taken for a reset (no log line): a step faster than the clock allows only
/// says the clock missed time; a counter that only moved forward was not reset.
#[test]
fn s2idle_with_a_stopped_clock_keeps_every_count() {
    let mut r = Rig::new(&CLOCK, 0);
    let rates = Rates {
        uclk_hz: 800_000_000,
        ..Rates::default()
    };
    r.p.sim = SimUncore::new(4, true, rates);
    r.add(1, Target::Fixed, true).unwrap();
    r.p.now += 1_000_000_000;
    r.p.now += 60_000_000_000;
    r.p.clock_missed += 60_000_000_000;
    r.read(1);
    assert_eq!(r.check(), None);
    r.p.now += 1_000_000_000;
    r.read(1);
    // The model's counter counted from 0 when the driver enabled it.
    let counted = r.p.sim.rdmsr(MSR_UNC_PERF_FIXED_CTR, r.p.now).unwrap();
    assert_eq!(r.check(), None);
    assert_eq!(r.counts[1], counted);
    assert!(counted.abs_diff(49_600_000_000) < 1_000, "{counted}");
}
