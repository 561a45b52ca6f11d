// SPDX-License-Identifier: GPL-2.0

//! Counter arithmetic: wrap-correct deltas and poll intervals.

/// Mask of the low `width` bits (`width` in 1..=64).
pub(crate) const fn width_mask(width: u32) -> u64 {
    u64::MAX >> (64 - width)
}

/// Events counted between two reads `prev` and `now` of a `width`-bit counter that wraps.
///
/// Correct as long as the counter wrapped at most once between the reads, which the poll
/// interval guarantees. Bits above `width` are ignored.
pub(crate) const fn delta(prev: u64, now: u64, width: u32) -> u64 {
    now.wrapping_sub(prev) & width_mask(width)
}

/// Milliseconds a `width`-bit counter takes to wrap at `max_rate` increments per second.
pub(crate) const fn wrap_ms(width: u32, max_rate: u64) -> u64 {
    // 2^48 * 1000 < 2^58: no overflow for any counter width the uncore has.
    assert!(width <= 52 && max_rate > 0);
    (1u64 << width) * 1000 / max_rate
}

/// Poll interval for a `width`-bit counter incrementing at most `max_rate` per second: a quarter
/// of its wrap time, so a timer up to three intervals late (under load, a long interrupts-off
/// section, suspend-to-idle) still reads the counter before it laps the previous reading.
pub(crate) const fn poll_interval_ms(width: u32, max_rate: u64) -> u64 {
    let quarter = wrap_ms(width, max_rate) / 4;
    if quarter == 0 {
        1
    } else {
        quarter
    }
}

/// Slack of [`max_step`]: a millisecond at the top rate, for the skew between the clock and the
/// counter reads of two CPUs (and bursts a simulator injects at once).
const STEP_SLACK_NS: u64 = 1_000_000;

/// Most a counter incrementing at most `max_rate` per second can advance in `elapsed_ns`, plus
/// [`STEP_SLACK_NS`]' worth. A larger step is a reset or a foreign write, not counting.
pub(crate) const fn max_step(max_rate: u64, elapsed_ns: u64) -> u64 {
    // Per microsecond, rounded up: no overflow for any rate or elapsed time (saturating).
    let per_us = max_rate.div_ceil(1_000_000);
    per_us.saturating_mul(elapsed_ns.saturating_add(STEP_SLACK_NS) / 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn delta_examples() {
        assert_eq!(delta(10, 15, 32), 5);
        assert_eq!(delta(0xffff_fff0, 0x10, 32), 0x20);
        assert_eq!(delta((1 << 44) - 1000, 4000, 44), 5000);
        assert_eq!(delta((1 << 48) - 1, 0, 48), 1);
        assert_eq!(delta(5, 5, 44), 0);
        assert_eq!(delta(u64::MAX, 0, 64), 1);
    }

    #[test]
    fn intervals() {
        // 44-bit at 5e9/s: 3518 s to wrap.
        assert_eq!(wrap_ms(44, 5_000_000_000), 3_518_437);
        assert_eq!(poll_interval_ms(32, 1_600_000_000), 671);
    }

    #[test]
    fn steps() {
        // 1 s at 5 GHz, plus a millisecond.
        assert_eq!(max_step(5_000_000_000, 1_000_000_000), 5_005_000_000);
        assert_eq!(max_step(5_000_000_000, 0), 5_000_000);
        assert_eq!(max_step(u64::MAX, u64::MAX), u64::MAX);
    }

    proptest! {
        #[test]
        fn delta_recovers_any_increment_below_the_period(
            width in prop::sample::select(vec![32u32, 44, 48]),
            start in any::<u64>(),
            inc in any::<u64>(),
        ) {
            let mask = width_mask(width);
            let inc = inc & (mask >> 1);
            let prev = start & mask;
            let now = prev.wrapping_add(inc) & mask;
            prop_assert_eq!(delta(prev, now, width), inc);
            // Garbage above the counter width never leaks into the delta.
            prop_assert_eq!(delta(prev | !mask, now | !mask, width), inc);
        }
    }
}
