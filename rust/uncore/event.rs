// SPDX-License-Identifier: GPL-2.0

//! Decoding `perf_event_attr` configs into what the hardware counts.

use super::regs::PerfEvtSel;
use super::units::{Unit, UnitKind, CONFIG_CLOCKTICKS, CONFIG_EN};

/// Where an accepted event counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A generic counter programmed with this `PERFEVTSEL` value (`EN` clear).
    Generic(PerfEvtSel),
    /// The shared 48-bit fixed UCLK counter.
    Fixed,
    /// IMC free-running counter `n` (index into [`super::regs::IMC_COUNTERS`]).
    FreeRunning(u8),
}

/// `Target` kept in `hw.config` of an event: bit 63 marks the fixed counter, bit 62 an IMC
/// counter (index in the low bits); otherwise the value is the `PERFEVTSEL` encoding, which has
/// no bit above 28.
const RAW_FIXED: u64 = 1 << 63;
const RAW_FREE_RUNNING: u64 = 1 << 62;

impl Target {
    /// Encodes the target in a `u64`.
    pub(crate) const fn to_raw(self) -> u64 {
        match self {
            Self::Generic(sel) => sel.into_raw(),
            Self::Fixed => RAW_FIXED,
            Self::FreeRunning(i) => RAW_FREE_RUNNING | i as u64,
        }
    }

    /// Decodes what [`Target::to_raw`] encoded.
    pub(crate) const fn from_raw(raw: u64) -> Self {
        if raw & RAW_FIXED != 0 {
            Self::Fixed
        } else if raw & RAW_FREE_RUNNING != 0 {
            Self::FreeRunning(raw as u8)
        } else {
            Self::Generic(PerfEvtSel::from_raw(raw))
        }
    }
}

/// Why a config was refused. Every variant is `-EINVAL` to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConfigError {
    /// `config` sets bits no `format/` field covers.
    UnknownBits(u64),
    /// `config1` is not zero: no unit has fields there.
    Config1(u64),
    /// `config2` is not zero.
    Config2(u64),
    /// `event=0xff` (clockticks) on a box without the fixed counter.
    NoFixedCounter,
    /// The clock PMU counts `event=0xff` only.
    NotClockticks(u64),
    /// IMC event codes are 1..5.
    NotAnImcEvent(u64),
}

impl super::Describe for ConfigError {
    /// Completes "<pmu>: ".
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::UnknownBits(bits) => {
                write!(f, "config bits {bits:#x} are outside every format field")
            }
            Self::Config1(v) => write!(f, "config1 {v:#x} must be 0"),
            Self::Config2(v) => write!(f, "config2 {v:#x} must be 0"),
            Self::NoFixedCounter => write!(
                f,
                "event=0xff (clockticks) counts on uncore_clock or uncore_cbox_0 only"
            ),
            Self::NotClockticks(v) => write!(f, "config {v:#x} is not clockticks (event=0xff)"),
            Self::NotAnImcEvent(v) => write!(f, "event {v:#x} is not an IMC event (1..5)"),
        }
    }
}

/// Decodes the attr fields of an event opened on box `box_idx` of `unit`.
pub(crate) fn decode(
    unit: &Unit,
    box_idx: u32,
    config: u64,
    config1: u64,
    config2: u64,
) -> Result<Target, ConfigError> {
    if config1 != 0 {
        return Err(ConfigError::Config1(config1));
    }
    if config2 != 0 {
        return Err(ConfigError::Config2(config2));
    }
    let config = config & !CONFIG_EN;
    let unknown = config & !unit.format_bits();
    if unknown != 0 {
        return Err(ConfigError::UnknownBits(unknown));
    }
    match unit.kind {
        UnitKind::Cbox | UnitKind::Arb if config == CONFIG_CLOCKTICKS => {
            if unit.has_fixed(box_idx) {
                Ok(Target::Fixed)
            } else {
                Err(ConfigError::NoFixedCounter)
            }
        }
        UnitKind::Cbox | UnitKind::Arb => Ok(Target::Generic(PerfEvtSel::from_raw(config))),
        UnitKind::Clock if config == CONFIG_CLOCKTICKS => Ok(Target::Fixed),
        UnitKind::Clock => Err(ConfigError::NotClockticks(config)),
        UnitKind::Imc => match config {
            1..=5 => Ok(Target::FreeRunning(config as u8 - 1)),
            _ => Err(ConfigError::NotAnImcEvent(config)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uncore::units::{ARB, CBOX, CLOCK, IMC};
    use proptest::prelude::*;

    #[test]
    fn named_events() {
        assert_eq!(
            decode(&CBOX, 0, 0x8f34, 0, 0),
            Ok(Target::Generic(PerfEvtSel::from_raw(0x8f34)))
        );
        assert_eq!(decode(&CBOX, 0, 0xff, 0, 0), Ok(Target::Fixed));
        assert_eq!(
            decode(&CBOX, 1, 0xff, 0, 0),
            Err(ConfigError::NoFixedCounter)
        );
        assert_eq!(
            decode(&ARB, 0, 0xff, 0, 0),
            Err(ConfigError::NoFixedCounter)
        );
        assert_eq!(decode(&CLOCK, 0, 0xff, 0, 0), Ok(Target::Fixed));
        assert_eq!(
            decode(&CLOCK, 0, 0x1ff, 0, 0),
            Err(ConfigError::UnknownBits(0x100))
        );
        assert_eq!(
            decode(&CLOCK, 0, 0x34, 0, 0),
            Err(ConfigError::NotClockticks(0x34))
        );
        assert_eq!(decode(&IMC, 0, 1, 0, 0), Ok(Target::FreeRunning(0)));
        assert_eq!(decode(&IMC, 0, 5, 0, 0), Ok(Target::FreeRunning(4)));
        assert_eq!(decode(&IMC, 0, 6, 0, 0), Err(ConfigError::NotAnImcEvent(6)));
        assert_eq!(decode(&IMC, 0, 0, 0, 0), Err(ConfigError::NotAnImcEvent(0)));
        // event=0xff with a umask is an ordinary generic event, as in Linux.
        assert_eq!(
            decode(&CBOX, 1, 0x1ff, 0, 0),
            Ok(Target::Generic(PerfEvtSel::from_raw(0x1ff)))
        );
    }

    #[test]
    fn pcm_en_bit_is_accepted_and_dropped() {
        assert_eq!(
            decode(&CBOX, 0, 0x40_0000, 0, 0),
            Ok(Target::Generic(PerfEvtSel::zeroed()))
        );
        assert_eq!(
            decode(&CBOX, 0, 0x40_8f34, 0, 0),
            Ok(Target::Generic(PerfEvtSel::from_raw(0x8f34)))
        );
        assert_eq!(decode(&IMC, 0, 0x40_0001, 0, 0), Ok(Target::FreeRunning(0)));
    }

    #[test]
    fn config1_and_config2_are_refused() {
        assert_eq!(decode(&CBOX, 0, 0x34, 1, 0), Err(ConfigError::Config1(1)));
        assert_eq!(decode(&CBOX, 0, 0x34, 0, 2), Err(ConfigError::Config2(2)));
    }

    #[test]
    fn target_round_trips() {
        for t in [
            Target::Fixed,
            Target::FreeRunning(4),
            Target::Generic(PerfEvtSel::from_raw(0x1f84_ffff)),
            Target::Generic(PerfEvtSel::zeroed()),
        ] {
            assert_eq!(Target::from_raw(t.to_raw()), t);
        }
    }

    proptest! {
        /// Every config the formats can express round-trips into PERFEVTSEL unchanged, with no
        /// reserved bit; every other bit is refused.
        #[test]
        fn config_to_perfevtsel(config in any::<u64>(), unit in prop::sample::select(vec![&CBOX, &ARB])) {
            let formats = unit.format_bits();
            match decode(unit, 1, config, 0, 0) {
                Ok(Target::Generic(sel)) => {
                    prop_assert_eq!(config & !CONFIG_EN & !formats, 0);
                    prop_assert_eq!(sel.into_raw(), config & !CONFIG_EN);
                    prop_assert_eq!(sel.reserved_bits(), 0);
                    prop_assert!(!sel.en());
                    prop_assert!(!sel.ovf_en());
                }
                Ok(other) => prop_assert!(false, "unexpected {:?}", other),
                Err(ConfigError::UnknownBits(bits)) => {
                    prop_assert_eq!(bits, config & !CONFIG_EN & !formats);
                    prop_assert!(bits != 0);
                }
                Err(ConfigError::NoFixedCounter) => prop_assert_eq!(config & !CONFIG_EN, 0xff),
                Err(e) => prop_assert!(false, "unexpected {:?}", e),
            }
        }
    }
}
