// SPDX-License-Identifier: GPL-2.0

//! Host build of the driver's pure logic, for `cargo test`.
//!
//! The kernel modules include `mod.rs` as `crate::uncore`; this crate does the same, so paths
//! such as `crate::uncore::units` mean the same thing in both builds.

#![cfg_attr(not(test), no_std)]
// The kernel modules are the users of most of this; the host build only tests it.
#![allow(dead_code)]

#[path = "mod.rs"]
#[macro_use]
mod uncore;
