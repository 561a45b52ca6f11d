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
//! # Invariants
//!
//! - A slot's `owner` is non-zero only between the box's `add` and `del` of that event, both
//!   made under the box's lock.
//! - `src` is non-zero only while the slot's counter is programmed and counting for its owner:
//!   it is published (release) after `prev` and `stamp` and cleared before the final fold.
//! - `prev` only moves by compare-and-exchange from a value loaded before the counter was
//!   read, so a value committed was read after the value it replaces: counts never go back.

use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::counter::{delta, max_step};
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
    fn read(self, r: &mut impl Regs) -> Option<u64> {
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
    /// The counter was reset or rewritten behind our back (its step was larger than its top
    /// rate allows since the last fold, or it went backwards while `suspect`).
    pub(crate) reset: bool,
}

/// How far a counter moved from `prev` to `now` in `elapsed_ns`, at most `max_rate` per second.
///
/// An MSR counter that moved further than its top rate allows was reset or rewritten: it counts
/// what it shows if that is plausible since a reset, else nothing. `suspect` (its control
/// register was found changed) also takes a step backwards for a reset. IMC counters are
/// read-only: every step is modular.
pub(crate) fn judge(
    src: Source,
    prev: u64,
    now: u64,
    elapsed_ns: u64,
    max_rate: u64,
    suspect: bool,
) -> Fold {
    let d = delta(prev, now, src.width());
    if let Source::Imc(_) = src {
        return Fold {
            delta: d,
            raw: now,
            reset: false,
        };
    }
    let bound = max_step(max_rate, elapsed_ns);
    if d > bound || (suspect && now < prev) {
        let since_reset = if now <= bound { now } else { 0 };
        Fold {
            delta: since_reset,
            raw: now,
            reset: true,
        }
    } else {
        Fold {
            delta: d,
            raw: now,
            reset: false,
        }
    }
}

/// One slot's lock-free state.
#[derive(Default)]
struct Tally {
    /// [`Handle::key`] of the event holding the slot, or 0.
    owner: AtomicUsize,
    /// [`Source::pack`] of the counting counter, or 0.
    src: AtomicU64,
    /// Raw counter value folded last.
    prev: AtomicU64,
    /// No later than when `prev` was read (ns, the clock of [`Regs::now_ns`]).
    stamp: AtomicU64,
    /// A read found the counter reset (non-zero: its address), for the timer to log.
    reset_seen: AtomicU64,
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

    /// Slot `i` counts on `src` from the raw value `base`, read no earlier than `now_ns`.
    pub(crate) fn start(&self, i: usize, src: Source, base: u64, now_ns: u64) {
        let t = &self.slots[i];
        t.prev.store(base, Ordering::Relaxed);
        t.stamp.store(now_ns, Ordering::Relaxed);
        t.reset_seen.store(0, Ordering::Relaxed);
        t.src.store(src.pack(), Ordering::Release);
    }

    /// Slot `i` stops counting: its source, if it was counting.
    pub(crate) fn stop(&self, i: usize) -> Option<Source> {
        Source::unpack(self.slots[i].src.swap(0, Ordering::AcqRel))
    }

    /// The source slot `i` counts on.
    pub(crate) fn source(&self, i: usize) -> Option<Source> {
        Source::unpack(self.slots[i].src.load(Ordering::Acquire))
    }

    /// Folds slot `i`'s progress on `src`: one counter access (more only when another fold
    /// raced with this one). `None` if the counter could not be read.
    pub(crate) fn fold(
        &self,
        i: usize,
        src: Source,
        r: &mut impl Regs,
        suspect: bool,
    ) -> Option<Fold> {
        let t = &self.slots[i];
        loop {
            let prev = t.prev.load(Ordering::Acquire);
            let stamp = t.stamp.load(Ordering::Acquire);
            // The clock before and after the read bound when it happened: judged against the
            // time since a stamp taken before the last read, a step is never given less time
            // than it had (a vCPU or an interrupt may stall between a read and the clock).
            let before = r.now_ns();
            let now = src.read(r)?;
            let after = r.now_ns();
            let fold = judge(
                src,
                prev,
                now,
                after.saturating_sub(stamp),
                self.max_rate,
                suspect,
            );
            // A stamp newer than `prev` can only pair with it here if the exchange fails.
            if t.prev
                .compare_exchange(prev, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                t.stamp.store(before, Ordering::Release);
                if fold.reset {
                    t.reset_seen.store(u64::from(src.addr()), Ordering::Relaxed);
                }
                return Some(fold);
            }
        }
    }

    /// Takes a new baseline for slot `i`: what the counter shows now is not counted.
    pub(crate) fn rebase(&self, i: usize, src: Source, r: &mut impl Regs) {
        let t = &self.slots[i];
        let before = r.now_ns();
        if let Some(now) = src.read(r) {
            t.prev.store(now, Ordering::Release);
            t.stamp.store(before, Ordering::Release);
        }
    }

    /// A reset a lock-free read found in slot `i` since the last call: the counter's address.
    pub(crate) fn take_reset_seen(&self, i: usize) -> Option<u32> {
        match self.slots[i].reset_seen.swap(0, Ordering::Relaxed) {
            0 => None,
            a => Some(a as u32),
        }
    }

    /// A read(2), from any context and CPU, without the box's lock: folds `ev`'s counter if
    /// it is counting. One counter access.
    pub(crate) fn read(&self, ev: impl Handle, r: &mut impl Regs) -> Option<u64> {
        let key = ev.key();
        let i = self
            .slots
            .iter()
            .position(|t| t.owner.load(Ordering::Acquire) == key)?;
        let src = self.source(i)?;
        self.fold(i, src, r, false).map(|f| f.delta)
    }
}
