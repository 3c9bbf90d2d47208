//! Deferred requests: the tree's `MAX_REQUESTS_PER_TICK` and its `answer`
//! method. The `request` node's tick is in `tick.rs`, its halt (the
//! cancellation) in `state.rs`.

use super::{Gen, names};
use crate::ir::{Keep, Kind};
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

impl Gen<'_> {
    /// The most `Start`s node `id`'s subtree pushes in one tick. A request
    /// that is sent returns `Running`, which stops every composite but a
    /// `parallel`: so one per request node, the sum over a parallel's
    /// children, the maximum over any other node's.
    fn max_requests(&self, id: usize) -> usize {
        let node = self.tree.node(id);
        let children = node.children.iter().map(|&c| self.max_requests(c));
        match node.kind {
            Kind::Request { .. } => 1,
            Kind::Parallel { .. } | Kind::ParallelAll { .. } => children.sum(),
            _ => children.max().unwrap_or(0),
        }
    }

    /// `const MAX_REQUESTS_PER_TICK` for the `BehaviorTree` impl, if the
    /// tree has request nodes.
    pub(super) fn max_requests_const(&self) -> Option<TokenStream> {
        let max = self.max_requests(0);
        (max > 0).then(|| {
            let max = Literal::usize_unsuffixed(max);
            quote!(const MAX_REQUESTS_PER_TICK: usize = #max;)
        })
    }

    /// Embedded trees must not make requests: their tickets would name
    /// slots of their own, which the embedding tree's `answer` cannot
    /// route. Checked where the types are known, at compile time.
    pub(super) fn embedded_requests_check(&self) -> TokenStream {
        self.tree
            .nodes
            .iter()
            .filter_map(|node| match &node.kind {
                Kind::Subtree { path, .. } => {
                    Some(quote_spanned! {syn::spanned::Spanned::span(path)=>
                        const _: () = ::core::assert!(
                            <#path as ::__bt::BehaviorTree>::MAX_REQUESTS_PER_TICK == 0,
                            "a tree with `request` nodes cannot be embedded in another tree: \
                             write its requests in the embedding tree"
                        );
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// `answer` on the tree's state type, and its `Answer` impl, if the
    /// tree has request nodes.
    pub(super) fn answer_impl(&self) -> Option<TokenStream> {
        let arms: Vec<TokenStream> = self
            .tree
            .nodes
            .iter()
            .filter_map(|node| match node.kind {
                Kind::Request { slot, .. } => {
                    let field = names::keep_field(node.id, Keep::Answer);
                    let doc = format!(" Slot {slot}:{}", node.describe());
                    Some(quote! {
                        #[doc = #doc]
                        #slot => self.keep.#field.answer(ticket, outcome),
                    })
                }
                _ => None,
            })
            .collect();
        if arms.is_empty() {
            return None;
        }
        let name = &self.tree.name;
        let vis = &self.tree.vis;
        Some(quote! {
            impl #name {
                /// Hands the outcome of the request `ticket` names (one this
                /// agent's tree pushed) to its node, which returns it on its
                /// next tick. A ticket no node waits for (an older request,
                /// one made before `reset`, one answered already) is refused
                /// with [`Stale`](::__bt::request::Stale) and changes nothing.
                #vis fn answer(
                    &mut self,
                    ticket: ::__bt::request::Ticket,
                    outcome: ::__bt::request::Outcome,
                ) -> ::core::result::Result<(), ::__bt::request::Stale> {
                    match ticket.slot {
                        #(#arms)*
                        _ => ::core::result::Result::Err(::__bt::request::Stale(ticket)),
                    }
                }
            }

            impl ::__bt::request::Answer for #name {
                #[inline]
                fn answer(
                    &mut self,
                    ticket: ::__bt::request::Ticket,
                    outcome: ::__bt::request::Outcome,
                ) -> ::core::result::Result<(), ::__bt::request::Stale> {
                    #name::answer(self, ticket, outcome)
                }
            }
        })
    }
}
