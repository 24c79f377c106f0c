//! `google.protobuf.Timestamp` with the proto3 JSON form envd clients expect: RFC 3339
//! in UTC with a `Z` suffix and 0, 3, 6 or 9 fractional digits; parsing accepts any
//! offset. The calendar is `prost_types::Timestamp`'s; this type exists for the serde
//! impls pbjson's generated code needs (a foreign type cannot get them here).
//!
//! As the JSON mapping requires (and Go's protojson, E2B's envd, does), only a valid
//! timestamp has a JSON form: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z with
//! nanos in `0..1e9`. Anything else (the binary form can carry it) is refused both ways
//! instead of being written as text no RFC 3339 parser reads back.

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

/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range of a valid timestamp.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;

impl Timestamp {
    /// Within the range the JSON mapping allows, nanos normalized.
    pub fn is_valid(&self) -> bool {
        (MIN_SECONDS..=MAX_SECONDS).contains(&self.seconds)
            && (0..1_000_000_000).contains(&self.nanos)
    }

    /// The nearest valid timestamp: a time outside years 1 to 9999 (a file's mtime can be
    /// anything a program set) becomes the first or last valid instant, nanos clamped.
    pub fn clamped(seconds: i64, nanos: i32) -> Self {
        if seconds < MIN_SECONDS {
            return Self { seconds: MIN_SECONDS, nanos: 0 };
        }
        if seconds > MAX_SECONDS {
            return Self { seconds: MAX_SECONDS, nanos: 999_999_999 };
        }
        Self { seconds, nanos: nanos.clamp(0, 999_999_999) }
    }

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
        prost_types::Timestamp { seconds: self.seconds, nanos: self.nanos }.to_string()
    }

    /// A full RFC 3339 date-time: prost's parser also takes a bare date or a time without
    /// an offset, which proto3 JSON does not; the shortest full form is 20 bytes.
    pub fn parse_rfc3339(text: &str) -> Option<Self> {
        if text.len() < "YYYY-MM-DDTHH:MM:SSZ".len() {
            return None;
        }
        let parsed: prost_types::Timestamp = text.parse().ok()?;
        Some(Self { seconds: parsed.seconds, nanos: parsed.nanos }).filter(Self::is_valid)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.is_valid() {
            return Err(serde::ser::Error::custom(format!(
                "timestamp out of range: {} s {} ns",
                self.seconds, self.nanos
            )));
        }
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

    /// Found by fuzzing (`fuzz/regressions/connect_codec/`): a binary timestamp with nanos
    /// out of range was written to JSON normalized, so it read back as another value; a
    /// year past 9999 was written as `+10000-...`, which is not RFC 3339.
    #[test]
    fn only_valid_timestamps_have_a_json_form() {
        let bounds = [
            (Timestamp { seconds: MIN_SECONDS, nanos: 0 }, "0001-01-01T00:00:00Z"),
            (
                Timestamp { seconds: MAX_SECONDS, nanos: 999_999_999 },
                "9999-12-31T23:59:59.999999999Z",
            ),
        ];
        for (ts, text) in bounds {
            assert_eq!(serde_json::to_string(&ts).unwrap(), format!("{text:?}"));
            assert_eq!(Timestamp::parse_rfc3339(text), Some(ts));
        }
        for invalid in [
            Timestamp { seconds: 1_767_225_600, nanos: -1_915_919_104 },
            Timestamp { seconds: 0, nanos: 1_000_000_000 },
            Timestamp { seconds: MAX_SECONDS + 1, nanos: 0 },
            Timestamp { seconds: MIN_SECONDS - 1, nanos: 999_999_999 },
            Timestamp { seconds: i64::MIN, nanos: i32::MIN },
        ] {
            assert!(serde_json::to_string(&invalid).is_err(), "{invalid:?}");
        }
        // Offsets that leave the range are refused when read.
        assert_eq!(Timestamp::parse_rfc3339("0001-01-01T00:00:00+01:00"), None);
        assert_eq!(Timestamp::parse_rfc3339("9999-12-31T23:59:59-01:00"), None);
    }

    #[test]
    fn clamped_gives_the_nearest_valid_timestamp() {
        assert_eq!(
            Timestamp::clamped(MAX_SECONDS + 10, 5),
            Timestamp { seconds: MAX_SECONDS, nanos: 999_999_999 }
        );
        assert_eq!(Timestamp::clamped(i64::MIN, -3), Timestamp { seconds: MIN_SECONDS, nanos: 0 });
        assert_eq!(Timestamp::clamped(12, 34), Timestamp { seconds: 12, nanos: 34 });
        assert!(Timestamp::clamped(7, i32::MAX).is_valid());
    }
}
