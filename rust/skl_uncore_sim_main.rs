// SPDX-License-Identifier: GPL-2.0

//! skl_uncore_sim: the skl_uncore PMU engine driving a simulated uncore, for tests in machines
//! without the hardware. Same PMUs, same sysfs, same perf behaviour; the registers are the
//! model in `uncore/sim/`, inspected and driven through debugfs.

use kernel::prelude::*;
use kernel::sync::Arc;

mod clash;
mod engine;
mod kabi;
mod sim_hw;
#[macro_use]
mod uncore;

use engine::{Driver, Names};
use kabi::pm::Sleep;
use sim_hw::{LoadStep, LoadSteps, SimDebugfs, SimHw};
use uncore::sim::{count::Rates, model::MissingAs};
use uncore::units::{CBOX, MAX_CBOX};

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
        // u8, not bool: `module!` takes bool parameters only from 7.3 on.
        cbo_counters: u32 {
            default: 2,
            description: "Generic counters per simulated CBo: 2 (Table 2-1) to 4 (i7-6700K)",
        },
        cbo_missing: u32 {
            default: 0,
            description: "How CBo counters past cbo_counters are missing: 0 absent (#GP on read \
                          and write), 1 EN refused (#GP on a PERFEVTSEL write with EN set), 2 \
                          only PERFEVTSEL absent, 3 only PERFCTR absent",
        },
        imc: u8 {
            default: 1,
            description: "Simulate the IMC (MCHBAR) counters: 1 yes, 0 no",
        },
        uclk_mhz: u32 {
            default: 1000,
            description: "Simulated UCLK frequency in MHz (1-5000)",
        },
        cbo_config: i64 {
            default: -1,
            description: "Raw value MSR_UNC_CBO_CONFIG reads (0 up); -1: nr_cbox + 1",
        },
        cores: i32 {
            default: -1,
            description: "Cores per package the driver is told (1-64); -1: nr_cbox",
        },
        ipi_delay_ms: u32 {
            default: 0,
            description: "Test hook: ms by which the IPI sending a timer home is late (0-1000)",
        },
        leak_live: u8 {
            default: 0,
            description: "Test hook: 1: package timers stay armed as if perf left an event",
        },
        offline_delay_ms: u32 {
            default: 0,
            description: "Test hook: ms a CPU going offline waits, inactive, before perf moves \
                          its events (0-2000)",
        },
    },
}

/// A module parameter's value: `value()` returns it by reference on 7.2 and by value (for
/// `Copy` types) from 7.3 on; both borrow as `T`.
fn param<T: Copy>(v: impl core::borrow::Borrow<T>) -> T {
    *v.borrow()
}

/// A 0/1 parameter (a `u8`: 7.2's `module!` takes no `bool`) as a `bool`, or `EINVAL` and one
/// line.
fn flag(name: &str, v: u8) -> Result<bool> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        v => {
            pr_err!("{name}={v}: must be 0 or 1\n");
            Err(EINVAL)
        }
    }
}

/// Most cores per package the `cores` parameter takes: beyond any client part.
const MAX_CORES: i32 = 64;

/// The loaded simulator driver.
struct SklUncoreSim {
    // Dropped first: the PMUs go before the model's sleep hook and the debugfs files.
    _driver: Driver,
    _pm: Sleep<SimHw>,
    _debugfs: SimDebugfs,
    _offline_delay: Option<kabi::platform::OfflineDelay>,
    /// Last: a late IPI of the test hooks finishes before the module's text goes.
    _hooks: kabi::poller::TestHooks,
}

impl kernel::Module for SklUncoreSim {
    fn init(module: &'static ThisModule) -> Result<Self> {
        let nr_cbox: u32 = param(module_parameters::nr_cbox.value());
        let uclk_mhz: u32 = param(module_parameters::uclk_mhz.value());
        let imc = flag("imc", param(module_parameters::imc.value()))?;
        if !(1..=MAX_CBOX).contains(&nr_cbox) {
            pr_err!("nr_cbox={nr_cbox}: must be 1..{MAX_CBOX}\n");
            return Err(EINVAL);
        }
        let cbo_counters: u32 = param(module_parameters::cbo_counters.value());
        if !(CBOX.nr_generic_listed..=CBOX.nr_generic).contains(&cbo_counters) {
            pr_err!(
                "cbo_counters={cbo_counters}: must be {}..{}\n",
                CBOX.nr_generic_listed,
                CBOX.nr_generic
            );
            return Err(EINVAL);
        }
        let missing_as = match param::<u32>(module_parameters::cbo_missing.value()) {
            0 => MissingAs::Absent,
            1 => MissingAs::EnRefused,
            2 => MissingAs::SelAbsent,
            3 => MissingAs::CtrAbsent,
            v => {
                pr_err!("cbo_missing={v}: must be 0..3\n");
                return Err(EINVAL);
            }
        };
        if !(1..=5000).contains(&uclk_mhz) {
            pr_err!("uclk_mhz={uclk_mhz}: must be 1..5000\n");
            return Err(EINVAL);
        }
        let cbo_config = match param::<i64>(module_parameters::cbo_config.value()) {
            -1 => None,
            raw @ 0.. => Some(raw as u64),
            raw => {
                pr_err!(
                    "cbo_config={raw}: must be a raw register value, 0 up, or -1 for nr_cbox + 1\n"
                );
                return Err(EINVAL);
            }
        };
        let cores = match param::<i32>(module_parameters::cores.value()) {
            -1 => nr_cbox,
            c @ 1..=MAX_CORES => c as u32,
            c => {
                pr_err!("cores={c}: must be 1..{MAX_CORES}, or -1 for nr_cbox\n");
                return Err(EINVAL);
            }
        };
        let ipi_delay_ms = param::<u32>(module_parameters::ipi_delay_ms.value());
        if ipi_delay_ms > 1000 {
            pr_err!("ipi_delay_ms={ipi_delay_ms}: must be 0..1000\n");
            return Err(EINVAL);
        }
        let leak_live = flag("leak_live", param(module_parameters::leak_live.value()))?;
        let hooks = kabi::poller::TestHooks::new(ipi_delay_ms, leak_live)?;
        let offline_delay_ms = param::<u32>(module_parameters::offline_delay_ms.value());
        if offline_delay_ms > 2000 {
            pr_err!("offline_delay_ms={offline_delay_ms}: must be 0..2000\n");
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
        // The time of each step, for `make bench` (`load_us` in the `regs` file).
        let mut steps = LoadSteps::start();
        let hw = Arc::new(
            SimHw::new(nr_cbox, (cbo_counters, missing_as), imc, rates, cbo_config)?,
            GFP_KERNEL,
        )?;
        let (count, found_imc) = hw.discover(cores)?;
        steps.lap(LoadStep::Model);
        // Before anything of ours appears: another driver may hold the names.
        let names = Names::claim(count.n, found_imc)?;
        steps.lap(LoadStep::Names);
        let counters = hw.cbo_counters(count.n);
        steps.lap(LoadStep::Probe);
        let debugfs = SimDebugfs::new(&hw)?;
        // Before the driver's: on resume the model resets first, as the silicon does in S3.
        let pm = Sleep::syscore(hw.clone())?;
        steps.lap(LoadStep::Files);
        let driver = Driver::new(names, hw, &counters, module)?;
        let offline_delay = kabi::platform::OfflineDelay::new(offline_delay_ms)?;
        steps.lap(LoadStep::Register);
        // Said once loaded: a refusal is one line of its own.
        pr_info!("{}\n", engine::Why(count));
        engine::say_probe(&counters, count.n > 0);
        pr_info!("simulated uncore: {nr_cbox} CBos, UCLK {uclk_mhz} MHz, IMC {imc}\n");
        Ok(Self {
            _driver: driver,
            _pm: pm,
            _debugfs: debugfs,
            _offline_delay: offline_delay,
            _hooks: hooks,
        })
    }
}
