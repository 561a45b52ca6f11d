// SPDX-License-Identifier: GPL-2.0

//! The counting state of a box's events that reads reach without the box's lock.
//!
//! Perf reads an event from any CPU of its package, and BPF (`bpf_perf_event_read_value`,
//! `perf_event_read_local`) from any context, NMI included: a read may neither wait for the
//! box's lock, which the interrupted code may hold, nor cost more than the one counter access.
//! So each event's raw baseline advances by compare-and-exchange, as Linux's
//! `uncore_perf_event_update` does: reads, the package timer and the box's own folds may race
//! and every increment is still counted once.
//!
//! The baseline lives in the slot, which perf's multiplexing hands from one event to another
//! while a reader on another CPU is between its load of the baseline and its counter read. So
//! the baseline shares its word with a generation that every start of the slot's counter
//! changes, and a live bit that its stop clears: a read commits only into the very counting
//! period it loaded, so the counter value it read was counted for its event. A period also
//! ends, the event keeping its slot, before the registers may go or change under the box (a
//! sleep, the watchdog's repair: [`Tallies::pause`]); the next opens with a new generation, so
//! no read judges a value from one period against the baseline of another. A read that
//! loses that race commits nothing and leaves the counts to the next fold of their owner (a
//! stale read, as Linux's are; never a count moved between events). A baseline per event, as
//! Linux's `hw.prev_count`, would not be enough: after the `del` the reader's retry would
//! load its own event's final baseline and credit it with the next event's counts on the same
//! counter.
//!
//! # Invariants
//!
//! - A slot's `owner` is non-zero only between the box's `add` and `del` of that event, both
//!   made under the box's lock; it changes only while the slot's state is not live.
//! - The state is live only while the slot's counter is programmed and counting for its
//!   owner, on `src`; `src` and `stamp` are written before the state that makes them live is
//!   published (release), and the state's live bit is cleared before the period's final
//!   fold. Only the box (its lock held) writes a state that is not live.
//! - The generation changes at every start, and only under the box's lock; the lock-free
//!   paths only move the raw baseline, by compare-and-exchange of the whole word from a value
//!   loaded before the counter was read, so a value committed was read after the value it
//!   replaces, in the same counting period: counts never go back nor change owner. (A reader
//!   stalled across 2^15 starts of its slot that then finds the very same word would be
//!   fooled: readers run with interrupts off.)

use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::counter::{delta, max_step, width_mask};
use super::pmubox::{Regs, MAX_BOX_EVENTS};
use super::regs::{FIXED_CTR_WIDTH, IMC_CTR_WIDTH, PERFCTR_WIDTH};

/// Names an event to the tallies: a non-zero key, unique among the box's events.
pub(crate) trait Handle: Copy + PartialEq {
    /// The key; never 0.
    fn key(self) -> usize;
}

/// Host tests name events by small integers.
impl Handle for usize {
    fn key(self) -> usize {
        self.wrapping_add(1)
    }
}

/// Which kind of counter a slot reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A 44-bit `PERFCTR` MSR.
    Generic(u32),
    /// The 48-bit fixed UCLK counter MSR.
    Fixed(u32),
    /// A free-running 32-bit IMC counter at this MCHBAR offset: read-only, so only a power
    /// transition can reset it, and any step is a plain modular one.
    Imc(u32),
}

impl Source {
    const fn pack(self) -> u64 {
        match self {
            Self::Generic(a) => 1 << 32 | a as u64,
            Self::Fixed(a) => 2 << 32 | a as u64,
            Self::Imc(a) => 3 << 32 | a as u64,
        }
    }

    const fn unpack(v: u64) -> Option<Self> {
        let a = v as u32;
        match v >> 32 {
            1 => Some(Self::Generic(a)),
            2 => Some(Self::Fixed(a)),
            3 => Some(Self::Imc(a)),
            _ => None,
        }
    }

    /// The counter's address (MSR or MCHBAR offset), for the log.
    pub(crate) const fn addr(self) -> u32 {
        match self {
            Self::Generic(a) | Self::Fixed(a) | Self::Imc(a) => a,
        }
    }

    const fn width(self) -> u32 {
        match self {
            Self::Generic(_) => PERFCTR_WIDTH,
            Self::Fixed(_) => FIXED_CTR_WIDTH,
            Self::Imc(_) => IMC_CTR_WIDTH,
        }
    }

    /// One access: the counter's raw value.
    pub(crate) fn read(self, r: &mut impl Regs) -> Option<u64> {
        match self {
            Self::Generic(a) | Self::Fixed(a) => r.rdmsr(a),
            Self::Imc(a) => r.imc_read(a).map(u64::from),
        }
    }
}

/// What one fold found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fold {
    /// Events to add to the owner's count.
    pub(crate) delta: u64,
    /// The counter's raw value read.
    pub(crate) raw: u64,
    /// The counter was proven reset or rewritten behind our back (see [`judge`]).
    pub(crate) reset: bool,
}

/// How far a counter moved from `prev` to `now` in `elapsed_ns`, at most `max_rate` per second.
///
/// Counting only moves a counter forward, modulo its width. Only these prove it was reset or
/// rewritten, and then it counts what it shows if that is plausible since a reset, else
/// nothing:
/// - it went backwards: `now` is below `prev` and a wrap would have needed more counts than
///   the unit can make in `elapsed_ns` (the time since `prev` was read, suspend included on
///   the driver's clock);
/// - `suspect`: its control register was found changed, and it went below `prev` or further
///   than its top rate allows.
///
/// A step forward that is only faster than the clock allows is counted, in full: the clock may
/// have missed time (CLOCK_MONOTONIC stops in suspend-to-idle while the uncore counts on), and
/// a reset cannot move a counter forward. IMC counters are read-only: every step is modular.
pub(crate) fn judge(
    src: Source,
    prev: u64,
    now: u64,
    elapsed_ns: u64,
    max_rate: u64,
    suspect: bool,
) -> Fold {
    let d = delta(prev, now, src.width());
    let counted = Fold {
        delta: d,
        raw: now,
        reset: false,
    };
    if let Source::Imc(_) = src {
        return counted;
    }
    let bound = max_step(max_rate, elapsed_ns);
    let backwards = now < prev;
    if (backwards && d > bound) || (suspect && (backwards || d > bound)) {
        Fold {
            delta: if now <= bound { now } else { 0 },
            raw: now,
            reset: true,
        }
    } else {
        counted
    }
}

/// A slot's counting state in one word, so one compare-and-exchange checks all of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State(u64);

impl State {
    /// The raw baseline: bits 47:0 (every uncore counter is at most 48 bits wide).
    const RAW_BITS: u32 = 48;
    const LIVE: u64 = 1 << 63;

    fn raw(self) -> u64 {
        self.0 & width_mask(Self::RAW_BITS)
    }

    fn live(self) -> bool {
        self.0 & Self::LIVE != 0
    }

    /// The same counting period, folded up to `raw`.
    fn with_raw(self, raw: u64) -> Self {
        Self(self.0 & !width_mask(Self::RAW_BITS) | raw & width_mask(Self::RAW_BITS))
    }

    /// A new counting period from `raw`: live, with the next generation (bits 62:48).
    fn next(self, raw: u64) -> Self {
        let gen = (self.0 & !Self::LIVE) >> Self::RAW_BITS;
        let gen = gen.wrapping_add(1) << Self::RAW_BITS & !Self::LIVE;
        Self(Self::LIVE | gen).with_raw(raw)
    }
}

/// One slot's lock-free state.
#[derive(Default)]
struct Tally {
    /// [`Handle::key`] of the event holding the slot, or 0.
    owner: AtomicUsize,
    /// [`Source::pack`] of the counting counter, or 0.
    src: AtomicU64,
    /// The [`State`]: raw counter value folded last, generation and live bit.
    state: AtomicU64,
    /// No later than when the state's raw value was read (ns, the clock of [`Regs::now_ns`]).
    stamp: AtomicU64,
    /// A read found the counter reset (non-zero: its address), for the timer to log.
    reset_seen: AtomicU64,
}

impl Tally {
    fn state(&self) -> State {
        State(self.state.load(Ordering::Acquire))
    }

    /// Moves the state from `old` (as loaded before the counter was read) to `new`; only
    /// one of racing folds wins.
    fn commit(&self, old: State, new: State) -> bool {
        self.state
            .compare_exchange(old.0, new.0, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// The lock-free state of every slot of a box.
pub(crate) struct Tallies {
    slots: [Tally; MAX_BOX_EVENTS],
    /// The unit's top rate, per second (what a step is judged by).
    max_rate: u64,
}

impl Tallies {
    /// Empty tallies for a unit counting at most `max_rate` per second.
    pub(crate) fn new(max_rate: u64) -> Self {
        Self {
            slots: Default::default(),
            max_rate,
        }
    }

    /// Slot `i` now belongs to `ev` (box lock held; the slot is free).
    pub(crate) fn claim(&self, i: usize, ev: impl Handle) {
        self.slots[i].owner.store(ev.key(), Ordering::Release);
    }

    /// Slot `i` is free again (box lock held; its counter is no longer counting).
    pub(crate) fn release(&self, i: usize) {
        self.slots[i].owner.store(0, Ordering::Release);
    }

    /// Slot `i` counts on `src` from the raw value `base`, read no earlier than `now_ns`
    /// (box lock held).
    ///
    /// The state it replaces is not live (a new slot, or `stop`/`pause` ended its period):
    /// no lock-free read commits into it, so the plain store loses nothing, and the new
    /// generation fails every read that loaded an earlier period.
    pub(crate) fn start(&self, i: usize, src: Source, base: u64, now_ns: u64) {
        self.open(i, src, base, now_ns, true);
    }

    /// As [`Tallies::start`], but the period opens paused: no read begins in it, and the box
    /// folds it and starts the next. For a counter started while the system sleeps: the wake
    /// judges it (its registers may be reset after this baseline) before any read counts.
    pub(crate) fn start_paused(&self, i: usize, src: Source, base: u64, now_ns: u64) {
        self.open(i, src, base, now_ns, false);
    }

    fn open(&self, i: usize, src: Source, base: u64, now_ns: u64, live: bool) {
        let t = &self.slots[i];
        let old = State(t.state.load(Ordering::Relaxed));
        debug_assert!(!old.live(), "slot {i} started inside its counting period");
        t.src.store(src.pack(), Ordering::Relaxed);
        t.stamp.store(now_ns, Ordering::Relaxed);
        t.reset_seen.store(0, Ordering::Relaxed);
        let base = base & width_mask(src.width());
        let mut new = old.next(base);
        if !live {
            new.0 &= !State::LIVE;
        }
        t.state.store(new.0, Ordering::Release);
    }

    /// Slot `i` stops counting (box lock held): its source, if it was counting. Reads that
    /// loaded its counting period commit nothing from now on; the final fold is the box's.
    pub(crate) fn stop(&self, i: usize) -> Option<Source> {
        let t = &self.slots[i];
        t.state.fetch_and(!State::LIVE, Ordering::AcqRel);
        Source::unpack(t.src.swap(0, Ordering::AcqRel))
    }

    /// Ends slot `i`'s counting period, its counter kept (box lock held): the registers may
    /// be lost (a sleep) or are to be repaired (the watchdog). Reads that loaded the period
    /// commit nothing from now on, and no read begins until [`Tallies::start`] opens the next
    /// one: none judges a value the counter shows in between (a reset, a rewrite) against
    /// this period's baseline. The box folds it, then starts the next period.
    pub(crate) fn pause(&self, i: usize) {
        self.slots[i]
            .state
            .fetch_and(!State::LIVE, Ordering::AcqRel);
    }

    /// The raw value slot `i`'s last fold found.
    pub(crate) fn last_raw(&self, i: usize) -> u64 {
        self.slots[i].state().raw()
    }

    /// The source slot `i` counts on.
    pub(crate) fn source(&self, i: usize) -> Option<Source> {
        Source::unpack(self.slots[i].src.load(Ordering::Acquire))
    }

    /// Folds slot `i`'s progress on `src` (box lock held): one counter access (more only
    /// when a read raced with this one). `None` if the counter could not be read.
    pub(crate) fn fold(
        &self,
        i: usize,
        src: Source,
        r: &mut impl Regs,
        suspect: bool,
    ) -> Option<Fold> {
        let t = &self.slots[i];
        loop {
            let old = t.state();
            let stamp = t.stamp.load(Ordering::Acquire);
            // The clock before and after the read bound when it happened: judged against the
            // time since a stamp taken before the last read, a step is never given less time
            // than it had (a vCPU or an interrupt may stall between a read and the clock).
            let before = r.now_ns();
            let now = src.read(r)?;
            let after = r.now_ns();
            let fold = self.judge(src, old, now, after.saturating_sub(stamp), suspect);
            if self.settle(i, src, old, fold, before) {
                return Some(fold);
            }
        }
    }

    fn judge(&self, src: Source, old: State, now: u64, elapsed_ns: u64, suspect: bool) -> Fold {
        let now = now & width_mask(src.width());
        judge(src, old.raw(), now, elapsed_ns, self.max_rate, suspect)
    }

    /// Commits `fold` into slot `i` if its state is still `old`.
    fn settle(&self, i: usize, src: Source, old: State, fold: Fold, before: u64) -> bool {
        let t = &self.slots[i];
        // A stamp newer than the raw value can only pair with it here if the exchange fails.
        if !t.commit(old, old.with_raw(fold.raw)) {
            return false;
        }
        t.stamp.store(before, Ordering::Release);
        if fold.reset {
            t.reset_seen.store(u64::from(src.addr()), Ordering::Relaxed);
        }
        true
    }

    /// A reset a lock-free read found in slot `i` since the last call: the counter's address.
    pub(crate) fn take_reset_seen(&self, i: usize) -> Option<u32> {
        match self.slots[i].reset_seen.swap(0, Ordering::Relaxed) {
            0 => None,
            a => Some(a as u32),
        }
    }

    /// A read(2), from any context and CPU, without the box's lock: folds `ev`'s counter if
    /// it is counting. One counter access (more only when a fold raced with this one); no
    /// lock, no allocation, so NMI-safe.
    pub(crate) fn read(&self, ev: impl Handle, r: &mut impl Regs) -> Option<u64> {
        let mut p = self.read_begin(ev)?;
        loop {
            let before = r.now_ns();
            let now = p.src.read(r)?;
            let after = r.now_ns();
            match self.read_end(p, now, before, after) {
                Ok(f) => return Some(f.delta),
                Err(Some(q)) => p = q,
                Err(None) => return None,
            }
        }
    }

    /// A read's first step: what it loads before it reads the counter. `None` if `ev` is not
    /// counting.
    pub(crate) fn read_begin(&self, ev: impl Handle) -> Option<Pending> {
        let key = ev.key();
        let i = self
            .slots
            .iter()
            .position(|t| t.owner.load(Ordering::Acquire) == key)?;
        let t = &self.slots[i];
        let state = t.state();
        // The owner again, after the state: a live state seen with `ev` the owner after it is
        // `ev`'s (the owner changes only while the state is not live, and a commit fails if
        // the state changed since).
        if !state.live() || t.owner.load(Ordering::Acquire) != key {
            return None;
        }
        Some(Pending {
            i,
            src: self.source(i)?,
            state,
            stamp: t.stamp.load(Ordering::Acquire),
        })
    }

    /// A read's last step, with the counter's value `now` read between `before` and `after`:
    /// what it folded; or, if another fold came first in the same counting period, the next
    /// try; or `Err(None)` if the period ended (its stop folds the rest).
    pub(crate) fn read_end(
        &self,
        p: Pending,
        now: u64,
        before: u64,
        after: u64,
    ) -> Result<Fold, Option<Pending>> {
        let fold = self.judge(p.src, p.state, now, after.saturating_sub(p.stamp), false);
        if self.settle(p.i, p.src, p.state, fold, before) {
            return Ok(fold);
        }
        let t = &self.slots[p.i];
        let state = t.state();
        if state.with_raw(0) != p.state.with_raw(0) {
            return Err(None);
        }
        Err(Some(Pending {
            state,
            stamp: t.stamp.load(Ordering::Acquire),
            ..p
        }))
    }
}

/// A lock-free read between its loads and its commit: the counting period it loaded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pending {
    i: usize,
    src: Source,
    state: State,
    stamp: u64,
}

impl Pending {
    /// The counter the read reads.
    #[cfg(test)]
    pub(crate) fn source(&self) -> Source {
        self.src
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_proven_reset_discards() {
        let g = Source::Generic(0x706);
        let s = 1_000_000_000; // 1 s at 5e9/s: a bound of 5.005e9.
        let j = |prev, now, suspect| {
            let f = judge(g, prev, now, s, 5_000_000_000, suspect);
            (f.delta, f.reset)
        };
        // Forward, plausible or not: counted (the clock may have missed a suspend).
        assert_eq!(j(100, 600, false), (500, false));
        assert_eq!(j(100, 40_000_000_100, false), (40_000_000_000, false));
        // A wrap the time allows is counting.
        assert_eq!(j((1 << 44) - 100, 400, false), (500, false));
        // Backwards, further than any wrap in the time: reset; what it shows since counts.
        assert_eq!(j(40_000_000_000, 20, false), (20, true));
        assert_eq!(j(40_000_000_000, 30_000_000_000, false), (0, true));
        // Its control found changed: any step back, or too far forward, is a rewrite.
        assert_eq!(j((1 << 44) - 100, 400, true), (400, true));
        assert_eq!(j(100, 40_000_000_100, true), (0, true));
        assert_eq!(j(100, 600, true), (500, false));
        // IMC counters are read-only: modular.
        let f = judge(Source::Imc(0x5050), 100, 50, s, 1, true);
        assert_eq!((f.delta, f.reset), ((1 << 32) - 50, false));
    }
}
