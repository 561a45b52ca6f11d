// SPDX-License-Identifier: GPL-2.0

//! MCHBAR: the machine's one IMC. A machine has one host bridge, one memory controller,
//! whatever the number of packages; the simulator keeps it in package 0's register file, and
//! every IMC access reaches it there from any CPU.

use super::SimHw;
use crate::kabi::{lock::SimLock, raw_spinlock::RawSpinLockIrqSave};
use crate::uncore::{sim::SimUncore, units::UnitKind};

impl SimHw {
    /// The register file holding the machine's one IMC (package 0's), for every CPU.
    pub(super) fn imc(&self) -> &RawSpinLockIrqSave<SimUncore> {
        &self.models[0]
    }

    /// Runs `f` on the register files a debugfs command for `unit` acts on: the IMC's alone
    /// for the IMC, every package's for the MSR units; stops at an error.
    pub(super) fn each_of<E>(
        &self,
        unit: UnitKind,
        f: impl FnMut(&mut SimUncore) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        match unit {
            UnitKind::Imc => self.imc().with(f),
            _ => self.each(f),
        }
    }
}
