// SPDX-License-Identifier: GPL-2.0

//! Our PMU names against Linux's `intel_uncore`, which registers the same ones.
//!
//! Before registering, every name must be free; if one is taken, the log says who holds it and
//! the fix that works for that holder: `rmmod` for a module, a boot parameter or a rebuild for
//! a built-in (which `rmmod` cannot unload). Once we hold the names, `intel_uncore` may not
//! load: its registrations would fail with a sysfs duplicate-name backtrace.

use kernel::{prelude::*, str::CString, ModuleMetadata};

use crate::kabi::{
    module_notifier::{self, ModuleNotifier},
    perf::pmu_name_taken,
    platform::{self, IntelUncoreConfig},
};

/// The other module built from these sources, which registers the same names.
#[cfg(skl_sim)]
const OTHER_MODULE: &CStr = c"skl_uncore";
#[cfg(not(skl_sim))]
const OTHER_MODULE: &CStr = c"skl_uncore_sim";

/// Linux's module that registers the same names.
const INTEL_UNCORE: &CStr = c"intel_uncore";

/// Our hold on the names: while it lives, loading `intel_uncore` fails with `EBUSY`. Keep it
/// until every PMU is unregistered.
pub(crate) struct Claim {
    _block: Pin<KBox<module_notifier::Registration<RefuseIntelUncore>>>,
}

/// Fails the load of `intel_uncore`, with `EBUSY` and one log line, before its init runs: its
/// PMUs would clash with ours (a sysfs duplicate-name backtrace, broken PMUs).
struct RefuseIntelUncore;

impl ModuleNotifier for RefuseIntelUncore {
    fn coming(&self, name: &CStr) -> Result {
        if name.to_bytes() != INTEL_UNCORE.to_bytes() {
            return Ok(());
        }
        let ours = <crate::LocalModule as ModuleMetadata>::NAME
            .to_str()
            .unwrap_or("?");
        pr_err!(
            "intel_uncore may not load while {ours} holds the uncore_* PMU names: rmmod {ours} \
             first\n"
        );
        Err(EBUSY)
    }
}

/// Refuses with `EEXIST` (which `insmod` shows as `EBUSY`) and one log line if a PMU called one
/// of `names` is registered; otherwise returns the claim on them.
pub(crate) fn refuse_if_taken<N: kernel::fmt::Display>(
    names: impl IntoIterator<Item = N>,
) -> Result<Claim> {
    // First: an intel_uncore loading from now on cannot take a name after we looked at it.
    let claim = Claim {
        _block: KBox::pin_init(
            module_notifier::Registration::register(RefuseIntelUncore),
            GFP_KERNEL,
        )?,
    };
    for name in names {
        let c_name = CString::try_from_fmt(fmt!("{name}"))?;
        let taken = pmu_name_taken(&c_name).inspect_err(|e| {
            pr_err!("cannot tell whether a PMU named {name} is registered ({e:?}): not loading\n");
        })?;
        if taken {
            explain(&name);
            return Err(EEXIST);
        }
    }
    Ok(claim)
}

/// Logs who holds `name` and how to free it.
fn explain(name: &impl kernel::fmt::Display) {
    let other = OTHER_MODULE.to_str().unwrap_or("?");
    if module_notifier::is_loaded(OTHER_MODULE) {
        pr_err!(
            "a PMU named {name} is already registered by {other}: unload it first \
             (rmmod {other})\n"
        );
    } else if module_notifier::is_loaded(INTEL_UNCORE) {
        pr_err!(
            "a PMU named {name} is already registered by Linux's intel_uncore module: unload it \
             first (rmmod intel_uncore) and keep it from loading at boot (blacklist intel_uncore \
             in /etc/modprobe.d/, as make install does)\n"
        );
    } else if platform::intel_uncore_config() == IntelUncoreConfig::BuiltIn {
        pr_err!(
            "a PMU named {name} is already registered by Linux's intel_uncore, built into this \
             kernel (CONFIG_PERF_EVENTS_INTEL_UNCORE=y; rmmod cannot unload it): boot with \
             initcall_blacklist=intel_uncore_init, or rebuild the kernel with \
             CONFIG_PERF_EVENTS_INTEL_UNCORE=m and blacklist intel_uncore\n"
        );
    } else {
        pr_err!("a PMU named {name} is already registered by another driver: unload it first\n");
    }
}
