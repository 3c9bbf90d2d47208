//! Stimuli: short-lived tokens on an agent, each with a timeout and optional
//! data, whose flags feed `stimuli(..)` preconditions.

use bitflags::Flags;

/// One stored stimulus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stimulus<S, T> {
    /// The stimulus' flag (usually one bit).
    pub flag: S,
    /// Time at which it expires.
    pub expires: f64,
    /// Data attached when it was added.
    pub data: T,
}

/// [`Stimuli::add`] found the store full; the stimulus that did not fit is
/// handed back, so nothing is lost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StimuliFull<S, T>(pub Stimulus<S, T>);

impl<S: core::fmt::Debug, T> core::fmt::Display for StimuliFull<S, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "stimuli store is full; could not add {:?}", self.0.flag)
    }
}

impl<S: core::fmt::Debug, T: core::fmt::Debug> core::error::Error for StimuliFull<S, T> {}

/// A fixed-capacity store of an agent's stimuli (Spore's behavior stimuli):
/// "took a hit", "invited to play", "ate recently"... Each stimulus has a
/// flag of type `S`, an expiry time and data of type `T`.
///
/// Time is whatever the caller passes to [`update`](Self::update): the store
/// never reads a clock. Each tick, call `update(now)` and hand the flags it
/// returns to the tick context ([`Ctx::stimuli`](crate::Ctx::stimuli)), so
/// `stimuli(any = ..)` preconditions see them.
///
/// - At most `N` stimuli are held; the store never allocates.
/// - Adding a flag that is already present replaces it (new timeout, new
///   data): a flag is held at most once.
/// - When the store is full, [`add`](Self::add) refuses and returns the new
///   stimulus in the error; [`add_evicting`](Self::add_evicting) instead
///   replaces the stimulus that expires soonest and returns that one.
///
/// ```
/// use bt_runtime::{Stimuli, bitflags::bitflags};
///
/// bitflags! {
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub struct Senses: u8 { const TOOK_HIT = 1; const INVITED = 2; }
/// }
///
/// let mut stimuli: Stimuli<Senses, u32, 4> = Stimuli::new();
/// stimuli.update(10.0);
/// stimuli.add(Senses::INVITED, 2.0, 42).unwrap();   // from agent 42, for 2 s
/// assert!(stimuli.update(11.0).contains(Senses::INVITED));
/// assert_eq!(stimuli.data(Senses::INVITED), Some(&42));
/// assert!(stimuli.update(12.0).is_empty());          // expired at 12.0
/// ```
#[derive(Clone, Debug)]
pub struct Stimuli<S, T = (), const N: usize = 8> {
    slots: [Option<Stimulus<S, T>>; N],
    now: f64,
    flags: S,
}

impl<S: Flags + Copy, T, const N: usize> Default for Stimuli<S, T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Flags + Copy, T, const N: usize> Stimuli<S, T, N> {
    /// An empty store at time 0.
    pub fn new() -> Self {
        Stimuli {
            slots: [const { None }; N],
            now: 0.0,
            flags: S::empty(),
        }
    }

    /// How many stimuli the store can hold.
    pub const CAPACITY: usize = N;

    /// Advances the store's time to `now`, drops every stimulus whose expiry
    /// is at or before `now`, and returns the flags of those left.
    pub fn update(&mut self, now: f64) -> S {
        self.now = now;
        for slot in &mut self.slots {
            if slot.as_ref().is_some_and(|s| s.expires <= now) {
                *slot = None;
            }
        }
        self.recompute();
        self.flags
    }

    /// The time of the last [`update`](Self::update).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Adds a stimulus that expires `timeout` seconds after the store's
    /// current time. A stimulus with the same flag is replaced. When the
    /// store is full the new stimulus is returned in the error.
    pub fn add(&mut self, flag: S, timeout: f64, data: T) -> Result<(), StimuliFull<S, T>> {
        let stimulus = Stimulus {
            flag,
            expires: self.now + timeout,
            data,
        };
        match self.slot_for(flag) {
            Some(i) => {
                self.slots[i] = Some(stimulus);
                self.recompute();
                Ok(())
            }
            None => Err(StimuliFull(stimulus)),
        }
    }

    /// Like [`add`](Self::add), but when the store is full the stimulus
    /// that expires soonest is replaced and returned.
    pub fn add_evicting(&mut self, flag: S, timeout: f64, data: T) -> Option<Stimulus<S, T>> {
        match self.add(flag, timeout, data) {
            Ok(()) => None,
            Err(StimuliFull(stimulus)) => {
                let soonest = (0..N).min_by(|&a, &b| {
                    let expiry = |i: usize| self.slots[i].as_ref().map_or(f64::MIN, |s| s.expires);
                    expiry(a).total_cmp(&expiry(b))
                })?;
                let old = self.slots[soonest].replace(stimulus);
                self.recompute();
                old
            }
        }
    }

    /// Removes the stimulus with exactly this flag, returning it.
    pub fn remove(&mut self, flag: S) -> Option<Stimulus<S, T>> {
        let i = self.position(flag)?;
        let old = self.slots[i].take();
        self.recompute();
        old
    }

    /// Removes every stimulus.
    pub fn clear(&mut self) {
        self.slots = [const { None }; N];
        self.flags = S::empty();
    }

    /// Flags of the stimuli held.
    pub fn flags(&self) -> S {
        self.flags
    }

    /// At least one of `flags` is held.
    pub fn any(&self, flags: S) -> bool {
        self.flags.intersects(flags)
    }

    /// Every one of `flags` is held.
    pub fn all(&self, flags: S) -> bool {
        self.flags.contains(flags)
    }

    /// The stimulus with exactly this flag.
    pub fn get(&self, flag: S) -> Option<&Stimulus<S, T>> {
        self.position(flag).and_then(|i| self.slots[i].as_ref())
    }

    /// The data of the stimulus with exactly this flag.
    pub fn data(&self, flag: S) -> Option<&T> {
        self.get(flag).map(|s| &s.data)
    }

    /// Number of stimuli held.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// `true` when no stimulus is held.
    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(Option::is_none)
    }

    /// The stimuli held, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = &Stimulus<S, T>> {
        self.slots.iter().flatten()
    }

    fn position(&self, flag: S) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.flag.bits() == flag.bits()))
    }

    /// The slot holding `flag`, else the first free one.
    fn slot_for(&self, flag: S) -> Option<usize> {
        self.position(flag)
            .or_else(|| self.slots.iter().position(Option::is_none))
    }

    fn recompute(&mut self) {
        self.flags = self.iter().fold(S::empty(), |acc, s| acc.union(s.flag));
    }
}

/// Saved as its time and its `N` slots in order, each empty or (flag
/// bits, expiry, data): a loaded store holds the same stimuli in the same
/// slots, so eviction and iteration order carry on as before. Its flags are
/// recomputed. Loading a store saved with another capacity is an error.
#[cfg(feature = "serde")]
mod with_serde {
    use super::{Stimuli, Stimulus};
    use crate::times::Time;
    use bitflags::Flags;
    use core::marker::PhantomData;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::{SerializeSeq, Serializer};
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    #[serde(rename = "Stimuli")]
    struct Saved<Slots> {
        now: Time,
        slots: Slots,
    }

    struct SlotsRef<'a, S, T>(&'a [Option<Stimulus<S, T>>]);

    impl<S: Flags<Bits: Serialize>, T: Serialize> Serialize for SlotsRef<'_, S, T> {
        fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
            for slot in self.0 {
                seq.serialize_element(
                    &slot
                        .as_ref()
                        .map(|s| (s.flag.bits(), Time(s.expires), &s.data)),
                )?;
            }
            seq.end()
        }
    }

    impl<S: Flags<Bits: Serialize> + Copy, T: Serialize, const N: usize> Serialize
        for Stimuli<S, T, N>
    {
        fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            Saved {
                now: Time(self.now),
                slots: SlotsRef(&self.slots),
            }
            .serialize(serializer)
        }
    }

    struct Slots<S, T, const N: usize>([Option<Stimulus<S, T>>; N]);

    impl<'de, S, T, const N: usize> Deserialize<'de> for Slots<S, T, N>
    where
        S: Flags<Bits: Deserialize<'de>>,
        T: Deserialize<'de>,
    {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct SlotsVisitor<S, T, const N: usize>(PhantomData<(S, T)>);
            impl<'de, S, T, const N: usize> Visitor<'de> for SlotsVisitor<S, T, N>
            where
                S: Flags<Bits: Deserialize<'de>>,
                T: Deserialize<'de>,
            {
                type Value = Slots<S, T, N>;
                fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    write!(f, "the {N} slots of a stimuli store")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                    let mut slots = [const { None }; N];
                    for (i, slot) in slots.iter_mut().enumerate() {
                        let saved: Option<(S::Bits, Time, T)> = seq
                            .next_element()?
                            .ok_or_else(|| de::Error::invalid_length(i, &self))?;
                        *slot = saved.map(|(bits, Time(expires), data)| Stimulus {
                            flag: S::from_bits_retain(bits),
                            expires,
                            data,
                        });
                    }
                    if seq.next_element::<de::IgnoredAny>()?.is_some() {
                        return Err(de::Error::invalid_length(N + 1, &self));
                    }
                    Ok(Slots(slots))
                }
            }
            deserializer.deserialize_seq(SlotsVisitor(PhantomData))
        }
    }

    impl<'de, S, T, const N: usize> Deserialize<'de> for Stimuli<S, T, N>
    where
        S: Flags<Bits: Deserialize<'de>> + Copy,
        T: Deserialize<'de>,
    {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let saved: Saved<Slots<S, T, N>> = Saved::deserialize(deserializer)?;
            let mut store = Stimuli {
                slots: saved.slots.0,
                now: saved.now.0,
                flags: S::empty(),
            };
            store.recompute();
            Ok(store)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    bitflags::bitflags! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        struct Senses: u8 { const HIT = 1; const PLAY = 2; const FOOD = 4; }
    }

    #[test]
    fn stimuli_expire_when_time_reaches_their_timeout() {
        let mut s: Stimuli<Senses, u8, 4> = Stimuli::new();
        s.update(1.0);
        s.add(Senses::HIT, 0.5, 1).unwrap();
        s.add(Senses::PLAY, 2.0, 2).unwrap();
        assert_eq!(s.update(1.4), Senses::HIT | Senses::PLAY);
        assert_eq!(s.update(1.5), Senses::PLAY);
        assert_eq!(s.data(Senses::HIT), None);
        assert_eq!(s.update(3.0), Senses::empty());
        assert!(s.is_empty());
    }

    #[test]
    fn adding_a_held_flag_replaces_it() {
        let mut s: Stimuli<Senses, u8, 2> = Stimuli::new();
        s.add(Senses::HIT, 1.0, 1).unwrap();
        s.add(Senses::HIT, 5.0, 9).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(
            s.get(Senses::HIT).map(|x| (x.expires, x.data)),
            Some((5.0, 9))
        );
        assert_eq!(s.update(2.0), Senses::HIT);
    }

    #[test]
    fn full_store_refuses_and_hands_the_stimulus_back() {
        let mut s: Stimuli<Senses, u8, 2> = Stimuli::new();
        s.add(Senses::HIT, 1.0, 1).unwrap();
        s.add(Senses::PLAY, 3.0, 2).unwrap();
        let err = s.add(Senses::FOOD, 2.0, 3).unwrap_err();
        assert_eq!((err.0.flag, err.0.data), (Senses::FOOD, 3));
        assert_eq!(s.flags(), Senses::HIT | Senses::PLAY);
        // Replacing a held flag still works when full.
        s.add(Senses::HIT, 4.0, 7).unwrap();
        assert_eq!(s.data(Senses::HIT), Some(&7));
    }

    #[test]
    fn evicting_add_replaces_the_soonest_to_expire() {
        let mut s: Stimuli<Senses, u8, 2> = Stimuli::new();
        s.add(Senses::HIT, 3.0, 1).unwrap();
        s.add(Senses::PLAY, 1.0, 2).unwrap();
        let evicted = s.add_evicting(Senses::FOOD, 2.0, 3).unwrap();
        assert_eq!((evicted.flag, evicted.data), (Senses::PLAY, 2));
        assert_eq!(s.flags(), Senses::HIT | Senses::FOOD);
        assert!(s.any(Senses::FOOD | Senses::PLAY) && !s.all(Senses::FOOD | Senses::PLAY));
        assert_eq!(s.remove(Senses::HIT).map(|x| x.data), Some(1));
        assert_eq!(s.flags(), Senses::FOOD);
    }
}
