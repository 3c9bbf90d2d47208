//! Tree state shared by every agent of a tree: gates, global cooldowns and
//! rendezvous. Each is a handful of atomics, safe when agents tick on many
//! threads, and never allocates.
//!
//! A tree with such nodes gets a generated `<Tree>Shared` struct holding one
//! of these per node; the tree's header takes it as a binding
//! (`shared: &SquadShared`), and every agent of the tree is ticked with the
//! same object.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// What an agent's state holds of its tree's shared object, as the checks
/// of a loaded state report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Held {
    /// A `gate`'s permit.
    Permit,
    /// A `rendezvous` membership.
    Member(Member),
}

/// A member's progress through a `rendezvous` node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[doc(hidden)]
pub enum Phase {
    /// Not in the rendezvous.
    #[default]
    Idle,
    /// Joined; waiting for the group to be complete.
    Waiting,
    /// The group is complete; running the body.
    Meeting,
}

/// What one agent remembers about its rendezvous: kept in its tree state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[doc(hidden)]
pub struct Member {
    /// Where it stands.
    pub phase: Phase,
    /// The group it joined.
    pub generation: u32,
    /// Its role, `0..n`.
    pub role: u8,
    /// `sync` points passed.
    pub syncs: u16,
}

/// Where an agent stands in a rendezvous, from `Rendezvous::poll`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Meeting {
    /// The group is not complete yet.
    Waiting,
    /// All members are there: run the body.
    Complete,
    /// The group dissolved before it was complete (a member left): fail.
    Dissolved,
}

/// Where an agent stands at a `sync` point, from `Rendezvous::sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Sync {
    /// Not every member has arrived yet.
    Waiting,
    /// Every member arrived: go on.
    Passed,
    /// A member left the group before arriving: fail.
    Broken,
}

/// `gate(n)`: at most `n` agents inside a branch at once (a counting
/// semaphore). Its capacity is part of its type: the field of `gate(3)` in
/// a tree's shared state is a `Gate<3>`.
///
/// ```
/// use bt_runtime::shared::Gate;
///
/// let repair: Gate<3> = Gate::new();
/// assert_eq!((repair.capacity(), repair.inside(), repair.is_full()), (3, 0, false));
/// ```
#[derive(Debug, Default)]
pub struct Gate<const CAPACITY: u32 = { u32::MAX }> {
    inside: AtomicU32,
}

impl<const CAPACITY: u32> Gate<CAPACITY> {
    /// An empty gate.
    pub const fn new() -> Self {
        Gate {
            inside: AtomicU32::new(0),
        }
    }

    /// How many agents may be inside at once.
    pub const fn capacity(&self) -> u32 {
        CAPACITY
    }

    /// Every permit is taken: an agent that enters now fails.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.inside() >= CAPACITY
    }

    /// Takes a permit if fewer than `capacity` are taken.
    #[inline]
    pub(crate) fn try_enter(&self, capacity: u32) -> bool {
        self.inside
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < capacity).then_some(n + 1)
            })
            .is_ok()
    }

    /// Gives a permit back. Never below 0: agents loaded into a shared
    /// object that does not hold their permits (its `check` refuses that)
    /// give back what it never counted, and the gate stays usable.
    #[inline]
    pub(crate) fn leave(&self) {
        let _ = self
            .inside
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }

    /// Permits taken now.
    pub fn inside(&self) -> u32 {
        self.inside.load(Ordering::Acquire)
    }
}

/// `global_cooldown(s)`: once any agent finishes the branch, no agent may
/// enter it until `s` seconds later.
#[derive(Debug)]
pub struct GlobalCooldown {
    /// `f64` bits of the time from which the branch may be entered.
    ready_at: AtomicU64,
}

impl Default for GlobalCooldown {
    fn default() -> Self {
        Self::new()
    }
}

impl GlobalCooldown {
    /// A cooldown that is ready.
    pub const fn new() -> GlobalCooldown {
        GlobalCooldown {
            ready_at: AtomicU64::new(f64::NEG_INFINITY.to_bits()),
        }
    }

    /// `true` if the branch may be entered at `now`.
    #[inline]
    pub fn is_ready(&self, now: f64) -> bool {
        now >= self.ready_at()
    }

    /// The time from which the branch may be entered.
    pub fn ready_at(&self) -> f64 {
        f64::from_bits(self.ready_at.load(Ordering::Acquire))
    }

    /// Someone finished the branch at `now`: closed until `now + seconds`
    /// (or later, if another agent already closed it for longer).
    #[inline]
    pub(crate) fn start(&self, now: f64, seconds: f64) {
        let until = now + seconds;
        let _ = self
            .ready_at
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |bits| {
                (until > f64::from_bits(bits)).then_some(until.to_bits())
            });
    }
}

/// `rendezvous(n) as role { .. }`: exactly `n` agents meet, each with a
/// distinct role `0..n` (in the order they joined), and run the body
/// together; `sync` points inside the body wait for every member.
///
/// The state is one atomic word: the group's generation, members joined,
/// members left, `sync` arrivals. Rules:
/// - An agent joins the forming group if it has fewer than `n` members;
///   otherwise (a group is running) its `rendezvous` node fails.
/// - A member that leaves (is halted or reset) **before** the group is
///   complete dissolves it: the other members' `rendezvous` nodes fail, and
///   the next arrivals form a new group.
/// - A member that leaves **after** the group is complete (it finished its
///   body, was halted or reset) no longer arrives at `sync` points: a `sync`
///   that not every member reached fails for the others, who are not held
///   forever. The body itself goes on.
/// - When every member has left, the next group forms.
#[derive(Debug, Default)]
pub struct Rendezvous {
    word: AtomicU64,
}

// Layout of the word: generation (bits 0-23), joined (24-31), left (32-39),
// sync arrivals (40-63).
const GEN_MASK: u64 = 0xff_ffff;

fn unpack(word: u64) -> (u32, u32, u32, u32) {
    (
        (word & GEN_MASK) as u32,
        ((word >> 24) & 0xff) as u32,
        ((word >> 32) & 0xff) as u32,
        (word >> 40) as u32,
    )
}

fn pack(generation: u32, joined: u32, left: u32, arrived: u32) -> u64 {
    (u64::from(generation) & GEN_MASK)
        | (u64::from(joined) << 24)
        | (u64::from(left) << 32)
        | (u64::from(arrived) << 40)
}

/// The largest `n` of a rendezvous.
pub const MAX_RENDEZVOUS: u32 = 255;

impl Rendezvous {
    /// No group forming.
    pub const fn new() -> Rendezvous {
        Rendezvous {
            word: AtomicU64::new(0),
        }
    }

    fn update(&self, f: impl FnMut(u64) -> Option<u64>) -> Result<u64, u64> {
        self.word
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, f)
    }

    /// Joins the forming group of `n`: `Some((generation, role))`, or
    /// `None` when a complete group is still running.
    #[inline]
    pub(crate) fn join(&self, n: u32) -> Option<(u32, u32)> {
        let word = self
            .update(|w| {
                let (g, joined, left, arrived) = unpack(w);
                (joined < n).then(|| pack(g, joined + 1, left, arrived))
            })
            .ok()?;
        let (g, joined, _, _) = unpack(word);
        Some((g, joined))
    }

    /// Whether the group of `generation` is complete.
    #[inline]
    pub(crate) fn poll(&self, generation: u32, n: u32) -> Meeting {
        let (g, joined, _, _) = unpack(self.word.load(Ordering::Acquire));
        if g != generation & GEN_MASK as u32 {
            Meeting::Dissolved
        } else if joined >= n {
            Meeting::Complete
        } else {
            Meeting::Waiting
        }
    }

    /// A member of `generation` leaves: before completion it dissolves the
    /// group; after, it counts as gone, and the last one out frees the
    /// rendezvous for the next group.
    #[inline]
    pub(crate) fn leave(&self, generation: u32, n: u32) {
        let _ = self.update(|w| {
            let (g, joined, left, arrived) = unpack(w);
            if g != generation & GEN_MASK as u32 {
                None
            } else if joined < n || left + 1 >= n {
                Some(pack(g.wrapping_add(1), 0, 0, 0))
            } else {
                Some(pack(g, joined, left + 1, arrived))
            }
        });
    }

    /// Counts this member's arrival at its `phase`-th `sync` point (call
    /// once per member and point).
    #[inline]
    pub(crate) fn arrive(&self, generation: u32) {
        let _ = self.update(|w| {
            let (g, joined, left, arrived) = unpack(w);
            (g == generation & GEN_MASK as u32).then(|| pack(g, joined, left, arrived + 1))
        });
    }

    /// Whether the `phase`-th `sync` point (from 0) may be passed.
    #[inline]
    pub(crate) fn sync(&self, generation: u32, n: u32, phase: u32) -> Sync {
        let (g, _, left, arrived) = unpack(self.word.load(Ordering::Acquire));
        if g != generation & GEN_MASK as u32 {
            Sync::Broken
        } else if arrived >= n * (phase + 1) {
            Sync::Passed
        } else if left > 0 {
            Sync::Broken
        } else {
            Sync::Waiting
        }
    }

    /// Members of the forming or running group.
    pub fn members(&self) -> u32 {
        let (_, joined, left, _) = unpack(self.word.load(Ordering::Acquire));
        joined.saturating_sub(left)
    }

    /// The current group's generation.
    pub(crate) fn generation(&self) -> u32 {
        unpack(self.word.load(Ordering::Acquire)).0
    }

    /// Generation, members joined and left, `sync` arrivals.
    pub(crate) fn counters(&self) -> (u32, u32, u32, u32) {
        unpack(self.word.load(Ordering::Acquire))
    }
}

/// Saved as the values of their counters; see [`save`](crate::save) for
/// saving them together with the agents that hold them.
#[cfg(feature = "serde")]
mod with_serde {
    use super::{Gate, GlobalCooldown, Rendezvous};
    use crate::times::Time;
    use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    macro_rules! saved_as {
        ($($ty:ident { $field:ident: $atomic:ident } as $name:literal: $saved:ty = $save:expr, $load:expr;)*) => {$(
            impl Serialize for $ty {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    let value: $saved = $save(self.$field.load(Ordering::Acquire));
                    serializer.serialize_newtype_struct($name, &value)
                }
            }

            impl<'de> Deserialize<'de> for $ty {
                fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    #[derive(Deserialize)]
                    #[serde(rename = $name)]
                    struct Saved($saved);
                    let Saved(value) = Saved::deserialize(deserializer)?;
                    Ok($ty { $field: $atomic::new($load(value)) })
                }
            }
        )*};
    }

    // Permits taken.
    impl<const CAPACITY: u32> Serialize for Gate<CAPACITY> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_newtype_struct("Gate", &self.inside.load(Ordering::Acquire))
        }
    }

    impl<'de, const CAPACITY: u32> Deserialize<'de> for Gate<CAPACITY> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            #[derive(Deserialize)]
            #[serde(rename = "Gate")]
            struct Saved(u32);
            let Saved(inside) = Saved::deserialize(deserializer)?;
            Ok(Gate {
                inside: AtomicU32::new(inside),
            })
        }
    }

    saved_as! {
        // The time from which the branch may be entered.
        GlobalCooldown { ready_at: AtomicU64 } as "GlobalCooldown":
            Time = |bits| Time(f64::from_bits(bits)), |t: Time| t.0.to_bits();
        // Generation, members joined and left, sync arrivals, packed.
        Rendezvous { word: AtomicU64 } as "Rendezvous": u64 = |w| w, |w| w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_admits_up_to_capacity() {
        let gate: Gate = Gate::new();
        assert!(gate.try_enter(2) && gate.try_enter(2));
        assert!(!gate.try_enter(2));
        gate.leave();
        assert!(gate.try_enter(2));
        assert_eq!(gate.inside(), 2);
    }

    #[test]
    fn a_permit_given_back_to_an_empty_gate_leaves_it_empty() {
        let gate: Gate = Gate::new();
        gate.leave();
        assert_eq!(gate.inside(), 0);
        assert!(gate.try_enter(1));
        assert!(!gate.try_enter(1));
    }

    #[test]
    fn global_cooldown_keeps_the_latest_deadline() {
        let cd = GlobalCooldown::new();
        assert!(cd.is_ready(-1e9));
        cd.start(10.0, 5.0);
        cd.start(11.0, 1.0); // earlier deadline: ignored
        assert!(!cd.is_ready(14.9));
        assert!(cd.is_ready(15.0));
    }

    #[test]
    fn rendezvous_roles_completion_and_syncs() {
        let rv = Rendezvous::new();
        let (g, a) = rv.join(2).unwrap();
        assert_eq!(rv.poll(g, 2), Meeting::Waiting);
        let (g2, b) = rv.join(2).unwrap();
        assert_eq!((g2, a, b), (g, 0, 1));
        assert_eq!(rv.join(2), None, "a running pair admits no third");
        assert_eq!(rv.poll(g, 2), Meeting::Complete);
        rv.arrive(g);
        assert_eq!(rv.sync(g, 2, 0), Sync::Waiting);
        rv.arrive(g);
        assert_eq!(rv.sync(g, 2, 0), Sync::Passed);
        rv.leave(g, 2);
        // The other member's next sync can never be reached.
        assert_eq!(rv.sync(g, 2, 1), Sync::Broken);
        rv.leave(g, 2);
        assert_eq!(rv.members(), 0);
        let (g3, role) = rv.join(2).unwrap();
        assert_eq!((g3, role), (g + 1, 0));
    }

    #[test]
    fn leaving_before_completion_dissolves_the_group() {
        let rv = Rendezvous::new();
        let (g, _) = rv.join(3).unwrap();
        let _ = rv.join(3).unwrap();
        rv.leave(g, 3);
        assert_eq!(rv.poll(g, 3), Meeting::Dissolved);
        assert_eq!(rv.members(), 0);
        assert_eq!(rv.join(3), Some((g + 1, 0)));
    }
}
