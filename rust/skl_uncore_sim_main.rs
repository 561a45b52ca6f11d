// SPDX-License-Identifier: GPL-2.0

//! skl_uncore_sim: the skl_uncore PMU engine driving a simulated uncore, for tests in machines
//! without the hardware. Same PMUs, same sysfs, same perf behaviour; the registers are the
//! model in `uncore/sim.rs`, inspected and driven through debugfs.

use kernel::prelude::*;
use kernel::sync::Arc;

mod clash;
mod engine;
mod kabi;
mod sim_hw;
#[macro_use]
mod uncore;

use engine::Driver;
use sim_hw::{SimDebugfs, SimHw};
use uncore::sim::Rates;
use uncore::units::MAX_CBOX;

module! {
    type: SklUncoreSim,
    name: "skl_uncore_sim",
    authors: ["skl-uncore developers"],
    description: "skl_uncore PMU engine over a simulated Skylake-client uncore",
    license: "GPL",
    params: {
        nr_cbox: u32 {
            default: 4,
            description: "CBo slices to simulate (1-8)",
        },
        imc: bool {
            default: true,
            description: "Simulate the IMC (MCHBAR) counters",
        },
        uclk_mhz: u32 {
            default: 1000,
            description: "Simulated UCLK frequency in MHz (1-5000)",
        },
    },
}

/// The loaded simulator driver.
struct SklUncoreSim {
    // Dropped first: the PMUs go before the debugfs files.
    _driver: Driver,
    _debugfs: SimDebugfs,
}

impl kernel::Module for SklUncoreSim {
    fn init(module: &'static ThisModule) -> Result<Self> {
        let nr_cbox = module_parameters::nr_cbox.value();
        let uclk_mhz = module_parameters::uclk_mhz.value();
        let imc = module_parameters::imc.value();
        if !(1..=MAX_CBOX).contains(&nr_cbox) {
            pr_err!("nr_cbox={nr_cbox}: must be 1..{MAX_CBOX}\n");
            return Err(EINVAL);
        }
        if !(1..=5000).contains(&uclk_mhz) {
            pr_err!("uclk_mhz={uclk_mhz}: must be 1..5000\n");
            return Err(EINVAL);
        }
        let rates = Rates {
            uclk_hz: u64::from(uclk_mhz) * 1_000_000,
            // Deterministic DRAM traffic (64-byte lines per second): 1.2 GB/s of reads,
            // 0.6 GB/s of writes, requests split between GT, IA and IO. The CBo and ARB
            // counters see only what is injected, so their counts are exact.
            imc: [20_000_000, 10_000_000, 1_000_000, 25_000_000, 4_000_000],
            ..Rates::default()
        };
        let hw = Arc::new(SimHw::new(nr_cbox, imc, rates)?, GFP_KERNEL)?;
        // The simulated package has as many cores as CBos.
        let (found_cbox, found_imc) = hw.discover(nr_cbox)?;
        let debugfs = SimDebugfs::new(&hw)?;
        let driver = Driver::new(
            hw,
            c"perf/skl_uncore_sim:online",
            module,
            found_cbox,
            found_imc,
        )?;
        pr_info!("simulated uncore: {nr_cbox} CBos, UCLK {uclk_mhz} MHz, IMC {imc}\n");
        Ok(Self {
            _driver: driver,
            _debugfs: debugfs,
        })
    }
}
