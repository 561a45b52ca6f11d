// SPDX-License-Identifier: GPL-2.0

//! Finding the IMC counters: the host bridge (PCI 0:0.0) and its `MCHBAR`.
//!
//! The driver only reads the bridge's configuration space; it never binds a PCI driver to it,
//! since `ie31200_edac` may own the device.

use super::regs::Mchbar;

/// PCI vendor ID of Intel.
pub(crate) const PCI_VENDOR_INTEL: u16 = 0x8086;

/// Host bridge device IDs of the Skylake-client family, as Linux's `skl_uncore_pci_ids` lists
/// them (42 distinct IDs; AML_YD = KBL_Y and WHL_UQ = CFL_4U).
pub(crate) const HOST_BRIDGE_IDS: [(u16, &str); 42] = [
    (0x190c, "SKL_Y"),
    (0x1904, "SKL_U"),
    (0x1900, "SKL_HD"),
    (0x1910, "SKL_HQ"),
    (0x190f, "SKL_SD"),
    (0x191f, "SKL_SQ"),
    (0x1918, "SKL_E3"),
    (0x590c, "KBL_Y/AML_YD"),
    (0x5904, "KBL_U"),
    (0x5914, "KBL_UQ"),
    (0x590f, "KBL_SD"),
    (0x591f, "KBL_SQ"),
    (0x5910, "KBL_HQ"),
    (0x5918, "KBL_WQ"),
    (0x3ecc, "CFL_2U"),
    (0x3ed0, "CFL_4U/WHL_UQ"),
    (0x3e10, "CFL_4H"),
    (0x3ec4, "CFL_6H"),
    (0x3e0f, "CFL_2S_D"),
    (0x3e1f, "CFL_4S_D"),
    (0x3ec2, "CFL_6S_D"),
    (0x3e30, "CFL_8S_D"),
    (0x3e18, "CFL_4S_W"),
    (0x3ec6, "CFL_6S_W"),
    (0x3e31, "CFL_8S_W"),
    (0x3e33, "CFL_4S_S"),
    (0x3eca, "CFL_6S_S"),
    (0x3e32, "CFL_8S_S"),
    (0x590d, "AML_YQ"),
    (0x3e34, "WHL_4_UQ"),
    (0x3e35, "WHL_UD"),
    (0x9b44, "CML_H1"),
    (0x9b54, "CML_H2"),
    (0x9b64, "CML_H3"),
    (0x9b51, "CML_U1"),
    (0x9b61, "CML_U2"),
    (0x9b71, "CML_U3"),
    (0x9b33, "CML_S1"),
    (0x9b43, "CML_S2"),
    (0x9b53, "CML_S3"),
    (0x9b63, "CML_S4"),
    (0x9b73, "CML_S5"),
];

/// Why there is no IMC PMU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ImcError {
    /// 0:0.0 is not an Intel device.
    NotIntel(u16),
    /// 0:0.0 is not a known Skylake-family host bridge.
    UnknownBridge(u16),
    /// `MCHBAREN` is clear or the base is zero: the BIOS did not enable the window.
    Disabled(u64),
}

impl super::Describe for ImcError {
    /// Completes "no uncore_imc: ".
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::NotIntel(vendor) => {
                write!(
                    f,
                    "the host bridge (PCI 0:0.0) has vendor {vendor:#06x}, not Intel"
                )
            }
            Self::UnknownBridge(device) => write!(
                f,
                "host bridge 8086:{device:04x} is not a Skylake-family memory controller"
            ),
            Self::Disabled(raw) => write!(
                f,
                "MCHBAR reads {raw:#x}: the firmware left the window disabled \
                 (MCHBAREN clear or base 0)"
            ),
        }
    }
}

/// What the host bridge's configuration space says about the IMC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ImcLocation {
    /// Physical address of MCHBAR (bits 38:15 of the register).
    pub(crate) base: u64,
    /// The bridge's name in the ID table.
    pub(crate) bridge: &'static str,
}

/// Decides from 0:0.0's vendor, device and `MCHBAR` dwords (config 0x48 and 0x4C) where the
/// IMC counters are.
pub(crate) fn locate(
    vendor: u16,
    device: u16,
    mchbar_lo: u32,
    mchbar_hi: u32,
) -> Result<ImcLocation, ImcError> {
    if vendor != PCI_VENDOR_INTEL {
        return Err(ImcError::NotIntel(vendor));
    }
    let Some(&(_, bridge)) = HOST_BRIDGE_IDS.iter().find(|(id, _)| *id == device) else {
        return Err(ImcError::UnknownBridge(device));
    };
    let raw = u64::from(mchbar_hi) << 32 | u64::from(mchbar_lo);
    match Mchbar::from_raw(raw).address() {
        Some(base) => Ok(ImcLocation { base, bridge }),
        None => Err(ImcError::Disabled(raw)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct() {
        for (i, (a, _)) in HOST_BRIDGE_IDS.iter().enumerate() {
            assert!(
                HOST_BRIDGE_IDS[i + 1..].iter().all(|(b, _)| a != b),
                "{a:#x}"
            );
        }
    }

    /// `Describe` through `core::fmt`, as the host sees it.
    struct Text<'a>(&'a dyn crate::uncore::Describe);

    impl core::fmt::Display for Text<'_> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            self.0.describe(f)
        }
    }

    #[test]
    fn refusals_explain_themselves() {
        assert_eq!(
            Text(&ImcError::UnknownBridge(0x1237)).to_string(),
            "host bridge 8086:1237 is not a Skylake-family memory controller"
        );
        assert_eq!(
            Text(&ImcError::NotIntel(0x1022)).to_string(),
            "the host bridge (PCI 0:0.0) has vendor 0x1022, not Intel"
        );
        assert_eq!(
            Text(&ImcError::Disabled(0xfed1_0000)).to_string(),
            "MCHBAR reads 0xfed10000: the firmware left the window disabled \
             (MCHBAREN clear or base 0)"
        );
    }

    #[test]
    fn locate_cases() {
        assert_eq!(
            locate(0x8086, 0x191f, 0xfed1_0001, 0),
            Ok(ImcLocation {
                base: 0xfed1_0000,
                bridge: "SKL_SQ"
            })
        );
        // Only bits 38:15 are address: bit 39 and bits 14:1 are dropped.
        assert_eq!(
            locate(0x8086, 0x3e30, 0xfed1_7ff1, 0x80).map(|l| l.base),
            Ok(0xfed1_0000)
        );
        assert_eq!(
            locate(0x8086, 0x191f, 0xfed1_0000, 0),
            Err(ImcError::Disabled(0xfed1_0000))
        );
        assert_eq!(
            locate(0x8086, 0x1237, 0xfed1_0001, 0),
            Err(ImcError::UnknownBridge(0x1237))
        );
        assert_eq!(
            locate(0x1022, 0x191f, 0xfed1_0001, 0),
            Err(ImcError::NotIntel(0x1022))
        );
    }
}
