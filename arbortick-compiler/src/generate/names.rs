//! Every identifier that generated code introduces, in one place.
//!
//! Locals and block labels use `Span::mixed_site()`: user expressions can
//! neither see nor shadow them, whatever the user names things. Item names
//! (state types, the shared struct and its fields, keep fields) are visible
//! to the user's module; they are derived from the tree's name and node ids
//! with a `__` prefix, except the documented `<Tree>Shared` and its fields.
//!
//! Generators write paths into the runtime as `::__bt::..`; [`runtime`]
//! replaces that marker with the tree's crate path (`::bt` unless the tree
//! says `#[bt(crate = path)]`) once the whole expansion is built.

use crate::ir::Keep;
use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident};
use syn::Lifetime;

/// A local introduced by generated code, invisible to user expressions.
fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn label(name: &str) -> Lifetime {
    Lifetime::new(name, Span::mixed_site())
}

macro_rules! locals {
    ($($(#[doc = $doc:literal])* $name:ident = $text:literal;)*) => {
        $($(#[doc = $doc])* pub fn $name() -> Ident { local($text) })*
    };
}

locals! {
    /// The status of the node just evaluated.
    result = "__r";
    /// The tick's time, read once from the context.
    now = "__now";
    /// `&mut` the tree's keep part, inside `tick`.
    keep = "__k";
    /// A duration, in seconds, read where it is needed.
    seconds = "__d";
    /// The tree's active part.
    active = "__active";
    /// The tree's keep part, as `Parts` holds it.
    keep_part = "__keep";
    /// The value a `when let` guard matched.
    value = "__v";
    /// When a time node started.
    start = "__start";
    /// The tree's static node table, for trace events.
    nodes = "__nodes";
    /// The trace level wanted for this tick's agent, read once per tick.
    trace_level = "__tl";
    /// Whether this tick's agent's level-6 events (statuses) are wanted,
    /// read once per tick.
    trace_statuses = "__ts";
    /// Whether this tick's statuses are gathered for the trace hook
    /// (`Trace::GATHERS`): a constant.
    trace_gathers = "__tg";
    /// The statuses gathered, not yet sent (`&mut Gathered`).
    gathered = "__sg";
    /// What `gathered` borrows, in the tick itself.
    gathered_own = "__sgv";
    /// Whether this tick calls the node hooks, read once per tick.
    hooks = "__hk";
    /// The status a node hook gave.
    hooked = "__hs";
    /// A variant's payload, bound by a `match`.
    matched = "__x";
    /// The armed-monitor bits.
    monitors = "__monitors";
    /// The monitor that fired.
    fired = "__fired";
    /// A visitor of the active path.
    visitor = "__visit";
    /// Depth added to reported nodes.
    depth = "__depth";
    /// When a node activated, as its parent knows it.
    since = "__since";
    /// State of a node that keeps nothing between ticks.
    scratch = "__scratch";
    /// A `when` clause's verdict.
    verdict = "__ok";
    /// A guard's score.
    score = "__score";
    /// Hot reload: an agent's per-place leaf memories and bound values.
    slots = "__slots";
    /// Hot reload: where the interpreter evaluates an expression.
    at = "__at";
    /// Hot reload: what the interpreter asks of the expression.
    call = "__call";
    /// Hot reload: the closure through which the interpreter reaches the
    /// tree's expressions.
    host = "__host";
    /// Hot reload: the tree's live engine.
    engine = "__engine";
    /// Hot reload: the agent's interpreter state.
    live_agent = "__live";
    /// A stateful leaf's memory.
    memory = "__m";
    /// A stateful leaf's parameters (its literal).
    leaf = "__leaf";
    /// A reactive child's fresh state, before it is known to run.
    temp = "__t";
    /// `&mut` the first decider group that exceeded its redecide bound.
    error = "__error";
    /// Where [`error`] points, in `tick`.
    error_slot = "__error_slot";
    /// Masked redecides so far.
    redecides = "__redecides";
    /// Decider children that failed this tick.
    mask = "__mask";
    /// The active decider child's position, or the number of children.
    limit = "__limit";
    /// A decider child's position.
    index = "__i";
    /// Offset from the first child a `sequential` group tries.
    offset = "__j";
    /// The child a random policy picked.
    pick = "__pick";
    /// Children whose guards accepted.
    accepted = "__accepted";
    /// Accepted children not yet chosen in this `shuffle` round.
    candidates = "__c";
    /// The best-scoring child so far.
    best = "__best";
    /// The best score so far.
    best_score = "__best_score";
    /// The decider child was activated in this tick; an async form's
    /// child did not run before this tick.
    fresh = "__fresh";
    /// A reactive composite's child runs on a fresh state in this tick.
    entered = "__entered";
    /// The tick context without its trace hook.
    quiet = "__quiet";
    /// The tick context without its node hooks.
    unhooked = "__unhooked";
    /// The out-of-line tick of an agent its trace hook wants events of.
    traced_tick = "__traced_tick";
    /// The tick's body, inlined into both the untraced and traced ticks.
    tick_body = "__tick_body";
    /// The active part's halt taking only the bindings halting uses.
    halt_with = "__halt_with";
    /// A generation: a rendezvous group's, or a `request`'s in flight.
    generation = "__g";
    /// The position a wide composite resumes at.
    resume_at = "__resume";
    /// The role a rendezvous assigned.
    role = "__role";
    /// The active decider child's state.
    decider_state = "__ds";
    /// The value the active decider child's guard matched.
    decider_value = "__dv";
    /// When the active decider child activated.
    decider_since = "__dt";
    /// Where the checks of a loaded state report what an agent holds of
    /// its shared object.
    held = "__held";
    /// What the agents loaded with a shared object hold, node by node.
    tallies = "__tallies";
}

/// Names numbered by a node id (or a child's position): `__s3`, `'n3`.
macro_rules! numbered {
    ($($(#[doc = $doc:literal])* $name:ident: $ty:ty = $make:ident($prefix:literal);)*) => {
        $($(#[doc = $doc])* pub fn $name(id: usize) -> $ty { $make(&format!("{}{id}", $prefix)) })*
    };
}

numbered! {
    /// The local holding `&mut` the state of node `id`.
    place: Ident = local("__s");
    /// The local holding `&mut` the leaf memory beside the tag of node
    /// `id` ([`Shape::Tagged`](crate::ir::Shape::Tagged)).
    memory_place: Ident = local("__m");
    /// The local holding `&mut` the member state of rendezvous `id`.
    member: Ident = local("__member_n");
    /// A payload bound per child while walking the active path.
    matched_child: Ident = local("__x");
    /// The slot of random-policy child `id`'s `when let` value.
    slot: Ident = local("__v");
    /// The block implementing node `id`.
    block: Lifetime = label("'n");
    /// Where a resumed sequence enters at child `id`.
    resume: Lifetime = label("'resume_n");
    /// A `try_catch` around its try children and its catch child.
    try_catch: Lifetime = label("'try_catch_n");
    /// A decider group's decision loop.
    redecide: Lifetime = label("'redecide_n");
    /// A decider group's choice, left once a child is activated.
    decide: Lifetime = label("'decide_n");
    /// The guard check of decider child `id`.
    guard: Lifetime = label("'guard_n");
    /// Node `id` with its hook points, left with the status a hook gave.
    hooked_block: Lifetime = label("'hooked_n");
    /// The function holding the code of node `id`, outlined from `tick`.
    outlined: Ident = local("__tick_n");
}

/// The function holding the children of wide composite `id` from
/// position `start` on: `__tick_n3_from_32`.
pub fn chunk(id: usize, start: usize) -> Ident {
    local(&format!("__tick_n{id}_from_{start}"))
}

/// The constant holding the id of the node labelled `'label`:
/// `__LABEL_flee`, what `bt::node!(Tree, 'flee)` reads.
pub fn label_const(label: &str) -> Ident {
    // `'r#loop` is the label `loop`.
    format_ident!("__LABEL_{}", label.trim_start_matches("r#"))
}

/// The named state type of node `id` in tree `tree`: `__GuardN3`.
pub fn state_type(tree: &Ident, id: usize) -> Ident {
    format_ident!("__{}N{}", tree, id)
}

/// The active part's type: `__GuardActive`.
pub fn active_type(tree: &Ident) -> Ident {
    format_ident!("__{}Active", tree)
}

/// The borrowed-parts type: `__GuardParts`.
pub fn parts_type(tree: &Ident) -> Ident {
    format_ident!("__{}Parts", tree)
}

/// The keep part's type: `__GuardKeep`.
pub fn keep_type(tree: &Ident) -> Ident {
    format_ident!("__{}Keep", tree)
}

/// The documented shared-state type: `GuardShared`.
pub fn shared_type(tree: &Ident) -> Ident {
    format_ident!("{}Shared", tree)
}

/// The variant naming child `id` in its parent's enum: `N4`.
pub fn variant(id: usize) -> Ident {
    format_ident!("N{}", id)
}

/// The variant of an `async_sequence` or `async_select` that returned
/// `Running` before child `id`, which starts on the next tick:
/// `StartN4`.
pub fn start_variant(id: usize) -> Ident {
    format_ident!("StartN{}", id)
}

/// The field holding child `id`'s state in its parent's struct: `n4`.
pub fn field(id: usize) -> Ident {
    format_ident!("n{}", id)
}

/// The field holding the leaf memory beside child `id`'s tag in its
/// parent's struct ([`Shape::Tagged`](crate::ir::Shape::Tagged)): `m4`.
pub fn memory_field(id: usize) -> Ident {
    format_ident!("m{}", id)
}

/// The record field holding a node's only child's state: `child`.
pub fn child_field() -> Ident {
    format_ident!("child")
}

/// The keep-part field of node `id`'s slot: `n4_ready`; a subtree's keep
/// part is `n4`.
pub fn keep_field(id: usize, slot: Keep) -> Ident {
    let purpose = match slot {
        Keep::Ready => "ready",
        Keep::Once => "once",
        Keep::Next => "next",
        Keep::Used => "used",
        Keep::Every => "every",
        Keep::Period => "period",
        Keep::Answer => "answer",
        Keep::Subtree => return field(id),
    };
    format_ident!("n{}_{}", id, purpose)
}

/// The shared-state field of node `id`: its label, else `n<id>`.
pub fn shared_field(id: usize, label: Option<&str>) -> Ident {
    match label {
        Some(label) => format_ident!("{}", label),
        None => format_ident!("n{}", id),
    }
}

/// The marker generators write where the runtime's path goes.
const RUNTIME: &str = "__bt";

/// Replaces every `::__bt` in `tokens` with `krate`.
pub fn runtime(tokens: TokenStream, krate: &syn::Path) -> TokenStream {
    let path: Vec<TokenTree> = krate.to_token_stream().into_iter().collect();
    replace(tokens, &path)
}

fn replace(tokens: TokenStream, path: &[TokenTree]) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    for tt in tokens {
        match tt {
            TokenTree::Ident(ident) if ident == RUNTIME => {
                let n = out.len();
                let colons = n >= 2
                    && matches!(&out[n - 2], TokenTree::Punct(p) if p.as_char() == ':')
                    && matches!(&out[n - 1], TokenTree::Punct(p) if p.as_char() == ':');
                if colons {
                    out.truncate(n - 2);
                }
                // The path takes the marker's span: a type written on the
                // user's expression stays there.
                out.extend(path.iter().cloned().map(|mut tt| {
                    tt.set_span(ident.span());
                    tt
                }));
            }
            TokenTree::Group(group) => {
                let mut replaced = Group::new(group.delimiter(), replace(group.stream(), path));
                replaced.set_span(group.span());
                out.push(TokenTree::Group(replaced));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn the_marker_becomes_the_crate_path_everywhere() {
        let tokens = quote!(
            fn f() -> ::__bt::Status {
                { ::__bt::Status::Success }
            }
        );
        let krate: syn::Path = syn::parse_quote!(engine::bt);
        assert_eq!(
            runtime(tokens.clone(), &krate).to_string(),
            quote!(
                fn f() -> engine::bt::Status {
                    { engine::bt::Status::Success }
                }
            )
            .to_string()
        );
        let default: syn::Path = syn::parse_quote!(::bt);
        assert_eq!(
            runtime(tokens, &default).to_string(),
            quote!(
                fn f() -> ::bt::Status {
                    { ::bt::Status::Success }
                }
            )
            .to_string()
        );
    }
}
