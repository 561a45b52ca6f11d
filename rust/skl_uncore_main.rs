// SPDX-License-Identifier: GPL-2.0

//! skl_uncore: perf PMUs for the uncore of 6th-generation Intel Core processors (Skylake client,
//! and the same uncore in Kaby, Coffee, Whiskey, Amber and Comet Lake).
//!
//! Registers `uncore_cbox_N` (one per LLC slice), `uncore_arb` and `uncore_clock`. See
//! `Documentation/skl-uncore.rst`.

use kernel::prelude::*;
use kernel::sync::Arc;

mod engine;
mod hw;
mod kabi;
#[macro_use]
mod uncore;

use engine::{Collectors, Engine};
use kabi::cpuhp::Hotplug;
use uncore::units::{ARB, CBOX, CLOCK};

module! {
    type: SklUncore,
    name: "skl_uncore",
    authors: ["skl-uncore developers"],
    description: "Intel 6th-generation Core (Skylake client) uncore PMU driver",
    license: "GPL",
}

/// The loaded driver.
struct SklUncore {
    engine: Arc<Engine>,
    _hotplug: Pin<KBox<Hotplug<Collectors>>>,
}

impl kernel::Module for SklUncore {
    fn init(module: &'static ThisModule) -> Result<Self> {
        let nr_cbox = hw::probe()?;
        let engine = Engine::new(Arc::new(hw::RealHw, GFP_KERNEL)?)?;
        let hotplug = KBox::pin_init(
            Hotplug::new(c"perf/skl_uncore:online", Collectors(engine.clone())),
            GFP_KERNEL,
        )?;
        let this = Self {
            engine,
            _hotplug: hotplug,
        };
        this.engine.register_unit(&CBOX, nr_cbox, module)?;
        this.engine.register_unit(&ARB, 1, module)?;
        this.engine.register_unit(&CLOCK, 1, module)?;
        pr_info!("{nr_cbox} CBo PMUs, arb and clock registered\n");
        Ok(this)
    }
}

impl Drop for SklUncore {
    fn drop(&mut self) {
        self.engine.shutdown();
    }
}
