//! `google.protobuf.Timestamp` with the proto3 JSON form envd clients expect: RFC 3339
//! in UTC with a `Z` suffix and 0, 3, 6 or 9 fractional digits. Parsing accepts any
//! offset. Written here (rather than taken from a well-known-types crate) because those
//! print `+00:00`, and because the calendar maths is twenty lines.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Message)]
pub struct Timestamp {
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

impl Timestamp {
    pub fn from_system_time(time: std::time::SystemTime) -> Self {
        match time.duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => {
                Self { seconds: after.as_secs() as i64, nanos: after.subsec_nanos() as i32 }
            }
            Err(before) => {
                let d = before.duration();
                let (mut seconds, mut nanos) = (-(d.as_secs() as i64), -(d.subsec_nanos() as i32));
                if nanos < 0 {
                    seconds -= 1;
                    nanos += 1_000_000_000;
                }
                Self { seconds, nanos }
            }
        }
    }

    /// RFC 3339 in UTC.
    pub fn to_rfc3339(&self) -> String {
        let days = self.seconds.div_euclid(86_400);
        let secs_of_day = self.seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let (h, m, s) = (secs_of_day / 3600, secs_of_day / 60 % 60, secs_of_day % 60);
        let mut out = format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}");
        let nanos = self.nanos.clamp(0, 999_999_999);
        if nanos != 0 {
            if nanos % 1_000_000 == 0 {
                out.push_str(&format!(".{:03}", nanos / 1_000_000));
            } else if nanos % 1_000 == 0 {
                out.push_str(&format!(".{:06}", nanos / 1_000));
            } else {
                out.push_str(&format!(".{nanos:09}"));
            }
        }
        out.push('Z');
        out
    }

    pub fn parse_rfc3339(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() < 20
            || bytes[4] != b'-'
            || bytes[7] != b'-'
            || !matches!(bytes[10], b'T' | b't' | b' ')
        {
            return None;
        }
        let number = |range: std::ops::Range<usize>| -> Option<i64> {
            let part = text.get(range)?;
            part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok())?
        };
        let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
        let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
        if bytes[13] != b':'
            || bytes[16] != b':'
            || !(1..=12).contains(&month)
            || !(1..=31).contains(&day)
        {
            return None;
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        let mut rest = &text[19..];
        let mut nanos = 0i64;
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 9 {
                return None;
            }
            nanos = fraction[..digits].parse::<i64>().ok()? * 10i64.pow(9 - digits as u32);
            rest = &fraction[digits..];
        }
        let offset = match rest {
            "Z" | "z" => 0,
            _ => {
                let sign = match rest.as_bytes().first()? {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return None,
                };
                if rest.len() != 6 || rest.as_bytes()[3] != b':' {
                    return None;
                }
                let hours: i64 = rest[1..3].parse().ok()?;
                let minutes: i64 = rest[4..6].parse().ok()?;
                sign * (hours * 3600 + minutes * 60)
            }
        };
        let seconds =
            days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
                - offset;
        Some(Self { seconds, nanos: nanos as i32 })
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimestampVisitor;
        impl Visitor<'_> for TimestampVisitor {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Timestamp, E> {
                Timestamp::parse_rfc3339(value)
                    .ok_or_else(|| E::custom(format!("invalid timestamp {value:?}")))
            }
        }
        deserializer.deserialize_str(TimestampVisitor)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn formats_utc_with_z_and_minimal_fraction_groups() {
        let cases = [
            (0, 0, "1970-01-01T00:00:00Z"),
            (1_767_225_600, 500_000_000, "2026-01-01T00:00:00.500Z"),
            (951_782_400, 1_000, "2000-02-29T00:00:00.000001Z"),
            (1_700_000_000, 123_456_789, "2023-11-14T22:13:20.123456789Z"),
            (-1, 0, "1969-12-31T23:59:59Z"),
        ];
        for (seconds, nanos, text) in cases {
            let ts = Timestamp { seconds, nanos };
            assert_eq!(ts.to_rfc3339(), text);
            assert_eq!(Timestamp::parse_rfc3339(text), Some(ts), "{text}");
        }
    }

    #[test]
    fn parses_offsets_and_rejects_garbage() {
        let utc = Timestamp::parse_rfc3339("2026-01-02T03:04:05Z").unwrap();
        assert_eq!(Timestamp::parse_rfc3339("2026-01-02T05:04:05+02:00"), Some(utc));
        assert_eq!(Timestamp::parse_rfc3339("2026-01-02T01:04:05-02:00"), Some(utc));
        for bad in [
            "",
            "2026-01-02",
            "2026-13-02T03:04:05Z",
            "2026-01-02T03:04:05",
            "2026-01-02T03:04:05.Z",
            "x026-01-02T03:04:05Z",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(bad), None, "{bad:?}");
        }
    }
}
