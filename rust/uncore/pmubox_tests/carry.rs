// SPDX-License-Identifier: GPL-2.0

//! What a move carries: the raw value where a departed event's count stopped is a baseline,
//! and an IMC baseline is only good for one wrap of its 32-bit counter.

use super::super::event::Target;
use super::super::pmubox::depart::MOVE_NS;
use super::super::units::{UnitKind, MAX_DRAM_LINES_PER_S};
use super::rig::Rig;
use crate::uncore::units::IMC;

/// The package timer's period while an IMC event is live, ns (`engine/package.rs`).
const IMC_TICK_NS: u64 = 1_006_000_000;

/// `ns` of DRAM traffic at the top rate the IMC poll is built for: the lines counted.
fn top_rate(r: &mut Rig, ns: u64) -> u64 {
    let lines = MAX_DRAM_LINES_PER_S * ns / 1_000_000_000;
    r.p.now += ns;
    r.p.sim
        .inject(UnitKind::Imc, 0, 1, 0, lines, r.p.now)
        .unwrap();
    lines
}

/// Issue 30, item 4: an IMC event moves at the top DRAM rate, its move takes almost
/// [`MOVE_NS`] and the timer's first poll after the `add` comes a period later. The baseline
/// carried from the `del` would be 3.0 s old at that poll, beyond the 2.68 s wrap: the `add`
/// folds the gap, so no poll judges a baseline older than the move. (Without that fold:
/// 1,293,032,704 counted for 5,588,000,000, exactly 2^32 short.)
#[test]
fn an_imc_move_loses_no_wrap() {
    let mut r = Rig::new(&IMC, 0);
    r.add(1, Target::FreeRunning(0), true).unwrap();
    let mut total = top_rate(&mut r, 487_500_000);
    r.poll();
    r.depart(1);
    total += top_rate(&mut r, MOVE_NS - 1_000_000);
    r.b.disable();
    r.add(1, Target::FreeRunning(0), true).unwrap();
    assert_eq!(r.enable(), None);
    total += top_rate(&mut r, IMC_TICK_NS);
    r.poll();
    assert!(total > 1 << 32);
    assert_eq!(r.counts[1], total);
    r.del(1);
    assert_eq!(r.b.live(), Default::default());
}
