// SPDX-License-Identifier: GPL-2.0

//! Pure logic of the driver: register layouts, unit tables, attr decoding, counter assignment,
//! wrap arithmetic and the simulated uncore.
//!
//! Nothing below this directory imports `kernel::`, so the same files build into the kernel
//! modules and into the host test crate (`rust/uncore/Cargo.toml`, `cargo test`).

#[macro_use]
pub(crate) mod bitfield;
pub(crate) mod counter;
pub(crate) mod event;
pub(crate) mod imc;
pub(crate) mod regs;
pub(crate) mod sched;
#[cfg(any(test, skl_sim))]
pub(crate) mod sim;
pub(crate) mod units;
