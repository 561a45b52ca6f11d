// SPDX-License-Identifier: GPL-2.0

//! The command lines of the simulator's debugfs files, parsed before anything is applied, so
//! that a refused line changes nothing.

use crate::uncore::units::UnitKind;

/// A parsed `inject` command: `UNIT BOX EVENT UMASK COUNT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InjectCmd {
    /// cbox, arb, clock or imc.
    pub(crate) unit: UnitKind,
    /// Box number within the unit.
    pub(crate) box_idx: u32,
    /// Event select code (IMC: 1..5).
    pub(crate) event: u8,
    /// Umask bits that must all be set in the counter's `UMASK`.
    pub(crate) umask: u8,
    /// Events to add.
    pub(crate) count: u64,
}

/// Why a line was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// Not the number of fields the command takes.
    FieldCount,
    /// A `fault` line that is neither `reset` nor `wrmsr`.
    Command,
    /// Unit is not cbox, arb, clock or imc.
    Unit,
    /// A field is not a number (decimal or 0x hex) or does not fit.
    Number,
}

fn parse_num(s: &str) -> Result<u64, ParseError> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    r.map_err(|_| ParseError::Number)
}

fn parse_unit(s: &str) -> Result<UnitKind, ParseError> {
    match s {
        "cbox" => Ok(UnitKind::Cbox),
        "arb" => Ok(UnitKind::Arb),
        "clock" => Ok(UnitKind::Clock),
        "imc" => Ok(UnitKind::Imc),
        _ => Err(ParseError::Unit),
    }
}

/// Splits `UNIT N1 .. NK` into the unit and exactly `K` numbers (decimal or 0x hex).
pub(crate) fn parse_line<const K: usize>(line: &str) -> Result<(UnitKind, [u64; K]), ParseError> {
    let mut f = line.split_ascii_whitespace();
    let unit = parse_unit(f.next().ok_or(ParseError::FieldCount)?)?;
    let mut nums = [0u64; K];
    for n in nums.iter_mut() {
        *n = parse_num(f.next().ok_or(ParseError::FieldCount)?)?;
    }
    if f.next().is_some() {
        return Err(ParseError::FieldCount);
    }
    Ok((unit, nums))
}

fn narrow<T: TryFrom<u64>>(v: u64) -> Result<T, ParseError> {
    T::try_from(v).map_err(|_| ParseError::Number)
}

/// Parses one `inject` line.
pub(crate) fn parse_inject(line: &str) -> Result<InjectCmd, ParseError> {
    let (unit, [box_idx, event, umask, count]) = parse_line::<4>(line)?;
    Ok(InjectCmd {
        unit,
        box_idx: narrow(box_idx)?,
        event: narrow(event)?,
        umask: narrow(umask)?,
        count,
    })
}

/// A `preset` or `rate` line: `UNIT BOX COUNTER VALUE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CounterCmd {
    /// cbox, arb, clock or imc.
    pub(crate) unit: UnitKind,
    /// Box number within the unit.
    pub(crate) box_idx: u32,
    /// Generic counter index; 0 for the clock; the IMC event code (1..5).
    pub(crate) counter: u32,
    /// The value or rate.
    pub(crate) value: u64,
}

/// Parses a `preset` or `rate` line.
pub(crate) fn parse_counter_cmd(line: &str) -> Result<CounterCmd, ParseError> {
    let (unit, [box_idx, counter, value]) = parse_line::<3>(line)?;
    Ok(CounterCmd {
        unit,
        box_idx: narrow(box_idx)?,
        counter: narrow(counter)?,
        value,
    })
}

/// A `fault` line: what the world does to the uncore behind the driver's back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FaultCmd {
    /// `reset`: every MSR to its power-on value (the IMC counters only reset in S3).
    Reset,
    /// `wrmsr ADDR VALUE`: another tool writes an uncore MSR.
    Wrmsr {
        /// The MSR address.
        msr: u32,
        /// The value written.
        value: u64,
    },
    /// `late MS`: the package timers do nothing for MS milliseconds, as when interrupts stay
    /// off, a box lock is busy or the system sits in suspend-to-idle.
    Late {
        /// How long.
        ms: u64,
    },
    /// `absent ADDR`: the MSR faults from now on, as counters 2 and 3 on some parts (0: none).
    Absent {
        /// The MSR address.
        msr: u32,
    },
    /// `en-faults ADDR`: the MSR exists, but a write that sets its enable bit faults, as
    /// under a hypervisor that lets it exist but not count (0: none).
    EnFaults {
        /// The MSR address.
        msr: u32,
    },
    /// `read-faults ADDR`: reads of the MSR fault, its writes work (0: none).
    ReadFaults {
        /// The MSR address.
        msr: u32,
    },
    /// `idle MS`: as `late MS`, and then the system wakes from suspend-to-idle (the wake-up
    /// interrupt of a real machine).
    Idle {
        /// How long.
        ms: u64,
    },
}

/// Parses a `fault` line: `reset`, `wrmsr ADDR VALUE`, `absent ADDR`, `en-faults ADDR`,
/// `read-faults ADDR`, `late MS` or `idle MS` (numbers decimal or 0x hex).
pub(crate) fn parse_fault(line: &str) -> Result<FaultCmd, ParseError> {
    let mut f = line.split_ascii_whitespace();
    let cmd = match f.next().ok_or(ParseError::FieldCount)? {
        "reset" => FaultCmd::Reset,
        "late" => FaultCmd::Late {
            ms: parse_num(f.next().ok_or(ParseError::FieldCount)?)?,
        },
        "absent" => FaultCmd::Absent {
            msr: narrow(parse_num(f.next().ok_or(ParseError::FieldCount)?)?)?,
        },
        "en-faults" => FaultCmd::EnFaults {
            msr: narrow(parse_num(f.next().ok_or(ParseError::FieldCount)?)?)?,
        },
        "read-faults" => FaultCmd::ReadFaults {
            msr: narrow(parse_num(f.next().ok_or(ParseError::FieldCount)?)?)?,
        },
        "idle" => FaultCmd::Idle {
            ms: parse_num(f.next().ok_or(ParseError::FieldCount)?)?,
        },
        "wrmsr" => {
            let msr = parse_num(f.next().ok_or(ParseError::FieldCount)?)?;
            let value = parse_num(f.next().ok_or(ParseError::FieldCount)?)?;
            FaultCmd::Wrmsr {
                msr: narrow(msr)?,
                value,
            }
        }
        _ => return Err(ParseError::Command),
    };
    if f.next().is_some() {
        return Err(ParseError::FieldCount);
    }
    Ok(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inject_lines() {
        assert_eq!(
            parse_inject("cbox 0 0x34 0x8f 12345\n"),
            Ok(InjectCmd {
                unit: UnitKind::Cbox,
                box_idx: 0,
                event: 0x34,
                umask: 0x8f,
                count: 12345
            })
        );
        assert_eq!(parse_inject("imc 0 1 0 7").map(|c| c.event), Ok(1));
        assert_eq!(
            parse_inject("cbox 0 0x34 0x8f"),
            Err(ParseError::FieldCount)
        );
        assert_eq!(
            parse_inject("cbox 0 0x34 0x8f 1 2"),
            Err(ParseError::FieldCount)
        );
        assert_eq!(parse_inject("pcu 0 1 0 7"), Err(ParseError::Unit));
        assert_eq!(parse_inject("arb 0 0x100 0 7"), Err(ParseError::Number));
        assert_eq!(parse_inject("arb 0 x 0 7"), Err(ParseError::Number));
        assert_eq!(parse_inject(""), Err(ParseError::FieldCount));
        assert_eq!(
            parse_counter_cmd("imc 0 1 0x12345678"),
            Ok(CounterCmd {
                unit: UnitKind::Imc,
                box_idx: 0,
                counter: 1,
                value: 0x1234_5678
            })
        );
        assert_eq!(parse_counter_cmd("arb 0 0"), Err(ParseError::FieldCount));
    }

    #[test]
    fn fault_lines() {
        assert_eq!(parse_fault("reset\n"), Ok(FaultCmd::Reset));
        assert_eq!(parse_fault("late 2000\n"), Ok(FaultCmd::Late { ms: 2000 }));
        assert!(parse_fault("late").is_err());
        assert_eq!(parse_fault("idle 1500"), Ok(FaultCmd::Idle { ms: 1500 }));
        assert_eq!(
            parse_fault("absent 0x701"),
            Ok(FaultCmd::Absent { msr: 0x701 })
        );
        assert_eq!(
            parse_fault("en-faults 0x394"),
            Ok(FaultCmd::EnFaults { msr: 0x394 })
        );
        assert_eq!(
            parse_fault("read-faults 0x706"),
            Ok(FaultCmd::ReadFaults { msr: 0x706 })
        );
        assert!(parse_fault("read-faults").is_err());
        assert_eq!(parse_fault("  reset  "), Ok(FaultCmd::Reset));
        assert_eq!(
            parse_fault("wrmsr 0xe01 0\n"),
            Ok(FaultCmd::Wrmsr {
                msr: 0xe01,
                value: 0
            })
        );
        assert_eq!(
            parse_fault("wrmsr 3584 0XFFFFFFFFFFFFFFFF"),
            Ok(FaultCmd::Wrmsr {
                msr: 0xe00,
                value: u64::MAX
            })
        );
        assert_eq!(parse_fault(""), Err(ParseError::FieldCount));
        assert_eq!(parse_fault("reset 1"), Err(ParseError::FieldCount));
        assert_eq!(parse_fault("wrmsr 0xe01"), Err(ParseError::FieldCount));
        assert_eq!(parse_fault("wrmsr 0xe01 0 0"), Err(ParseError::FieldCount));
        assert_eq!(parse_fault("wrmsr 0x100000000 0"), Err(ParseError::Number));
        assert_eq!(
            parse_fault("wrmsr 0xe01 0x10000000000000000"),
            Err(ParseError::Number)
        );
        assert_eq!(parse_fault("wrmsr e01 0"), Err(ParseError::Number));
        assert_eq!(parse_fault("wrmsr -1 0"), Err(ParseError::Number));
        assert_eq!(parse_fault("Reset"), Err(ParseError::Command));
        assert_eq!(parse_fault("rdmsr 0xe01"), Err(ParseError::Command));
    }
}
