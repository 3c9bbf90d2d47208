//! Deferred action requests: a tree asks, a batch system answers.
//!
//! A `request(stream, value)` node does not act. On its first tick it
//! pushes `value` into a request stream (a parameter of the tree), tagged
//! with a [`Ticket`] naming the agent, the node's slot, the stream and a
//! generation, and returns `Running`. Later, outside the tick, a system handles every
//! request of the stream in one batch (sorted, partitioned, in parallel: it
//! is plain data) and hands each outcome back to its agent's tree state
//! with the generated `answer(ticket, outcome)`. The node's next tick reads
//! the outcome and returns it.
//!
//! ```text
//!                 first tick: Start(ticket, value) pushed
//!    (idle) ───────────────────────────────────────────────▶ in flight ──┐
//!      ▲                                                       │   ▲     │ tick before an
//!      │ tick reads the outcome: Success / Failure             │   └─────┘ answer: Running
//!      ├───────────────────────────────────────────────────────┤
//!      │ halted (reactive node, decider, timeout, reset):      │
//!      └─────────────── Cancel(ticket) pushed ◀────────────────┘
//! ```
//!
//! **Exactly once.** Every `Start` a tree pushes is followed by exactly one
//! of: the tree reading its outcome, or a `Cancel` with the same ticket. A
//! system can receive a `Cancel` for a request it has already answered, if
//! the tree abandoned the node before its next tick read the answer; that
//! answer is dropped.
//!
//! **Stale answers.** Generations come from the stream and never repeat (a
//! `u32` per stream, so until 2³² requests), so an answer to an older
//! request of the same node, or to a request made before `reset`, is
//! refused with [`Stale`] and never seen by a later request. An answer to
//! the node's latest request that arrives after the tree cancelled it is
//! accepted and never read: the next request of the node replaces it.
//!
//! **Known worst case.** `BehaviorTree::MAX_REQUESTS_PER_TICK` bounds the
//! `Start`s one agent pushes in one tick (the maximum over exclusive
//! branches, the sum over `parallel` children); the `Cancel`s of one tick
//! are at most as many again. [`Requests::for_agents`] allocates for both,
//! once. A `Start` that finds the stream full is not lost: the node stays
//! idle, returns `Running` and asks again on its next tick
//! ([`Requests::refused`] counts these). A `Cancel` always goes in, growing
//! the stream if it must ([`Requests::spilled`] counts these).

#[cfg(feature = "std")]
use std::vec::Vec;

/// Names one request: the agent (the tick context's
/// [`agent`](crate::Ctx::agent)), the request node's slot in its tree
/// (its position among the `request` nodes of the tree it is written in),
/// the stream, and the request's generation, unique in its stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ticket {
    /// The agent, as the tick context named it.
    pub agent: u64,
    /// The request node's slot in its tree.
    pub slot: u32,
    /// The stream's [`id`](RequestStream::id).
    pub stream: u32,
    /// The request's generation in its stream (never 0).
    pub generation: u32,
}

/// One entry of a request stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Message<R> {
    /// A node asks for `R`; answer it with the tree's `answer(ticket, ..)`.
    Start(Ticket, R),
    /// The node that asked is no longer interested: stop the work. Nothing
    /// needs to be answered.
    Cancel(Ticket),
}

impl<R> Message<R> {
    /// The ticket of the request this message is about.
    pub fn ticket(&self) -> Ticket {
        match self {
            Message::Start(ticket, _) | Message::Cancel(ticket) => *ticket,
        }
    }
}

use crate::status::Outcome;

/// An answer that no node is waiting for: the ticket is not the latest
/// request of its slot (an earlier request of the node, one made before a
/// `reset`, one of another agent, or a slot the tree does not have), or the
/// slot was answered already. The tree is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stale(pub Ticket);

impl core::fmt::Display for Stale {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let t = self.0;
        write!(
            f,
            "no request is waiting for ticket (agent {}, slot {}, generation {})",
            t.agent, t.slot, t.generation
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Stale {}

/// A stream a `request` node can push into: what the generated code calls.
/// [`Requests`] is the one this crate provides; a `no_std` program can
/// implement it over its own storage.
pub trait RequestStream {
    /// What its `request` nodes ask for.
    type Request;
    /// Different for every stream of the program (not 0), so that a
    /// ticket names its request even among several streams and embedded
    /// trees.
    fn id(&self) -> u32;
    /// Pushes `Start` for a new request of `agent`'s node `slot` and returns
    /// its generation, or `None` if the stream is full (the node asks again
    /// on its next tick).
    fn start(&mut self, agent: u64, slot: u32, request: Self::Request) -> Option<u32>;
    /// Pushes `Cancel(ticket)`. Must not lose it.
    fn cancel(&mut self, ticket: Ticket);
}

/// A request stream of one request type `R` (an enum, if a system handles
/// several kinds): messages in the order the ticks pushed them, in storage
/// allocated once.
///
/// Between frames, a system takes the messages ([`drain`](Self::drain), or
/// [`messages_mut`](Self::messages_mut) to sort or partition them in place
/// first), handles them, and answers each `Start` through the tree state of
/// the ticket's agent.
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct Requests<R> {
    id: u32,
    messages: Vec<Message<R>>,
    capacity: usize,
    generation: u32,
    refused: usize,
    spilled: usize,
}

#[cfg(feature = "std")]
impl<R> Requests<R> {
    /// A stream that holds `capacity` messages without allocating again.
    pub fn with_capacity(capacity: usize) -> Self {
        use core::sync::atomic::{AtomicU32, Ordering};
        static STREAMS: AtomicU32 = AtomicU32::new(1);
        Requests {
            id: STREAMS.fetch_add(1, Ordering::Relaxed),
            messages: Vec::with_capacity(capacity),
            capacity,
            generation: 0,
            refused: 0,
            spilled: 0,
        }
    }

    /// This stream's id, in the tickets it hands out.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// How many messages fit before a `Start` is refused.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Messages waiting.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// No message is waiting.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The messages, in the order they were pushed.
    pub fn messages(&self) -> &[Message<R>] {
        &self.messages
    }

    /// The messages, to sort or partition in place before handling them
    /// (for example by request kind, or by `ticket().agent` so that
    /// answers go to agents in memory order).
    pub fn messages_mut(&mut self) -> &mut [Message<R>] {
        &mut self.messages
    }

    /// Takes every message out, keeping the storage.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Message<R>> {
        self.messages.drain(..)
    }

    /// Pushes a message; a full stream gives it back. Trees push through
    /// [`RequestStream`]; this is for systems that send their own.
    pub fn push(&mut self, message: Message<R>) -> Result<(), Message<R>> {
        if self.messages.len() >= self.capacity {
            return Err(message);
        }
        self.messages.push(message);
        Ok(())
    }

    /// `Start`s refused because the stream was full, since it was made
    /// (their nodes asked again on a later tick).
    pub fn refused(&self) -> usize {
        self.refused
    }

    /// `Cancel`s pushed into a full stream, which grew to hold them.
    pub fn spilled(&self) -> usize {
        self.spilled
    }
}

#[cfg(feature = "std")]
impl<R> RequestStream for Requests<R> {
    type Request = R;

    #[inline]
    fn id(&self) -> u32 {
        self.id
    }

    #[inline]
    fn start(&mut self, agent: u64, slot: u32, request: R) -> Option<u32> {
        if self.messages.len() >= self.capacity {
            self.refused += 1;
            return None;
        }
        self.generation = self.generation.wrapping_add(1).max(1);
        let ticket = Ticket {
            agent,
            slot,
            stream: self.id,
            generation: self.generation,
        };
        self.messages.push(Message::Start(ticket, request));
        Some(self.generation)
    }

    #[inline]
    fn cancel(&mut self, ticket: Ticket) {
        if self.messages.len() >= self.capacity {
            self.spilled += 1;
        }
        self.messages.push(Message::Cancel(ticket));
    }
}

/// What a tree keeps for each of its `request` nodes, beside its active
/// state: the generation of the node's latest request and its outcome,
/// written by `answer`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct Slot {
    /// The agent that made the request, as its tick context named it.
    agent: u64,
    stream: u32,
    generation: u32,
    /// 0: none (or waiting), 1: success, 2: failure.
    outcome: u8,
}

impl Slot {
    /// Checks a loaded slot: its outcome is none, success or failure.
    #[doc(hidden)]
    pub fn check(
        &self,
        node: &'static crate::node::NodeInfo,
    ) -> Result<(), crate::loading::InvalidState> {
        crate::loading::check::at_most(node, "outcome", self.outcome.into(), 2)
    }

    /// A request of `agent` with this generation was sent into stream
    /// `stream`: wait for its answer.
    #[inline]
    pub fn sent(&mut self, agent: u64, stream: u32, generation: u32) {
        *self = Slot {
            agent,
            stream,
            generation,
            outcome: 0,
        };
    }

    /// Stores the answer to `ticket` if it is this slot's latest request
    /// and not answered yet.
    #[inline]
    pub fn answer(&mut self, ticket: Ticket, outcome: Outcome) -> Result<(), Stale> {
        if ticket.generation == 0
            || ticket.generation != self.generation
            || ticket.stream != self.stream
            || ticket.agent != self.agent
            || self.outcome != 0
        {
            return Err(Stale(ticket));
        }
        self.outcome = match outcome {
            Outcome::Success => 1,
            Outcome::Failure => 2,
        };
        Ok(())
    }

    /// The outcome of request `generation`, once answered.
    #[inline]
    pub fn outcome(&self, generation: u32) -> Option<crate::status::Status> {
        match (self.generation == generation, self.outcome) {
            (true, 1) => Some(crate::status::Status::Success),
            (true, 2) => Some(crate::status::Status::Failure),
            _ => None,
        }
    }
}

/// Implemented by the state type of every tree with `request` nodes: the
/// generated `answer`, for [`deliver`] and (with `rayon`) `deliver_parallel`.
pub trait Answer {
    /// Hands the outcome of the request `ticket` names to this agent's tree
    /// state; its node returns it on its next tick. A ticket no node waits
    /// for is refused with [`Stale`] and changes nothing.
    fn answer(&mut self, ticket: Ticket, outcome: Outcome) -> Result<(), Stale>;
}

/// Answers a batch: each `(ticket, outcome)` goes to `agents[ticket.agent]`
/// (agents numbered by their index, as the tick contexts named them). The
/// refused answers (stale, or for an agent out of range) come back in
/// order.
#[cfg(feature = "std")]
pub fn deliver<T: Answer>(
    agents: &mut [T],
    answers: impl IntoIterator<Item = (Ticket, Outcome)>,
) -> Vec<Stale> {
    let mut stale = Vec::new();
    for (ticket, outcome) in answers {
        let result = match usize::try_from(ticket.agent)
            .ok()
            .and_then(|i| agents.get_mut(i))
        {
            Some(state) => state.answer(ticket, outcome),
            None => Err(Stale(ticket)),
        };
        if let Err(s) = result {
            stale.push(s);
        }
    }
    stale
}

/// [`deliver`] on rayon's thread pool, without locks: `answers` are sorted
/// by agent, and each thread answers the agents of its own chunk of
/// `agents`. The refused answers come back sorted by agent.
#[cfg(feature = "rayon")]
pub fn deliver_parallel<T: Answer + Send>(
    agents: &mut [T],
    answers: &mut [(Ticket, Outcome)],
) -> Vec<Stale> {
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    answers.par_sort_by_key(|(ticket, _)| ticket.agent);
    let answers = &*answers;
    let n = agents.len() as u64;
    let mut stale: Vec<Stale> = agents
        .par_chunks_mut(CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            let base = (c * CHUNK) as u64;
            let end = base + chunk.len() as u64;
            let lo = answers.partition_point(|(t, _)| t.agent < base);
            let hi = answers.partition_point(|(t, _)| t.agent < end);
            let mut refused = Vec::new();
            for &(ticket, outcome) in &answers[lo..hi] {
                if let Err(s) = chunk[(ticket.agent - base) as usize].answer(ticket, outcome) {
                    refused.push(s);
                }
            }
            refused
        })
        .collect();
    let beyond = answers.partition_point(|(t, _)| t.agent < n);
    stale.extend(answers[beyond..].iter().map(|&(t, _)| Stale(t)));
    stale
}
