//! Saving and loading running trees.
//!
//! A tree that says `#[bt(serde)]` (with the `serde` feature of `bt`) gets
//! `Serialize` and `Deserialize` for its state type, every state type nested
//! in it and its `<Tree>Shared` object. An agent saved mid-behaviour loads
//! mid-behaviour: the same node running, the same leaf memory, the same
//! timers, cooldowns and `run_once` marks, the same value a `when let` guard
//! bound. Nothing restarts.
//!
//! # What a saved state holds
//!
//! A tree state is saved as a struct named after the tree with three fields:
//! `layout` (the tree's [`LAYOUT_HASH`](crate::BehaviorTree::LAYOUT_HASH)),
//! `active` (what lives while nodes run) and `keep` (what outlives
//! activity). In JSON, an agent of `select { cooldown(5) { cond *me > 0 },
//! wait(2) }` that tried the condition at 3 s and has been waiting since
//! (node 3, the `wait`, started at 3 s; the cooldown, node 1, is closed
//! until 8 s):
//!
//! ```text
//! {"layout":9460826206607186937,"active":{"root":{"N3":3.0}},"keep":{"n1_ready":8.0}}
//! ```
//!
//! The types inside are generated and private (`N3` is the variant of node
//! 3): the form is exact, not a schema to edit by hand. A running leaf's
//! memory is written as a list of none or one, and a time that never came
//! (`-inf`, a cooldown that never ran) as the string `"-inf"`, since JSON
//! has no infinite numbers.
//!
//! Loading checks `layout` before reading anything else. A state saved by a
//! tree of another shape is never loaded into this one: deserializing the
//! tree type fails with the format's error carrying a [`LayoutMismatch`]
//! message, and deserializing `Checked<Tree>` (`bt::save::Checked`, with
//! the `serde` feature) gives the mismatch as a typed value.
//!
//! # What changes the layout hash
//!
//! The hash covers what the saved bytes mean: each node's kind, its place in
//! the tree (order and nesting), its label, its integer parameters (counts,
//! `n` of a gate or rendezvous, parallel thresholds, how many children),
//! what it keeps (its state's shape), the path of each leaf type and of
//! each embedded tree as written, the type written in a `when let` guard,
//! whether the tree records activation times (`#[bt(activation_times)]`),
//! and the hashes of embedded trees. A new version of this crate that lays
//! a node kind's state out differently changes the hashes of trees that use
//! it, and says so in its changelog.
//!
//! It does **not** cover expressions: the text of a `cond`, an `action`, a
//! guard, a duration, a leaf's field values. Editing those changes what the
//! tree decides next, not what a saved state means, so saves made before
//! the edit still load, and the agent carries on under the new rule. A leaf
//! type's own `Memory` type is the user's: the hash names the leaf, not its
//! memory's fields, so changing a `Memory` type is caught by the format
//! (a missing or unknown field in a self-describing format such as JSON),
//! or by versioning that type.
//!
//! # Shared state
//!
//! A tree with `gate`, `global_cooldown` or `rendezvous` nodes has a
//! `<Tree>Shared` object that every agent ticks with. It is saved as the
//! values of its counters (permits taken, the cooldown's deadline, the
//! rendezvous' group word). Save it together with every agent's state,
//! between ticks (no agent mid-tick), and load them together: then the
//! permits taken in the loaded object are exactly those held by the loaded
//! agents, and a rendezvous group has exactly the members it had. Loading
//! agents into a fresh shared object (or a shared object without its
//! agents) breaks that; call each agent's `reset` instead, which gives back
//! what it held.
//!
//! # Formats
//!
//! Any serde format works. Self-describing ones (JSON, RON, MessagePack)
//! are readable and report a changed leaf `Memory` type; compact ones
//! (postcard, bincode) take a few bytes per agent (the layout hash is 8 of
//! them, 10 as postcard's variable-length integer). Times are `f64`: a
//! format must give them back bit for bit for a loaded run to repeat
//! exactly, which `serde_json` does with its `float_roundtrip` feature
//! (without it, a time can load one unit in the last place off).
//!
//! # Replaying
//!
//! See [`replay`](crate::replay): a [`Tape`](crate::replay::Tape) of each
//! tick's inputs, ticked again from a loaded state, repeats the run.

use core::fmt;

/// A saved tree state was made for a tree of another shape: its
/// [`LAYOUT_HASH`](crate::BehaviorTree::LAYOUT_HASH) differs from the one of
/// the tree loading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayoutMismatch {
    /// The tree that was loading.
    pub tree: &'static str,
    /// This build's layout hash of that tree.
    pub expected: u64,
    /// The layout hash the saved state carries.
    pub found: u64,
}

impl fmt::Display for LayoutMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the saved state of tree `{}` has layout {:#018x}, but this build's tree has layout \
             {:#018x}: the tree's shape changed since the state was saved",
            self.tree, self.found, self.expected
        )
    }
}

impl core::error::Error for LayoutMismatch {}

#[cfg(feature = "serde")]
pub use with_serde::Checked;
#[cfg(feature = "serde")]
#[doc(hidden)]
pub use with_serde::{Time, deserialize_tree, memory, serialize_tree, slot, time};

#[cfg(feature = "serde")]
mod with_serde {
    use super::LayoutMismatch;
    use crate::meta::{BehaviorTree, Embed};
    use core::fmt;
    use core::marker::PhantomData;
    use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde::ser::{SerializeStruct, Serializer};
    use serde::{Deserialize, Serialize};

    /// A tree state, loaded only if it was saved by a tree of the same
    /// layout: deserialize this instead of the tree type to get a layout
    /// mismatch as a typed error rather than the format's error.
    ///
    /// `serde_json::from_str::<Checked<Guard>>(&json)?.into_result()?` is
    /// the agent, or `Err(LayoutMismatch { .. })` (the crate documentation
    /// of `bt` shows it under *Saving, loading and replaying*).
    ///
    /// In a self-describing format (JSON) the rest of a mismatched state is
    /// skipped, so a mismatch in a list of agents leaves the others
    /// readable. A compact format (postcard, bincode) cannot skip what it
    /// does not understand: the mismatch is reported, and what follows it in
    /// the same input is not meaningful.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Checked<T>(pub Result<T, LayoutMismatch>);

    /// How a running stateful leaf's memory (`Option<Memory>` in its
    /// parent's state) is saved: a sequence of none or one memory. Unlike
    /// an `Option`, this stays unambiguous in JSON when the memory itself
    /// is `()` or an `Option` (`Some(())` and `None` are both `null`).
    pub mod slot {
        use core::fmt;
        use core::marker::PhantomData;
        use serde::de::{self, Deserializer, SeqAccess, Visitor};
        use serde::{Deserialize, Serialize, Serializer};

        /// Saves a leaf's memory slot.
        pub fn serialize<M: Serialize, S: Serializer>(
            slot: &Option<M>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(slot)
        }

        /// Loads a leaf's memory slot.
        pub fn deserialize<'de, M: Deserialize<'de>, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<M>, D::Error> {
            struct SlotVisitor<M>(PhantomData<M>);
            impl<'de, M: Deserialize<'de>> Visitor<'de> for SlotVisitor<M> {
                type Value = Option<M>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a running leaf's memory in a sequence, or an empty sequence")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                    let memory = seq.next_element()?;
                    if memory.is_some() && seq.next_element::<de::IgnoredAny>()?.is_some() {
                        return Err(de::Error::invalid_length(2, &self));
                    }
                    Ok(memory)
                }
            }
            deserializer.deserialize_seq(SlotVisitor(PhantomData))
        }
    }

    /// A running leaf's memory held by its parent's variant: saved as it
    /// is. (A module rather than the derive's default, so that a memory
    /// type that cannot be saved is reported on the leaf.)
    pub mod memory {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        /// Saves a running leaf's memory.
        pub fn serialize<M: Serialize, S: Serializer>(
            memory: &M,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            memory.serialize(serializer)
        }

        /// Loads a running leaf's memory.
        pub fn deserialize<'de, M: Deserialize<'de>, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<M, D::Error> {
            M::deserialize(deserializer)
        }
    }

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

    impl<T> Checked<T> {
        /// The loaded state, or why it was not loaded.
        pub fn into_result(self) -> Result<T, LayoutMismatch> {
            self.0
        }
    }

    const FIELDS: &[&str] = &["layout", "active", "keep"];

    /// The `Serialize` impl of a tree's state type.
    pub fn serialize_tree<T, S>(tree: &T, serializer: S) -> Result<S::Ok, S::Error>
    where
        T: BehaviorTree + Embed,
        T::Active: Serialize,
        T::Keep: Serialize,
        S: Serializer,
    {
        let (active, keep) = T::split(tree);
        let mut out = serializer.serialize_struct(T::NAME, FIELDS.len())?;
        out.serialize_field("layout", &T::LAYOUT_HASH)?;
        out.serialize_field("active", active)?;
        out.serialize_field("keep", keep)?;
        out.end()
    }

    /// The `Deserialize` impl of a tree's state type: a layout mismatch is
    /// the format's error.
    pub fn deserialize_tree<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: BehaviorTree + Embed,
        T::Active: Deserialize<'de>,
        T::Keep: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        Checked::<T>::deserialize(deserializer)?
            .0
            .map_err(de::Error::custom)
    }

    impl<'de, T> Deserialize<'de> for Checked<T>
    where
        T: BehaviorTree + Embed,
        T::Active: Deserialize<'de>,
        T::Keep: Deserialize<'de>,
    {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer
                .deserialize_struct(T::NAME, FIELDS, TreeVisitor(PhantomData))
                .map(Checked)
        }
    }

    struct TreeVisitor<T>(PhantomData<T>);

    impl<T: BehaviorTree> TreeVisitor<T> {
        fn check(found: u64) -> Result<(), LayoutMismatch> {
            if found == T::LAYOUT_HASH {
                Ok(())
            } else {
                Err(LayoutMismatch {
                    tree: T::NAME,
                    expected: T::LAYOUT_HASH,
                    found,
                })
            }
        }
    }

    #[derive(Deserialize)]
    #[serde(field_identifier, rename_all = "lowercase")]
    enum Field {
        Layout,
        Active,
        Keep,
    }

    impl<'de, T> Visitor<'de> for TreeVisitor<T>
    where
        T: BehaviorTree + Embed,
        T::Active: Deserialize<'de>,
        T::Keep: Deserialize<'de>,
    {
        type Value = Result<T, LayoutMismatch>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the saved state of tree `{}`", T::NAME)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let found: u64 = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(0, &self))?;
            if let Err(mismatch) = Self::check(found) {
                // What follows was laid out for another tree: not read.
                return Ok(Err(mismatch));
            }
            let active = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(1, &self))?;
            let keep = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(2, &self))?;
            Ok(Ok(T::from_parts(active, keep)))
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            match map.next_key()? {
                Some(Field::Layout) => {}
                _ => {
                    return Err(de::Error::custom(format_args!(
                        "the saved state of tree `{}` must start with its `layout`",
                        T::NAME
                    )));
                }
            }
            if let Err(mismatch) = Self::check(map.next_value()?) {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                return Ok(Err(mismatch));
            }
            let (mut active, mut keep) = (None, None);
            while let Some(field) = map.next_key()? {
                match field {
                    Field::Layout => return Err(de::Error::duplicate_field("layout")),
                    Field::Active if active.is_some() => {
                        return Err(de::Error::duplicate_field("active"));
                    }
                    Field::Keep if keep.is_some() => {
                        return Err(de::Error::duplicate_field("keep"));
                    }
                    Field::Active => active = Some(map.next_value()?),
                    Field::Keep => keep = Some(map.next_value()?),
                }
            }
            let active = active.ok_or_else(|| de::Error::missing_field("active"))?;
            let keep = keep.ok_or_else(|| de::Error::missing_field("keep"))?;
            Ok(Ok(T::from_parts(active, keep)))
        }
    }
}
