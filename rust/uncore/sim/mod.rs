// SPDX-License-Identifier: GPL-2.0

//! A register-file model of the uncore PMU, for the simulator build and the host tests.
//!
//! It holds every MSR of chapter 2 and the IMC counters of the MCHBAR window. Counters advance
//! with time at configurable rates, only while enabled locally and globally (the IMC counters
//! always run), wrap at their hardware width and set the overflow status bits. Writes to
//! reserved bits or read-only registers, and accesses to addresses that do not exist, are
//! refused the way the hardware refuses them (#GP) and counted as faults. Every access is
//! counted, so tests and benchmarks can see exactly what the driver did.
//!
//! The model is passive: the caller supplies the time (ns) with each access.
//!
//! - [`map`]: the MSR addresses, from the manual, independent of the driver's unit tables;
//! - [`model`]: the register file, accesses, time, reset and foreign writes;
//! - [`count`]: counting at a rate and through threshold, invert and edge;
//! - [`drive`]: rates, injected events and presets, for tests;
//! - [`parse`]: the debugfs command lines; [`dump`]: the debugfs `regs` file.

pub(crate) mod count;
pub(crate) mod drive;
mod dump;
pub(crate) mod map;
pub(crate) mod model;
pub(crate) mod parse;
#[cfg(test)]
mod tests;

pub(crate) use model::SimUncore;

use super::units::{CBOX, MAX_CBOX};

/// Boxes with generic counters: CBo 0..MAX_CBOX, then the ARB.
const NR_GENERIC_BOXES: usize = MAX_CBOX as usize + 1;
/// Generic counters per box the register file holds: a CBo's four (the ARB uses two).
const NR_GENERIC: usize = CBOX.nr_generic as usize;
/// The ARB's slot among the boxes with generic counters.
const ARB_BOX: usize = MAX_CBOX as usize;
const NS_PER_S: u64 = 1_000_000_000;

/// Highest background rate the model takes: 1e10 per second keeps its exact arithmetic in
/// 64 bits, and is twice the fastest UCLK.
pub(crate) const MAX_RATE: u64 = 10_000_000_000;

/// Physical address the simulated `MCHBAR` reports (never mapped: the model serves the reads).
pub(crate) const SIM_MCHBAR_BASE: u64 = 0xfed1_0000;
