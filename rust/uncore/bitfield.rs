// SPDX-License-Identifier: GPL-2.0

//! Typed register fields.
//!
//! The kernel's `bitfield!`/`register!` cannot be used here: this directory also builds on the
//! host, without the kernel crate. This is the subset the driver needs, in the same spirit:
//! fields are named once, with the manual's names and bit ranges, each with a typed getter and
//! setter, and the register's address sits on its type.
//!
//! ```text
//! bitfield! {
//!     /// Doc.
//!     pub(crate) struct Name @ 0xE01 {        // `@ ADDR` is optional: `Name::ADDR`
//!         /// Doc.
//!         22:22 EN: bool => en, set_en;      // exact width: infallible setter
//!         28:24 THR: u8 => thr, set_thr?;    // narrower than u8: setter returns Result
//!     }
//! }
//! ```
//!
//! The getter returns the field's type: `bool` for one bit, else the smallest unsigned integer
//! that holds it; the build fails if the declared type is not that one. A setter never
//! truncates: if the type has exactly the field's width, no value can be too wide; otherwise
//! the declaration must say `?` (checked at build time too) and the setter returns
//! [`FieldTooWide`]. In a `const`, `match` on that result and `panic!` on `Err`: a too-wide
//! constant then fails the build. (A bounded integer type such as the kernel's `Bounded<u8, 5>`
//! would move the check to the caller; the driver has one such field to program, `THR`, and
//! takes it from user input, where a runtime check is needed anyway.)
//!
//! The raw [`Field`] constants (`Name::EN`) and the generic `get`/`with`/`is_set` remain for
//! code not yet moved to the typed accessors.

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

    /// Highest bit of the field.
    pub(crate) const fn hi(self) -> u32 {
        self.hi
    }

    /// Lowest bit of the field.
    pub(crate) const fn lo(self) -> u32 {
        self.lo
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

    /// Whether `ty_bits` (1 for `bool`, 8 for `u8`, ...) is the smallest of `bool`, `u8`,
    /// `u16`, `u32` and `u64` that holds the field.
    pub(crate) const fn is_smallest_type(self, ty_bits: u32) -> bool {
        let below = match ty_bits {
            1 => 0,
            8 => 1,
            n => n / 2,
        };
        self.width() <= ty_bits && self.width() > below
    }

    /// The field as a perf `format/` file has it: `config:LO-HI`, or `config:LO` for one bit,
    /// NUL-terminated and padded with NULs.
    pub(crate) const fn config_spec(self) -> [u8; CONFIG_SPEC_LEN] {
        let mut buf = [0u8; CONFIG_SPEC_LEN];
        let prefix = b"config:";
        let mut n = 0;
        while n < prefix.len() {
            buf[n] = prefix[n];
            n += 1;
        }
        n = put_decimal(&mut buf, n, self.lo());
        if self.width() > 1 {
            buf[n] = b'-';
            put_decimal(&mut buf, n + 1, self.hi());
        }
        buf
    }
}

/// Size of [`Field::config_spec`]'s buffer: `config:63-63` and at least one NUL.
pub(crate) const CONFIG_SPEC_LEN: usize = 16;

/// Writes `v` (< 100) in decimal at `buf[at..]`; returns the index after it.
const fn put_decimal(buf: &mut [u8; CONFIG_SPEC_LEN], at: usize, v: u32) -> usize {
    if v >= 10 {
        buf[at] = b'0' + (v / 10) as u8;
        buf[at + 1] = b'0' + (v % 10) as u8;
        at + 2
    } else {
        buf[at] = b'0' + v as u8;
        at + 1
    }
}

/// A setter was given a value the field cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FieldTooWide {
    /// The field's name in the manual.
    pub(crate) field: &'static str,
    /// The value refused.
    pub(crate) value: u64,
    /// The field's width in bits.
    pub(crate) width: u32,
}

impl super::Describe for FieldTooWide {
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} {:#x} does not fit the field's {} bits",
            self.field, self.value, self.width
        )
    }
}

/// The bits of a getter's type (for the build-time check that it is the smallest).
#[doc(hidden)]
macro_rules! __bitfield_bits {
    (bool) => {
        1
    };
    (u8) => {
        8
    };
    (u16) => {
        16
    };
    (u32) => {
        32
    };
    (u64) => {
        64
    };
}

/// Converts a field's raw value (already within its width) to the getter's type.
#[doc(hidden)]
macro_rules! __bitfield_from {
    (bool, $v:expr) => {
        $v != 0
    };
    ($t:ident, $v:expr) => {
        $v as $t
    };
}

/// The setter of one field: infallible at exact width, checked with `?`.
#[doc(hidden)]
macro_rules! __bitfield_setter {
    ($(#[$fmeta:meta])* $name:ident $F:ident $t:ident $set:ident) => {
        $(#[$fmeta])*
        #[doc = concat!("\n\nSets `", stringify!($F), "`.")]
        pub(crate) const fn $set(&mut self, value: $t) {
            self.0 = Self::$F.set(self.0, value as u64);
        }
    };
    ($(#[$fmeta:meta])* $name:ident $F:ident $t:ident $set:ident ?) => {
        $(#[$fmeta])*
        #[doc = concat!("\n\nSets `", stringify!($F), "`, or says the value is too wide.")]
        pub(crate) const fn $set(
            &mut self,
            value: $t,
        ) -> Result<(), $crate::uncore::bitfield::FieldTooWide> {
            if value as u64 > Self::$F.max() {
                return Err($crate::uncore::bitfield::FieldTooWide {
                    field: stringify!($F),
                    value: value as u64,
                    width: Self::$F.width(),
                });
            }
            self.0 = Self::$F.set(self.0, value as u64);
            Ok(())
        }
    };
}

/// Build-time checks of one field: its type is the smallest that holds it, and `?` is written
/// exactly when that type is wider than the field.
#[doc(hidden)]
macro_rules! __bitfield_check {
    ($name:ident $F:ident $t:ident) => {
        assert!(
            $name::$F.width() == __bitfield_bits!($t),
            concat!(
                stringify!($name),
                "::",
                stringify!($F),
                " is narrower than its type: its setter must be checked (`?`)"
            )
        );
    };
    ($name:ident $F:ident $t:ident ?) => {
        assert!(
            $name::$F.width() < __bitfield_bits!($t),
            concat!(
                stringify!($name),
                "::",
                stringify!($F),
                " fills its type: drop the `?`, its setter cannot fail"
            )
        );
    };
}

/// Declares a 64-bit register layout: a newtype with, per field, a [`Field`] constant, a
/// typed getter and a typed setter; `DEFINED`, the union of all fields (every other bit is
/// reserved); and `ADDR` if the register has a single address. See the module documentation.
macro_rules! bitfield {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(@ $addr:literal)? {
            $(
                $(#[$fmeta:meta])*
                $hi:literal : $lo:literal $F:ident : $t:ident => $get:ident, $set:ident
                $(? $($never:ident)?)?;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $name(u64);

        // Not every field the manual defines is used by the driver.
        #[allow(dead_code)]
        impl $name {
            $(
                #[doc = concat!("The register's address (MSR ", stringify!($addr), ").")]
                pub(crate) const ADDR: u32 = $addr;
            )?

            $(
                $(#[$fmeta])*
                pub(crate) const $F: $crate::uncore::bitfield::Field =
                    $crate::uncore::bitfield::Field::new($hi, $lo);

                $(#[$fmeta])*
                pub(crate) const fn $get(self) -> $t {
                    __bitfield_from!($t, Self::$F.get(self.0))
                }

                __bitfield_setter!($(#[$fmeta])* $name $F $t $set $(? $($never)?)?);
            )*

            /// All bits the manual defines; the others are reserved.
            pub(crate) const DEFINED: u64 = 0 $( | Self::$F.mask() )*;

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

            /// Reads `field` (untyped; prefer the field's getter).
            pub(crate) const fn get(self, field: $crate::uncore::bitfield::Field) -> u64 {
                field.get(self.0)
            }

            /// Tests a one-bit `field` (untyped; prefer the field's getter).
            pub(crate) const fn is_set(self, field: $crate::uncore::bitfield::Field) -> bool {
                field.get(self.0) != 0
            }

            /// Returns a copy with `field` set to `value`, truncated to its width (untyped;
            /// prefer the field's setter, which never truncates).
            #[must_use]
            pub(crate) const fn with(
                self,
                field: $crate::uncore::bitfield::Field,
                value: u64,
            ) -> Self {
                Self(field.set(self.0, value))
            }

            /// The bits of the value that are reserved by the manual.
            pub(crate) const fn reserved_bits(self) -> u64 {
                self.0 & !Self::DEFINED
            }
        }

        // Checked when the crate builds, whether or not a field is used.
        const _: () = {
            let mut bits = 0;
            $(
                assert!(
                    $name::$F.is_smallest_type(__bitfield_bits!($t)),
                    concat!(
                        stringify!($name),
                        "::",
                        stringify!($F),
                        ": the getter's type must be bool for one bit, else the smallest \
                         unsigned integer"
                    )
                );
                __bitfield_check!($name $F $t $(? $($never)?)?);
                bits += $name::$F.width();
            )*
            assert!(
                bits == $name::DEFINED.count_ones(),
                concat!(stringify!($name), ": fields overlap")
            );
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn smallest_types() {
        assert!(Field::new(0, 0).is_smallest_type(1));
        assert!(!Field::new(0, 0).is_smallest_type(8));
        assert!(Field::new(1, 0).is_smallest_type(8));
        assert!(Field::new(7, 0).is_smallest_type(8));
        assert!(!Field::new(8, 0).is_smallest_type(8));
        assert!(Field::new(8, 0).is_smallest_type(16));
        assert!(Field::new(38, 15).is_smallest_type(32));
        assert!(!Field::new(38, 15).is_smallest_type(64));
        assert!(Field::new(63, 0).is_smallest_type(64));
    }

    fn spec(f: Field) -> String {
        let buf = f.config_spec();
        core::ffi::CStr::from_bytes_until_nul(&buf)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn config_specs() {
        assert_eq!(spec(Field::new(7, 0)), "config:0-7");
        assert_eq!(spec(Field::new(18, 18)), "config:18");
        assert_eq!(spec(Field::new(0, 0)), "config:0");
        assert_eq!(spec(Field::new(63, 63)), "config:63");
        assert_eq!(spec(Field::new(63, 0)), "config:0-63");
        // The longest one still ends in NUL.
        assert_eq!(Field::new(63, 62).config_spec()[12..], [0; 4]);
    }

    bitfield! {
        /// A register with every kind of field, for the tests.
        struct Test @ 0x123 {
            /// One bit.
            0:0 A: bool => a, set_a;
            /// Exactly a byte.
            15:8 B: u8 => b, set_b;
            /// Five bits.
            28:24 C: u8 => c, set_c?;
            /// Nine bits.
            40:32 D: u16 => d, set_d?;
        }
    }

    #[test]
    fn typed_accessors() {
        assert_eq!(Test::ADDR, 0x123);
        let mut t = Test::zeroed();
        t.set_a(true);
        t.set_b(0xab);
        assert_eq!(t.set_c(0x1f), Ok(()));
        assert_eq!(t.set_d(0x1ff), Ok(()));
        assert_eq!(t.into_raw(), 0x1ff_1f00_ab01);
        assert!(t.a());
        assert_eq!((t.b(), t.c(), t.d()), (0xab, 0x1f, 0x1ff));
        t.set_a(false);
        assert!(!t.a());
        assert_eq!(Test::DEFINED, 0x1ff_1f00_ff01);
    }

    #[test]
    fn setters_never_truncate() {
        let mut t = Test::from_raw(0x0300_0000);
        let too_wide = FieldTooWide {
            field: "C",
            value: 0x20,
            width: 5,
        };
        assert_eq!(t.set_c(0x20), Err(too_wide));
        assert_eq!(
            t.set_c(0xff),
            Err(FieldTooWide {
                value: 0xff,
                ..too_wide
            })
        );
        // A refused value leaves the register unchanged.
        assert_eq!(t.into_raw(), 0x0300_0000);
        assert_eq!(
            t.set_d(0x200),
            Err(FieldTooWide {
                field: "D",
                value: 0x200,
                width: 9
            })
        );
        assert_eq!(t.into_raw(), 0x0300_0000);
    }

    /// A constant out of range does not build: `match` + `panic!` runs at compile time.
    const C_MAX: Test = {
        let mut t = Test::zeroed();
        match t.set_c(31) {
            Ok(()) => t,
            Err(_) => panic!("too wide"),
        }
    };

    #[test]
    fn const_setter() {
        assert_eq!(C_MAX.c(), 31);
    }
}
