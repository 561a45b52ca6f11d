// SPDX-License-Identifier: GPL-2.0

//! The one log line for a register found changed, or faulting: its name as the manual prints
//! it.

use super::Note;
use crate::uncore::regs::RegName;

impl crate::uncore::Describe for Note {
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let a = self.addr();
        write!(f, "{}", RegName(a))?;
        match self {
            Self::Changed(_) => write!(
                f,
                " ({a:#x}) was reset or changed by someone else (a suspend, or another tool \
                 writing the uncore registers): programmed again, counts continue"
            ),
            Self::Faulted(_) => write!(
                f,
                " ({a:#x}) faulted when written (absent on this part, or refused by a \
                 hypervisor): its counter is not used; events that need it get EIO"
            ),
            Self::Unreadable(_) => write!(
                f,
                " ({a:#x}) faulted when read (absent on this part, or refused by a \
                 hypervisor): its counter is not used; events that need it get EIO"
            ),
            Self::Unwatched(_) => write!(
                f,
                " ({a:#x}) faulted when read (refused by a hypervisor?): its counter counts, \
                 but a change by another tool is not seen"
            ),
        }
    }
}
