// SPDX-License-Identifier: GPL-2.0

//! A register's name as the manual prints it, for the log.

use super::{
    PerfCtr, PerfEvtSel, IMC_COUNTERS, MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL,
    MSR_UNC_PERF_GLOBAL_CTRL,
};
use crate::uncore::units::{UnitKind, ARB, CBOX, MAX_CBOX};

/// A register's name as the manual prints it.
pub(crate) struct RegName(pub(crate) u32);

impl core::fmt::Display for RegName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let a = self.0;
        match a {
            MSR_UNC_PERF_GLOBAL_CTRL => write!(f, "MSR_UNC_PERF_GLOBAL_CTRL")?,
            MSR_UNC_PERF_FIXED_CTRL => write!(f, "MSR_UNC_PERF_FIXED_CTRL")?,
            MSR_UNC_PERF_FIXED_CTR => write!(f, "MSR_UNC_PERF_FIXED_CTR")?,
            _ => {
                let boxes = (0..MAX_CBOX).map(|b| (&CBOX, b)).chain([(&ARB, 0)]);
                let mut named = false;
                for (unit, b) in boxes {
                    for i in 0..unit.nr_generic {
                        let who = if unit.kind == UnitKind::Arb {
                            CboName(u32::MAX)
                        } else {
                            CboName(b)
                        };
                        if PerfEvtSel::addr(unit, b, i) == a {
                            write!(f, "MSR_UNC_{who}_PERFEVTSEL{i}")?;
                            named = true;
                        } else if PerfCtr::addr(unit, b, i) == a {
                            write!(f, "MSR_UNC_{who}_PERFCTR{i}")?;
                            named = true;
                        }
                    }
                }
                if let Some(c) = IMC_COUNTERS.iter().find(|c| c.offset == a) {
                    write!(f, "{} (MCHBAR + {a:#x})", c.name)?;
                } else if !named {
                    write!(f, "register {a:#x}")?;
                }
            }
        }
        Ok(())
    }
}

/// `CBO_<n>` in a register name (`ARB` for `u32::MAX`).
struct CboName(u32);

impl core::fmt::Display for CboName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0 == u32::MAX {
            write!(f, "ARB")
        } else {
            write!(f, "CBO_{}", self.0)
        }
    }
}
