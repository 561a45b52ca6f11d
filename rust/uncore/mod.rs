// SPDX-License-Identifier: GPL-2.0

//! Pure logic of the driver: register layouts, unit tables, attr decoding, counter assignment,
//! wrap arithmetic and the simulated uncore.
//!
//! Nothing below this directory imports `kernel::`, so the same files build into the kernel
//! modules and into the host test crate (`rust/uncore/Cargo.toml`, `cargo test`).

/// A refusal that explains itself in one line of the kernel log.
///
/// The kernel's `fmt!` has a `Display` trait of its own, which this directory cannot name (it
/// also builds on the host): `engine::Why` adapts any `Describe` to it.
pub(crate) trait Describe {
    /// Writes the explanation, without a trailing newline.
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result;
}

#[macro_use]
pub(crate) mod bitfield;
pub(crate) mod cbo_count;
pub(crate) mod cbo_counters;
pub(crate) mod counter;
pub(crate) mod event;
pub(crate) mod imc;
pub(crate) mod named_events;
pub(crate) mod pmubox;
#[cfg(test)]
mod pmubox_tests;
pub(crate) mod probe;
pub(crate) mod regs;
pub(crate) mod sched;
#[cfg(any(test, skl_sim))]
pub(crate) mod sim;
pub(crate) mod tally;
pub(crate) mod timer;
pub(crate) mod units;
