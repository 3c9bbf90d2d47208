//! Deferred requests: the tree's `MAX_REQUESTS_PER_TICK` and the routing of
//! answers (`answer`). The `request` node's tick is in `tick.rs`, its halt
//! (the cancellation) in `state.rs`.

use super::{Gen, names};
use crate::ir::{Keep, Kind};
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    /// The most `Start`s node `id`'s subtree pushes in one tick, as a
    /// constant expression. A request that is sent returns `Running`, which
    /// stops every composite but a `parallel`: so one per request node, an
    /// embedded tree's own bound, the sum over a parallel's children, the
    /// maximum over any other node's.
    fn max_requests(&self, id: usize) -> Bound {
        let node = self.tree.node(id);
        let children = node.children.iter().map(|&c| self.max_requests(c));
        match &node.kind {
            Kind::Request { .. } => Bound {
                known: 1,
                embedded: Vec::new(),
            },
            Kind::Subtree { path, .. } => Bound {
                known: 0,
                embedded: vec![quote!(<#path as ::__bt::BehaviorTree>::MAX_REQUESTS_PER_TICK)],
            },
            // Every child may run in one tick: the sum.
            Kind::Parallel { .. } | Kind::ParallelAll { .. } => {
                children.fold(Bound::default(), |sum, b| Bound {
                    known: sum.known + b.known,
                    embedded: [sum.embedded, b.embedded].concat(),
                })
            }
            // One child at a time, or children in turn whose requests
            // end (or are cancelled) before the next one starts: the
            // maximum. A leaf without requests has no children: zero.
            Kind::Sequence
            | Kind::SequenceWithMemory
            | Kind::ReactiveSequence
            | Kind::Select
            | Kind::ReactiveSelect
            | Kind::AsyncSequence
            | Kind::AsyncSelect
            | Kind::TryCatch
            | Kind::IfThenElse
            | Kind::WhileDoElse
            | Kind::Invert
            | Kind::ForceSuccess
            | Kind::ForceFailure
            | Kind::KeepRunningUntilFailure
            | Kind::Repeat(_)
            | Kind::Retry(_)
            | Kind::ForEach { .. }
            | Kind::Decider { .. }
            | Kind::Scope { .. }
            | Kind::Wait(_)
            | Kind::Timeout(_)
            | Kind::Delay(_)
            | Kind::Cooldown(_)
            | Kind::RunOnce { .. }
            | Kind::Every(_)
            | Kind::After { .. }
            | Kind::Precondition { .. }
            | Kind::RunWhile { .. }
            | Kind::Gate(_)
            | Kind::GlobalCooldown(_)
            | Kind::Rendezvous { .. }
            | Kind::Sync { .. }
            | Kind::Monitor { .. }
            | Kind::Switch(_)
            | Kind::Cond(_)
            | Kind::Action(_)
            | Kind::Instant(_)
            | Kind::Constant(_)
            | Kind::Leaf { .. } => children.fold(Bound::default(), Bound::max),
        }
    }

    /// Whether answers can be for this tree: it has request nodes, or
    /// embeds trees that may.
    fn may_request(&self) -> bool {
        self.tree
            .nodes
            .iter()
            .any(|n| matches!(n.kind, Kind::Request { .. } | Kind::Subtree { .. }))
    }

    /// `const MAX_REQUESTS_PER_TICK` for the `BehaviorTree` impl, if the
    /// tree may make requests.
    pub(super) fn max_requests_const(&self) -> Option<TokenStream> {
        self.may_request().then(|| {
            let max = self.max_requests(0).tokens();
            quote!(const MAX_REQUESTS_PER_TICK: ::core::primitive::usize = #max;)
        })
    }

    /// `Embed::answer`, if the tree may make requests: the ticket's slot
    /// among this tree's own request nodes, else each embedded tree in
    /// turn. A slot accepts only the request it holds (same stream, same
    /// generation), so the slot numbers of different trees never mix.
    pub(super) fn embed_answer(&self) -> Option<TokenStream> {
        if !self.may_request() {
            return None;
        }
        let arms: Vec<TokenStream> = self
            .tree
            .nodes
            .iter()
            .filter_map(|node| {
                let Kind::Request { slot, .. } = node.kind else {
                    return None;
                };
                let field = names::keep_field(node.id, Keep::Answer);
                Some(quote!(#slot => keep.#field.answer(ticket, outcome),))
            })
            .collect();
        let own = (!arms.is_empty()).then(|| {
            quote! {
                let own: ::core::result::Result<(), ::__bt::request::Stale> = match ticket.slot {
                    #(#arms)*
                    _ => ::core::result::Result::Err(::__bt::request::Stale(ticket)),
                };
                if own.is_ok() {
                    return own;
                }
            }
        });
        let embedded = self.tree.nodes.iter().filter_map(|node| {
            let path = node.kind.subtree()?;
            let field = names::keep_field(node.id, Keep::Subtree);
            Some(quote! {
                if <#path as ::__bt::__private::Embed>::answer(&mut keep.#field, ticket, outcome).is_ok() {
                    return ::core::result::Result::Ok(());
                }
            })
        });
        Some(quote! {
            fn answer(
                keep: &mut Self::Keep,
                ticket: ::__bt::request::Ticket,
                outcome: ::__bt::Outcome,
            ) -> ::core::result::Result<(), ::__bt::request::Stale> {
                #own
                #(#embedded)*
                ::core::result::Result::Err(::__bt::request::Stale(ticket))
            }
        })
    }

    /// `answer` on the tree's state type, and its `Answer` impl, if the
    /// tree may make requests.
    pub(super) fn answer_impl(&self) -> Option<TokenStream> {
        if !self.may_request() {
            return None;
        }
        let name = &self.tree.name;
        let vis = &self.tree.vis;
        Some(quote! {
            impl #name {
                /// Hands the outcome of the request `ticket` names (one this
                /// agent's tree pushed, or a tree it embeds) to its node,
                /// which returns it on its next tick. A ticket no node waits
                /// for (an older request, one made before `reset`, one
                /// answered already) is refused with `Stale` and changes
                /// nothing.
                #vis fn answer(
                    &mut self,
                    ticket: ::__bt::request::Ticket,
                    outcome: ::__bt::Outcome,
                ) -> ::core::result::Result<(), ::__bt::request::Stale> {
                    <Self as ::__bt::__private::Embed>::answer(&mut self.keep, ticket, outcome)
                }
            }

            impl ::__bt::request::Answer for #name {
                #[inline]
                fn answer(
                    &mut self,
                    ticket: ::__bt::request::Ticket,
                    outcome: ::__bt::Outcome,
                ) -> ::core::result::Result<(), ::__bt::request::Stale> {
                    #name::answer(self, ticket, outcome)
                }
            }
        })
    }
}

/// A bound on requests per tick: a number known here, and the bounds of
/// embedded trees (their constants), added to it.
#[derive(Default)]
struct Bound {
    known: usize,
    embedded: Vec<TokenStream>,
}

impl Bound {
    /// The larger of two bounds, as simple as what is known allows.
    fn max(self, other: Bound) -> Bound {
        match (self.embedded.is_empty(), other.embedded.is_empty()) {
            (true, true) => Bound {
                known: self.known.max(other.known),
                embedded: Vec::new(),
            },
            (false, true) if other.known <= self.known => self,
            (true, false) if self.known <= other.known => other,
            _ => {
                let (a, b) = (self.tokens(), other.tokens());
                Bound {
                    known: 0,
                    embedded: vec![quote!(::__bt::__private::max_of(&[#a, #b]))],
                }
            }
        }
    }

    /// The constant expression: the known number plus the embedded bounds.
    fn tokens(&self) -> TokenStream {
        let (known, embedded) = (self.known, &self.embedded);
        match (known, embedded.is_empty()) {
            (_, true) => quote!(#known),
            (0, false) => quote!(#(#embedded)+*),
            _ => quote!(#known #(+ #embedded)*),
        }
    }
}
