// SPDX-License-Identifier: GPL-2.0

//! How the simulated counters count: at a rate over time, exactly, and through the threshold,
//! invert and edge logic of `PERFEVTSEL`.

use super::{NR_GENERIC_BOXES, NS_PER_S};
use crate::uncore::counter::width_mask;
use crate::uncore::regs::PerfEvtSel;

/// A counter and the fractional counts carried between time steps, so that counting at a rate
/// is exact over any split of time.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ctr {
    pub(super) value: u64,
    /// Remainder of `rate * ns`, below `NS_PER_S`.
    pub(super) frac: u64,
    /// Remainder for the UCLK cycles an inverted threshold counts.
    pub(super) cyc_frac: u64,
    /// Every increment ever counted, without wrapping: what a perfect driver reports. Not a
    /// register: [`super::SimUncore::reset`] leaves it as it is.
    pub(super) total: u64,
}

/// Increments over `dt` ns at `rate` per second, carrying the remainder in `frac`.
pub(super) fn at_rate(rate: u64, dt: u64, frac: &mut u64) -> u64 {
    if rate == 0 {
        return 0;
    }
    // rate * (dt % 1e9) < 1e9 * rate: fits u64 for rates below 1.8e10.
    let whole = rate.wrapping_mul(dt / NS_PER_S);
    let part = rate.saturating_mul(dt % NS_PER_S) + *frac;
    *frac = part % NS_PER_S;
    whole + part / NS_PER_S
}

/// Increment of a generic counter programmed with `sel` for an event asserted in `events` of
/// `cycles` UCLK cycles, one increment per asserted cycle (Table 2-7 semantics):
/// `THR` = 0 passes increments through; otherwise a cycle counts when its increment is
/// `>= THR` (or `< THR` with `INV`); `E` counts de-asserted to asserted transitions instead.
///
/// `burst` says the asserted cycles are consecutive (an injection) rather than isolated
/// (background traffic), which matters only for edges.
pub(crate) fn filtered_increment(sel: PerfEvtSel, events: u64, cycles: u64, burst: bool) -> u64 {
    let thr = sel.get(PerfEvtSel::THR);
    let cycles = cycles.max(events);
    // Cycles in which the compared condition holds.
    let (hits, runs) = if thr == 0 {
        (events, if burst { u64::from(events > 0) } else { events })
    } else if sel.is_set(PerfEvtSel::INV) {
        // An asserted cycle increments by 1: it passes `< THR` only when THR > 1.
        if thr > 1 {
            (cycles, u64::from(cycles > 0))
        } else {
            let idle = cycles - events;
            (
                idle,
                if burst {
                    u64::from(idle > 0)
                } else {
                    events.min(idle)
                },
            )
        }
    } else if thr == 1 {
        (events, if burst { u64::from(events > 0) } else { events })
    } else {
        (0, 0)
    };
    if sel.is_set(PerfEvtSel::E) {
        runs
    } else {
        hits
    }
}

/// Background rates, per second.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rates {
    /// UCLK: the fixed counter's rate, and the cycles inverted thresholds count.
    pub(crate) uclk_hz: u64,
    /// Events per second seen by every enabled generic counter of a box (CBo 0..7, ARB).
    pub(crate) generic: [u64; NR_GENERIC_BOXES],
    /// IMC counters, indexed like [`crate::uncore::regs::IMC_COUNTERS`].
    pub(crate) imc: [u64; 5],
}

impl Ctr {
    /// Adds `inc` to a counter of `width` bits, setting `status_bit` in `status` on a wrap.
    pub(super) fn bump(&mut self, inc: u64, width: u32, status: &mut u64, status_bit: u64) {
        let mask = width_mask(width);
        let old = self.value & mask;
        self.value = old.wrapping_add(inc) & mask;
        self.total = self.total.wrapping_add(inc);
        // A wrap happened when the increment reached past the top, even several times over.
        if inc > mask - old {
            *status |= status_bit;
        }
    }
}
