// SPDX-License-Identifier: GPL-2.0

//! System suspend: the state the system is suspending to, and wakeup events.
//!
//! C header: [`include/linux/suspend.h`](srctree/include/linux/suspend.h)
//!
//! A device's system-sleep callbacks run for every kind of sleep. Suspend-to-idle differs from
//! the others: the CPUs stay online, idle, and no system-core callback runs, so a driver whose
//! hardware needs care then asks [`target_state`] which sleep it is in.

use kernel::bindings;

/// A state the system suspends to (`suspend_state_t`; not hibernation, which has its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SuspendState {
    /// Suspend-to-idle (`PM_SUSPEND_TO_IDLE`): the CPUs stay online and idle, timekeeping is
    /// suspended, and no system-core callback runs.
    ToIdle,
    /// Power-on suspend (`PM_SUSPEND_STANDBY`).
    Standby,
    /// Suspend-to-RAM (`PM_SUSPEND_MEM`, ACPI S3).
    Mem,
}

impl SuspendState {
    /// From a `suspend_state_t` (the `PM_SUSPEND_*` values are casts, which bindgen does not
    /// evaluate); `None` for `PM_SUSPEND_ON`.
    fn from_raw(state: bindings::suspend_state_t) -> Option<Self> {
        match state {
            1 => Some(Self::ToIdle),
            2 => Some(Self::Standby),
            3 => Some(Self::Mem),
            _ => None,
        }
    }
}

/// The state the system is suspending to (`pm_suspend_target_state`); `None` when it is not
/// suspending, and always without `CONFIG_SUSPEND`.
///
/// The PM core sets it before it calls the first device's suspend callback and clears it after
/// the last resume callback: a device's system-sleep callbacks read the sleep they run for.
/// Elsewhere the answer may be out of date as soon as it is read.
pub(crate) fn target_state() -> Option<SuspendState> {
    #[cfg(CONFIG_SUSPEND)]
    // SAFETY: A static of the kernel's, written only by the suspend path, in process context;
    // a volatile read of an aligned integer is what `READ_ONCE()` does.
    let state = unsafe { core::ptr::addr_of!(bindings::pm_suspend_target_state).read_volatile() };
    #[cfg(not(CONFIG_SUSPEND))]
    let state = 0;
    SuspendState::from_raw(state)
}

/// Reports a wakeup event (`pm_system_wakeup()`), as a wakeup interrupt does: it ends a
/// suspend-to-idle in progress, and aborts a suspend being entered; otherwise it only counts
/// the event. Any context but NMI (it takes a raw spinlock). Without `CONFIG_PM_SLEEP`, nothing.
#[cfg_attr(not(skl_sim), allow(dead_code))] // Out of tree: only the simulator wakes the system.
pub(crate) fn system_wakeup() {
    #[cfg(CONFIG_PM_SLEEP)]
    // SAFETY: `pm_system_wakeup()` has no precondition: it counts the event and wakes the
    // suspend-to-idle loop under a raw spinlock with interrupts saved.
    unsafe {
        bindings::pm_system_wakeup()
    };
}
