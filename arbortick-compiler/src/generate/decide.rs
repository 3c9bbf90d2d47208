//! Decider groups (`prioritized`, `sequential`, `random`, `shuffle`,
//! `scored`): guards, hysteresis, interrupts and masked redecides.
//!
//! A group's state is an enum naming its active child, holding the child's
//! state, the value its `when let` guard matched and the time it activated
//! (each only when there is one). Each tick runs a loop, one turn per
//! decision:
//!
//! 1. **decide**: check the guards of the children that may activate now
//!    (all children when none is active; only those before the active one
//!    in a `prioritized` group; none otherwise). A child whose body failed
//!    earlier in this tick is masked. A child that wins is activated: the
//!    previous one is halted first.
//! 2. **run** the active child. `Running` and `Success` end the group's
//!    tick; `Failure` masks the child and goes back to 1 (a masked
//!    redecide). When no child is active after 1, the group fails.
//!
//! Every turn masks one more child, so a tick makes at most one decision
//! per child: the loop always ends. `redecides = N` bounds it further and
//! reports the excess as a `TickError`.

use super::{Gen, mask_for, names, status};
use crate::ir::{ClauseKind, Count, FlagMode, Keep, Kind, Policy, Refusal, Shape};
use bt_runtime::Status;
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// A field of a variant of a composite's enum.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    /// The child's state.
    State,
    /// The value its `when let` matched.
    Value,
    /// When it activated.
    Since,
}

impl Gen<'_> {
    /// Fields of child `c`'s variant in its parent's enum, in order: its
    /// state; in a decider group also the value its `when let` matched and
    /// when it activated.
    pub(super) fn variant_fields(&self, c: usize) -> Vec<(Field, TokenStream)> {
        let child = self.tree.node(c);
        let in_group = child
            .parent
            .is_some_and(|p| self.tree.node(p).shape == Shape::Decider);
        let mut fields = Vec::new();
        if child.has_state {
            fields.push((Field::State, self.ty(c)));
        }
        if let Some((_, ty)) = child.binding() {
            fields.push((Field::Value, quote!(#ty)));
        }
        if in_group && self.tree.activation_times {
            fields.push((Field::Since, quote!(::core::primitive::f64)));
        }
        fields
    }

    /// `Ty::N4(__ds, _, __dt)`: binds the wanted fields of child `c`'s
    /// variant to locals named after them, ignores the others.
    pub(super) fn variant_pattern(&self, group: usize, c: usize, want: &[Field]) -> TokenStream {
        let ty = self.type_ident(group);
        let variant = self.variant(c);
        let fields = self.variant_fields(c);
        if fields.is_empty() {
            return quote!(#ty::#variant);
        }
        let parts = fields.iter().map(|(f, _)| {
            if want.contains(f) {
                let name = field_local(*f);
                quote!(#name)
            } else {
                quote!(_)
            }
        });
        quote!(#ty::#variant(#(#parts),*))
    }

    /// A trace point: `if level >= L { emit(..) }`, nothing without a
    /// context; the statuses gathered before it are sent first.
    pub(super) fn trace(&self, level: u8, at: usize, event: TokenStream) -> TokenStream {
        self.trace_after(level, at, event, self.flush())
    }

    /// [`trace`](Self::trace), with `before` run before the event is sent
    /// (nothing where no status can have been gathered yet, or all were
    /// sent).
    pub(super) fn trace_after(
        &self,
        level: u8,
        at: usize,
        event: TokenStream,
        before: TokenStream,
    ) -> TokenStream {
        let Some(cx) = &self.tree.context else {
            return TokenStream::new();
        };
        let nodes = names::nodes();
        // Level 6 has its own switch (`Trace::statuses`).
        let wanted = if level >= 6 {
            let statuses = names::trace_statuses();
            quote!(#statuses)
        } else {
            let (wanted, level) = (names::trace_level(), Literal::u8_unsuffixed(level));
            quote!(#wanted >= #level)
        };
        let level = Literal::u8_unsuffixed(level);
        quote! {
            if #wanted {
                #before
                ::__bt::__private::trace_emit(&#cx, #level, &#nodes[#at], ::__bt::trace::Event::#event);
            }
        }
    }

    /// A decider group's code: the decision loop of the module docs, the
    /// choice written by its policy.
    pub(super) fn decider(
        &self,
        id: usize,
        policy: Policy,
        rng: Option<&syn::Expr>,
        redecides: Option<&Count>,
    ) -> TokenStream {
        let group = Group::new(self, id, policy, redecides);
        let choose = match policy {
            Policy::Prioritized => group.prioritized(),
            Policy::Sequential => group.sequential(),
            Policy::Random | Policy::Shuffle | Policy::Scored => group.drawn(rng),
        };
        group.assemble(choose)
    }

    /// Child `c`'s guard: each clause in order; the first that rejects ends
    /// the check. `accept` runs when all passed, with the `when let` value
    /// in `__v` and the score in `__score`.
    fn guard(&self, group: usize, c: usize, accept: TokenStream) -> TokenStream {
        let node = self.tree.node(c);
        let label = names::guard(c);
        let nodes = names::nodes();
        let (value, score, now, keep) =
            (names::value(), names::score(), names::now(), names::keep());
        let cx = self.tree.context.as_ref();
        let mut code = Vec::new();
        let mut has_score = false;
        let reject = |text: &str| {
            let trace = self.trace(
                5,
                group,
                quote!(Guard { child: &#nodes[#c], verdict: ::__bt::trace::Verdict::Rejected(#text) }),
            );
            quote!({ #trace break #label; })
        };
        // First what the child would be refused by before doing anything:
        // a guard clause after it (`every`) may take effect when it passes.
        for refusal in &node.refusals {
            let refuses = self.refuses(refusal);
            let reject = reject(&refusal.text);
            code.push(quote!(if #refuses #reject));
        }
        for clause in node.guard.iter().flat_map(|g| &g.clauses) {
            let reject = reject(&clause.text);
            code.push(match &clause.kind {
                // Typed on the user's expression: a guard that is not
                // `bool` is reported there as "expected `bool`".
                ClauseKind::When(e) => {
                    let (bind, ok) = self.typed_bool(e);
                    quote!(#bind if !#ok #reject)
                }
                // The bindings are in scope for the clauses after this one
                // (`when let Some(f): .. = .. score f.dist`).
                ClauseKind::WhenLet { pat, ty, expr } => quote! {
                    let #value: #ty = #expr;
                    #[allow(unused_variables)]
                    let #pat = &#value else #reject;
                },
                ClauseKind::Score(e) => {
                    has_score = true;
                    let typed = quote_spanned!(e.span()=> let #score: ::core::primitive::f32 = #e;);
                    quote! {
                        #typed
                        if !(#score > 0.0) #reject
                    }
                }
                ClauseKind::Every(d) => {
                    let field = names::keep_field(c, Keep::Every);
                    let value = super::seconds_value(d);
                    let seconds =
                        quote_spanned!(d.span()=> { let __d: ::core::primitive::f64 = #value; __d });
                    quote! {
                        if #now < #keep.#field #reject
                        #keep.#field = #now + #seconds;
                    }
                }
                ClauseKind::Flags {
                    stimuli,
                    mode,
                    expr,
                } => {
                    let have = if *stimuli {
                        quote!(::__bt::Context::stimuli_flags(&#cx))
                    } else {
                        quote!(::__bt::Context::decision_flags(&#cx))
                    };
                    let test = match mode {
                        FlagMode::Any => quote!(any),
                        FlagMode::All => quote!(all),
                        FlagMode::None => quote!(none),
                    };
                    let call =
                        quote_spanned!(expr.span()=> ::__bt::__private::flags::#test(#have, #expr));
                    quote!(if !#call #reject)
                }
                ClauseKind::Room(refusal) => {
                    let refuses = self.refuses(refusal);
                    quote!(if #refuses #reject)
                }
            });
        }
        let default_score = (!has_score).then(|| quote!(let #score: ::core::primitive::f32 = 1.0;));
        let accepted = self.trace(
            5,
            group,
            quote!(Guard { child: &#nodes[#c], verdict: ::__bt::trace::Verdict::Accepted(#score) }),
        );
        quote! {
            #label: {
                #(#code)*
                #default_score
                #accepted
                #accept
            }
        }
    }
}

impl Gen<'_> {
    /// True while the gate or global cooldown of `refusal` would refuse an
    /// agent entering it.
    fn refuses(&self, refusal: &Refusal) -> TokenStream {
        let shared = self.shared_place(refusal.node);
        if let Kind::Gate(_) = self.tree.node(refusal.node).kind {
            quote!(::__bt::shared::Gate::is_full(&#shared))
        } else {
            let now = names::now();
            quote!(!::__bt::shared::GlobalCooldown::is_ready(&#shared, #now))
        }
    }
}

/// One decider group being generated: the locals its code names, and the
/// parts every policy shares (activating a child, checking a guard, running
/// the active child, redeciding after a failure). Each policy writes only
/// its choice ([`prioritized`](Self::prioritized),
/// [`sequential`](Self::sequential), [`drawn`](Self::drawn)).
struct Group<'g, 'a> {
    g: &'g Gen<'a>,
    id: usize,
    policy: Policy,
    redecides: Option<&'g Count>,
    /// The number of children.
    n: usize,
    /// The mask type, one bit per child.
    mask_ty: TokenStream,
    /// `&__nodes[[c0, c1, ..][__i]]`: the table entry of child `__i`.
    child_info: TokenStream,
    /// The tree has a context: trace points, and `__fresh`.
    has_cx: bool,
}

impl<'g, 'a> Group<'g, 'a> {
    fn new(g: &'g Gen<'a>, id: usize, policy: Policy, redecides: Option<&'g Count>) -> Self {
        let node = g.tree.node(id);
        let n = node.children.len();
        let (nodes, i) = (names::nodes(), names::index());
        let children = &node.children;
        Group {
            g,
            id,
            policy,
            redecides,
            n,
            mask_ty: mask_for(n),
            child_info: quote!(&#nodes[[#(#children),*][#i]]),
            has_cx: g.tree.context.is_some(),
        }
    }

    fn children(&self) -> &'g [usize] {
        &self.g.tree.node(self.id).children
    }

    /// After child `__i` failed and its state is gone: mask it, redecide
    /// (unless the `redecides` bound is passed).
    fn on_fail(&self) -> TokenStream {
        let (id, label, mask_ty) = (self.id, self.g.label(self.id), &self.mask_ty);
        let (mask, i, redo) = (names::mask(), names::index(), names::redecide(id));
        let fail = status(Status::Failure);
        let redecide_count = names::redecides();
        let bound = self.redecides.map(|max| {
            let error = names::error();
            let trace = self.g.trace(1, id, quote!(RedecideLimit));
            let tree_name = &self.g.tree.name;
            quote! {
                #redecide_count += 1;
                if #redecide_count > #max {
                    #trace
                    if #error.is_none() {
                        *#error = ::core::option::Option::Some(&<#tree_name as ::__bt::BehaviorTree>::NODES[#id]);
                    }
                    break #label #fail;
                }
            }
        });
        quote! {
            #mask |= (1 as #mask_ty) << #i;
            #bound
            continue #redo;
        }
    }

    /// The trace point of child `__i` ending with `status`.
    fn end_trace(&self, status: TokenStream) -> TokenStream {
        let child_info = &self.child_info;
        self.g.trace(
            2,
            self.id,
            quote!(End { child: #child_info, status: #status }),
        )
    }

    /// The code that activates child `k` (its `when let` value in `__v`).
    fn activate(&self, k: usize) -> TokenStream {
        let (g, id, n, policy) = (self.g, self.id, self.n, self.policy);
        let node = g.tree.node(id);
        let c = self.children()[k];
        let child = g.tree.node(c);
        let (place, ty, label) = (g.place(id), g.type_ident(id), g.label(id));
        let (decide, nodes, child_info) = (names::decide(id), names::nodes(), &self.child_info);
        let (limit, r, i, fresh) = (
            names::limit(),
            names::result(),
            names::index(),
            names::fresh(),
        );
        let (ok, fail) = (status(Status::Success), status(Status::Failure));
        let mask_ty = &self.mask_ty;
        let k_lit = Literal::usize_unsuffixed(k);
        let interrupt = (policy == Policy::Prioritized && node.has_state).then(|| {
            let trace = g.trace(
                2,
                id,
                quote!(Interrupt { child: #child_info, by: &#nodes[#c] }),
            );
            let args = g.halt_args();
            // The state has not changed since `__limit` was read from it.
            quote! {
                let #i = #limit;
                if #i != #n {
                    #trace
                    #place.halt(#args);
                }
            }
        });
        let bookkeeping = match policy {
            Policy::Sequential => {
                let field = names::keep_field(id, Keep::Next);
                let next = Literal::usize_unsuffixed((k + 1) % n);
                let keep = names::keep();
                Some(quote!(#keep.#field = #next;))
            }
            Policy::Shuffle => {
                let field = names::keep_field(id, Keep::Used);
                let keep = names::keep();
                Some(quote!(#keep.#field |= (1 as #mask_ty) << #k_lit;))
            }
            Policy::Prioritized | Policy::Random | Policy::Scored => None,
        };
        let activated = g.trace(1, id, quote!(Activate { child: &#nodes[#c] }));
        let value = names::value();
        if child.can_run {
            let variant = g.variant(c);
            let inits = g.variant_fields(c).into_iter().map(|(f, _)| match f {
                Field::State => quote!(::core::default::Default::default()),
                Field::Value => quote!(#value),
                Field::Since => {
                    let now = names::now();
                    quote!(#now)
                }
            });
            let fields = g.variant_fields(c);
            let write = if fields.is_empty() {
                quote!(*#place = #ty::#variant;)
            } else {
                quote!(*#place = #ty::#variant(#(#inits),*);)
            };
            let fresh = self.has_cx.then(|| quote!(#fresh = true;));
            quote! {
                #interrupt
                #bookkeeping
                #activated
                #write
                #fresh
                break #decide;
            }
        } else {
            let bind = child.binding().map(|(pat, _)| {
                quote! {
                    let #pat = &#value else { ::core::unreachable!() };
                }
            });
            let eval = g.eval(c);
            let ended_ok = self.end_trace(ok.clone());
            let ended_fail = self.end_trace(fail.clone());
            let on_fail = self.on_fail();
            quote! {
                #interrupt
                #bookkeeping
                #activated
                let #i: ::core::primitive::usize = #k_lit;
                let #r: ::__bt::Status = {
                    #bind
                    #eval
                    #r
                };
                if let #ok = #r {
                    #ended_ok
                    break #label #ok;
                }
                #ended_fail
                #on_fail
            }
        }
    }

    /// Child `k`'s guard, skipping it when masked; `accept` runs when
    /// every clause passed, with `__v` and `__score` in scope.
    fn check(&self, k: usize, accept: TokenStream) -> TokenStream {
        let c = self.children()[k];
        let (mask, nodes, mask_ty) = (names::mask(), names::nodes(), &self.mask_ty);
        let bit = quote!((1 as #mask_ty) << #k);
        let masked = self.g.trace(
            5,
            self.id,
            quote!(Guard { child: &#nodes[#c], verdict: ::__bt::trace::Verdict::Masked }),
        );
        let guard = self.g.guard(self.id, c, accept);
        quote! {
            if #mask & #bit != 0 {
                #masked
            } else {
                #guard
            }
        }
    }

    /// `prioritized`: the guards in order, of the children before the
    /// active one (all when none is); the first that accepts wins, and
    /// interrupts the active child.
    fn prioritized(&self) -> TokenStream {
        let limit = names::limit();
        let checks = (0..self.n).map(|k| {
            let check = self.check(k, self.activate(k));
            let k = Literal::usize_unsuffixed(k);
            quote!(if #limit > #k { #check })
        });
        quote!(#(#checks)*)
    }

    /// `sequential`: when none is active, the guards in turn from the
    /// child after the one chosen last; the first that accepts wins.
    fn sequential(&self) -> TokenStream {
        let (n, limit, keep) = (self.n, names::limit(), names::keep());
        let field = names::keep_field(self.id, Keep::Next);
        let (start, j) = (names::start(), names::offset());
        let arms = (0..n).map(|k| {
            let check = self.check(k, self.activate(k));
            let k = Literal::usize_unsuffixed(k);
            quote!(#k => { #check })
        });
        quote! {
            if #limit == #n {
                let #start = #keep.#field as ::core::primitive::usize;
                for #j in 0..#n {
                    match (#start + #j) % #n {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        }
    }

    /// `random`, `shuffle` and `scored`: when none is active, every guard
    /// is checked, then one accepting child is drawn from `rng` (for
    /// `shuffle`, among those not chosen yet this round) or the best
    /// scored wins.
    fn drawn(&self, rng: Option<&syn::Expr>) -> TokenStream {
        let (n, policy, mask_ty, limit) = (self.n, self.policy, &self.mask_ty, names::limit());
        let children = self.children();
        let keep = names::keep();
        let (accepted, best, best_score, pick, score, value) = (
            names::accepted(),
            names::best(),
            names::best_score(),
            names::pick(),
            names::score(),
            names::value(),
        );
        let slot = names::slot;
        let slots = (0..n).filter_map(|k| {
            let c = children[k];
            let (_, ty) = self.g.tree.node(c).binding()?;
            let slot = slot(k);
            Some(quote!(let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None;))
        });
        let checks = (0..n).map(|k| {
            let c = children[k];
            let store = self.g.tree.node(c).binding().map(|_| {
                let slot = slot(k);
                quote!(#slot = ::core::option::Option::Some(#value);)
            });
            let rank = (policy == Policy::Scored).then(|| {
                quote! {
                    if #score > #best_score {
                        #best = #k;
                        #best_score = #score;
                    }
                }
            });
            self.check(
                k,
                quote! {
                    #accepted |= (1 as #mask_ty) << #k;
                    #store
                    #rank
                },
            )
        });
        let rng = rng.map(|e| quote_spanned!(e.span()=> #e));
        let picked = match policy {
            Policy::Random => quote! {
                ::__bt::__private::pick(#rng, #accepted as ::core::primitive::u128).unwrap_or(#n)
            },
            Policy::Shuffle => {
                let field = names::keep_field(self.id, Keep::Used);
                let fresh_round = names::candidates();
                quote! {{
                    let mut #fresh_round = #accepted & !#keep.#field;
                    if #fresh_round == 0 {
                        #keep.#field = 0;
                        #fresh_round = #accepted;
                    }
                    ::__bt::__private::pick(#rng, #fresh_round as ::core::primitive::u128).unwrap_or(#n)
                }}
            }
            Policy::Scored | Policy::Prioritized | Policy::Sequential => quote!(#best),
        };
        let scored = (policy == Policy::Scored).then(|| {
            quote! {
                let mut #best: ::core::primitive::usize = #n;
                let mut #best_score: ::core::primitive::f32 = 0.0;
            }
        });
        let arms = (0..n).map(|k| {
            let c = children[k];
            let take = self.g.tree.node(c).binding().map(|_| {
                let slot = slot(k);
                quote! {
                    let ::core::option::Option::Some(#value) = #slot else {
                        ::core::unreachable!()
                    };
                }
            });
            let activate = self.activate(k);
            let k = Literal::usize_unsuffixed(k);
            quote!(#k => { #take #activate })
        });
        quote! {
            if #limit == #n {
                #(#slots)*
                let mut #accepted: #mask_ty = 0;
                #scored
                #(#checks)*
                let #pick: ::core::primitive::usize = #picked;
                match #pick {
                    #(#arms)*
                    _ => {}
                }
            }
        }
    }

    /// Runs the active child: `Running` and `Success` end the tick,
    /// `Failure` redecides; no active child fails the group.
    fn run(&self) -> TokenStream {
        let (g, id) = (self.g, self.id);
        let node = g.tree.node(id);
        let (label, place, ty) = (g.label(id), g.place(id), g.type_ident(id));
        let (r, i, fresh, nodes) = (
            names::result(),
            names::index(),
            names::fresh(),
            names::nodes(),
        );
        let (running, ok, fail) = (
            status(Status::Running),
            status(Status::Success),
            status(Status::Failure),
        );
        let none_accepted = g.trace(2, id, quote!(NoneAccepted));
        if !node.has_state {
            return quote! {
                #none_accepted
                break #label #fail;
            };
        }
        let arms = node
            .children
            .iter()
            .enumerate()
            .filter(|(_, c)| g.tree.node(**c).can_run)
            .map(|(k, &c)| {
                let child = g.tree.node(c);
                let pattern = g.variant_pattern(id, c, &[Field::State, Field::Value, Field::Since]);
                let bind = child.binding().map(|(pat, _)| {
                    let v = field_local(Field::Value);
                    quote!(let #pat = &*#v else { ::core::unreachable!() };)
                });
                let state = child.has_state.then(|| {
                    let child_place = g.place(c);
                    let s = field_local(Field::State);
                    quote!(let #child_place = #s;)
                });
                let cont = self.has_cx.then(|| {
                    let active_for = if g.tree.activation_times {
                        let t = field_local(Field::Since);
                        let now = names::now();
                        quote!(::core::option::Option::Some(#now - *#t))
                    } else {
                        quote!(::core::option::Option::None)
                    };
                    let trace = g.trace(
                        4,
                        id,
                        quote!(Continue { child: &#nodes[#c], active_for: #active_for }),
                    );
                    quote!(if !#fresh { #trace })
                });
                let eval = g.eval(c);
                quote! {
                    #pattern => {
                        #cont
                        #bind
                        #state
                        #eval
                        (#r, #k)
                    }
                }
            });
        let ended_ok = self.end_trace(ok.clone());
        let ended_fail = self.end_trace(fail.clone());
        let on_fail = self.on_fail();
        quote! {
            let (#r, #i): (::__bt::Status, ::core::primitive::usize) = match #place {
                #(#arms)*
                #ty::Idle => {
                    #none_accepted
                    break #label #fail;
                }
            };
            match #r {
                #running => break #label #running,
                #ok => {
                    #ended_ok
                    *#place = #ty::Idle;
                    break #label #ok;
                }
                #fail => {
                    #ended_fail
                    *#place = #ty::Idle;
                    #on_fail
                }
            }
        }
    }

    /// The whole group: the decision loop around `choose` and the run.
    fn assemble(&self, choose: TokenStream) -> TokenStream {
        let (g, id, n) = (self.g, self.id, self.n);
        let node = g.tree.node(id);
        let (label, place, mask_ty) = (g.label(id), g.place(id), &self.mask_ty);
        let (redo, decide) = (names::redecide(id), names::decide(id));
        let (mask, limit, fresh) = (names::mask(), names::limit(), names::fresh());
        let redecide_count = names::redecides();
        // Which children may activate: those before the active one in a
        // `prioritized` group, none while another policy's child is active.
        let limit_value = if !node.has_state {
            quote!(#n)
        } else if self.policy == Policy::Prioritized {
            quote!(#place.index())
        } else {
            quote!(if #place.index() == #n { #n } else { 0 })
        };
        let run = self.run();
        let count = self
            .redecides
            .map(|_| quote!(let mut #redecide_count: ::core::primitive::u32 = 0;));
        let fresh_decl = self.has_cx.then(|| quote!(let mut #fresh = false;));
        quote! {
            #label: {
                let mut #mask: #mask_ty = 0;
                #count
                #redo: loop {
                    #fresh_decl
                    let #limit: ::core::primitive::usize = #limit_value;
                    #decide: {
                        #choose
                    }
                    #run
                }
            }
        }
    }
}

/// The local a decider variant field is bound to.
pub(super) fn field_local(field: Field) -> proc_macro2::Ident {
    match field {
        Field::State => names::decider_state(),
        Field::Value => names::decider_value(),
        Field::Since => names::decider_since(),
    }
}
