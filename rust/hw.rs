// SPDX-License-Identifier: GPL-2.0

//! The real uncore: MSRs on the current CPU. Only the production module has this file.

use kernel::prelude::*;

use crate::engine::Hw;
use crate::kabi::platform;
use crate::uncore::regs::{CboConfig, MSR_UNC_CBO_CONFIG};
use crate::uncore::units::MAX_CBOX;

/// Models of the Skylake client uncore (family 6): Skylake, Kaby Lake (with Coffee, Whiskey
/// and Amber Lake) and Comet Lake, mobile and desktop.
const SUPPORTED_MODELS: [(u32, &str); 6] = [
    (0x4E, "Skylake-L"),
    (0x5E, "Skylake"),
    (0x8E, "Kaby Lake-L"),
    (0x9E, "Kaby Lake"),
    (0xA5, "Comet Lake"),
    (0xA6, "Comet Lake-L"),
];

/// The hardware: RDMSR/WRMSR on the calling CPU.
pub(crate) struct RealHw;

impl Hw for RealHw {
    fn rdmsr(&self, msr: u32) -> Result<u64> {
        platform::rdmsr(msr)
    }

    fn wrmsr(&self, msr: u32, val: u64) -> Result {
        platform::wrmsr(msr, val)
    }

    fn wrmsr_on_cpu(&self, cpu: u32, msr: u32, val: u64) -> Result {
        platform::wrmsr_on_cpu(cpu, msr, val)
    }

    fn imc_read(&self, _offset: u32) -> Result<u32> {
        Err(ENODEV)
    }
}

/// Checks that this is a supported part on bare metal and returns its number of CBos.
/// Every refusal is one line in the log and `ENODEV`.
pub(crate) fn probe() -> Result<u32> {
    let id = platform::cpu_ident();
    let model = SUPPORTED_MODELS
        .iter()
        .find(|(m, _)| id.intel && id.family == 6 && *m == id.model);
    let Some((_, name)) = model else {
        pr_info!(
            "no Skylake-client uncore on this CPU (family {:#x} model {:#x}): not loading\n",
            id.family,
            id.model
        );
        return Err(ENODEV);
    };
    if id.hypervisor {
        pr_info!("{name} under a hypervisor: the uncore PMU is not virtualised, not loading\n");
        return Err(ENODEV);
    }
    // A missing MSR faults; one that a hypervisor or emulator fakes reads 0.
    let cfg = CboConfig::from_raw(platform::rdmsr(MSR_UNC_CBO_CONFIG).unwrap_or(0));
    let Some(nr_cbox) = cfg.nr_cbox() else {
        pr_info!(
            "{name}: MSR_UNC_CBO_CONFIG reads {:#x}, no CBo reported: no uncore PMU here, not loading\n",
            cfg.into_raw()
        );
        return Err(ENODEV);
    };
    let cores = platform::cores_per_package();
    if nr_cbox > cores.max(MAX_CBOX) {
        pr_info!("{name}: MSR_UNC_CBO_CONFIG reports {nr_cbox} CBos for {cores} cores: not trusted, not loading\n");
        return Err(ENODEV);
    }
    Ok(nr_cbox.min(MAX_CBOX))
}
