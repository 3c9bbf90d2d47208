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
//! Loading checks `layout` before trusting anything else. A state saved by
//! a tree of another shape is never loaded into this one: deserializing the
//! tree type fails with the format's error carrying a [`LayoutMismatch`]
//! message, and deserializing `Checked<Tree>` (`bt::save::Checked`, with
//! the `serde` feature) gives it as a typed [`LoadError::Layout`]. The
//! keys of a saved state may come in any order (a JSON document sorted by
//! `jq -S`, Python's `sort_keys`, PostgreSQL's `jsonb` or `serde_json`'s
//! own `Value`): parts met before the layout are kept unread, then loaded
//! once the layout is known to match (with the `std` feature; without it,
//! `layout` must come first).
//!
//! # What loading checks
//!
//! A saved file can be edited, damaged or made by hand, so loading checks
//! every value the tree's state holds against what the tree allows, before
//! anything ticks, and refuses the first that is out of bounds with an
//! [`InvalidState`] naming the node and the value ([`LoadError::Invalid`]
//! through `Checked`, the format's error otherwise):
//!
//! - counts, positions and marks within their nodes' bounds: a
//!   `repeat(3)` count below 3, a `sequential` or `sequence_with_memory`
//!   position below the number of children, a `run_once` mark 0, 1 or 2, a
//!   `rendezvous` role below `n`, a `request`'s answer a status;
//! - masks within the children: a `shuffle`'s chosen children, a
//!   `parallel`'s succeeded, failed and running children (never two of
//!   those at once, running only where it holds a leaf's memory, and fewer
//!   finished than its thresholds), the armed `monitor`s;
//! - every time a number: `NaN` is refused, infinite deadlines are not
//!   (`-inf` is a cooldown that never ran);
//! - the value a running decider child's `when let` guard bound still
//!   matches the guard's pattern;
//! - embedded trees, through their own checks.
//!
//! A leaf's `Memory` is the user's type: loading checks that it
//! deserializes, not what its values mean. A leaf should accept any value
//! of its memory (saturating counters, clamped indices), or check it in
//! the memory type's own `Deserialize` (serde's `try_from`).
//!
//! So a loaded state can at worst be refused: no value that loads makes a
//! tick panic or wrap a counter, in debug or release builds.
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
//! `<Tree>Shared` object that every agent ticks with. It is saved as its
//! tree's layout hash and the values of its counters (permits taken, the
//! cooldown's deadline, the rendezvous' group word), and loading it checks
//! the hash and that each counter is within its node's bounds. Save it
//! together with every agent's state, between ticks (no agent mid-tick),
//! and load them together; then call the shared object's `check` with the
//! loaded agents before any of them ticks:
//!
//! ```text
//! let squad: SavedSquad = serde_json::from_str(&json)?;   // each agent checked
//! squad.shared.check(squad.soldiers.iter())?;             // and what they share
//! ```
//!
//! ## Checking agents against their shared object
//!
//! `check` refuses (with an [`InvalidState`] whose problem is
//! [`Problem::Shared`]) a gate whose permits taken are not exactly those
//! its agents hold, a rendezvous whose group does not have exactly the
//! members its agents say it has, or two members with one role. Loading
//! agents into a fresh shared object (or a shared object without its
//! agents) is such a mismatch; call each agent's `reset` instead, which
//! gives back what it held. The shared object of an embedded tree is
//! checked the same way, with the states of the trees that embed it: its
//! `check` counts what their embedded instances hold (every instance of
//! that tree in them, so a tree that embeds it twice with two shared
//! objects cannot be checked this way).
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

#[doc(hidden)]
pub use crate::loading::check;
pub use crate::loading::{InvalidState, LayoutMismatch, LoadError, Problem};

#[cfg(feature = "serde")]
pub use with_serde::Checked;
#[cfg(feature = "serde")]
#[doc(hidden)]
pub use with_serde::{
    Counters, Load, Parts, SharedCounters, assemble_tree, deserialize_saved, memory,
    serialize_shared, serialize_tree, slot,
};

#[cfg(feature = "serde")]
#[doc(hidden)]
pub use crate::times::{Time, time};

#[cfg(all(feature = "serde", feature = "std"))]
mod content;

#[cfg(feature = "serde")]
mod with_serde {
    use super::{LayoutMismatch, LoadError};
    use crate::tree::{BehaviorTree, Embed};
    use core::fmt;
    use core::marker::PhantomData;
    use serde::de::{
        self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
    };
    use serde::ser::{SerializeStruct, Serializer};
    use serde::{Deserialize, Serialize};

    /// A tree state (or a tree's shared object), loaded only if it was saved
    /// by a tree of the same layout and holds only values that tree can
    /// produce: deserialize this instead of the tree type to get a refusal
    /// as a typed [`LoadError`] rather than the format's error.
    ///
    /// `serde_json::from_str::<Checked<Guard>>(&json)?.into_result()?` is
    /// the agent, or `Err(LoadError::Layout(..))` or
    /// `Err(LoadError::Invalid(..))` (the crate documentation of `bt` shows
    /// it under *Saving, loading and replaying*).
    ///
    /// In a self-describing format (JSON) the rest of a refused state is
    /// skipped, so a refusal in a list of agents leaves the others
    /// readable. A compact format (postcard, bincode) cannot skip what it
    /// does not understand: a layout mismatch is reported, and what follows
    /// it in the same input is not meaningful.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Checked<T>(pub Result<T, LoadError>);

    impl<T> Checked<T> {
        /// The loaded state, or why it was not loaded.
        pub fn into_result(self) -> Result<T, LoadError> {
            self.0
        }
    }

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

    /// The `Serialize` impl of a tree's state type.
    pub fn serialize_tree<T, S>(tree: &T, serializer: S) -> Result<S::Ok, S::Error>
    where
        T: BehaviorTree + Embed,
        T::Active: Serialize,
        T::Keep: Serialize,
        S: Serializer,
    {
        let (active, keep) = T::split(tree);
        let mut out = serializer.serialize_struct(T::NAME, 3)?;
        out.serialize_field("layout", &T::LAYOUT_HASH)?;
        out.serialize_field("active", active)?;
        out.serialize_field("keep", keep)?;
        out.end()
    }

    /// A tree state made of its loaded parts, once every value in them is
    /// checked.
    pub fn assemble_tree<T: Embed>(
        active: T::Active,
        keep: T::Keep,
    ) -> Result<T, super::InvalidState> {
        T::check_active(&active, &mut |_, _| {})?;
        T::check_keep(&keep)?;
        Ok(T::from_parts(active, keep))
    }

    /// A tree's shared object, whose counters are saved after the tree's
    /// layout hash. Implemented by generated code, with the inherent
    /// functions serde derives with `#[serde(remote = "Self")]`.
    pub trait SharedCounters: Sized {
        /// The shared object's type name.
        const NAME: &'static str;
        /// The layout hash of its tree.
        const HASH: u64;
        /// Saves the counters.
        fn save<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
        /// Loads the counters, unchecked.
        fn load<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
    }

    /// A shared object's counters, loaded and not yet checked.
    pub struct Counters<T>(pub T);

    impl<'de, T: SharedCounters> Deserialize<'de> for Counters<T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            T::load(deserializer).map(Counters)
        }
    }

    struct SaveCounters<'a, T>(&'a T);

    impl<T: SharedCounters> Serialize for SaveCounters<'_, T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.0.save(serializer)
        }
    }

    /// The `Serialize` impl of a tree's shared object: its tree's layout
    /// hash, then its counters.
    pub fn serialize_shared<T: SharedCounters, S: Serializer>(
        shared: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct(T::NAME, 2)?;
        out.serialize_field("layout", &T::HASH)?;
        out.serialize_field("counters", &SaveCounters(shared))?;
        out.end()
    }

    /// What is saved with a layout hash first (a tree's state, a shared
    /// object): its name, hash, the fields after `layout`, and how a value
    /// is made from them once loaded. Implemented by generated code.
    pub trait Load<'de>: Sized {
        /// The tree's name.
        const NAME: &'static str;
        /// The layout hash the saved value must carry.
        const HASH: u64;
        /// The fields in the order they are saved: `"layout"`, then the
        /// value's own.
        const FIELDS: &'static [&'static str];
        /// Their types, as a tuple.
        type Parts: Parts<'de>;
        /// The value, once every part is loaded and checked.
        fn assemble(parts: Self::Parts) -> Result<Self, super::InvalidState>;
    }

    /// A tuple of the parts of a [`Load`] value, loaded one field at a time
    /// in any order.
    pub trait Parts<'de>: Sized {
        /// The parts loaded so far.
        type Partial: Default;
        /// Loads field `index` as the map's next value; `false` if it was
        /// loaded already.
        fn next_value<A: MapAccess<'de>>(
            partial: &mut Self::Partial,
            index: usize,
            map: &mut A,
        ) -> Result<bool, A::Error>;
        /// Loads field `index` from a deserializer; `false` if it was
        /// loaded already.
        fn load<D: Deserializer<'de>>(
            partial: &mut Self::Partial,
            index: usize,
            deserializer: D,
        ) -> Result<bool, D::Error>;
        /// Loads every field from a sequence, in order; `Err(i)` when it
        /// ends before field `i`.
        fn sequence<A: SeqAccess<'de>>(seq: &mut A) -> Result<Result<Self, usize>, A::Error>;
        /// The parts, or the index of the first missing one.
        fn finish(partial: Self::Partial) -> Result<Self, usize>;
    }

    macro_rules! parts {
        ($($t:ident $i:tt),*) => {
            impl<'de, $($t: Deserialize<'de>),*> Parts<'de> for ($($t,)*) {
                type Partial = ($(Option<$t>,)*);
                fn next_value<A: MapAccess<'de>>(
                    partial: &mut Self::Partial,
                    index: usize,
                    map: &mut A,
                ) -> Result<bool, A::Error> {
                    match index {
                        $($i => {
                            if partial.$i.is_some() {
                                return Ok(false);
                            }
                            partial.$i = Some(map.next_value()?);
                        })*
                        _ => unreachable!("a field index comes from the field names"),
                    }
                    Ok(true)
                }
                fn load<D: Deserializer<'de>>(
                    partial: &mut Self::Partial,
                    index: usize,
                    deserializer: D,
                ) -> Result<bool, D::Error> {
                    match index {
                        $($i => {
                            if partial.$i.is_some() {
                                return Ok(false);
                            }
                            partial.$i = Some($t::deserialize(deserializer)?);
                        })*
                        _ => unreachable!("a field index comes from the field names"),
                    }
                    Ok(true)
                }
                fn sequence<A: SeqAccess<'de>>(seq: &mut A) -> Result<Result<Self, usize>, A::Error> {
                    Ok(Ok(($(match seq.next_element::<$t>()? {
                        Some(value) => value,
                        None => return Ok(Err($i as usize)),
                    },)*)))
                }
                fn finish(partial: Self::Partial) -> Result<Self, usize> {
                    Ok(($(partial.$i.ok_or($i as usize)?,)*))
                }
            }
        };
    }

    parts!(P0 0);
    parts!(P0 0, P1 1);

    /// The `Deserialize` impl of a tree's state type or shared object: a
    /// refusal is the format's error.
    pub fn deserialize_saved<'de, T: Load<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        Checked::<T>::deserialize(deserializer)?
            .0
            .map_err(de::Error::custom)
    }

    impl<'de, T: Load<'de>> Deserialize<'de> for Checked<T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let human = deserializer.is_human_readable();
            deserializer
                .deserialize_struct(T::NAME, T::FIELDS, SavedVisitor(human, PhantomData))
                .map(Checked)
        }
    }

    /// A field name of a saved value.
    enum Key {
        Layout,
        Field(usize),
    }

    struct KeySeed<'a>(&'a [&'static str]);

    impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
        type Value = Key;
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
            deserializer.deserialize_identifier(self)
        }
    }

    impl<'de> Visitor<'de> for KeySeed<'_> {
        type Value = Key;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("`layout` or a field of a saved state")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
            match v {
                0 => Ok(Key::Layout),
                i if (i as usize) <= self.0.len() => Ok(Key::Field(i as usize - 1)),
                _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
            }
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
            if v == "layout" {
                return Ok(Key::Layout);
            }
            match self.0.iter().position(|f| *f == v) {
                Some(i) => Ok(Key::Field(i)),
                None => Err(E::unknown_field(
                    v,
                    &["layout", "active", "keep", "counters"],
                )),
            }
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Key, E> {
            match core::str::from_utf8(v) {
                Ok(v) => self.visit_str(v),
                Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
            }
        }
    }

    /// Loads a saved value; `.0` is the format's `is_human_readable`.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    struct SavedVisitor<T>(bool, PhantomData<T>);

    fn check_layout<'de, T: Load<'de>>(found: u64) -> Result<(), LayoutMismatch> {
        if found == T::HASH {
            Ok(())
        } else {
            Err(LayoutMismatch {
                tree: T::NAME,
                expected: T::HASH,
                found,
            })
        }
    }

    fn assemble<'de, T: Load<'de>>(parts: T::Parts) -> Result<T, LoadError> {
        T::assemble(parts).map_err(LoadError::Invalid)
    }

    impl<'de, T: Load<'de>> Visitor<'de> for SavedVisitor<T> {
        type Value = Result<T, LoadError>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the saved state of tree `{}`", T::NAME)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let found: u64 = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(0, &self))?;
            if let Err(mismatch) = check_layout::<T>(found) {
                // What follows was laid out for another tree: not read.
                return Ok(Err(mismatch.into()));
            }
            match T::Parts::sequence(&mut seq)? {
                Ok(parts) => Ok(assemble(parts)),
                Err(i) => Err(de::Error::invalid_length(i + 1, &self)),
            }
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let names = T::FIELDS;
            let mut partial = <T::Parts as Parts<'de>>::Partial::default();
            let mut layout = false;
            // Fields met before `layout`, kept unread until the layout is
            // known to match: their meaning depends on it.
            #[cfg(feature = "std")]
            let mut early: std::vec::Vec<(usize, super::content::Content)> = std::vec::Vec::new();
            while let Some(key) = map.next_key_seed(KeySeed(&names[1..]))? {
                match key {
                    Key::Layout if layout => return Err(de::Error::duplicate_field("layout")),
                    Key::Layout => {
                        if let Err(mismatch) = check_layout::<T>(map.next_value()?) {
                            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                            return Ok(Err(mismatch.into()));
                        }
                        layout = true;
                        #[cfg(feature = "std")]
                        for (i, content) in early.drain(..) {
                            let from =
                                super::content::Deserializer::<A::Error>::new(content, self.0);
                            if !T::Parts::load(&mut partial, i, from)? {
                                return Err(de::Error::duplicate_field(names[i + 1]));
                            }
                        }
                    }
                    Key::Field(i) if layout => {
                        if !T::Parts::next_value(&mut partial, i, &mut map)? {
                            return Err(de::Error::duplicate_field(names[i + 1]));
                        }
                    }
                    Key::Field(i) => {
                        #[cfg(feature = "std")]
                        {
                            if early.iter().any(|(j, _)| *j == i) {
                                return Err(de::Error::duplicate_field(names[i + 1]));
                            }
                            early.push((i, map.next_value()?));
                        }
                        #[cfg(not(feature = "std"))]
                        {
                            let _ = i;
                            return Err(de::Error::custom(format_args!(
                                "the saved state of tree `{}` must start with its `layout` \
                                 (without the `std` feature, fields before it are not kept)",
                                T::NAME
                            )));
                        }
                    }
                }
            }
            if !layout {
                return Err(de::Error::missing_field("layout"));
            }
            match T::Parts::finish(partial) {
                Ok(parts) => Ok(assemble(parts)),
                Err(i) => Err(de::Error::missing_field(names[i + 1])),
            }
        }
    }
}
