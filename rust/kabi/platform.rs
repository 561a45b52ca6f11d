// SPDX-License-Identifier: GPL-2.0

//! The package a CPU works for, MSR access, clocks, and the simulator's hooks.

#[cfg(skl_sim)]
use kernel::sync::atomic::{ordering, Atomic};
use kernel::{
    cpu::{nr_cpu_ids, CpuId},
    prelude::*,
    time::Delta,
};

#[cfg(skl_sim)]
use super::cpuhp::{self, CpuHotplug};
#[cfg(not(skl_sim))]
use super::msr;
use super::{smp, time_fast, topology};
#[cfg(not(skl_sim))]
use crate::uncore::regs::UncoreMsr;

/// Monotonic time in nanoseconds, in any context, NMI included (the simulator's NMI reader
/// waits by it).
pub(crate) fn now_ns() -> u64 {
    nanos(time_fast::monotonic())
}

/// Time since boot in nanoseconds, suspend included, in any context, NMI included (reads may
/// run there): what a counter's step is judged by. CLOCK_MONOTONIC would not do: it stops in
/// suspend-to-idle, where the uncore may count on. The boot clock includes the sleep from the
/// resume on (from the TSC, which runs through s2idle, or the RTC); inside the sleep, and for
/// a moment of the resume, it may lag: the judge never takes a step forward for a reset.
pub(crate) fn boot_ns() -> u64 {
    nanos(time_fast::boot_time())
}

/// A clock's read, never negative, in nanoseconds.
fn nanos(since_boot: Delta) -> u64 {
    u64::try_from(since_boot.as_nanos()).unwrap_or(0)
}

/// Whether a CPU is on its way online or offline (online, not yet or no longer active), which
/// covers most of either operation. The simulator counts the probes that ran meanwhile.
#[cfg(skl_sim)]
pub(crate) fn hotplug_in_flight() -> bool {
    topology::online_mask().weight() != topology::active_mask().weight()
}

/// The simulator's test hook (while held): every CPU going offline sleeps between leaving the
/// active mask and perf moving its events, the window in which perf's `del` of an event
/// closed meanwhile looks like a move. A CPU hotplug state's `offline` runs there.
#[cfg(skl_sim)]
pub(crate) struct OfflineDelay {
    _state: cpuhp::Registration<OfflineSleep>,
}

/// How long [`OfflineSleep`] sleeps, in milliseconds (the simulator has one).
#[cfg(skl_sim)]
static OFFLINE_DELAY_MS: Atomic<u32> = Atomic::new(0);

#[cfg(skl_sim)]
impl OfflineDelay {
    /// `ms` of sleep in every CPU offline; none for 0. Process context.
    pub(crate) fn new(ms: u32) -> Result<Option<Self>> {
        if ms == 0 {
            return Ok(None);
        }
        OFFLINE_DELAY_MS.store(ms, ordering::Relaxed);
        Ok(Some(Self {
            _state: cpuhp::Registration::new_nocalls()?,
        }))
    }
}

/// Sleeps [`OFFLINE_DELAY_MS`] as a CPU goes offline.
#[cfg(skl_sim)]
struct OfflineSleep;

#[cfg(skl_sim)]
#[vtable]
impl CpuHotplug for OfflineSleep {
    const NAME: &'static CStr = c"skl_uncore_sim:offline_delay";

    fn offline(_cpu: CpuId) -> Result {
        let ms = OFFLINE_DELAY_MS.load(ordering::Relaxed);
        kernel::time::delay::fsleep(kernel::time::Delta::from_millis(ms.into()));
        Ok(())
    }
}

/// Ends a suspend-to-idle as a wake-up interrupt would (the simulator's wake-up source).
#[cfg(skl_sim)]
pub(crate) use super::suspend::system_wakeup;

#[cfg(not(skl_sim))]
/// Reads MSR `msr` on this CPU; `EIO` if it faults (absent, or refused by a hypervisor).
pub(crate) fn rdmsr(msr: u32) -> Result<u64> {
    msr::read_safe(msr)
}

#[cfg(not(skl_sim))]
/// Writes the uncore PMU register `msr` on this CPU; `EIO` if it faults.
pub(crate) fn wrmsr(msr: UncoreMsr, val: u64) -> Result {
    // SAFETY: `msr` is an uncore PMU register (`UncoreMsr`'s invariant): writing it changes
    // what the uncore counts, never memory or the CPU's own state.
    unsafe { msr::write_safe(msr.addr(), val) }
}

#[cfg(not(skl_sim))]
/// Writes the uncore PMU register `msr` on CPU `cpu` (process context: it may sleep).
pub(crate) fn wrmsr_on_cpu(cpu: CpuId, msr: UncoreMsr, val: u64) -> Result {
    // SAFETY: As for `wrmsr`.
    unsafe { msr::write_safe_on_cpu(cpu, msr.addr(), val) }
}

/// How the kernel this module was built against has Linux's `intel_uncore`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntelUncoreConfig {
    /// `CONFIG_PERF_EVENTS_INTEL_UNCORE=y`: it cannot be unloaded.
    BuiltIn,
    /// `=m`.
    Module,
    /// Not configured.
    Absent,
}

/// `CONFIG_PERF_EVENTS_INTEL_UNCORE` of the kernel this module was built against.
pub(crate) fn intel_uncore_config() -> IntelUncoreConfig {
    if cfg!(CONFIG_PERF_EVENTS_INTEL_UNCORE = "y") {
        IntelUncoreConfig::BuiltIn
    } else if cfg!(CONFIG_PERF_EVENTS_INTEL_UNCORE = "m") {
        IntelUncoreConfig::Module
    } else {
        IntelUncoreConfig::Absent
    }
}

/// Logical package of the CPU we run on (which may change unless preemption is off, as it is
/// in PMU callbacks and timers).
pub(crate) fn current_package() -> u32 {
    topology::logical_package_id(CpuId::current())
}

/// Whether the CPU we run on is going offline (no longer active): perf's callbacks there are
/// moving the package's events to another CPU. Call with preemption off (PMU callbacks).
pub(crate) fn this_cpu_leaving() -> bool {
    !topology::cpu_active(CpuId::current())
}

/// The first active CPU of logical package `pkg` (online and not on its way down), if any. A
/// CPU going away after it was chosen makes a later MSR write on it fail cleanly
/// (`wrmsr_on_cpu` checks).
pub(crate) fn online_cpu_in_package(pkg: u32) -> Option<CpuId> {
    topology::active_cpus_of_package(pkg).next()
}

/// Runs `f` on an online CPU of logical package `pkg` with interrupts off, this CPU first if
/// it is one, and returns that CPU and what `f` returned; `None` if no CPU of the package is
/// online. A CPU that goes offline before `f` starts on it refuses the call and the next CPU
/// of the package is tried; once `f` runs, its CPU stays online to the end: the call never
/// fails half done. `f` runs in hard-irq context (an IPI, or locally with interrupts off): it
/// must not sleep. Task context, interrupts on ([`smp::call_on_cpu`]); it takes no lock, so
/// `event_init` may call it.
pub(crate) fn on_package_cpu<R: Send, F: FnOnce() -> R + Send>(
    pkg: u32,
    f: F,
) -> Option<(CpuId, R)> {
    let here = CpuId::current();
    let others = (0..nr_cpu_ids())
        .filter_map(CpuId::from_u32)
        .filter(|&cpu| cpu != here);
    let mut f = Some(f);
    // `Iterator::` by name: the prelude's `Init` has a `chain` too.
    let cpus = Iterator::chain(core::iter::once(here), others);
    for cpu in cpus.filter(|&cpu| topology::logical_package_id(cpu) == pkg) {
        // A refused call (`ENXIO`: the CPU is offline) leaves `f` unrun, for the next CPU.
        if let Ok(Some(r)) = smp::call_on_cpu(cpu, || f.take().map(|f| f())) {
            return Some((cpu, r));
        }
    }
    None
}
