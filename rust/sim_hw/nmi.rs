// SPDX-License-Identifier: GPL-2.0

//! Register reads in NMI (`perf_event_read_local`): the simulated register file is behind a
//! lock, which the context an NMI interrupted may hold, so a read there waits a bounded time.

use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::atomic::{ordering, Atomic},
};

use super::{fault_to_err, SimHw};
use crate::kabi::{lock::SimLock, perf, platform::now_ns, raw_spinlock::RawSpinLockIrqSave};
use crate::uncore::sim::{model::Fault, SimUncore};

/// How long a read in NMI waits for its package's register file before it faults: the
/// holder may be the context the NMI interrupted, on this CPU (an injection, the driver's own
/// access), or a vCPU the host preempted; perf warns of NMI handlers that run over 1 ms.
const NMI_WAIT_NS: u64 = 500_000;

/// Register reads in NMI since load, and those of them that found the register file busy
/// for [`NMI_WAIT_NS`] (`regs`: `nmi_reads N busy N`; the selftests check reads happened).
static NMI_READS: [Atomic<u64>; 2] = [const { Atomic::new(0) }; 2];

/// Register reads in NMI since load.
pub(super) fn reads() -> u64 {
    NMI_READS[0].load(ordering::Relaxed)
}

/// Of those, the ones that found the register file busy and faulted.
pub(super) fn busy() -> u64 {
    NMI_READS[1].load(ordering::Relaxed)
}

impl SimHw {
    /// A read access to the calling CPU's package ([`Self::read_in`]).
    pub(super) fn read_here<R>(
        &self,
        f: impl FnOnce(&mut SimUncore, u64) -> core::result::Result<R, Fault>,
    ) -> Result<R> {
        self.read_in(self.model(CpuId::current()), f)
    }

    /// A read access to `model` (`f` gets the model and the time): in NMI, the register file
    /// is waited for at most [`NMI_WAIT_NS`], on an NMI-safe clock, and the access then faults
    /// (the read is stale, never wrong); elsewhere under its lock.
    pub(super) fn read_in<R>(
        &self,
        model: &RawSpinLockIrqSave<SimUncore>,
        f: impl FnOnce(&mut SimUncore, u64) -> core::result::Result<R, Fault>,
    ) -> Result<R> {
        if !perf::in_nmi() {
            return model.with(|m| f(m, now_ns())).map_err(fault_to_err);
        }
        NMI_READS[0].fetch_add(1, ordering::Relaxed);
        model
            .try_with_within(NMI_WAIT_NS, now_ns, |m| f(m, now_ns()))
            .ok_or_else(|| {
                NMI_READS[1].fetch_add(1, ordering::Relaxed);
                EBUSY
            })?
            .map_err(fault_to_err)
    }
}
