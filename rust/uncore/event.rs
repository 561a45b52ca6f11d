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
    /// Event 0 on the ARB with a config other than [`CONFIG_ARB_UCLK`]: no ARB event has code
    /// 0, so a generic counter would count nothing defined.
    ArbEventZero(u64),
}

/// Table 3-2's encoding of `UNC_CLOCK.SOCKET` (event 0x00, umask 0x01) on the ARB: the fixed
/// UCLK counter, the one `uncore_clock/clockticks/` reads. likwid's `UBOXFIX` sends it.
pub(crate) const CONFIG_ARB_UCLK: u64 = 0x0100;

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
            Self::ArbEventZero(v) => write!(
                f,
                "config {v:#x}: the ARB has no event 0; event=0x0,umask=0x1 alone is \
                 UNC_CLOCK.SOCKET (the fixed counter)"
            ),
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
        UnitKind::Arb if config == CONFIG_ARB_UCLK => Ok(Target::Fixed),
        UnitKind::Arb if config & PerfEvtSel::EVT_SEL.mask() == 0 => {
            Err(ConfigError::ArbEventZero(config))
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

    /// Table 3-2 lists UNC_CLOCK.SOCKET on the ARB as event 0x00 umask 0x01 on the fixed
    /// counter; every other ARB event 0 would program an undefined event.
    #[test]
    fn arb_event_zero() {
        assert_eq!(decode(&ARB, 0, 0x0100, 0, 0), Ok(Target::Fixed));
        assert_eq!(decode(&ARB, 0, 0x40_0100, 0, 0), Ok(Target::Fixed));
        for bad in [
            0,
            0x40_0000,
            0x0200,
            0xff00,
            0x0100_0100,
            0x84_0100,
            0x4_0100,
        ] {
            assert_eq!(
                decode(&ARB, 0, bad, 0, 0),
                Err(ConfigError::ArbEventZero(bad & !CONFIG_EN)),
                "{bad:#x}"
            );
        }
        // Other events are untouched, as is event 0 on a CBo (Intel PCM opens EN alone).
        assert_eq!(
            decode(&ARB, 0, 0x0181, 0, 0),
            Ok(Target::Generic(PerfEvtSel::from_raw(0x0181)))
        );
        assert_eq!(
            decode(&CBOX, 1, 0x0100, 0, 0),
            Ok(Target::Generic(PerfEvtSel::from_raw(0x0100)))
        );
        struct Text(ConfigError);
        impl core::fmt::Display for Text {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                crate::uncore::Describe::describe(&self.0, f)
            }
        }
        assert_eq!(
            Text(ConfigError::ArbEventZero(0x200)).to_string(),
            "config 0x200: the ARB has no event 0; event=0x0,umask=0x1 alone is \
             UNC_CLOCK.SOCKET (the fixed counter)"
        );
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
        /// reserved bit; every other bit is refused. On the ARB, event 0 is the fixed counter
        /// (umask 0x01 alone) or refused.
        #[test]
        fn config_to_perfevtsel(
            config in prop_oneof![
                any::<u64>(),
                // Within the formats (and EN), then with event 0 too: both cases hit often.
                any::<u64>().prop_map(|c| c & (0x1F84_FFFF | CONFIG_EN)),
                any::<u64>().prop_map(|c| c & (0x1F84_FF00 | CONFIG_EN)),
                Just(CONFIG_ARB_UCLK),
            ],
            unit in prop::sample::select(vec![&CBOX, &ARB]),
        ) {
            let formats = unit.format_bits();
            let arb_event_zero = unit.kind == UnitKind::Arb && config & 0xff == 0;
            match decode(unit, 1, config, 0, 0) {
                Ok(Target::Generic(sel)) => {
                    prop_assert!(!arb_event_zero);
                    prop_assert_eq!(config & !CONFIG_EN & !formats, 0);
                    prop_assert_eq!(sel.into_raw(), config & !CONFIG_EN);
                    prop_assert_eq!(sel.reserved_bits(), 0);
                    prop_assert!(!sel.en());
                    prop_assert!(!sel.ovf_en());
                }
                Ok(Target::Fixed) => {
                    prop_assert!(arb_event_zero);
                    prop_assert_eq!(config & !CONFIG_EN, CONFIG_ARB_UCLK);
                }
                Ok(other) => prop_assert!(false, "unexpected {:?}", other),
                Err(ConfigError::UnknownBits(bits)) => {
                    prop_assert_eq!(bits, config & !CONFIG_EN & !formats);
                    prop_assert!(bits != 0);
                }
                Err(ConfigError::NoFixedCounter) => prop_assert_eq!(config & !CONFIG_EN, 0xff),
                Err(ConfigError::ArbEventZero(v)) => {
                    prop_assert!(arb_event_zero);
                    prop_assert_eq!(v, config & !CONFIG_EN);
                    prop_assert!(v != CONFIG_ARB_UCLK);
                    prop_assert_eq!(v & !formats, 0);
                }
                Err(e) => prop_assert!(false, "unexpected {:?}", e),
            }
        }
    }
}
