// SPDX-License-Identifier: GPL-2.0

//! Constraint-aware assignment of events to a box's generic counters.
//!
//! Each event may use a subset of the counters (ARB occupancy only counter 0, for instance).
//! Assignment is a bipartite matching. The constraints of this uncore are nested (counter 0
//! alone, or any counter), so Linux's weight-ordered greedy pass (most constrained event
//! first, `perf_assign_events`) also finds an assignment whenever one exists. What the
//! augmenting paths (Kuhn's algorithm) add is that events keep the counter they already have
//! whenever the matching allows: only an event that must move is moved, so scheduling rarely
//! reprograms a running counter (`make bench` shows the accesses). With at most 2 counters
//! and 16 events a box, its cost is a few dozen steps.

/// Most generic counters any unit has.
pub(crate) const MAX_COUNTERS: usize = 4;

/// One event competing for counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Request {
    /// Bit `i` set: the event may use counter `i`.
    pub(crate) allowed: u32,
    /// The counter it holds now, if any.
    pub(crate) current: Option<u8>,
}

/// Assigns a counter (below `nr_counters`) to every request; `out[i]` receives request `i`'s.
///
/// Returns `false`, leaving `out` unspecified, when no assignment satisfies every constraint.
pub(crate) fn assign(reqs: &[Request], nr_counters: usize, out: &mut [u8]) -> bool {
    let nr = nr_counters.min(MAX_COUNTERS);
    if reqs.len() > nr || out.len() < reqs.len() {
        return false;
    }
    let mut owner: [Option<usize>; MAX_COUNTERS] = [None; MAX_COUNTERS];
    let mut placed = [false; MAX_COUNTERS];

    // Keep every event where it is, as far as the positions are valid and distinct.
    for (i, r) in reqs.iter().enumerate() {
        if let Some(c) = r.current {
            let c = usize::from(c);
            if c < nr && r.allowed & (1 << c) != 0 && owner[c].is_none() {
                owner[c] = Some(i);
                out[i] = c as u8;
                placed[i] = true;
            }
        }
    }
    for i in 0..reqs.len() {
        if !placed[i] {
            let mut seen = 0u32;
            if !augment(i, reqs, nr, &mut owner, out, &mut placed, &mut seen) {
                return false;
            }
        }
    }
    true
}

/// Finds a counter for request `i`, moving others along an augmenting path if needed.
fn augment(
    i: usize,
    reqs: &[Request],
    nr: usize,
    owner: &mut [Option<usize>; MAX_COUNTERS],
    out: &mut [u8],
    placed: &mut [bool; MAX_COUNTERS],
    seen: &mut u32,
) -> bool {
    let allowed = reqs[i].allowed & ((1u32 << nr) - 1);
    // A free counter first: nothing else moves.
    for (c, slot) in owner.iter_mut().enumerate().take(nr) {
        if allowed & (1 << c) != 0 && slot.is_none() {
            *slot = Some(i);
            out[i] = c as u8;
            placed[i] = true;
            return true;
        }
    }
    for c in 0..nr {
        if allowed & (1 << c) == 0 || *seen & (1 << c) != 0 {
            continue;
        }
        *seen |= 1 << c;
        if let Some(j) = owner[c] {
            if augment(j, reqs, nr, owner, out, placed, seen) {
                owner[c] = Some(i);
                out[i] = c as u8;
                placed[i] = true;
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn req(allowed: u32) -> Request {
        Request {
            allowed,
            current: None,
        }
    }

    #[test]
    fn arb_occupancy_gets_counter_zero() {
        // 0x81 (any counter) first, then 0x80 (counter 0 only): 0x81 must move to 1.
        let reqs = [
            Request {
                allowed: 0b11,
                current: Some(0),
            },
            req(0b01),
        ];
        let mut out = [0u8; 2];
        assert!(assign(&reqs, 2, &mut out));
        assert_eq!(out, [1, 0]);
    }

    #[test]
    fn two_counter_zero_events_do_not_fit() {
        let mut out = [0u8; 2];
        assert!(!assign(&[req(0b01), req(0b01)], 2, &mut out));
        assert!(!assign(&[req(0b11), req(0b11), req(0b11)], 2, &mut out));
    }

    #[test]
    fn current_positions_are_kept() {
        let reqs = [
            Request {
                allowed: 0b11,
                current: Some(1),
            },
            req(0b11),
        ];
        let mut out = [0u8; 2];
        assert!(assign(&reqs, 2, &mut out));
        assert_eq!(out, [1, 0]);
    }

    fn brute_force(reqs: &[Request], nr: usize) -> bool {
        fn go(reqs: &[Request], nr: usize, used: u32) -> bool {
            match reqs.split_first() {
                None => true,
                Some((r, rest)) => (0..nr).any(|c| {
                    r.allowed & (1 << c) != 0
                        && used & (1 << c) == 0
                        && go(rest, nr, used | (1 << c))
                }),
            }
        }
        go(reqs, nr, 0)
    }

    proptest! {
        #[test]
        fn matches_brute_force_and_respects_constraints(
            nr in 1usize..=MAX_COUNTERS,
            raw in prop::collection::vec((0u32..16, prop::option::of(0u8..4)), 0..=5),
        ) {
            let reqs: Vec<Request> =
                raw.iter().map(|&(allowed, current)| Request { allowed, current }).collect();
            let mut out = vec![0u8; reqs.len()];
            let found = assign(&reqs, nr, &mut out);
            prop_assert_eq!(found, brute_force(&reqs, nr));
            if found {
                let mut used = 0u32;
                for (r, &c) in reqs.iter().zip(&out) {
                    prop_assert!(usize::from(c) < nr);
                    prop_assert!(r.allowed & (1 << c) != 0);
                    prop_assert!(used & (1 << c) == 0);
                    used |= 1 << c;
                }
            }
        }
    }
}
