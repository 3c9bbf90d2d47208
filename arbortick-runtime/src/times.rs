//! How times are saved (feature `serde`): the `f64` as it is in compact
//! formats, and the infinite ones as strings in human-readable ones. Below
//! the shared objects and stimuli stores, which save times too.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A time or deadline, in seconds. Compact formats store the `f64`;
/// human-readable ones write infinite values, which a deadline that
/// never came is (`-inf`: a cooldown that never ran), as the strings
/// `"inf"`, `"-inf"` and `"NaN"`, since JSON numbers cannot be
/// infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Time(pub f64);

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        time::serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        time::deserialize(deserializer).map(Time)
    }
}

/// How times in a tree's state are saved: see [`Time`].
pub mod time {
    use core::fmt;
    use serde::de::{self, Deserializer, Visitor};
    use serde::{Deserialize, Serializer};

    /// Saves a time.
    pub fn serialize<S: Serializer>(t: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() && !t.is_finite() {
            serializer.serialize_str(if t.is_nan() {
                "NaN"
            } else if *t > 0.0 {
                "inf"
            } else {
                "-inf"
            })
        } else {
            serializer.serialize_f64(*t)
        }
    }

    /// Loads a time.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        if !deserializer.is_human_readable() {
            return f64::deserialize(deserializer);
        }
        struct TimeVisitor;
        impl Visitor<'_> for TimeVisitor {
            type Value = f64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a time in seconds, \"inf\", \"-inf\" or \"NaN\"")
            }
            fn visit_f64<E>(self, v: f64) -> Result<f64, E> {
                Ok(v)
            }
            fn visit_u64<E>(self, v: u64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_i64<E>(self, v: i64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
                match v {
                    "inf" => Ok(f64::INFINITY),
                    "-inf" => Ok(f64::NEG_INFINITY),
                    "NaN" => Ok(f64::NAN),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        deserializer.deserialize_any(TimeVisitor)
    }
}
