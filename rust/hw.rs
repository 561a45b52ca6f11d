// SPDX-License-Identifier: GPL-2.0

//! The real uncore: MSRs on the current CPU. Only the production module has this file.

use kernel::{cpu::CpuId, prelude::*};

use crate::engine::{Hw, Names, Why};
use crate::kabi::{
    platform, topology,
    x86_cpu::{boot_cpu_has, Feature, Vfm},
};
use crate::uncore::regs::{
    CboConfig, PerfEvtSel, UncoreMsr, IMC_MAP_SIZE, MSR_UNC_CBO_CONFIG, PCI_MCHBAR_HI,
    PCI_MCHBAR_LO,
};
use crate::uncore::units::ARB;
use crate::uncore::{
    cbo_count::CboCount,
    cbo_counters::{ProbeMsr, Refused},
    imc::{self, ImcError, ImcLocation},
    probe::{probe_all, probe_package, PackageProbe, WriteProbe},
};

// An MMIO window that no bound device owns: the host bridge may be an EDAC driver's.
use crate::kabi::io_unbound::mem::UnboundIoMem;
use crate::kabi::io_unbound::Io as _;

/// The hardware: RDMSR/WRMSR on the calling CPU, and the IMC counters if MCHBAR was found.
pub(crate) struct RealHw {
    imc: Option<UnboundIoMem<IMC_MAP_SIZE>>,
}

impl RealHw {
    /// Whether the IMC counters are mapped.
    pub(crate) fn has_imc(&self) -> bool {
        self.imc.is_some()
    }
}

impl Hw for RealHw {
    fn rdmsr(&self, msr: u32) -> Result<u64> {
        platform::rdmsr(msr)
    }

    /// `EINVAL` for an address that is not an uncore PMU register: the engine writes only
    /// those, and only those are safe to write.
    fn wrmsr(&self, msr: u32, val: u64) -> Result {
        platform::wrmsr(UncoreMsr::new(msr).ok_or(EINVAL)?, val)
    }

    fn wrmsr_on_cpu(&self, cpu: CpuId, msr: u32, val: u64) -> Result {
        platform::wrmsr_on_cpu(cpu, UncoreMsr::new(msr).ok_or(EINVAL)?, val)
    }

    fn imc_read(&self, offset: u32) -> Result<u32> {
        // 32-bit reads only: the counters sit back to back, a 64-bit read would return two.
        self.imc.as_ref().ok_or(ENODEV)?.try_read32(offset as usize)
    }

    fn probe_package(&self, pkg: u32, cbo: bool) -> Option<PackageProbe> {
        platform::on_package_cpu(pkg, || probe_package(&mut LocalMsr, cbo)).map(|(_, p)| p)
    }
}

/// Why the IMC is not driven: said once the other PMUs are registered, so that a refusal
/// stays one line.
pub(crate) enum NoImc {
    /// The host bridge is not one we know, or the firmware left MCHBAR disabled.
    Absent(ImcError),
    /// MCHBAR could not be mapped.
    Unmapped(ImcLocation, Error),
}

impl NoImc {
    /// Logs the reason, one line.
    pub(crate) fn log(&self) {
        match self {
            Self::Absent(e) => pr_info!("no uncore_imc: {}\n", Why(*e)),
            Self::Unmapped(loc, e) => pr_info!(
                "{}: cannot map MCHBAR at {:#x} ({:?}): no uncore_imc\n",
                loc.bridge,
                loc.base,
                e
            ),
        }
    }
}

/// Maps the IMC counters, if the host bridge is one of ours and MCHBAR is enabled; else why
/// not (nothing to say without a host bridge). Without them the other PMUs still work, as in
/// Linux.
fn map_imc() -> core::result::Result<UnboundIoMem<IMC_MAP_SIZE>, Option<NoImc>> {
    let (vendor, device, [lo, hi]) =
        crate::kabi::mchbar::host_bridge_read([PCI_MCHBAR_LO, PCI_MCHBAR_HI]).map_err(|_| None)?;
    let loc = imc::locate(vendor, device, lo, hi).map_err(|e| Some(NoImc::Absent(e)))?;
    // SAFETY: `loc.base` is MCHBAR as the host bridge's own register gives it, decoding
    // enabled, on a bridge of the table (`imc::locate`): the memory controller's register
    // window, of which the driver reads the IMC's free-running counters (Table 3-3), as
    // Linux's intel_uncore maps and reads the same 0x6000 bytes. The driver only reads it
    // (`imc_read`), and reads there have no side effect.
    unsafe { UnboundIoMem::ioremap(loc.base, IMC_MAP_SIZE) }
        .map_err(|e| Some(NoImc::Unmapped(loc, e)))
}

/// What [`probe`] found.
pub(crate) struct Probed {
    /// The part's name, for the log.
    pub(crate) name: &'static CStr,
    /// The CBo PMUs to register (possibly none, see [`CboConfig::cbox_count`]), and why.
    pub(crate) cbo: CboCount,
    /// The hardware access.
    pub(crate) hw: RealHw,
    /// Why there is no IMC, if there is none and something to say.
    pub(crate) no_imc: Option<NoImc>,
}

/// The supported CPUs (`asm/intel-family.h`), with the names the log uses. The one list: the
/// module's CPU table, [`CPU_IDS`], is made from it, and udev loads the module from that.
const MODELS: [(Vfm, &CStr); 6] = [
    (Vfm::intel(6, 0x4E), c"Skylake-L"),    // INTEL_SKYLAKE_L
    (Vfm::intel(6, 0x5E), c"Skylake"),      // INTEL_SKYLAKE
    (Vfm::intel(6, 0x8E), c"Kaby Lake-L"),  // INTEL_KABYLAKE_L
    (Vfm::intel(6, 0x9E), c"Kaby Lake"),    // INTEL_KABYLAKE
    (Vfm::intel(6, 0xA5), c"Comet Lake"),   // INTEL_COMETLAKE
    (Vfm::intel(6, 0xA6), c"Comet Lake-L"), // INTEL_COMETLAKE_L
];

crate::x86_cpu_device_table!(CPU_IDS, MODELS);

/// Checks that this is a supported part on bare metal, and returns what to register and the
/// hardware access. It only reads: the uncore's registers may be another driver's until our
/// PMU names are claimed ([`Probed::confirm`] writes). Every refusal is one line in the log
/// and `ENODEV`; what was found is the caller's to log once the PMUs are registered (a
/// refusal then stays one line).
pub(crate) fn probe() -> Result<Probed> {
    let Some(i) = CPU_IDS.match_boot_cpu() else {
        let vfm = Vfm::boot_cpu();
        pr_info!(
            "no Skylake-client uncore on this CPU (family {:#x} model {:#x}): not loading\n",
            vfm.family(),
            vfm.model()
        );
        return Err(ENODEV);
    };
    let cname = MODELS[i].1;
    let name = cname.to_str().unwrap_or("?");
    if boot_cpu_has(Feature::HYPERVISOR) {
        pr_info!("{name} under a hypervisor: the uncore PMU is not virtualised, not loading\n");
        return Err(ENODEV);
    }
    // A missing MSR faults: then no uncore PMU MSR is there, and nothing could count. A raw
    // value of 0 or 1 means no CBo PMU; the ARB, clock and IMC never depend on the CBo count.
    let Ok(raw) = platform::rdmsr(MSR_UNC_CBO_CONFIG) else {
        pr_info!("{name}: MSR_UNC_CBO_CONFIG faults: no uncore PMU MSRs here, not loading\n");
        return Err(ENODEV);
    };
    let (imc, no_imc) = match map_imc() {
        Ok(map) => (Some(map), None),
        Err(why) => (None, why),
    };
    Ok(Probed {
        name: cname,
        cbo: CboConfig::from_raw(raw).cbox_count(topology::num_cores_per_package()),
        hw: RealHw { imc },
        no_imc,
    })
}

impl Probed {
    /// Checks, on every package, that the uncore's MSRs behave as registers and how many
    /// counters each CBo has ([`probe_package`]), which takes writes: only once `_names`
    /// proves that no other driver holds our PMU names, as Linux's `intel_uncore` would if it
    /// were using the registers. Each package in one call on one of its CPUs, interrupts
    /// off. `ENODEV` and one line if the uncore does not answer.
    pub(crate) fn confirm(&self, _names: &Names) -> Result<WriteProbe> {
        let cbo = self.cbo.n > 0;
        let found = probe_all(topology::max_packages(), |pkg| {
            self.hw.probe_package(pkg, cbo)
        });
        if found.answers {
            return Ok(found);
        }
        pr_info!(
            "{}: the uncore PMU MSRs do not keep a written value (ARB PERFEVTSEL0 {:#x}): \
             an emulator, not the silicon; not loading\n",
            self.name.to_str().unwrap_or("?"),
            PerfEvtSel::addr(&ARB, 0, 0)
        );
        Err(ENODEV)
    }
}

/// MSR access on the CPU the probe runs on, which has interrupts off
/// ([`platform::on_package_cpu`]).
struct LocalMsr;

impl ProbeMsr for LocalMsr {
    fn rdmsr(&mut self, msr: u32) -> core::result::Result<u64, Refused> {
        platform::rdmsr(msr).map_err(|_| Refused)
    }

    fn wrmsr(&mut self, msr: UncoreMsr, val: u64) -> core::result::Result<(), Refused> {
        platform::wrmsr(msr, val).map_err(|_| Refused)
    }
}
