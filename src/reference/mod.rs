//! The reference: the DSL and what a compiled tree gives you, one topic per
//! module. Start with the [crate] page's example, then read in order,
//! or go to the topic you need; [the cookbook](crate::cookbook) has recipes
//! that combine them.
//!
//! | topic | what it covers |
//! |---|---|
//! | [The tree header](header) | bindings, what a tree generates, size limits. |
//! | [Leaves](leaves) | conditions, actions, instant actions, stateful leaves and time. |
//! | [Composites](composites) | sequences, selects, their reactive, memory and async forms, `try_catch`, `switch_eq`, branches and `parallel`. |
//! | [Decorators](decorators) | inverting, forcing, repeating, retrying, hooks, `for_each`. |
//! | [Subtrees](subtrees) | one tree embedded in another. |
//! | [Named counts](named_counts) | constants wherever a count is written. |
//! | [Labels and metadata](labels) | naming nodes for traces, views and shared state. |
//! | [Deciding, Spore style](deciding) | decider groups, policies, guards, and children a full gate would refuse. |
//! | [The tick context](context) | time, flags, stimuli and tracing in one binding. |
//! | [Scopes and time nodes](scopes_and_time) | `scope`, `wait`, `timeout`, `delay`, `cooldown`, `every`, `run_once`. |
//! | [Debugging](debugging) | the active path, traces and the tracer. |
//! | [Views and recording](views_and_recording) | BehaviorTree.CPP XML, Mermaid, DOT, `.btlog`, JSON lines and the page. |
//! | [Synchronized trees](synchronized) | gates, global cooldowns, rendezvous and monitors shared across agents. |
//! | [Ticking many agents](many_agents) | in order, on rayon's pool, and in batches grouped by where trees resume. |
//! | [Deferred requests](requests) | actions served by another system, in batches. |
//! | [Future leaves](futures) | actions that are Rust futures, polled once per tick, cancelled by dropping. |
//! | [BehaviorTree.CPP's catalog](btcpp_catalog) | its node names here, and where semantics differ. |
//! | [Saving, loading and replaying](saving) | Saving, loading and replaying agents' states. |
//! | [Bevy components and reflection](bevy) | Bevy components and reflection. |
//! | [State layout](state_layout) | what an agent's state holds, and its size. |
//! | [Halting and resetting](halting) | in what order running nodes stop, what `reset` takes, and what a node hook leaves behind. |
//! | [Testing trees](testing) | forcing nodes, breakpoints, expected traces and coverage. |
//! | [Errors](errors) | every mistake the macro reports, with its test case. |

pub mod bevy;
pub mod btcpp_catalog;
pub mod composites;
pub mod context;
pub mod debugging;
pub mod deciding;
pub mod decorators;
pub mod errors;
pub mod futures;
pub mod halting;
pub mod header;
pub mod labels;
pub mod leaves;
pub mod many_agents;
pub mod named_counts;
pub mod requests;
pub mod saving;
pub mod scopes_and_time;
pub mod state_layout;
pub mod subtrees;
pub mod synchronized;
pub mod testing;
pub mod views_and_recording;
