// SPDX-License-Identifier: GPL-2.0

//! What faulted in a box, remembered so that no event is given a counter that cannot count and
//! no register that faulted is tried again.

use super::{PmuBox, Slot};
use crate::uncore::event::Target;
use crate::uncore::tally::Handle;
use crate::uncore::units::UnitKind;

/// [`PmuBox::broken`] and [`PmuBox::unwatched`]: the fixed counter.
pub(super) const FIXED_BIT: u32 = 1 << 16;

/// [`PmuBox::broken`]: free-running IMC counter `i`.
const fn imc_bit(i: u8) -> u32 {
    1 << (17 + (i as u32 & 7))
}

impl<H: Handle> PmuBox<H> {
    /// The counter of `s` faulted: no event gets it again.
    pub(super) fn mark_broken(&mut self, s: &Slot<H>) {
        match s.target {
            Target::Generic(_) => self.faulted |= 1 << s.ctr.unwrap_or(0),
            Target::Fixed => self.broken |= FIXED_BIT,
            Target::FreeRunning(i) => self.broken |= imc_bit(i),
        }
    }

    /// Generic counters `from..` are missing from this box (a probe after load found its
    /// package's CBos with `from`): no event gets them, as if each had faulted. A CBo's only;
    /// before any event is in the box.
    pub(crate) fn lacks_counters_from(&mut self, from: u32) {
        if matches!(self.unit.kind, UnitKind::Cbox) {
            let all = 1u32
                .checked_shl(self.nr_generic)
                .map_or(u32::MAX, |b| b - 1);
            let kept = 1u32.checked_shl(from).map_or(u32::MAX, |b| b - 1);
            self.faulted |= all & !kept;
        }
    }

    /// Whether an event on `target` may count here: not when every counter it may use
    /// faulted. Known before `add` for a counter that faulted once: `event_init` refuses then.
    pub(crate) fn can_count(&self, target: Target) -> bool {
        match target {
            Target::Generic(sel) => self.allowed(sel.evt_sel()) != 0,
            Target::Fixed => self.broken & FIXED_BIT == 0,
            Target::FreeRunning(i) => self.broken & imc_bit(i) == 0,
        }
    }
}
