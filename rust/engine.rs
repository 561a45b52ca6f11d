// SPDX-License-Identifier: GPL-2.0

//! The generic PMU engine: one implementation drives every unit from its table.
//!
//! One perf PMU per box (`uncore_cbox_N`, `uncore_arb`, `uncore_clock`, `uncore_imc`), of
//! package scope: perf keeps the `cpumask`, moves events when its CPU goes offline and lets
//! any CPU of the package read them. Each PMU has one box per package ([`PmuBox`] behind a
//! raw spinlock: events of a package may sit on any of its CPUs). Each package has one
//! timer, running while any of its events is live, every 10 s (with 2.5 s of slack; every
//! 1.006 s while an IMC event is): it polls the counters before they can wrap and checks that
//! nobody changed the registers.
//!
//! [`PmuBox`]: crate::uncore::pmubox::PmuBox

mod attrs;
mod log;
mod package;
mod pmu;

use kernel::{
    cpu::CpuId, new_mutex, prelude::*, str::CString, sync::Arc, sync::Mutex, ModuleMetadata,
};

use crate::kabi::{perf::PmuRegistration, platform, pm, topology};
use crate::uncore::{
    probe::{PackageProbe, WriteProbe},
    regs::MSR_UNC_PERF_GLOBAL_CTRL,
    units::{Unit, UnitKind, ARB, CBOX, CLOCK, IMC},
};

pub(crate) use log::Why;
/// Package timer runs since load, for the simulator's statistics (wakeups per second).
#[cfg(skl_sim)]
pub(crate) use package::{hold_timers, timer_runs as polls};
use package::{BoxState, Package, PackageExt};
use pmu::{PmuName, UncorePmu};

/// Access to the uncore registers: the real ones, or the simulator's.
pub(crate) trait Hw: Send + Sync {
    /// RDMSR on the calling CPU.
    fn rdmsr(&self, msr: u32) -> Result<u64>;
    /// WRMSR on the calling CPU.
    fn wrmsr(&self, msr: u32, val: u64) -> Result;
    /// WRMSR on `cpu`, from process context.
    fn wrmsr_on_cpu(&self, cpu: CpuId, msr: u32, val: u64) -> Result;
    /// 32-bit read of the IMC counter at MCHBAR + `offset`.
    fn imc_read(&self, offset: u32) -> Result<u32>;
    /// The write probe of package `pkg` ([`probe_package`], counters per CBo if `cbo`), in one
    /// call on one of its CPUs; `None` if none is online. Process context.
    ///
    /// [`probe_package`]: crate::uncore::probe::probe_package
    fn probe_package(&self, pkg: u32, cbo: bool) -> Option<PackageProbe>;
}

/// The whole driver state: the packages (with their boxes) and the registered PMUs.
#[pin_data]
pub(crate) struct Engine {
    hw: Arc<dyn Hw>,
    packages: KVec<Arc<Package>>,
    /// Generic counters per CBo the load found, if there are CBo PMUs.
    cbo_counters: Option<u32>,
    /// Serialises the probes of packages no CPU of which was online at load.
    #[pin]
    late_probe: Mutex<()>,
    #[pin]
    pmus: Mutex<KVec<Pin<KBox<PmuRegistration<UncorePmu>>>>>,
}

impl Engine {
    /// Driver state over `hw` for the PMUs `slots` (one per box), as the load's write `probe`
    /// found the part, with no PMU registered yet.
    fn new(
        hw: Arc<dyn Hw>,
        slots: &[(&'static Unit, u32)],
        probe: &WriteProbe,
    ) -> Result<Arc<Self>> {
        let cbo_counters = probe.counters.n;
        let n = topology::max_packages();
        let mut packages = KVec::with_capacity(n as usize, GFP_KERNEL)?;
        for id in 0..n {
            let mut boxes = KVec::with_capacity(slots.len(), GFP_KERNEL)?;
            for &(unit, box_idx) in slots {
                let nr = nr_generic(unit, cbo_counters);
                boxes.push(BoxState::new(unit, box_idx, nr)?, GFP_KERNEL)?;
            }
            let probed = probe.probed(id);
            packages.push(
                package::new_package(id, hw.clone(), boxes, probed)?,
                GFP_KERNEL,
            )?;
        }
        let has_cbo = slots.iter().any(|(u, _)| matches!(u.kind, UnitKind::Cbox));
        Arc::pin_init(
            try_pin_init!(Self {
                hw,
                packages,
                cbo_counters: has_cbo.then_some(cbo_counters),
                late_probe <- new_mutex!(()),
                pmus <- new_mutex!(KVec::new()),
            }),
            GFP_KERNEL,
        )
    }

    /// Probes `pkg` if none of its CPUs was online at load, before its first event takes a
    /// counter (called by every `event_init`): its CBos may have fewer counters than the other
    /// packages', or its uncore may not answer. `ENODEV` if none of its CPUs is online now
    /// either (perf refuses an event there anyway). Process context: it may sleep.
    fn probe_late(&self, pkg: &Package) -> Result {
        if pkg.probed() {
            return Ok(());
        }
        let _one_at_a_time = self.late_probe.lock();
        if pkg.probed() {
            return Ok(());
        }
        let found = self
            .hw
            .probe_package(pkg.id(), self.cbo_counters.is_some())
            .ok_or(ENODEV)?;
        pkg.take_late_probe(found, self.cbo_counters.unwrap_or(0));
        Ok(())
    }

    /// The package of the calling CPU.
    fn package_here(&self) -> &Arc<Package> {
        self.package(platform::current_package())
    }

    fn package(&self, id: u32) -> &Arc<Package> {
        &self.packages[(id as usize).min(self.packages.len() - 1)]
    }

    /// Stops every package's timer (waiting for any IPI taking one home), unregisters every
    /// PMU and clears the global enable of every package.
    fn shutdown(&self) {
        // First: nothing after this runs under a timer or IPI of ours, whatever perf's
        // unregistration does (it may find events left and remove them).
        for p in self.packages.iter() {
            p.stop();
        }
        // Unregister outside the lock: perf may wait for CPU hotplug.
        let pmus = core::mem::take(&mut *self.pmus.lock());
        drop(pmus);
        // Counters left counting for events that were on their way to another CPU and never
        // came back: stopped, as the timer would have.
        for p in self.packages.iter() {
            platform::on_package_cpu(p.id(), || p.drop_departed());
        }
        let live: u64 = self.packages.iter().map(|p| u64::from(p.live())).sum();
        if live > 0 {
            pr_warn!("{live} events still live at unload: perf_pmu_unregister left them\n");
        }
        for p in self.packages.iter() {
            if p.take_global_enable() {
                if let Some(cpu) = platform::online_cpu_in_package(p.id()) {
                    let _ = self.hw.wrmsr_on_cpu(cpu, MSR_UNC_PERF_GLOBAL_CTRL, 0);
                }
            }
        }
    }
}

/// S3 and hibernation: syscore runs on the boot CPU, interrupts off, every other CPU offline.
/// The boot CPU's package is folded and programmed again here. Every other package lost its
/// last online CPU before: perf then took its events off (`del` folded their counts, exactly)
/// and left them off, so its boxes hold nothing live but the records of events that were
/// moving between its CPUs and were closed on their way: dropped here, without a register
/// access (the sleep resets the counters they kept counting). What it keeps is our record of
/// its global enable, which the reset makes false, so it is forgotten here and the next `add`
/// writes the register again. Documentation/design.rst, "Suspend", has the evidence.
///
/// Suspend-to-idle: every CPU is online, and each package is folded before the sleep and
/// checked after it on a CPU of its own.
impl pm::PmOps for Engine {
    fn suspend(&self) {
        let here = platform::current_package();
        for p in self.packages.iter() {
            if p.id() == here {
                p.suspend();
                continue;
            }
            let left = p.suspend_unreachable();
            if left > 0 {
                // No CPU of that package is online to read its counters: perf never leaves
                // one live there (see above). Said, not silently lost.
                pr_warn!(
                    "package {}: {} events live with no CPU online at suspend: their counts \
                     since the last poll are lost\n",
                    p.id(),
                    left
                );
            }
        }
    }

    fn resume(&self) {
        let here = platform::current_package();
        for p in self.packages.iter() {
            if p.id() == here {
                p.resume();
            } else {
                p.forget_registers();
            }
        }
    }

    fn idle_suspend(&self) {
        // A package whose CPUs were all taken offline has nothing live but departed records:
        // its registers are left as they are, and its timer drops them when a CPU is back.
        for p in self.packages.iter() {
            platform::on_package_cpu(p.id(), || p.suspend());
        }
    }

    fn idle_resume(&self) {
        for p in self.packages.iter() {
            platform::on_package_cpu(p.id(), || p.wake_s2idle());
        }
    }
}

/// Generic counters per box of `unit` on a part with `cbo_counters` per CBo: the ARB has the
/// two of Table 2-1 on every part.
fn nr_generic(unit: &Unit, cbo_counters: u32) -> u32 {
    match unit.kind {
        UnitKind::Cbox => cbo_counters.min(unit.nr_generic),
        _ => unit.nr_generic,
    }
}

/// Logs what the load's write probe found, once the PMUs are registered: the counters per CBo
/// if `cbo` (and each package's when they differ), and the packages left for their first
/// event.
pub(crate) fn say_probe(probe: &WriteProbe, cbo: bool) {
    let counters = &probe.counters;
    if cbo {
        pr_info!("{}\n", Why(*counters));
        if counters.differ() {
            for line in counters.per_package() {
                pr_info!("{}\n", Why(line));
            }
        }
    }
    for pkg in (0..topology::max_packages()).filter(|&p| !probe.probed(p)) {
        pr_info!("package {pkg}: no CPU online: probed at its first event\n");
    }
}

/// The PMUs a driver will register, with the claim on their names. Taken before the driver
/// touches any register: a refusal then leaves the hardware to the driver holding the names.
pub(crate) struct Names {
    /// One PMU per box.
    slots: KVec<(&'static Unit, u32)>,
    claim: crate::clash::Claim,
}

impl Names {
    /// `nr_cbox` CBo PMUs, the ARB, the clock and, if `imc`, the IMC; `EEXIST` and one log
    /// line if another driver holds one of their names.
    pub(crate) fn claim(nr_cbox: u32, imc: bool) -> Result<Self> {
        let units: [(&'static Unit, u32); 4] = [
            (&CBOX, nr_cbox),
            (&ARB, 1),
            (&CLOCK, 1),
            (&IMC, u32::from(imc)),
        ];
        let mut slots = KVec::new();
        for (unit, nr_boxes) in units {
            for box_idx in 0..nr_boxes {
                slots.push((unit, box_idx), GFP_KERNEL)?;
            }
        }
        let claim = crate::clash::refuse_if_taken(
            slots.iter().map(|&(unit, box_idx)| PmuName(unit, box_idx)),
        )?;
        Ok(Self { slots, claim })
    }
}

/// A loaded driver: the engine, its PMUs and its sleep hooks. Dropping it unregisters the
/// PMUs and clears the global enables.
pub(crate) struct Driver {
    engine: Arc<Engine>,
    _pm: pm::Sleep<Engine>,
    /// Dropped last: `intel_uncore` may load once our PMUs are gone.
    _claim: crate::clash::Claim,
}

impl Driver {
    /// Registers the PMUs of `names` over `hw`, as the load's write `probe` found the part.
    pub(crate) fn new(
        names: Names,
        hw: Arc<dyn Hw>,
        probe: &WriteProbe,
        module: &'static ThisModule,
    ) -> Result<Self> {
        let Names { slots, claim } = names;
        let engine = Engine::new(hw, &slots, probe)?;
        let this = Self {
            _pm: pm::Sleep::register(
                engine.clone(),
                <crate::LocalModule as ModuleMetadata>::NAME,
                module,
            )?,
            engine,
            _claim: claim,
        };
        // From here on, an error drops `this`, which unregisters whatever was registered.
        for (slot, &(unit, box_idx)) in slots.iter().enumerate() {
            let name = CString::try_from_fmt(fmt!("{}", PmuName(unit, box_idx)))?;
            let pmu = UncorePmu::new(&this.engine, unit, box_idx, slot)?;
            let scope = pmu.scope();
            let reg = KBox::pin_init(
                PmuRegistration::register(name, scope, pmu, module),
                GFP_KERNEL,
            )
            .inspect_err(|e| {
                pr_err!(
                    "{}: perf_pmu_register failed: {:?}\n",
                    PmuName(unit, box_idx),
                    e
                );
            })?;
            this.engine.pmus.lock().push(reg, GFP_KERNEL)?;
        }
        Ok(this)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.engine.shutdown();
    }
}
