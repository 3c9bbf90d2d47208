//! The tick context: time, decision flags, stimuli flags, agent id and trace
//! hook, passed to a tree as one of its header bindings.

use crate::trace::{NoTrace, Trace};
use bitflags::Flags;

bitflags::bitflags! {
    /// The flags type of a context that has no flags of that kind.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct NoFlags: u8 {}
}

/// What a tree reads from its tick context.
///
/// A tree has a context when one of its header bindings is a [`Ctx`] (by
/// value, `&Ctx<..>` or `&mut Ctx<..>`) or is marked `#[context]`; the
/// binding's type must then implement this trait. Time nodes (`wait`,
/// `timeout`, `delay`, `cooldown`), `every(..)` guards, `flags(..)` and
/// `stimuli(..)` preconditions, activation times and trace output all read
/// it. Time always comes from here, never from a clock, so runs replay
/// exactly.
///
/// Implemented by [`Ctx`] and by references to any context, so a custom
/// context type only has to implement it once.
pub trait Context {
    /// The agent's decision flags type (a `bitflags` type).
    type Decision: Flags + Copy;
    /// The agent's stimuli flags type (a `bitflags` type).
    type Stimuli: Flags + Copy;
    /// The trace hook.
    type Trace: Trace;

    /// Current time in seconds.
    fn now(&self) -> f64;
    /// Seconds since the previous tick.
    fn dt(&self) -> f64;
    /// This tick's decision flags.
    fn decision_flags(&self) -> Self::Decision;
    /// This tick's active stimuli flags (see [`Stimuli::update`](crate::Stimuli::update)).
    fn stimuli_flags(&self) -> Self::Stimuli;
    /// An id for the agent being ticked, shown in trace output and used to
    /// filter it.
    fn agent(&self) -> u64;
    /// The trace hook.
    fn tracer(&self) -> &Self::Trace;
}

/// References to a context are contexts, so a tree's context binding may
/// be a value, `&` or `&mut`.
macro_rules! forward_context {
    ($($reference:ty),*) => {$(
        impl<C: Context + ?Sized> Context for $reference {
            type Decision = C::Decision;
            type Stimuli = C::Stimuli;
            type Trace = C::Trace;
            #[inline]
            fn now(&self) -> f64 {
                (**self).now()
            }
            #[inline]
            fn dt(&self) -> f64 {
                (**self).dt()
            }
            #[inline]
            fn decision_flags(&self) -> C::Decision {
                (**self).decision_flags()
            }
            #[inline]
            fn stimuli_flags(&self) -> C::Stimuli {
                (**self).stimuli_flags()
            }
            #[inline]
            fn agent(&self) -> u64 {
                (**self).agent()
            }
            #[inline]
            fn tracer(&self) -> &C::Trace {
                (**self).tracer()
            }
        }
    )*};
}

forward_context!(&C, &mut C);

/// The tick context most trees use: built by the caller for each agent and
/// tick, cheap to copy.
///
/// `D` and `S` are the decision and stimuli flags types (write them with
/// [`bitflags!`](crate::bitflags::bitflags)); `T` is the trace hook, which
/// costs nothing when left as [`NoTrace`].
///
/// ```
/// use bt_runtime::{Context, Ctx, bitflags::bitflags};
///
/// bitflags! {
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub struct Mode: u8 { const NIGHT = 1; const CARNIVORE = 2; }
/// }
///
/// let cx: Ctx<Mode> = Ctx::new(12.5, 0.1).flags(Mode::NIGHT).agent(7);
/// assert_eq!(cx.now(), 12.5);
/// assert!(cx.decision_flags().contains(Mode::NIGHT));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ctx<D = NoFlags, S = NoFlags, T = NoTrace> {
    /// Current time in seconds.
    pub now: f64,
    /// Seconds since the previous tick.
    pub dt: f64,
    /// The agent's decision flags for this tick.
    pub flags: D,
    /// The agent's active stimuli flags for this tick.
    pub stimuli: S,
    /// Id of the agent, for trace output and filtering.
    pub agent: u64,
    /// The trace hook.
    pub trace: T,
}

impl<D: Flags + Copy, S: Flags + Copy> Ctx<D, S, NoTrace> {
    /// A context at time `now`, `dt` seconds after the previous tick, with
    /// no flags set, agent id 0 and no tracing. Times are seconds of any
    /// type that converts to `f64` without loss: a game's `f32` clock is
    /// passed as it is.
    #[inline]
    pub fn new(now: impl Into<f64>, dt: impl Into<f64>) -> Self {
        Ctx {
            now: now.into(),
            dt: dt.into(),
            flags: D::empty(),
            stimuli: S::empty(),
            agent: 0,
            trace: NoTrace,
        }
    }
}

impl<D: Flags + Copy, S: Flags + Copy, T: Trace> Ctx<D, S, T> {
    /// [`now`](Ctx::now) as an `f32`, for games that keep time in `f32`.
    #[inline]
    pub fn now_f32(&self) -> f32 {
        self.now as f32
    }

    /// [`dt`](Ctx::dt) as an `f32`, for games that keep time in `f32`.
    #[inline]
    pub fn dt_f32(&self) -> f32 {
        self.dt as f32
    }

    /// With these decision flags.
    #[inline]
    pub fn flags(mut self, flags: D) -> Self {
        self.flags = flags;
        self
    }

    /// With these stimuli flags, usually the result of
    /// [`Stimuli::update`](crate::Stimuli::update).
    #[inline]
    pub fn stimuli(mut self, stimuli: S) -> Self {
        self.stimuli = stimuli;
        self
    }

    /// With this agent id.
    #[inline]
    pub fn agent(mut self, agent: u64) -> Self {
        self.agent = agent;
        self
    }

    /// With this trace hook.
    #[inline]
    pub fn trace<T2: Trace>(self, trace: T2) -> Ctx<D, S, T2> {
        self.with_hook(trace)
    }

    /// This context's time, flags and agent, with `trace` as its hook.
    #[inline]
    fn with_hook<T2: Trace>(&self, trace: T2) -> Ctx<D, S, T2> {
        Ctx {
            now: self.now,
            dt: self.dt,
            flags: self.flags,
            stimuli: self.stimuli,
            agent: self.agent,
            trace,
        }
    }

    /// The same context without its trace hook.
    ///
    /// A tree whose header takes `&Ctx<D, S, impl Trace>` ticks an agent
    /// whose trace level is 0 (and whose statuses are not wanted) through
    /// this: the code compiled for [`NoTrace`], with no trace point at all,
    /// so a tracer that is attached but quiet costs one check per tick.
    #[inline]
    pub fn quiet(&self) -> Ctx<D, S, NoTrace> {
        self.with_hook(NoTrace)
    }

    /// The same context, its trace hook without node hooks
    /// ([`Trace::HOOKS`] `false`). A tree whose header takes
    /// `&Ctx<D, S, impl Trace>` ticks an agent whose hook gathers its
    /// statuses but asks for no node hooks this tick through this: the
    /// code compiled without the hook points.
    #[doc(hidden)]
    #[inline]
    pub fn unhooked(&self) -> Ctx<D, S, crate::__private::Unhooked<&T>> {
        self.with_hook(crate::__private::Unhooked(&self.trace))
    }
}

impl<D: Flags + Copy, S: Flags + Copy, T: Trace> Context for Ctx<D, S, T> {
    type Decision = D;
    type Stimuli = S;
    type Trace = T;
    #[inline]
    fn now(&self) -> f64 {
        self.now
    }
    #[inline]
    fn dt(&self) -> f64 {
        self.dt
    }
    #[inline]
    fn decision_flags(&self) -> D {
        self.flags
    }
    #[inline]
    fn stimuli_flags(&self) -> S {
        self.stimuli
    }
    #[inline]
    fn agent(&self) -> u64 {
        self.agent
    }
    #[inline]
    fn tracer(&self) -> &T {
        &self.trace
    }
}
