// SPDX-License-Identifier: GPL-2.0

//! Typed register fields.
//!
//! The kernel crate's `bitfield!` cannot be used here: this directory also builds on the host,
//! without the kernel crate. This is the small subset the driver needs, in the same spirit:
//! fields are named once, with the manual's names and bit ranges, and code says
//! `PerfEvtSel::zeroed().with(PerfEvtSel::EVT_SEL, 0x34)` instead of shifting by hand.

/// The bit range `hi:lo` (inclusive) of a 64-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    hi: u32,
    lo: u32,
}

impl Field {
    /// The field `hi:lo`; `hi >= lo` and `hi < 64` are checked at compile time where used in
    /// constants.
    pub(crate) const fn new(hi: u32, lo: u32) -> Self {
        assert!(hi >= lo && hi < 64);
        Self { hi, lo }
    }

    /// Number of bits in the field.
    pub(crate) const fn width(self) -> u32 {
        self.hi - self.lo + 1
    }

    /// The largest value the field holds.
    pub(crate) const fn max(self) -> u64 {
        u64::MAX >> (64 - self.width())
    }

    /// The field's bits within the register.
    pub(crate) const fn mask(self) -> u64 {
        self.max() << self.lo
    }

    /// Extracts the field from `raw`.
    pub(crate) const fn get(self, raw: u64) -> u64 {
        (raw & self.mask()) >> self.lo
    }

    /// Returns `raw` with the field set to `value`, truncated to the field's width.
    pub(crate) const fn set(self, raw: u64, value: u64) -> u64 {
        (raw & !self.mask()) | ((value & self.max()) << self.lo)
    }
}

/// Declares a 64-bit register layout: a newtype with one [`Field`] constant per field and
/// `DEFINED`, the union of all fields (every other bit is reserved).
macro_rules! bitfield {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident: $hi:literal : $lo:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $name(u64);

        // Not every field the manual defines is used by the driver.
        #[allow(dead_code)]
        impl $name {
            $(
                $(#[$fmeta])*
                pub(crate) const $field: $crate::uncore::bitfield::Field =
                    $crate::uncore::bitfield::Field::new($hi, $lo);
            )*

            /// All bits the manual defines; the others are reserved.
            pub(crate) const DEFINED: u64 = 0 $( | Self::$field.mask() )*;

            /// The register with every bit clear.
            pub(crate) const fn zeroed() -> Self {
                Self(0)
            }

            /// Wraps a raw register value.
            pub(crate) const fn from_raw(raw: u64) -> Self {
                Self(raw)
            }

            /// The raw register value.
            pub(crate) const fn into_raw(self) -> u64 {
                self.0
            }

            /// Reads `field`.
            pub(crate) const fn get(self, field: $crate::uncore::bitfield::Field) -> u64 {
                field.get(self.0)
            }

            /// Tests a one-bit `field`.
            pub(crate) const fn is_set(self, field: $crate::uncore::bitfield::Field) -> bool {
                field.get(self.0) != 0
            }

            /// Returns a copy with `field` set to `value`.
            #[must_use]
            pub(crate) const fn with(self, field: $crate::uncore::bitfield::Field, value: u64) -> Self {
                Self(field.set(self.0, value))
            }

            /// The bits of the value that are reserved by the manual.
            pub(crate) const fn reserved_bits(self) -> u64 {
                self.0 & !Self::DEFINED
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Field;

    #[test]
    fn field_math() {
        let f = Field::new(28, 24);
        assert_eq!(f.width(), 5);
        assert_eq!(f.mask(), 0x1f00_0000);
        assert_eq!(f.get(0x1234_5678), 0x12);
        assert_eq!(f.set(0, 0xff), 0x1f00_0000);
        assert_eq!(Field::new(63, 0).mask(), u64::MAX);
        assert_eq!(Field::new(0, 0).mask(), 1);
    }
}
