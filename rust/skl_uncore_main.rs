// SPDX-License-Identifier: GPL-2.0

//! skl_uncore: perf PMUs for the uncore of 6th-generation Intel Core processors (Skylake client,
//! and the same uncore in Kaby, Coffee, Whiskey, Amber and Comet Lake).
//!
//! Registers `uncore_cbox_N` (one per LLC slice), `uncore_arb`, `uncore_clock` and, when the
//! host bridge shows an enabled MCHBAR, `uncore_imc`. See
//! `Documentation/design.rst`.

use kernel::prelude::*;
use kernel::sync::Arc;

mod clash;
mod engine;
mod hw;
mod kabi;
#[macro_use]
mod uncore;

use engine::{Driver, Names};

module! {
    type: SklUncore,
    name: "skl_uncore",
    authors: ["skl-uncore developers"],
    description: "Intel 6th-generation Core (Skylake client) uncore PMU driver",
    license: "GPL",
}

/// The loaded driver.
struct SklUncore {
    _driver: Driver,
}

impl kernel::Module for SklUncore {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Reads only, then the names, then the write probe: another driver holding the names
        // may be using the register the probe writes.
        let probed = hw::probe()?;
        let (nr_cbox, imc) = (probed.cbo.n, probed.hw.has_imc());
        let names = Names::claim(nr_cbox, imc)?;
        let counters = probed.confirm(&names)?;
        let hw = Arc::new(probed.hw, GFP_KERNEL)?;
        let driver = Driver::new(names, hw, &counters, module)?;
        // Said once loaded: a refusal is one line of its own.
        let name = probed.name.to_str().unwrap_or("?");
        pr_info!("{name}: {}\n", engine::Why(probed.cbo));
        engine::say_probe(&counters, nr_cbox > 0);
        if let Some(why) = &probed.no_imc {
            why.log();
        }
        pr_info!(
            "{nr_cbox} CBo PMUs, arb, clock and {} registered\n",
            if imc { "imc" } else { "no imc" }
        );
        Ok(Self { _driver: driver })
    }
}
