// SPDX-License-Identifier: GPL-2.0

//! Which generic counter each event of a box may use and gets.

use super::{sched, PmuBox, MAX_BOX_EVENTS};
use crate::uncore::event::Target;
use crate::uncore::sched::Request;
use crate::uncore::tally::Handle;

impl<H: Handle> PmuBox<H> {
    /// Whether a live event holds generic counter `c`.
    pub(super) fn counter_held(&self, c: u8) -> bool {
        self.slots
            .iter()
            .flatten()
            .any(|o| o.live && o.ctr == Some(c))
    }

    /// The generic counters event select `event` may use here: not a faulted one.
    pub(crate) fn allowed(&self, event: u8) -> u32 {
        self.unit.allowed_counters(event, self.nr_generic) & !self.faulted
    }

    /// The scheduler's request for an event on `target`, never on a faulted counter.
    pub(super) fn request(&self, target: Target, current: Option<u8>) -> Option<Request> {
        match target {
            Target::Generic(sel) => Some(Request {
                allowed: self.allowed(sel.evt_sel()),
                current,
            }),
            _ => None,
        }
    }

    /// Assigns counters to the held generic slots, plus one more event on `extra` if given;
    /// `None` if they do not fit. Returns the slot indices (`usize::MAX` for `extra`), their
    /// counters and how many there are. Live slots keep their counter where the constraints
    /// allow.
    #[allow(clippy::type_complexity)]
    pub(super) fn assignment(
        &self,
        extra: Option<Target>,
    ) -> Option<(
        [usize; sched::MAX_COUNTERS],
        [u8; sched::MAX_COUNTERS],
        usize,
    )> {
        let mut reqs = [Request {
            allowed: 0,
            current: None,
        }; sched::MAX_COUNTERS];
        let mut who = [usize::MAX; sched::MAX_COUNTERS];
        let mut n = 0;
        let held = self.slots.iter().enumerate().filter_map(|(i, s)| {
            let s = (*s)?;
            let req = self.request(s.target, if s.live { s.ctr } else { None })?;
            Some((i, req))
        });
        let extra = extra
            .and_then(|t| self.request(t, None))
            .map(|r| (usize::MAX, r));
        for (i, req) in held.chain(extra) {
            if n == reqs.len() {
                return None;
            }
            reqs[n] = req;
            who[n] = i;
            n += 1;
        }
        let mut out = [0u8; sched::MAX_COUNTERS];
        sched::assign(&reqs[..n], self.nr_generic as usize, &mut out[..n]).then_some((who, out, n))
    }

    /// Whether a group of events on `targets` fits this box's counters alone: at most
    /// [`MAX_BOX_EVENTS`], and its generic events on distinct counters none of which faulted.
    /// One call under the box's lock for the whole group (`event_init`'s check).
    pub(crate) fn group_fits(&self, targets: &[Target]) -> bool {
        let mut reqs = [Request {
            allowed: 0,
            current: None,
        }; sched::MAX_COUNTERS];
        let mut n = 0;
        for req in targets.iter().filter_map(|&t| self.request(t, None)) {
            if n == reqs.len() {
                return false;
            }
            reqs[n] = req;
            n += 1;
        }
        let mut out = [0u8; sched::MAX_COUNTERS];
        targets.len() <= MAX_BOX_EVENTS
            && sched::assign(&reqs[..n], self.nr_generic as usize, &mut out[..n])
    }
}
