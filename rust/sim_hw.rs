// SPDX-License-Identifier: GPL-2.0

//! The simulated uncore behind the engine, and its debugfs interface. Only the simulator
//! module has this file.
//!
//! `/sys/kernel/debug/skl_uncore_sim/`:
//! - `regs` (read): the register file, counters, rates and access counts;
//! - `inject` (write): `UNIT BOX EVENT UMASK COUNT` adds COUNT events ([`SimUncore::inject`]);
//! - `preset` (write): `UNIT BOX COUNTER VALUE` sets a counter, e.g. near its wrap point;
//! - `rate` (write): `UNIT BOX COUNTER RATE` sets a background rate per second;
//! - `fault` (write): what the world does behind the driver's back, in every package:
//!   `reset` puts every MSR to its power-on value ([`SimUncore::reset_msrs`]; S3 also resets
//!   the IMC counters, [`SimUncore::reset`]); `absent ADDR` makes an MSR fault;
//!   `en-faults ADDR` makes a write that sets the MSR's enable bit fault, `read-faults ADDR`
//!   its reads;
//!   `wrmsr ADDR VALUE` is another tool's WRMSR ([`SimUncore::foreign_wrmsr`]), not counted
//!   as the driver's access. A write the hardware refuses (#GP) fails with `EIO`. `late MS`
//!   holds every package timer off for MS milliseconds (a late poll); `idle MS` too, then
//!   wakes the system from suspend-to-idle (`echo freeze > /sys/power/state`).
//!
//! UNIT is cbox, arb, clock or imc. COUNTER is the generic counter (cbox, arb; for `rate` 0 means
//! the whole box), 0 for the clock, and the event code 1..5 for the IMC. `inject`, `preset` and
//! `rate` act on every package's MSR units, and on the machine's one IMC ([`SimHw::imc`]) for
//! `imc`, whatever CPU writes them. Numbers are decimal or 0x hex. A refused line changes nothing
//! and fails the write with `EINVAL` and one line in the log.

use kernel::{
    cpu::CpuId,
    debugfs::{Dir, File},
    prelude::*,
    sync::{
        atomic::{ordering, Atomic},
        Arc,
    },
    uaccess::UserSliceReader,
};

use crate::engine::{Hw, Why};
use crate::kabi::{
    lock::SimLock,
    platform::{self, now_ns},
    raw_spinlock::RawSpinLockIrqSave,
};
use crate::uncore::{
    cbo_count::CboCount,
    cbo_counters::{ProbeMsr, Refused},
    imc,
    probe::{probe_all, probe_package, PackageProbe, WriteProbe},
    regs::{CboConfig, MSR_UNC_CBO_CONFIG, PCI_MCHBAR_HI, PCI_MCHBAR_LO},
    sim::{
        count::Rates,
        drive::InjectError,
        model::{Fault, MissingAs},
        parse::{parse_counter_cmd, parse_fault, parse_inject, CounterCmd, FaultCmd},
        SimUncore,
    },
    units::{ARB, CBOX, CLOCK, IMC},
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

mod mchbar;
mod nmi;

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
        let n = platform::max_packages() as usize;
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
                RawSpinLockIrqSave::new(
                    model,
                    c"skl_uncore_sim_model",
                    kernel::static_lock_class!(),
                ),
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
        probe_all(platform::max_packages(), |pkg| {
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
        let pkg = (platform::cpu_package(cpu) as usize).min(self.models.len() - 1);
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

/// The debugfs files; removed when dropped.
pub(crate) struct SimDebugfs {
    _files: [Pin<KBox<File<Arc<SimHw>>>>; 5],
    _dir: Dir,
}

fn show_regs(hw: &Arc<SimHw>, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    writeln!(
        f,
        "poll_ms cbox {} arb {} clock {} imc {} homings {} in_flight {} polls {}",
        CBOX.poll_ms,
        ARB.poll_ms,
        CLOCK.poll_ms,
        IMC.poll_ms,
        crate::kabi::poller::homings(),
        crate::kabi::poller::homings_in_flight(),
        crate::engine::polls()
    )?;
    let us = LOAD_US.each_ref().map(|a| a.load(ordering::Relaxed));
    writeln!(
        f,
        "load_us model {} names {} probe {} files {} register {}",
        us[0], us[1], us[2], us[3], us[4]
    )?;
    writeln!(f, "nmi_reads {} busy {}", nmi::reads(), nmi::busy())?;
    let overlapped = PROBES_IN_HOTPLUG.load(ordering::Relaxed);
    writeln!(f, "probes_in_hotplug {overlapped}")?;
    for (pkg, model) in hw.models.iter().enumerate() {
        if hw.models.len() > 1 {
            writeln!(f, "package {pkg}")?;
        }
        model.with(|m| {
            m.advance(now_ns());
            m.dump(f)
        })?;
    }
    Ok(())
}

/// Reads one line written to a debugfs file.
fn read_line<'a>(
    file: &str,
    reader: &mut UserSliceReader,
    buf: &'a mut [u8; 96],
) -> Result<&'a str> {
    let n = reader.len();
    if n > buf.len() {
        pr_info!("{file}: line too long ({n} bytes)\n");
        return Err(EINVAL);
    }
    reader.read_slice(&mut buf[..n])?;
    core::str::from_utf8(&buf[..n]).map_err(|_| {
        pr_info!("{file}: not text\n");
        EINVAL
    })
}

/// Logs why `file` refused a line and returns `EINVAL`.
fn refused(file: &str, why: impl core::fmt::Debug, usage: &str) -> Error {
    pr_info!("{file}: {why:?}: expected '{usage}'\n");
    EINVAL
}

fn write_inject(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    const USAGE: &str = "UNIT BOX EVENT UMASK COUNT', UNIT one of cbox|arb|clock|imc";
    let mut buf = [0u8; 96];
    let cmd = parse_inject(read_line("inject", reader, &mut buf)?)
        .map_err(|e| refused("inject", e, USAGE))?;
    // Every package's MSR units see the injection, as each package's uncore would see its own
    // traffic; the machine's one IMC sees it once.
    hw.each_of(cmd.unit, |m| {
        m.inject(
            cmd.unit,
            cmd.box_idx,
            cmd.event,
            cmd.umask,
            cmd.count,
            now_ns(),
        )
        .map(|_| ())
    })
    .map_err(|e| refused("inject", e, USAGE))
}

/// Parses a `UNIT BOX COUNTER VALUE` line written to `file` and applies it to every package,
/// or to the one IMC.
fn write_counter_cmd(
    hw: &SimHw,
    reader: &mut UserSliceReader,
    file: &str,
    usage: &str,
    op: impl Fn(&mut SimUncore, CounterCmd) -> core::result::Result<(), InjectError>,
) -> Result {
    let mut buf = [0u8; 96];
    let cmd = parse_counter_cmd(read_line(file, reader, &mut buf)?)
        .map_err(|e| refused(file, e, usage))?;
    hw.each_of(cmd.unit, |m| op(m, cmd))
        .map_err(|e| refused(file, e, usage))
}

fn write_preset(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    write_counter_cmd(hw, reader, "preset", "UNIT BOX COUNTER VALUE", |m, c| {
        m.preset(c.unit, c.box_idx, c.counter, c.value, now_ns())
    })
}

fn write_rate(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    write_counter_cmd(hw, reader, "rate", "UNIT BOX COUNTER RATE", |m, c| {
        m.set_rate(c.unit, c.box_idx, c.counter, c.value, now_ns())
    })
}

fn write_fault(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    const USAGE: &str = "reset', 'wrmsr ADDR VALUE', 'absent ADDR', 'en-faults ADDR', \
                         'read-faults ADDR', 'late MS' or 'idle MS";
    let mut buf = [0u8; 96];
    match parse_fault(read_line("fault", reader, &mut buf)?)
        .map_err(|e| refused("fault", e, USAGE))?
    {
        FaultCmd::Reset => {
            hw.reset_all();
            Ok(())
        }
        FaultCmd::Absent { msr } => {
            for m in hw.models.iter() {
                m.with(|m| m.set_absent(msr));
            }
            Ok(())
        }
        FaultCmd::EnFaults { msr } => {
            for m in hw.models.iter() {
                m.with(|m| m.set_en_faults(msr));
            }
            Ok(())
        }
        FaultCmd::ReadFaults { msr } => {
            for m in hw.models.iter() {
                m.with(|m| m.set_read_faults(msr));
            }
            Ok(())
        }
        FaultCmd::Late { ms } => {
            crate::engine::hold_timers(ms, false);
            Ok(())
        }
        FaultCmd::Idle { ms } => {
            crate::engine::hold_timers(ms, true);
            Ok(())
        }
        FaultCmd::Wrmsr { msr, value } => hw.foreign_wrmsr(msr, value).map_err(|f| {
            pr_info!("fault: wrmsr {msr:#x} {value:#x}: the hardware refuses it ({f:?})\n");
            EIO
        }),
    }
}

impl SimDebugfs {
    /// Creates `/sys/kernel/debug/skl_uncore_sim/`.
    pub(crate) fn new(hw: &Arc<SimHw>) -> Result<Self> {
        let dir = Dir::new(c"skl_uncore_sim");
        let files = [
            KBox::pin_init(
                dir.read_callback_file(c"regs", hw.clone(), &show_regs),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"inject", hw.clone(), &write_inject),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"preset", hw.clone(), &write_preset),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"rate", hw.clone(), &write_rate),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"fault", hw.clone(), &write_fault),
                GFP_KERNEL,
            )?,
        ];
        Ok(Self {
            _files: files,
            _dir: dir,
        })
    }
}
