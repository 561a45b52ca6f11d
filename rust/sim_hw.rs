// SPDX-License-Identifier: GPL-2.0

//! The simulated uncore behind the engine, and its debugfs interface ([`debugfs`]). Only the
//! simulator module has this file.

use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::atomic::{ordering, Atomic},
};

use crate::engine::{Hw, Why};
use crate::kabi::{
    lock::SimLock,
    platform::{self, now_ns},
    raw_spinlock::{new_raw_spinlock_irqsave, RawSpinLockIrqSave},
    topology,
};
use crate::uncore::{
    cbo_count::CboCount,
    cbo_counters::{ProbeMsr, Refused},
    imc,
    probe::{probe_all, probe_package, PackageProbe, WriteProbe},
    regs::{CboConfig, MSR_UNC_CBO_CONFIG, PCI_MCHBAR_HI, PCI_MCHBAR_LO},
    sim::{
        count::Rates,
        model::{Fault, MissingAs},
        SimUncore,
    },
};

/// A step of the module's load, timed for `make bench`.
#[derive(Clone, Copy)]
pub(crate) enum LoadStep {
    /// The model built, the CBo count and the IMC discovered.
    Model,
    /// Our PMU names claimed (`Names::claim`).
    Names,
    /// The write probe of every package.
    Probe,
    /// The debugfs files and the model's sleep hook.
    Files,
    /// The engine and its PMUs registered (`Driver::new`).
    Register,
}

/// The last load's steps, in microseconds ([`LoadStep`] order), shown by `regs`.
static LOAD_US: [Atomic<u64>; 5] = [const { Atomic::new(0) }; 5];

/// Package probes that ran while a CPU was on its way online or offline, since load (`regs`):
/// the evidence that a hotplug loop did overlap the probe it tests.
static PROBES_IN_HOTPLUG: Atomic<u64> = Atomic::new(0);

/// Times the steps of a load.
pub(crate) struct LoadSteps(u64);

impl LoadSteps {
    /// Starts the clock.
    pub(crate) fn start() -> Self {
        Self(now_ns())
    }

    /// Records the time since the last lap as `step`'s.
    pub(crate) fn lap(&mut self, step: LoadStep) {
        let now = now_ns();
        LOAD_US[step as usize].store((now - self.0) / 1000, ordering::Relaxed);
        self.0 = now;
    }
}

/// The simulated registers, one register file per package as on real hardware, serialised by
/// a raw spinlock each (accessed from PMU callbacks and hard-irq timers, inside a box's lock).
/// Only package 0's has the IMC: a machine has one MCHBAR, one memory controller, so every
/// IMC access goes there whatever CPU makes it ([`SimHw::imc`]).
pub(crate) struct SimHw {
    models: KVec<Pin<KBox<RawSpinLockIrqSave<SimUncore>>>>,
}

mod debugfs;
mod mchbar;
mod nmi;

pub(crate) use debugfs::SimDebugfs;

fn fault_to_err(_f: Fault) -> Error {
    // What `rdmsr_safe`/`wrmsr_safe` report for a #GP.
    EIO
}

impl SimHw {
    /// A simulated uncore in every package, with `nr_cbox` CBos of `cbo_counters.0` generic
    /// counters each (the others missing as `cbo_counters.1` says), and `rates`; the machine's
    /// IMC, if `imc`, in package 0's. `MSR_UNC_CBO_CONFIG` reads `cbo_config`, or
    /// `nr_cbox + 1` if `None`.
    pub(crate) fn new(
        nr_cbox: u32,
        cbo_counters: (u32, MissingAs),
        imc: bool,
        rates: Rates,
        cbo_config: Option<u64>,
    ) -> Result<Self> {
        let n = topology::max_packages() as usize;
        let mut models = KVec::with_capacity(n, GFP_KERNEL)?;
        for pkg in 0..n {
            let mut rates = rates;
            if pkg != 0 {
                rates.imc = [0; 5];
            }
            let mut model = SimUncore::new(nr_cbox, imc && pkg == 0, rates);
            model.set_cbo_counters(cbo_counters.0);
            model.set_missing_as(cbo_counters.1);
            if let Some(raw) = cbo_config {
                model.set_cbo_config(raw);
            }
            let model = KBox::pin_init(
                new_raw_spinlock_irqsave!(model, "skl_uncore_sim_model"),
                GFP_KERNEL,
            )?;
            models.push(model, GFP_KERNEL)?;
        }
        Ok(Self { models })
    }

    /// Discovers the simulated uncore the way the production module discovers the real one:
    /// the CBo count from `MSR_UNC_CBO_CONFIG` and `cores` (one line in the log), the IMC
    /// from the host bridge's MCHBAR. Returns the CBo count (possibly 0) and whether the IMC
    /// is there.
    pub(crate) fn discover(&self, cores: u32) -> Result<(CboCount, bool)> {
        let count = CboConfig::from_raw(self.rdmsr(MSR_UNC_CBO_CONFIG)?).cbox_count(cores);
        let (id, lo, hi) = self.models[0].with(|m| {
            (
                m.pci_config_read32(0),
                m.pci_config_read32(PCI_MCHBAR_LO),
                m.pci_config_read32(PCI_MCHBAR_HI),
            )
        });
        let imc = match imc::locate(id as u16, (id >> 16) as u16, lo, hi) {
            Ok(_) => true,
            Err(e) => {
                pr_info!("no uncore_imc: {}\n", Why(e));
                false
            }
        };
        Ok((count, imc))
    }

    /// Counters per CBo, probed as the production module probes the silicon: on a CPU of
    /// every package, interrupts off, in that package's register file (held for the whole
    /// probe), if there is a CBo PMU at all ([`Hw::probe_package`]). Writes: only once our
    /// PMU names are claimed.
    pub(crate) fn cbo_counters(&self, nr_cbox: u32) -> WriteProbe {
        probe_all(topology::max_packages(), |pkg| {
            self.probe_package(pkg, nr_cbox > 0)
        })
    }

    /// Resets every package's MSRs to their power-on values ([`SimUncore::reset_msrs`]).
    pub(crate) fn reset_all(&self) {
        for m in self.models.iter() {
            m.with(|m| m.reset_msrs(now_ns()));
        }
    }

    /// Another tool writes `value` to `msr` in every package ([`SimUncore::foreign_wrmsr`]).
    /// All packages are alike, so a refusal comes from the first and changes nothing.
    pub(crate) fn foreign_wrmsr(&self, msr: u32, value: u64) -> core::result::Result<(), Fault> {
        self.each(|m| m.foreign_wrmsr(msr, value, now_ns()))
    }

    /// Runs `f` on the register file of `cpu`'s package.
    fn on<R>(&self, cpu: CpuId, f: impl FnOnce(&mut SimUncore) -> R) -> R {
        self.model(cpu).with(f)
    }

    /// The register file of `cpu`'s package.
    fn model(&self, cpu: CpuId) -> &RawSpinLockIrqSave<SimUncore> {
        let pkg = (topology::logical_package_id(cpu) as usize).min(self.models.len() - 1);
        &self.models[pkg]
    }

    /// Runs `f` on the register file of the calling CPU's package: where an MSR access lands.
    fn here<R>(&self, f: impl FnOnce(&mut SimUncore) -> R) -> R {
        self.on(CpuId::current(), f)
    }

    /// Runs `f` on every package's register file (debugfs commands), stopping at an error.
    fn each<E>(
        &self,
        mut f: impl FnMut(&mut SimUncore) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        self.models.iter().try_for_each(|m| m.with(&mut f))
    }
}

impl Drop for SimHw {
    /// Reports what the driver left behind: after unload every enable must be clear and no
    /// access may have faulted. The selftests check this line.
    fn drop(&mut self) {
        // The production `RealHw`'s drop unmaps MCHBAR (`iounmap`, which may sleep): whoever
        // drops the last reference must be in process context. Check it here, where every
        // test runs (CONFIG_DEBUG_ATOMIC_SLEEP reports a drop in hard irq).
        kernel::task::might_sleep();
        let mut s = self.models[0].with(|m| m.leftovers());
        for m in self.models.iter().skip(1) {
            let o = m.with(|m| m.leftovers());
            s.global_ctrl |= o.global_ctrl;
            s.fixed_ctrl |= o.fixed_ctrl;
            s.enabled_counters += o.enabled_counters;
            s.faults += o.faults;
            s.violations += o.violations;
        }
        pr_info!(
            "unload: global_ctrl {:#x} fixed_ctrl {:#x} enabled {} faults {} violations {}\n",
            s.global_ctrl,
            s.fixed_ctrl,
            s.enabled_counters,
            s.faults,
            s.violations
        );
    }
}

/// The driver's MSR accesses to one package's register file.
struct ModelMsr<'a>(&'a mut SimUncore);

impl ProbeMsr for ModelMsr<'_> {
    fn rdmsr(&mut self, msr: u32) -> core::result::Result<u64, Refused> {
        self.0.rdmsr(msr, now_ns()).map_err(|_| Refused)
    }

    fn wrmsr(
        &mut self,
        msr: crate::uncore::regs::UncoreMsr,
        val: u64,
    ) -> core::result::Result<(), Refused> {
        self.0.wrmsr(msr.addr(), val, now_ns()).map_err(|_| Refused)
    }
}

impl Hw for SimHw {
    fn rdmsr(&self, msr: u32) -> Result<u64> {
        self.read_here(|m, now| m.rdmsr(msr, now))
    }

    fn wrmsr(&self, msr: u32, val: u64) -> Result {
        self.here(|m| m.wrmsr(msr, val, now_ns()))
            .map_err(fault_to_err)
    }

    fn wrmsr_on_cpu(&self, cpu: CpuId, msr: u32, val: u64) -> Result {
        self.on(cpu, |m| m.wrmsr(msr, val, now_ns()))
            .map_err(fault_to_err)
    }

    /// MCHBAR is the host bridge's: the one IMC, whatever CPU reads.
    fn imc_read(&self, offset: u32) -> Result<u32> {
        self.read_in(self.imc(), |m, now| m.mmio_read32(offset, now))
    }

    fn probe_package(&self, pkg: u32, cbo: bool) -> Option<PackageProbe> {
        platform::on_package_cpu(pkg, || {
            if platform::hotplug_in_flight() {
                PROBES_IN_HOTPLUG.fetch_add(1, ordering::Relaxed);
            }
            self.here(|m| m.probing(|m| probe_package(&mut ModelMsr(m), cbo)))
        })
        .map(|(_, p)| p)
    }
}

/// The silicon loses its uncore state in S3: so does the model, on its own, whatever the
/// driver does. Registered before the driver's hook, so it runs first on resume.
impl crate::kabi::pm::PmOps for SimHw {
    fn suspend(&self) {}

    fn resume(&self) {
        let _ = self.each(|m| {
            m.reset(now_ns());
            Ok::<(), ()>(())
        });
        pr_info!("model reset (resume)\n");
    }
}
