//! The tick context: time, flags, stimuli and tracing in one binding.
//!
//! Time, decision flags, stimuli and tracing come from one binding of the
//! header, the **tick context**: a parameter of type [`Ctx`] (by value,
//! `&Ctx<..>` or `&mut Ctx<..>`), or any binding marked `#[context]` whose
//! type implements [`Context`]. A tree using `every`, `flags`, `stimuli` or
//! a time node without one is a compile error on that token.
//!
//! `Ctx<D, S, T>` carries `now` and `dt` in seconds, the decision flags `D`
//! and stimuli flags `S` (both [`bitflags`] types), an agent id and a trace
//! hook `T`. Time is always this `now`, never a clock, so runs replay. An
//! agent's [`Stimuli`] store holds timed stimuli with data; each tick,
//! `stimuli.update(now)` expires old ones and returns the flags to put in
//! the context.

#[allow(unused_imports)]
use crate::*;
