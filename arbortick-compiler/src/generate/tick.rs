//! The tick function: one labeled block per node, nested as the tree is.
//!
//! Contract of [`Gen::tick`]: the code for node `n` is an expression of type
//! `::__bt::Status`; when `n` has state, `__s<n>: &mut <its state type>` is in
//! scope. A composite puts each child in a block that binds the child's
//! place, evaluates the child into `__r`, then decides from `__r` whether to
//! go on, return (`break 'n<id> ..`) or remember the child.

use super::{Gen, names, status, suffixed};
use crate::ir::{Count, Field, Keep, Kind, Shape};
use crate::kinds::{Children, Row as _};
use bt_runtime::Status;
use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

/// Beyond this many children to resume at, a composite's resume chain is
/// split into chunks of this many, one after the other: rustc overflows its
/// stack on blocks nested a few hundred deep, and LLVM slows down on one
/// check per child.
const MAX_NESTED_ENTRIES: usize = 32;

/// The forms of a composite that runs its children in order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OneOf {
    /// Resumes at the running child.
    Plain,
    /// Starts from the first child every tick.
    Reactive,
    /// Resumes at the child that ran or failed last, until the node succeeds.
    Memory,
    /// As `Plain`, and returns `Running` after a child that finished in
    /// the tick it started (unless it is the last): the next child starts
    /// on the next tick.
    Async,
}

/// A leaf's memory held bare by an ancestor: see [`Gen::held`].
struct Held {
    /// The sequence, select or parallel that holds the memory.
    holder: usize,
    /// The holder's child the memory is for: the leaf, or the topmost
    /// node that is its memory.
    child: usize,
    /// How the holder says that the leaf runs.
    by: HeldBy,
}

/// How a [`Held`] memory's holder says that the leaf runs.
enum HeldBy {
    /// The memory is the holder's enum variant for the child, which exists
    /// only while the leaf runs. `reactive`: the holder is reactive.
    Variant { reactive: bool },
    /// The memory is the child's field of a parallel's record, and this bit
    /// of its `running` mask is set while the leaf runs.
    Bit(Literal),
}

/// When a `parallel` finishes.
#[derive(Clone, Copy)]
enum Finish<'a> {
    /// Once `success` children succeeded (Success) or `failure` failed
    /// (Failure), halting the others.
    Thresholds {
        success: &'a Count,
        failure: &'a Count,
    },
    /// Once every child finished: Failure if at least this many failed.
    All(&'a Count),
}

impl Gen<'_> {
    /// `__s3.halt(..);`: halts composite `id`'s state at its place, and
    /// for a tag ([`Shape::Tagged`]) the memory beside it.
    fn halt_own(&self, id: usize) -> TokenStream {
        let place = self.place(id);
        match self.tree.node(id).shape {
            Shape::Tagged(_) => {
                let memory = names::memory_place(id);
                self.halt_tagged(id, quote!(#place), quote!(#memory))
            }
            _ => {
                let args = self.halt_args();
                quote!(#place.halt(#args);)
            }
        }
    }

    /// A pattern matching child `c`'s variant of composite `id`'s state,
    /// whatever it holds.
    fn running_pattern(&self, id: usize, c: usize) -> TokenStream {
        let (ty, variant) = (self.type_ident(id), self.variant(c));
        let payload =
            matches!(self.tree.node(id).shape, Shape::OneOf) && self.tree.node(c).has_state;
        if payload {
            quote!(#ty::#variant(..))
        } else {
            quote!(#ty::#variant)
        }
    }

    /// Stores that child `c` of composite `id` runs, with `state`, its
    /// state, if it has one: in the variant, or for a tag
    /// ([`Shape::Tagged`]) in the memory beside it.
    fn store_running(&self, id: usize, c: usize, state: Option<TokenStream>) -> TokenStream {
        let (place, ty, variant) = (self.place(id), self.type_ident(id), self.variant(c));
        match (state, &self.tree.node(id).shape) {
            (None, _) => quote!(*#place = #ty::#variant;),
            (Some(state), Shape::Tagged(_)) => {
                let memory = names::memory_place(id);
                quote! {
                    *#place = #ty::#variant;
                    *#memory = #state;
                }
            }
            (Some(state), _) => quote!(*#place = #ty::#variant(#state);),
        }
    }

    /// `__k.n4_next`: the child a `sequence_with_memory` starts from.
    fn memory(&self, id: usize) -> TokenStream {
        let (keep, field) = (names::keep(), names::keep_field(id, Keep::Next));
        quote!(#keep.#field)
    }

    /// Body of the generated `tick` method.
    pub(super) fn tick_body(&self) -> TokenStream {
        let root = self.tree.node(0);
        let bind = root.has_state.then(|| {
            let place = self.place(0);
            {
                let active = names::active();
                quote!(let #place = &mut #active.root;)
            }
        });
        let keep = (!self.keep_fields().is_empty()).then(|| {
            let k = names::keep();
            {
                let keep = names::keep_part();
                quote!(let #k = &mut *#keep;)
            }
        });
        let prepass = self.monitor_prepass();
        let monitors = (!self.monitors().is_empty()).then(|| {
            let m = names::monitors();
            {
                let active = names::active();
                quote!(let #m = &mut #active.monitors;)
            }
        });
        let tree_name = &self.tree.name;
        let context = self.tree.context.as_ref().map(|cx| {
            let (now, nodes) = (names::now(), names::nodes());
            // The trace hook is asked once per tick; trace points test
            // these locals (constants with `NoTrace`).
            let gathering = self.gathers().then(|| {
                let (tg, sg, own) = (names::trace_gathers(), names::gathered(), names::gathered_own());
                quote! {
                    let #tg: ::core::primitive::bool = ::__bt::__private::trace_gathers(&#cx);
                    let mut #own = ::__bt::trace::Gathered::new();
                    let #sg = &mut #own;
                }
            });
            // Asked by the tick that calls the body, when it has one.
            let wanted = (!self.passes_wanted()).then(|| super::ask_wanted(cx));
            quote! {
                let #now: ::core::primitive::f64 = ::__bt::Context::now(&#cx);
                let #nodes: &'static [::__bt::NodeInfo] = <#tree_name as ::__bt::BehaviorTree>::NODES;
                #wanted
                #gathering
            }
        });
        // The statuses gathered are sent once the root has returned.
        let flush = self.flush();
        let hooks = self.tracing_context().map(|cx| {
            let hk = names::hooks();
            quote!(let #hk: ::core::primitive::bool = ::__bt::__private::hooks_wanted(&#cx);)
        });
        let (error, slot) = (names::error(), names::error_slot());
        let bounded = self.has_redecide_bound();
        let error_decl = bounded.then(|| {
            quote! {
                let mut #slot: ::core::option::Option<&'static ::__bt::NodeInfo> = ::core::option::Option::None;
                let #error = &mut #slot;
            }
        });
        let eval = self.eval(0);
        let r = names::result();
        // A finished tree starts over from the root: nothing to watch.
        let disarm = (!self.monitors().is_empty()).then(|| {
            let m = names::monitors();
            quote!(if #r.is_done() { *#m = 0; })
        });
        // Nothing is gathered before the tick starts, and all is sent
        // before it ends.
        let start = self.trace_after(3, 0, quote!(TickStart), TokenStream::new());
        let end = self.trace_after(3, 0, quote!(TickEnd(#r)), TokenStream::new());
        let result = if bounded {
            quote! {
                match *#error {
                    ::core::option::Option::Some(node) => ::core::result::Result::Err(
                        ::__bt::TickError::RedecideLimit { node, status: #r },
                    ),
                    ::core::option::Option::None => ::core::result::Result::Ok(#r),
                }
            }
        } else {
            // Without a bound the body cannot fail: `tick` holds it and
            // returns the status directly (see `generate`).
            quote!(#r)
        };
        quote! {
            #prepass
            #bind
            #keep
            #monitors
            #context
            #hooks
            #error_decl
            #start
            #eval
            #flush
            #disarm
            #end
            #result
        }
    }

    /// Whether some decider group has a `redecides = N` bound.
    pub(super) fn has_redecide_bound(&self) -> bool {
        self.tree.nodes.iter().any(|n| {
            matches!(
                n.kind,
                Kind::Decider {
                    redecides: Some(_),
                    ..
                }
            )
        })
    }

    /// `/// <node>` `let __r = <node>;`: evaluates a node into `__r`. The
    /// doc comment makes the node visible in `cargo expand`. A large node
    /// is evaluated by a call to its own function (see [`Gen::outline`]).
    pub(super) fn eval(&self, id: usize) -> TokenStream {
        let doc = self.tree.node(id).describe();
        let code = if self.outlines(id) {
            self.outline(id)
        } else {
            self.tick(id)
        };
        let r = names::result();
        let code = self.hooked(id, code);
        match &self.tree.context {
            // With a context, every node reports its status to the trace
            // hook (level 6); with `NoTrace` the call is nothing.
            Some(cx) => {
                let (nodes, statuses) = (names::nodes(), names::trace_statuses());
                let report = if self.gathers() {
                    let (tg, sg) = (names::trace_gathers(), names::gathered());
                    let id8 = Literal::u8_unsuffixed(id as u8);
                    quote! {
                        if #tg {
                            ::__bt::__private::trace_gather(&#cx, #nodes, #sg, #id8, #r);
                        } else {
                            ::__bt::__private::trace_returned(&#cx, &#nodes[#id], #r);
                        }
                    }
                } else {
                    quote!(::__bt::__private::trace_returned(&#cx, &#nodes[#id], #r);)
                };
                quote! {
                    #[doc = #doc]
                    let #r: ::__bt::Status = #code;
                    if #statuses {
                        #report
                    }
                }
            }
            None => quote! {
                #[doc = #doc]
                let #r: ::__bt::Status = #code;
            },
        }
    }

    /// Node `id`'s code (a `Status` expression) with its hook points, in
    /// a tree whose context can trace: the hook may replace the node
    /// before it runs, or change the status it returned. A node left
    /// finished by a hook is halted if it ran; a node left running that
    /// was not is held as entered with a fresh state (see
    /// [`hook_hold`](Self::hook_hold)). Without hooks (`__hk` is the
    /// constant `false` unless the tracer's `HOOKS` is `true`), the code as
    /// it was.
    fn hooked(&self, id: usize, code: TokenStream) -> TokenStream {
        let Some(cx) = self.tracing_context() else {
            return code;
        };
        let node = self.tree.node(id);
        let (hk, f, r, nodes) = (
            names::hooks(),
            names::hooked(),
            names::result(),
            names::nodes(),
        );
        let label = names::hooked_block(id);
        let (halt, hold) = (self.hook_halt(id), self.hook_hold(id));
        let apply = match (hold.is_empty(), halt.is_empty()) {
            (true, true) => TokenStream::new(),
            (true, false) => quote!(if !#f.is_running() { #halt }),
            (false, true) => quote!(if #f.is_running() { #hold }),
            (false, false) => quote!(if #f.is_running() { #hold } else { #halt }),
        };
        // A node that cannot run ignores a hook's `Running`.
        let (replaces, changes) = if node.can_run {
            (quote!(::core::option::Option::Some(#f)), quote!(#f != #r))
        } else {
            (
                quote!(::core::option::Option::Some(#f @ (::__bt::Status::Success | ::__bt::Status::Failure))),
                quote!(#f != #r && !#f.is_running()),
            )
        };
        quote! {
            #label: {
                if #hk {
                    if let #replaces = ::__bt::__private::hook_before(&#cx, &#nodes[#id]) {
                        #apply
                        break #label #f;
                    }
                }
                let #r: ::__bt::Status = #code;
                if #hk {
                    let #f = ::__bt::__private::hook_after(&#cx, &#nodes[#id], #r);
                    if #changes {
                        #apply
                        break #label #f;
                    }
                }
                #r
            }
        }
    }

    /// Leaves node `id` not running, halting it if it runs: what a hook
    /// that finishes a node does.
    fn hook_halt(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        if let Some(held) = self.held(id) {
            let holder = self.place(held.holder);
            return match &held.by {
                HeldBy::Bit(_) => self
                    .halt_running_child(held.child, quote!(#holder), true)
                    .expect("a child held by a bit"),
                HeldBy::Variant { reactive } => {
                    let (scrutinee, pattern) = self.held_runs(&held);
                    let halt = self.halt_own(held.holder);
                    let held_halt = quote!(if ::core::matches!(#scrutinee, #pattern) { #halt });
                    if !*reactive {
                        return held_halt;
                    }
                    // A reactive holder moves a memory started in this
                    // tick into its variant only after its child returned:
                    // until then it is in the holder's local.
                    let temp = names::temp();
                    let leaf = self.held_leaf(id);
                    let id_lit = proc_macro2::Literal::usize_unsuffixed(leaf);
                    let halt_new =
                        self.halt_leaf_in_option(leaf, quote!(&mut #temp), quote!(#id_lit));
                    quote! {
                        if ::core::option::Option::is_some(&#temp) {
                            #halt_new
                        } else #held_halt
                    }
                }
            };
        }
        if !node.has_state {
            return TokenStream::new();
        }
        match node.shape {
            Shape::Tagged(_) => self.halt_own(id),
            _ => self.halt_place(id, {
                let place = self.place(id);
                quote!(#place)
            }),
        }
    }

    /// The stateful leaf whose memory is held node `id`'s state.
    fn held_leaf(&self, id: usize) -> usize {
        match self.tree.node(id).shape {
            Shape::LeafOf(leaf) => leaf,
            _ => id,
        }
    }

    /// Leaves node `id` running, as it is if it runs, else as entered with
    /// a fresh state: for a stateful leaf, started with a default memory
    /// (its `start` is not called), so that its parent resumes it; for
    /// every other node, its state as new. A node that is its leaf's memory
    /// ([`Shape::LeafOf`]) runs exactly when its leaf does: its leaf counts
    /// as started.
    fn hook_hold(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        if let Some(held) = self.held(id) {
            let holder = self.place(held.holder);
            return match &held.by {
                HeldBy::Bit(bit) => {
                    let field = self.field(held.child);
                    quote! {
                        if #holder.running & #bit == 0 {
                            #holder.#field = ::core::default::Default::default();
                            #holder.running |= #bit;
                        }
                    }
                }
                HeldBy::Variant { reactive } => {
                    let (scrutinee, pattern) = self.held_runs(&held);
                    if *reactive {
                        let temp = names::temp();
                        quote! {
                            if !::core::matches!(#scrutinee, #pattern) && ::core::option::Option::is_none(&#temp) {
                                #temp = ::core::option::Option::Some(::core::default::Default::default());
                            }
                        }
                    } else {
                        let store = self.store_running(
                            held.holder,
                            held.child,
                            Some(quote!(::core::default::Default::default())),
                        );
                        quote!(if !::core::matches!(#scrutinee, #pattern) { #store })
                    }
                }
            };
        }
        match node.shape {
            Shape::Leaf => {
                let place = self.place(id);
                quote! {
                    if ::core::option::Option::is_none(#place) {
                        *#place = ::core::option::Option::Some(::core::default::Default::default());
                    }
                }
            }
            _ => TokenStream::new(),
        }
    }

    pub(super) fn tick(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        match &node.kind {
            Kind::Cond(expr) => {
                let (ok, fail) = (status(Status::Success), status(Status::Failure));
                quote_spanned!(expr.span()=> if #expr { #ok } else { #fail })
            }
            Kind::Action(expr) => {
                let ty = quote_spanned!(expr.span()=> ::__bt::Status);
                let r = names::result();
                quote!({ let #r: #ty = #expr; #r })
            }
            Kind::Instant(expr) => {
                let ty = quote_spanned!(expr.span()=> ::__bt::Outcome);
                let r = names::result();
                quote!({ let #r: #ty = #expr; ::__bt::Outcome::status(#r) })
            }
            Kind::Constant(c) => super::status(*c),
            Kind::Leaf { path, literal } => self.leaf(id, path, literal),
            Kind::Request {
                stream,
                request,
                slot,
            } => self.request(id, stream, request, *slot),
            Kind::Subtree { path, args, paren } => {
                let place = self.place(id);
                let (keep, field) = (names::keep(), names::keep_field(id, Keep::Subtree));
                let parts =
                    quote!(<#path as ::__bt::__private::Embed>::parts(#place, &mut #keep.#field));
                let call = self.subtree_call(path, "tick", parts, args, *paren);
                let enter = self.trace(6, id, quote!(EnterSubtree));
                quote!({ #enter #call })
            }
            Kind::Sequence => self.one_of(id, OneOf::Plain, Status::Success, Status::Failure),
            Kind::SequenceWithMemory => {
                self.one_of(id, OneOf::Memory, Status::Success, Status::Failure)
            }
            Kind::Select => self.one_of(id, OneOf::Plain, Status::Failure, Status::Success),
            Kind::AsyncSequence => self.one_of(id, OneOf::Async, Status::Success, Status::Failure),
            Kind::AsyncSelect => self.one_of(id, OneOf::Async, Status::Failure, Status::Success),
            Kind::TryCatch => self.try_catch(id),
            Kind::ReactiveSequence => {
                self.one_of(id, OneOf::Reactive, Status::Success, Status::Failure)
            }
            Kind::ReactiveSelect => {
                self.one_of(id, OneOf::Reactive, Status::Failure, Status::Success)
            }
            Kind::IfThenElse => self.if_then_else(id),
            Kind::WhileDoElse => self.while_do_else(id),
            Kind::Parallel { success, failure } => {
                self.parallel(id, Finish::Thresholds { success, failure })
            }
            Kind::ParallelAll { max_failures } => self.parallel(id, Finish::All(max_failures)),
            Kind::Invert => self.decorator(id, |r| quote!(::__bt::Status::invert(#r))),
            // A finished child's status replaced; `Running` passes.
            Kind::ForceSuccess => self.decorator(id, |r| {
                let (running, ok) = (status(Status::Running), status(Status::Success));
                quote!(if #r.is_running() { #running } else { #ok })
            }),
            Kind::ForceFailure => self.decorator(id, |r| {
                let (running, fail) = (status(Status::Running), status(Status::Failure));
                quote!(if #r.is_running() { #running } else { #fail })
            }),
            // A success is reported as `Running`.
            Kind::KeepRunningUntilFailure => self.decorator(id, |r| {
                let (running, fail) = (status(Status::Running), status(Status::Failure));
                quote!(if #r.is_failure() { #fail } else { #running })
            }),
            Kind::Repeat(Some(n)) => self.repeat(id, n, Status::Success, Status::Failure),
            Kind::Retry(Some(n)) => self.repeat(id, n, Status::Failure, Status::Success),
            Kind::ForEach { item, then, .. } => self.for_each(id, item, *then),
            Kind::Repeat(None) => self.forever(id, Status::Success, Status::Failure),
            Kind::Retry(None) => self.forever(id, Status::Failure, Status::Success),
            Kind::Decider {
                policy,
                rng,
                redecides,
                skip_blocked: _,
            } => self.decider(id, *policy, rng.as_ref(), redecides.as_ref()),
            Kind::Scope { enter, tick, .. } => self.scope(id, enter.as_ref(), tick.as_ref()),
            Kind::Wait(d) => self.wait(id, d),
            Kind::Timeout(d) => self.timeout(id, d),
            Kind::Delay(d) => self.delay(id, d),
            Kind::Cooldown(d) => self.cooldown(id, d),
            Kind::RunOnce { skip } => self.run_once(id, *skip),
            Kind::Every(d) => self.every(id, d),
            Kind::After {
                success,
                failure,
                finished,
                ..
            } => self.after(id, success.as_ref(), failure.as_ref(), finished.as_ref()),
            Kind::Precondition {
                expr, then, when, ..
            } => self.precondition(id, expr, *then, *when, false),
            Kind::RunWhile { expr, skip } => self.precondition(id, expr, *skip, true, true),
            Kind::Gate(n) => self.gate(id, n),
            Kind::GlobalCooldown(d) => self.global_cooldown(id, d),
            Kind::Rendezvous { n, role } => self.rendezvous(id, n, role),
            Kind::Sync { rendezvous } => self.sync(id, *rendezvous),
            Kind::Monitor { expr, index } => self.monitor(expr, *index),
            Kind::Switch(expr) => self.switch(id, expr),
        }
    }

    /// A stateful leaf: `start` on the first tick, `tick` on later ones; the
    /// memory is kept only while it returns `Running`.
    fn leaf(&self, id: usize, path: &syn::Path, literal: &syn::Expr) -> TokenStream {
        let leaf = self.leaf_trait(path);
        let agent = self.agent_arg();
        let (params, memory, r) = (names::leaf(), names::memory(), names::result());
        if let Some(held) = self.held(id) {
            let reactive = match held.by {
                HeldBy::Variant { reactive } => reactive,
                HeldBy::Bit(bit) => {
                    // A parallel's field, valid while the bit is set: start
                    // on the stack, store only a memory that runs, and drop
                    // it when the leaf ends.
                    let (place, field) = (self.place(held.holder), self.field(held.child));
                    return quote! {{
                        let #params = #literal;
                        if #place.running & #bit != 0 {
                            let #r = #leaf::tick(&#params, &mut #place.#field, #agent);
                            if #r.is_done() {
                                #place.#field = ::core::default::Default::default();
                                #place.running &= !#bit;
                            }
                            #r
                        } else {
                            let mut #memory = ::core::default::Default::default();
                            let #r = #leaf::start(&#params, &mut #memory, #agent);
                            if #r.is_running() {
                                #place.#field = #memory;
                                #place.running |= #bit;
                            }
                            #r
                        }
                    }};
                }
            };
            // The holder's variant for this leaf exists only while the leaf
            // runs: match it directly and start on the stack. When the leaf
            // returns `Running`, a plain holder gets the memory moved into
            // its variant; a reactive one gets it in a local, which the
            // holder puts in its variant after halting the child that ran
            // before. No state on a temporary, no second look at the
            // discriminant.
            let (place, ty) = (self.place(held.holder), self.type_ident(held.holder));
            let variant = self.variant(held.child);
            let keep = if reactive {
                let temp = names::temp();
                quote!(#temp = ::core::option::Option::Some(#memory);)
            } else {
                self.store_running(held.holder, held.child, Some(quote!(#memory)))
            };
            // A tag's memory is beside it, valid while the tag names this
            // leaf's branch, and dropped when the leaf ends.
            let (scrutinee, pattern, running, drop) = match self.tree.node(held.holder).shape {
                Shape::Tagged(_) => {
                    let beside = names::memory_place(held.holder);
                    (
                        quote!(*#place),
                        quote!(#ty::#variant),
                        quote!(#beside),
                        quote!(*#beside = ::core::default::Default::default();),
                    )
                }
                _ => (
                    quote!(#place),
                    quote!(#ty::#variant(#memory)),
                    quote!(#memory),
                    TokenStream::new(),
                ),
            };
            return quote! {{
                let #params = #literal;
                match #scrutinee {
                    #pattern => {
                        let #r = #leaf::tick(&#params, #running, #agent);
                        if #r.is_done() {
                            *#place = #ty::Idle;
                            #drop
                        }
                        #r
                    }
                    _ => {
                        let mut #memory = ::core::default::Default::default();
                        let #r = #leaf::start(&#params, &mut #memory, #agent);
                        if #r.is_running() {
                            #keep
                        }
                        #r
                    }
                }
            }};
        }
        let place = self.place(id);
        quote! {{
            let #params = #literal;
            match #place {
                ::core::option::Option::Some(#memory) => {
                    let #r = #leaf::tick(&#params, #memory, #agent);
                    if #r.is_done() {
                        *#place = ::core::option::Option::None;
                    }
                    #r
                }
                ::core::option::Option::None => {
                    let mut #memory = ::core::default::Default::default();
                    let #r = #leaf::start(&#params, &mut #memory, #agent);
                    if #r.is_running() {
                        *#place = ::core::option::Option::Some(#memory);
                    }
                    #r
                }
            }
        }}
    }

    /// `request(stream, value)`: the first tick pushes the request and
    /// remembers its generation (in the active state, and in the keep
    /// slot `answer` writes); later ticks return the answer once it came.
    /// If the stream is full nothing is remembered, and the next tick asks
    /// again.
    fn request(
        &self,
        id: usize,
        stream: &syn::Ident,
        request: &syn::Expr,
        slot: u32,
    ) -> TokenStream {
        let place = self.place(id);
        let keep = names::keep();
        let field = names::keep_field(id, Keep::Answer);
        let cx = self
            .tree
            .context
            .as_ref()
            .expect("checked: a request has a context");
        let (running, g, r) = (
            status(Status::Running),
            names::generation(),
            names::result(),
        );
        let start = quote_spanned! {request.span()=>
            ::__bt::__private::request_start(&mut *#stream, &#cx, #slot, #request, &mut #keep.#field)
        };
        quote! {
            match *#place {
                ::core::option::Option::Some(#g) => match #keep.#field.outcome(#g) {
                    ::core::option::Option::Some(#r) => {
                        *#place = ::core::option::Option::None;
                        #r
                    }
                    ::core::option::Option::None => #running,
                },
                ::core::option::Option::None => {
                    if let ::core::option::Option::Some(#g) = #start {
                        *#place = ::core::option::Option::Some(#g);
                    }
                    #running
                }
            }
        }
    }

    /// Where node `id`'s state is, if it is a stateful leaf's memory held
    /// bare: alone in a variant of an enum that [`one_of`](Self::one_of)
    /// generates, or in a parallel's field with a running bit. That is a
    /// leaf so held ([`Shape::Memory`]), or a node that is its leaf's memory
    /// ([`Shape::LeafOf`]). Such a node is entered by its own code: the
    /// holder only declares the local a reactive holder moves a new memory
    /// through, and stores what it holds.
    fn held(&self, id: usize) -> Option<Held> {
        if !matches!(self.tree.node(id).shape, Shape::LeafOf(_) | Shape::Memory) {
            return None;
        }
        // Up through the nodes that are the same memory, to the holder.
        let mut child = id;
        let mut holder = self.tree.node(id).parent?;
        while let Shape::LeafOf(_) = self.tree.node(holder).shape {
            child = holder;
            holder = self.tree.node(holder).parent?;
        }
        let by = match self.running_bit(child) {
            Some(bit) => HeldBy::Bit(bit),
            None => HeldBy::Variant {
                reactive: matches!(
                    self.tree.node(holder).kind,
                    Kind::ReactiveSequence | Kind::ReactiveSelect
                ),
            },
        };
        Some(Held { holder, child, by })
    }

    /// For a node held bare ([`held`](Self::held)): a scrutinee and a
    /// pattern that matches it while the leaf runs.
    fn held_runs(&self, held: &Held) -> (TokenStream, TokenStream) {
        let holder = self.place(held.holder);
        match &held.by {
            HeldBy::Variant { .. } => (
                quote!(*#holder),
                self.running_pattern(held.holder, held.child),
            ),
            HeldBy::Bit(bit) => (quote!((#holder.running & #bit != 0)), quote!(true)),
        }
    }

    /// `sequence`, `select` and their reactive forms. Children run in order
    /// while they return `next`; `stop` ends the node with that status.
    ///
    /// The state is an enum naming the running child. A plain form enters
    /// a child by writing its fresh state into the enum in place (the child
    /// before it has finished). In a reactive form a child that is not the
    /// remembered one runs on a fresh temporary state, moved into the enum
    /// only if it returns `Running`; so it can re-tick earlier children
    /// while a later one keeps its state, and halts the later one only when
    /// an earlier child stops or runs. A stateful leaf child does the same
    /// with its memory alone, in its own code ([`leaf`](Self::leaf)).
    ///
    /// A node that is its leaf's memory ([`Shape::LeafOf`]) has no enum:
    /// it resumes at its running child when the holder's variant (or, in a
    /// parallel, running bit) is its own, leaves storing and clearing it to
    /// the leaf, and in a reactive form halts the leaf there when an
    /// earlier child stops it.
    ///
    /// The plain forms resume at the remembered child: the body is a chain
    /// of nested blocks, one per child that can be resumed, and a `match`
    /// at the innermost level breaks out to the block after which the
    /// running child's code starts.
    fn one_of(&self, id: usize, form: OneOf, next: Status, stop: Status) -> TokenStream {
        let reactive = form == OneOf::Reactive;
        let memory = self.memory(id);
        let node = self.tree.node(id);
        let in_order = self.in_order(id);
        let (label, place, ty) = self.frame(id);
        let r = names::result();
        let (next_status, stop_status, running) =
            (status(next), status(stop), status(Status::Running));
        let args = self.halt_args();
        // A node that is its leaf's memory has no state of its own: the
        // leaf's code stores and clears the holder's variant or running bit,
        // and a reactive form halts the leaf there only if that variant or
        // bit is this node's.
        let held = self
            .held(id)
            .filter(|_| matches!(node.shape, Shape::LeafOf(_)));
        let reset = node.has_state.then(|| match (&held, reactive) {
            (Some(_), false) => TokenStream::new(),
            (Some(held), true) => {
                let holder = self.place(held.holder);
                match &held.by {
                    HeldBy::Variant { .. } => {
                        let holder_ty = self.type_ident(held.holder);
                        let variant_here = self.variant(held.child);
                        if let Shape::Tagged(_) = self.tree.node(held.holder).shape {
                            // The memory beside the holder's tag.
                            let memory = names::memory_place(held.holder);
                            let halt = self.halt_place(id, quote!(#memory));
                            quote! {
                                if let #holder_ty::#variant_here = *#holder {
                                    #halt
                                    *#holder = #holder_ty::Idle;
                                    *#memory = ::core::default::Default::default();
                                }
                            }
                        } else {
                            let x = names::matched();
                            let halt = self.halt_place(id, quote!(#x));
                            quote! {
                                if let #holder_ty::#variant_here(#x) = #holder {
                                    #halt
                                    *#holder = #holder_ty::Idle;
                                }
                            }
                        }
                    }
                    HeldBy::Bit(_) => self
                        .halt_running_child(held.child, quote!(#holder), true)
                        .expect("a child held with a running bit"),
                }
            }
            (None, true) => self.halt_own(id),
            (None, false) => quote!(*#place = #ty::Idle;),
        });
        let pieces: Vec<TokenStream> = in_order
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let child = self.tree.node(c);
                let variant = self.variant(c);
                let (temp, x) = (names::temp(), names::matched());
                // With memory, the child that stopped or runs is where the
                // next tick starts.
                let mark = (form == OneOf::Memory).then(|| {
                    let i = Literal::usize_unsuffixed(i);
                    quote!(#memory = #i;)
                });
                let in_variant = self.held(c).is_some();
                let setup = child.has_state.then(|| {
                    let child_place = self.place(c);
                    let child_ty = self.ty(c);
                    if in_variant && (!reactive || held.is_some()) {
                        TokenStream::new()
                    } else if in_variant {
                        // A leaf's memory, if it starts running (see `leaf`).
                        quote! {
                            let mut #temp: ::core::option::Option<#child_ty> = ::core::option::Option::None;
                        }
                    } else if reactive && self.small(c) {
                        // A small state is moved into a local and back, so
                        // that the child's code works on a value of its own
                        // rather than through a pointer to either place.
                        let entered = names::entered();
                        quote! {
                            let (mut #temp, #entered): (#child_ty, ::core::primitive::bool) = match #place {
                                #ty::#variant(#x) => (::core::mem::take(#x), false),
                                _ => (::core::default::Default::default(), true),
                            };
                            let #child_place = &mut #temp;
                        }
                    } else if reactive {
                        quote! {
                            let mut #temp: ::core::option::Option<#child_ty> = ::core::option::Option::None;
                            let #child_place = match #place {
                                #ty::#variant(#x) => #x,
                                _ => #temp.insert(::core::default::Default::default()),
                            };
                        }
                    } else {
                        // The previous child has finished, so its state can
                        // be overwritten in place: no temporary, no move.
                        quote! {
                            if !::core::matches!(*#place, #ty::#variant(..)) {
                                *#place = #ty::#variant(::core::default::Default::default());
                            }
                            let #child_place = match #place {
                                #ty::#variant(#x) => #x,
                                _ => ::core::unreachable!(),
                            };
                        }
                    }
                });
                let eval = self.eval(c);
                // An async form returns `Running` after a child (but the
                // last) that finished in the tick it started: the next
                // child starts on the next tick. Whether the child ran
                // before is read before its setup writes its variant.
                let next_child = in_order.get(i + 1).filter(|_| form == OneOf::Async);
                let fresh = names::fresh();
                let was_running = (next_child.is_some() && child.can_run).then(|| {
                    let pattern = self.running_pattern(id, c);
                    quote!(let #fresh = !::core::matches!(*#place, #pattern);)
                });
                let yield_now = next_child.map(|&next| {
                    let start = names::start_variant(next);
                    let store = quote! {
                        *#place = #ty::#start;
                        break #label #running;
                    };
                    if child.can_run {
                        quote!(if #fresh { #store })
                    } else {
                        store
                    }
                });
                let decide = if child.can_run {
                    let remember = match (child.has_state, reactive) {
                        (true, _) if held.is_some() => quote!(),
                        (true, false) => quote!(),
                        (true, true) if !in_variant && self.small(c) => {
                            let entered = names::entered();
                            quote! {
                                if #entered {
                                    #place.halt(#args);
                                }
                                *#place = #ty::#variant(#temp);
                            }
                        }
                        (true, true) => {
                            let (halt, store) =
                                (self.halt_own(id), self.store_running(id, c, Some(quote!(#temp))));
                            quote! {
                                if let ::core::option::Option::Some(#temp) = #temp {
                                    #halt
                                    #store
                                }
                            }
                        }
                        (false, false) => quote!(*#place = #ty::#variant;),
                        (false, true) => {
                            let halt = self.halt_own(id);
                            quote! {
                                if !::core::matches!(*#place, #ty::#variant) {
                                    #halt
                                    *#place = #ty::#variant;
                                }
                            }
                        }
                    };
                    quote! {
                        match #r {
                            #next_status => { #yield_now }
                            #stop_status => {
                                #mark
                                #reset
                                break #label #stop_status;
                            }
                            #running => {
                                #mark
                                #remember
                                break #label #running;
                            }
                        }
                    }
                } else {
                    quote! {
                        if let #stop_status = #r {
                            #mark
                            #reset
                            break #label #stop_status;
                        }
                        #yield_now
                    }
                };
                quote! {{
                    #was_running
                    #setup
                    #eval
                    #decide
                }}
            })
            .collect();

        let body = match form {
            OneOf::Reactive => self.chunked(id, &pieces),
            OneOf::Plain if !node.has_state => self.chunked(id, &pieces),
            OneOf::Plain => self.resume_chain(id, &pieces, |i| {
                let c = in_order[i];
                if !self.tree.node(c).can_run {
                    return None;
                }
                if let Some(held) = &held {
                    // The leaf runs if its holder says so.
                    return Some(self.held_runs(held).1);
                }
                Some(self.running_pattern(id, c))
            }),
            OneOf::Memory => self.resume_chain(id, &pieces, |i| {
                Some(Literal::usize_unsuffixed(i).into_token_stream())
            }),
            OneOf::Async if !node.has_state => self.chunked(id, &pieces),
            OneOf::Async => self.resume_chain(id, &pieces, |i| Some(self.async_entry(id, i))),
        };
        let idle = (node.has_state && held.is_none()).then(|| quote!(*#place = #ty::Idle;));
        let restart = (form == OneOf::Memory).then(|| quote!(#memory = 0;));
        quote! {
            #label: {
                #body
                #idle
                #restart
                #next_status
            }
        }
    }

    /// The children a composite runs in order: all of them, but for
    /// `try_catch` its try children (all but the last).
    fn in_order(&self, id: usize) -> &[usize] {
        let node = self.tree.node(id);
        match node.row.info().children {
            Children::ThenLast => &node.children[..node.children.len() - 1],
            Children::None
            | Children::One
            | Children::Many
            | Children::Guarded
            | Children::Arms
            | Children::Branches
            | Children::Cases => &node.children,
        }
    }

    /// `try_catch`: the try children as a plain `sequence` in the node's
    /// own block, whose `Failure` (its state back to `Idle`) starts the
    /// catch child in the same tick; while the catch child runs, the try
    /// children are passed over. The node fails once the catch child
    /// finished, whatever it returned.
    fn try_catch(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        let catch = *node.children.last().expect("checked: two children or more");
        let child = self.tree.node(catch);
        let (place, ty, variant) = (self.place(id), self.type_ident(id), self.variant(catch));
        let outer = names::try_catch(id);
        let r = names::result();
        let (failure, running) = (status(Status::Failure), status(Status::Running));
        let tried = self.one_of(id, OneOf::Plain, Status::Success, Status::Failure);
        let tried = if child.can_run {
            let in_catch = self.running_pattern(id, catch);
            quote! {
                if ::core::matches!(*#place, #in_catch) {
                    #failure
                } else {
                    #tried
                }
            }
        } else {
            tried
        };
        let setup = child.has_state.then(|| {
            let (child_place, child_ty, x) = (self.place(catch), self.ty(catch), names::matched());
            quote! {
                if !::core::matches!(*#place, #ty::#variant(..)) {
                    *#place = #ty::#variant(::core::default::Default::default());
                }
                let #child_place: &mut #child_ty = match #place {
                    #ty::#variant(#x) => #x,
                    _ => ::core::unreachable!(),
                };
            }
        });
        let eval = self.eval(catch);
        let idle = node.has_state.then(|| quote!(*#place = #ty::Idle;));
        let decide = if child.can_run {
            let remember = (!child.has_state).then(|| quote!(*#place = #ty::#variant;));
            quote! {
                if let #running = #r {
                    #remember
                    break #outer #running;
                }
            }
        } else {
            TokenStream::new()
        };
        quote! {
            #outer: {
                let #r: ::__bt::Status = #tried;
                if !::core::matches!(#r, #failure) {
                    break #outer #r;
                }
                // The catch child.
                #setup
                #eval
                #decide
                #idle
                #failure
            }
        }
    }

    /// Where an async form resumes at its child at position `i`: the
    /// child runs, or the node yielded before it.
    fn async_entry(&self, id: usize, i: usize) -> TokenStream {
        let c = self.tree.node(id).children[i];
        let (ty, start) = (self.type_ident(id), names::start_variant(c));
        if self.tree.node(c).can_run {
            let running = self.running_pattern(id, c);
            quote!(#running | #ty::#start)
        } else {
            quote!(#ty::#start)
        }
    }

    /// The `__position` method of a `sequence`, `select` or async form with
    /// more children to resume at than one chain of nested blocks takes:
    /// the position of the child it resumes at (0 when none).
    pub(super) fn position_method(&self, id: usize) -> Option<TokenStream> {
        let node = self.tree.node(id);
        let async_form = matches!(node.kind, Kind::AsyncSequence | Kind::AsyncSelect);
        let plain = matches!(node.kind, Kind::Sequence | Kind::Select | Kind::TryCatch);
        if !(async_form || plain) || !node.has_state {
            return None;
        }
        let in_order = self.in_order(id);
        let arms: Vec<TokenStream> = (1..in_order.len())
            .filter_map(|i| {
                let child = self.tree.node(in_order[i]);
                let pattern = if async_form {
                    self.async_entry(id, i)
                } else if child.can_run {
                    self.running_pattern(id, child.id)
                } else {
                    return None;
                };
                let i = Literal::usize_unsuffixed(i);
                Some(quote!(#pattern => #i,))
            })
            .collect();
        (arms.len() > MAX_NESTED_ENTRIES).then(|| {
            quote! {
                /// Position of the running child among the node's children.
                #[inline(never)]
                fn __position(&self) -> ::core::primitive::usize {
                    match self {
                        #(#arms)*
                        _ => 0,
                    }
                }
            }
        })
    }

    /// Nests the children's code so that execution can enter at any child
    /// that may be remembered as running:
    ///
    /// ```text
    /// 'resume_n5: { 'resume_n3: { match state { N3 => break 'resume_n3, N5 => break 'resume_n5, _ => {} }
    ///     child 0 .. } child n3 .. } child n5 ..
    /// ```
    fn resume_chain(
        &self,
        id: usize,
        pieces: &[TokenStream],
        entry: impl Fn(usize) -> Option<TokenStream>,
    ) -> TokenStream {
        let node = self.tree.node(id);
        let (place, memory) = (self.place(id), self.memory(id));
        let entries: Vec<(usize, TokenStream)> = (1..self.in_order(id).len())
            .filter_map(|i| entry(i).map(|pattern| (i, pattern)))
            .collect();
        // Where to enter: the running child, or with memory the stored index.
        let scrutinee = if node.keep.contains(&Keep::Next) {
            quote!(#memory)
        } else if let Some(held) = self.held(id) {
            // A node that is its leaf's memory: what its holder says.
            self.held_runs(&held).0
        } else {
            quote!(*#place)
        };
        if entries.len() <= MAX_NESTED_ENTRIES {
            return self.nest(id, &scrutinee, &entries, pieces, 0);
        }
        // Many entries: chunks of nested blocks, one after the other, keyed
        // by the position read once: the stored index, or the running
        // child's position from a method of the state type (its `match`
        // stays out of this code, where LLVM would thread every chunk's
        // test through each of its arms).
        let resume = names::resume_at();
        let position = if node.keep.contains(&Keep::Next) {
            quote!(#memory as ::core::primitive::usize)
        } else {
            quote!(#place.__position())
        };
        let chunks = (0..pieces.len()).step_by(MAX_NESTED_ENTRIES).map(|start| {
            let end = (start + MAX_NESTED_ENTRIES).min(pieces.len());
            let inside: Vec<(usize, TokenStream)> = entries
                .iter()
                .filter(|(i, _)| (start + 1..end).contains(i))
                .map(|(i, _)| (*i, Literal::usize_unsuffixed(*i).into_token_stream()))
                .collect();
            let body = self.nest(id, &quote!(#resume), &inside, &pieces[start..end], start);
            let call = if self.splits(id) {
                self.chunk(id, start, true, body)
            } else {
                body
            };
            let end = Literal::usize_unsuffixed(end);
            quote!(if #resume < #end { #call })
        });
        quote! {
            let #resume: ::core::primitive::usize = #position;
            #(#chunks)*
        }
    }

    /// The nested resume blocks over `pieces` (the children from position
    /// `offset` on): a `match` on `scrutinee` breaks to the block after
    /// which the entry's child starts; no match starts at the first piece.
    fn nest(
        &self,
        id: usize,
        scrutinee: &TokenStream,
        entries: &[(usize, TokenStream)],
        pieces: &[TokenStream],
        offset: usize,
    ) -> TokenStream {
        let node = self.tree.node(id);
        let entry_label = |i: usize| names::resume(node.children[i]);
        let arms = entries.iter().map(|(i, pattern)| {
            let target = entry_label(*i);
            quote!(#pattern => break #target,)
        });
        let first_end = entries.first().map_or(pieces.len(), |(i, _)| *i - offset);
        let first = &pieces[..first_end];
        let mut body = if entries.is_empty() {
            quote!(#(#first)*)
        } else {
            quote! {
                match #scrutinee {
                    #(#arms)*
                    _ => {}
                }
                #(#first)*
            }
        };
        for (k, &(i, _)) in entries.iter().enumerate() {
            let end = entries
                .get(k + 1)
                .map_or(pieces.len(), |(i, _)| *i - offset);
            let segment = &pieces[i - offset..end];
            let target = entry_label(i);
            body = quote! {
                #target: {
                    #body
                }
                #(#segment)*
            };
        }
        body
    }

    /// `parallel`: ticks every unfinished child; finishes once `success`
    /// children succeeded or `failure` failed, halting the others.
    fn parallel(&self, id: usize, finish: Finish) -> TokenStream {
        let node = self.tree.node(id);
        let (label, place) = (self.label(id), self.place(id));
        let r = names::result();
        let args = self.halt_args();
        let (ok, fail, running) = (
            status(Status::Success),
            status(Status::Failure),
            status(Status::Running),
        );
        let scratch = self.scratch(id);
        // Without a `failed` mask, the first failure ends the node.
        let failed = match &node.shape {
            Shape::Record(fields) => fields
                .iter()
                .any(|f| matches!(f, Field::Masks { failed: true, .. })),
            _ => false,
        };
        let finished = if failed {
            quote!((#place.succeeded | #place.failed))
        } else {
            quote!(#place.succeeded)
        };
        let pieces: Vec<TokenStream> = node
            .children
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let bit = Literal::u128_unsuffixed(1u128 << i);
                // A leaf's memory held bare is found by the leaf's code.
                let own = self.held(c).is_none();
                let setup = (self.tree.node(c).has_state && own).then(|| {
                    let child_place = self.place(c);
                    let field = self.field(c);
                    match self.tree.node(c).shape {
                        // A tag, and the memory beside it.
                        Shape::Tagged(_) => {
                            let (memory, m) = (names::memory_place(c), names::memory_field(c));
                            quote! {
                                let #child_place = &mut #place.#field;
                                let #memory = &mut #place.#m;
                            }
                        }
                        _ => quote!(let #child_place = &mut #place.#field;),
                    }
                });
                let eval = self.eval(c);
                // With thresholds, reaching one ends the node at once.
                let reached = |mask: &str, status: &TokenStream| match finish {
                    Finish::Thresholds { success, failure } => {
                        let (mask, n) = if mask == "succeeded" {
                            (quote!(succeeded), suffixed(success))
                        } else {
                            (quote!(failed), suffixed(failure))
                        };
                        quote! {
                            if #place.#mask.count_ones() >= #n {
                                #place.halt(#args);
                                break #label #status;
                            }
                        }
                    }
                    Finish::All(_) => TokenStream::new(),
                };
                let (on_ok, on_fail) = (reached("succeeded", &ok), reached("failed", &fail));
                let on_fail = if failed {
                    quote!(#place.failed |= #bit; #on_fail)
                } else {
                    quote! {
                        #place.halt(#args);
                        break #label #fail;
                    }
                };
                quote! {
                    if #finished & #bit == 0 {
                        #setup
                        #eval
                        match #r {
                            #ok => {
                                #place.succeeded |= #bit;
                                #on_ok
                            }
                            #fail => {
                                #on_fail
                            }
                            #running => {}
                        }
                    }
                }
            })
            .collect();
        let end = match finish {
            // Without a running child every child finished in this tick, so
            // a threshold was met and a `break` above was taken.
            Finish::Thresholds { success, .. } if !node.can_run => {
                let success = suffixed(success);
                quote!(::__bt::Status::from_bool(#place.succeeded.count_ones() >= #success))
            }
            Finish::Thresholds { .. } => running.clone(),
            Finish::All(max_failures) => {
                let max_failures = suffixed(max_failures);
                let n = node.children.len();
                let all = Literal::u128_unsuffixed(u128::MAX >> (128 - n));
                let verdict = names::verdict();
                quote! {
                    if (#place.succeeded | #place.failed) == #all {
                        let #verdict = ::__bt::Status::from_bool(#place.failed.count_ones() < #max_failures);
                        #place.halt(#args);
                        #verdict
                    } else {
                        #running
                    }
                }
            }
        };
        quote! {
            #label: {
                #scratch
                #(#pieces)*
                #end
            }
        }
    }

    /// `invert`, `force_success`, `force_failure`,
    /// `keep_running_until_failure`: map the child's status (`__r`) as
    /// `map` writes it; the child's state is the decorator's.
    fn decorator(
        &self,
        id: usize,
        map: impl Fn(&proc_macro2::Ident) -> TokenStream,
    ) -> TokenStream {
        let node = self.tree.node(id);
        let c = node.children[0];
        let pass = self.pass_place(id);
        let eval = self.eval(c);
        let r = names::result();
        let result = map(&r);
        quote! {{
            #pass
            #eval
            #result
        }}
    }

    /// `repeat(n)` (again while the child succeeds) and `retry(n)` (again
    /// while it fails): at most `n` runs of the child, looping within one
    /// tick while the child finishes at once.
    fn repeat(&self, id: usize, n: &Count, again: Status, stop: Status) -> TokenStream {
        let node = self.tree.node(id);
        let c = node.children[0];
        let (label, place) = (self.label(id), self.place(id));
        let r = names::result();
        let (again_status, stop_status, running) =
            (status(again), status(stop), status(Status::Running));
        let scratch = self.scratch(id);
        let setup = self.tree.node(c).has_state.then(|| {
            let child_place = self.place(c);
            quote!(let #child_place = &mut #place.child;)
        });
        let eval = self.eval(c);
        quote! {{
            #scratch
            #label: loop {
                #setup
                #eval
                match #r {
                    #again_status => {
                        #place.count += 1;
                        if #place.count >= #n {
                            #place.count = 0;
                            break #label #again_status;
                        }
                    }
                    #stop_status => {
                        #place.count = 0;
                        break #label #stop_status;
                    }
                    #running => break #label #running,
                }
            }
        }}
    }

    /// `for_each(x: T = expr, if_empty = s) { c }`: when the child is not
    /// running, `expr` gives the next item (`None`: the loop ends with
    /// `then`). The child runs with `x` bound to the item, held in the
    /// record while it runs. After a success the node returns `Running`
    /// and takes the next item on the next tick, as BehaviorTree.CPP's
    /// `LoopNode` does; a failure ends the loop.
    fn for_each(&self, id: usize, item: &crate::args::Item, then: Status) -> TokenStream {
        let c = self.tree.node(id).children[0];
        let (label, place) = (self.label(id), self.place(id));
        let (r, next) = (names::result(), names::value());
        let (name, ty, expr) = (&item.name, &item.ty, &item.expr);
        let (then_status, running) = (status(then), status(Status::Running));
        let (success, failure) = (status(Status::Success), status(Status::Failure));
        let waits = then == Status::Running;
        let setup = self.tree.node(c).has_state.then(|| {
            let child_place = self.place(c);
            quote!(let #child_place = &mut #place.child;)
        });
        let eval = self.eval(c);
        let given = quote_spanned!(expr.span()=> #expr);
        quote! {
            #label: {
                if #place.item.is_none() {
                    let #next: ::core::option::Option<#ty> = #given;
                    if #next.is_none() {
                        #place.active = #waits;
                        break #label #then_status;
                    }
                    #place.item = #next;
                    #place.active = true;
                }
                let #name: &#ty = match &#place.item {
                    ::core::option::Option::Some(#next) => #next,
                    ::core::option::Option::None => ::core::unreachable!(),
                };
                #setup
                #eval
                match #r {
                    #running => #running,
                    #success => {
                        #place.item = ::core::option::Option::None;
                        #running
                    }
                    #failure => {
                        #place.item = ::core::option::Option::None;
                        #place.active = false;
                        #failure
                    }
                }
            }
        }
    }

    /// For a node without state that uses its record within a tick: a
    /// fresh one, bound where its state would be.
    fn scratch(&self, id: usize) -> Option<TokenStream> {
        let (place, ty) = (self.place(id), self.type_ident(id));
        (!self.tree.node(id).has_state).then(|| {
            let local_state = names::scratch();
            quote! {
                let mut #local_state = <#ty as ::core::default::Default>::default();
                let #place = &mut #local_state;
            }
        })
    }

    /// `repeat(forever)` (again after each success) and `retry(forever)`
    /// (again after each failure), yielding as BehaviorTree.CPP does: a run
    /// of the child that started in this tick and ends the way that goes on
    /// makes the node return `Running` (the next tick starts the next run);
    /// a run resumed from an earlier tick that ends so starts the next run
    /// at once. So a tick starts at most one run, and never loops forever.
    fn forever(&self, id: usize, again: Status, stop: Status) -> TokenStream {
        let (label, place) = (self.label(id), self.place(id));
        let (r, fresh) = (names::result(), names::fresh());
        let (again_status, stop_status, running) =
            (status(again), status(stop), status(Status::Running));
        let child = self.child_in_field(id);
        quote! {{
            let mut #fresh: ::core::primitive::bool = !#place.running;
            #place.active = true;
            #label: loop {
                #child
                match #r {
                    #again_status => {
                        #place.running = false;
                        if #fresh {
                            break #label #running;
                        }
                        #fresh = true;
                    }
                    #stop_status => {
                        #place.active = false;
                        #place.running = false;
                        break #label #stop_status;
                    }
                    #running => {
                        #place.running = true;
                        break #label #running;
                    }
                }
            }
        }}
    }
}
