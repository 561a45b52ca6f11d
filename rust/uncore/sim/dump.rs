// SPDX-License-Identifier: GPL-2.0

//! The debugfs `regs` dump of the model. Selftests and the benchmark parse some of its lines
//! (`totals`, `violations`, `accesses ... faults N`): keep their shape.

use super::map::{address, Reg};
use super::{SimUncore, ARB_BOX};
use crate::uncore::regs::IMC_COUNTERS;

impl SimUncore {
    /// Writes a human-readable dump of the register file.
    pub(crate) fn dump(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "time_ns {}", self.now_ns)?;
        writeln!(
            f,
            "MSR_UNC_PERF_GLOBAL_CTRL   0xe01 = {:#018x}",
            self.global_ctrl
        )?;
        writeln!(
            f,
            "MSR_UNC_PERF_GLOBAL_STATUS 0xe02 = {:#018x}",
            self.global_status
        )?;
        writeln!(
            f,
            "MSR_UNC_PERF_FIXED_CTRL    0x394 = {:#018x}",
            self.fixed_ctrl
        )?;
        writeln!(
            f,
            "MSR_UNC_PERF_FIXED_CTR     0x395 = {:#018x}",
            self.fixed.value
        )?;
        writeln!(
            f,
            "MSR_UNC_CBO_CONFIG         0x396 = {:#018x}",
            self.cbo_config
        )?;
        for b in 0..self.nr_cbox {
            for i in 0..self.cbo_counters {
                let (sel, ctr) = (Reg::CboEvtSel(b, i), Reg::CboCtr(b, i));
                write!(f, "MSR_UNC_CBO_{b}_PERFEVTSEL{i}  {:#05x} = ", address(sel))?;
                writeln!(
                    f,
                    "{:#018x}  PERFCTR{i} {:#05x} = {:#018x}",
                    self.evtsel[b as usize][i as usize],
                    address(ctr),
                    self.ctr[b as usize][i as usize].value
                )?;
            }
        }
        for i in 0..2 {
            writeln!(
                f,
                "MSR_UNC_ARB_PERFEVTSEL{i}    {:#05x} = {:#018x}  PERFCTR{i} {:#05x} = {:#018x}",
                address(Reg::ArbEvtSel(i)),
                self.evtsel[ARB_BOX][i as usize],
                address(Reg::ArbCtr(i)),
                self.ctr[ARB_BOX][i as usize].value
            )?;
        }
        if self.imc_present {
            for (c, v) in IMC_COUNTERS.iter().zip(&self.imc) {
                writeln!(
                    f,
                    "MCHBAR+{:#06x} {:<17} = {:#010x}",
                    c.offset, c.name, v.value
                )?;
            }
        }
        writeln!(
            f,
            "rates uclk {} generic {:?} imc {:?}",
            self.rates.uclk_hz, self.rates.generic, self.rates.imc
        )?;
        // Every increment the counters took, unwrapped: a driver's counts must add up to these.
        write!(
            f,
            "totals fixed {} arb {} {}",
            self.fixed.total, self.ctr[ARB_BOX][0].total, self.ctr[ARB_BOX][1].total
        )?;
        for b in 0..self.nr_cbox as usize {
            write!(f, " cbox{b}")?;
            for c in &self.ctr[b][..self.cbo_counters as usize] {
                write!(f, " {}", c.total)?;
            }
        }
        writeln!(f)?;
        if self.imc_present {
            write!(f, "totals imc")?;
            for c in &self.imc {
                write!(f, " {}", c.total)?;
            }
            writeln!(f)?;
        }
        writeln!(f, "violations {}", self.stats.constraint_violations)?;
        writeln!(
            f,
            "accesses rdmsr {} wrmsr {} mmio {} pci {} faults {}",
            self.stats.rdmsr,
            self.stats.wrmsr,
            self.stats.mmio_reads,
            self.stats.pci_reads,
            self.stats.faults
        )?;
        writeln!(f, "probe_faults {}", self.stats.probe_faults)?;
        // Not the driver's doing: kept off the `accesses` line.
        writeln!(
            f,
            "world foreign_wrmsr {} resets {}",
            self.stats.foreign_wrmsr, self.stats.resets
        )?;
        if let Some(fault) = self.last_fault {
            writeln!(f, "last_fault {fault:?}")?;
        }
        Ok(())
    }
}
