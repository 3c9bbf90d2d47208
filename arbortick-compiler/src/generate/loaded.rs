//! Checks of loaded states (`#[bt(serde)]`): every value a saved state
//! holds is checked against what the tree allows before anything ticks.
//!
//! Each named state type gets a `__check` method, the tree's active and keep
//! parts get theirs through `Saved`, and the `<Tree>Shared` object a
//! `check` of its counters against the agents loaded with it. A check walks
//! the state as `halt` does: the running variant of each composite, every
//! field of a record. What it checks, node by node:
//! - `repeat`/`retry` counts below their bound; `sequence_with_memory` and
//!   `sequential` positions below the number of children; `run_once` marks
//!   0, 1 or 2; `shuffle` and `parallel` masks within the children, a child
//!   never both succeeded and failed, running bits only for children whose
//!   leaf the parallel holds, finished children below the thresholds;
//! - every time a number (infinite deadlines are legal: `-inf` is a
//!   cooldown that never ran);
//! - the value a running decider child's `when let` bound matches its
//!   pattern (the tick relies on it);
//! - a rendezvous member's role below `n`; a request's answer a status;
//! - embedded trees, through their own checks.
//!
//! The checks also report, for this tree's own `gate`s and `rendezvous`,
//! what each agent holds (a permit, a membership), which the shared
//! object's `check` counts.

use super::{Gen, names, suffixed};
use crate::ir::{Count, Field, Keep, Kind, Release, Shape};
use crate::kinds::Row as _;
use crate::kinds::Shared;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{ToTokens, quote};

impl Gen<'_> {
    /// `&<Tree as BehaviorTree>::NODES[id]`.
    fn node_info(&self, id: usize) -> TokenStream {
        let name = &self.tree.name;
        let id = Literal::usize_unsuffixed(id);
        quote!(&<#name as ::__bt::BehaviorTree>::NODES[#id])
    }

    /// Checks the state of node `id` at `place` (a `&` expression of its
    /// state type), returning the first violation.
    fn check_place(&self, id: usize, place: TokenStream) -> TokenStream {
        let node = self.tree.node(id);
        let held = names::held();
        match &node.shape {
            // A leaf's memory is the user's type; the others hold nothing
            // that can be out of range.
            Shape::None
            | Shape::Leaf
            | Shape::Memory
            | Shape::LeafOf(_)
            | Shape::Arrived
            | Shape::Ticket
            | Shape::Tagged(_) => TokenStream::new(),
            Shape::Subtree => {
                let Kind::Subtree { path, .. } = &node.kind else {
                    unreachable!("only subtrees embed a tree")
                };
                // Its nodes report with their own tree's node infos. (That
                // it is saved at all is checked once, by `tree_serde`.)
                quote!(<#path as ::__bt::__private::Embed>::check_active(#place, #held)?;)
            }
            Shape::Child => self.check_place(node.children[0], place),
            Shape::Wait => {
                let info = self.node_info(id);
                quote! {
                    if let ::core::option::Option::Some(__t) = *#place {
                        ::__bt::__private::check::time(#info, "started", __t)?;
                    }
                }
            }
            Shape::OneOf | Shape::Decider | Shape::Record(_) => quote!((#place).__check(#held)?;),
        }
    }

    /// The `__check` method of node `id`'s named state type, with
    /// `#[bt(serde)]`.
    pub(super) fn check_method(&self, id: usize) -> TokenStream {
        if self.tree.serde.is_none() {
            return TokenStream::new();
        }
        let node = self.tree.node(id);
        let body = match &node.shape {
            Shape::Record(fields) => self.check_record(id, fields),
            Shape::Tagged(_) => TokenStream::new(),
            _ => self.check_enum(id),
        };
        let held = names::held();
        quote! {
            /// Checks a loaded state: every value is one the node can hold.
            #[allow(unused_variables, irrefutable_let_patterns, clippy::all)]
            fn __check(
                &self,
                #held: &mut dyn ::core::ops::FnMut(&'static ::__bt::NodeInfo, ::__bt::__private::Held),
            ) -> ::core::result::Result<(), ::__bt::save::InvalidState> {
                #body
                ::core::result::Result::Ok(())
            }
        }
    }

    /// The running variant of a composite's enum: its child's state, the
    /// value its `when let` bound, when it activated.
    fn check_enum(&self, id: usize) -> TokenStream {
        use super::decide::{Field as Part, field_local};
        let node = self.tree.node(id);
        let arms: Vec<TokenStream> = node
            .children
            .iter()
            .filter(|&&c| self.tree.node(c).can_run)
            .filter_map(|&c| {
                let child = self.tree.node(c);
                let parts = self.variant_fields(c);
                let checks: Vec<TokenStream> = parts
                    .iter()
                    .map(|(part, _)| {
                        let local = field_local(*part);
                        match part {
                            Part::State => self.check_place(c, quote!(#local)),
                            Part::Value => {
                                let (pat, _) = child.binding().expect("a value has a binding");
                                let info = self.node_info(c);
                                quote! {
                                    let #pat = #local else {
                                        return ::core::result::Result::Err(::__bt::__private::check::no_match(#info));
                                    };
                                }
                            }
                            Part::Since => {
                                let info = self.node_info(c);
                                quote!(::__bt::__private::check::time(#info, "since", *#local)?;)
                            }
                        }
                    })
                    .filter(|check| !check.is_empty())
                    .collect();
                if checks.is_empty() {
                    return None;
                }
                let wanted: Vec<Part> = parts.iter().map(|(p, _)| *p).collect();
                let pattern = self.variant_pattern(id, c, &wanted);
                Some(quote!(#pattern => { #(#checks)* }))
            })
            .collect();
        if arms.is_empty() {
            return TokenStream::new();
        }
        quote! {
            match self {
                #(#arms)*
                _ => {}
            }
        }
    }

    /// Every field of a record.
    fn check_record(&self, id: usize, fields: &[Field]) -> TokenStream {
        let node = self.tree.node(id);
        let info = self.node_info(id);
        let held = names::held();
        let n = node.children.len();
        let all = Literal::u128_unsuffixed(u128::MAX >> (128 - n.max(1)));
        let mut checks = Vec::new();
        for field in fields {
            match field {
                Field::Latch(Release::Permit) => {
                    checks.push(quote! {
                        if self.active {
                            #held(#info, ::__bt::__private::Held::Permit);
                        }
                    });
                }
                Field::Latch(_) | Field::Passed | Field::Running => {}
                // An item only while the loop runs (any item value is one
                // the expression could have given).
                Field::Item => checks.push(quote! {
                    ::__bt::__private::check::at_most(#info, "item", self.item.is_some() as ::core::primitive::u128, self.active as ::core::primitive::u128)?;
                }),
                Field::Since => {
                    checks.push(quote!(::__bt::__private::check::time(#info, "t", self.t)?;));
                }
                Field::Count(bound) => {
                    let max = Literal::u128_unsuffixed(u128::from(*bound).saturating_sub(1));
                    checks.push(quote! {
                        ::__bt::__private::check::at_most(#info, "count", self.count as ::core::primitive::u128, #max)?;
                    });
                }
                Field::Masks { failed, running } => {
                    checks.push(self.check_masks(id, *failed, *running, &all));
                }
                Field::Member => {
                    let Kind::Rendezvous { n, .. } = &node.kind else {
                        unreachable!("only a rendezvous has members")
                    };
                    let max = below(n);
                    checks.push(quote! {
                        if self.member.phase != ::__bt::__private::Phase::Idle {
                            ::__bt::__private::check::at_most(#info, "role", self.member.role as ::core::primitive::u128, #max)?;
                            #held(#info, ::__bt::__private::Held::Member(self.member));
                        }
                    });
                }
                Field::Child | Field::Children => {
                    for (name, c) in self.child_fields(id, *field) {
                        checks.push(self.check_place(c, quote!(&self.#name)));
                    }
                }
            }
        }
        quote!(#(#checks)*)
    }

    /// A parallel's masks: within its children, disjoint, running bits only
    /// where it holds a leaf, finished children below its thresholds.
    fn check_masks(&self, id: usize, failed: bool, running: bool, all: &Literal) -> TokenStream {
        let node = self.tree.node(id);
        let info = self.node_info(id);
        let u128_ = quote!(::core::primitive::u128);
        let mut checks = vec![quote! {
            ::__bt::__private::check::bits(#info, "succeeded", self.succeeded as #u128_, #all)?;
        }];
        let finished = if failed {
            checks.push(quote! {
                ::__bt::__private::check::bits(#info, "failed", self.failed as #u128_, #all & !(self.succeeded as #u128_))?;
            });
            quote!((self.succeeded | self.failed))
        } else {
            quote!(self.succeeded)
        };
        if running {
            let held = node
                .children
                .iter()
                .enumerate()
                .filter(|(_, c)| self.running_bit(**c).is_some())
                .fold(0u128, |mask, (i, _)| mask | 1 << i);
            let held = Literal::u128_unsuffixed(held);
            checks.push(quote! {
                ::__bt::__private::check::bits(#info, "running", self.running as #u128_, #held & !(#finished as #u128_))?;
            });
        }
        let count = |mask: TokenStream, what: &str, threshold: &Count| {
            let max = below(threshold);
            quote! {
                ::__bt::__private::check::at_most(#info, #what, #mask.count_ones() as #u128_, #max)?;
            }
        };
        // A parallel's counts stay below what would have finished it.
        if let Kind::Parallel { success, failure } = &node.kind {
            checks.push(count(quote!(self.succeeded), "children succeeded", success));
            if failed {
                checks.push(count(quote!(self.failed), "children failed", failure));
            }
        } else if let Kind::ParallelAll { .. } = node.kind {
            let n = u32::try_from(node.children.len()).unwrap_or(u32::MAX);
            checks.push(count(finished, "children finished", &Count::Literal(n)));
        }
        quote!(#(#checks)*)
    }

    /// The body of `Saved::check_active`: the root's state and the armed
    /// monitors, of the active part `active`.
    pub(super) fn check_active_body(&self) -> TokenStream {
        let active = names::active();
        let mut checks = Vec::new();
        if self.tree.node(0).has_state {
            checks.push(self.check_place(0, quote!(&#active.root)));
        }
        let monitors = self.monitors().len();
        if monitors > 0 {
            let info = self.node_info(0);
            let allowed = Literal::u128_unsuffixed(u128::MAX >> (128 - monitors));
            checks.push(quote! {
                ::__bt::__private::check::bits(#info, "monitors", #active.monitors as ::core::primitive::u128, #allowed)?;
            });
        }
        quote!(#(#checks)*)
    }

    /// The body of `Saved::check_keep`: every slot of the keep part `keep`.
    pub(super) fn check_keep_body(&self) -> TokenStream {
        let keep = names::keep_part();
        let mut checks = Vec::new();
        for node in &self.tree.nodes {
            let info = self.node_info(node.id);
            let n = node.children.len();
            for &slot in &node.keep {
                let field = names::keep_field(node.id, slot);
                let what = field.to_string();
                let check = match slot {
                    Keep::Ready | Keep::Every | Keep::Period => {
                        quote!(::__bt::__private::check::time(#info, #what, #keep.#field)?;)
                    }
                    Keep::Once => {
                        quote!(::__bt::__private::check::at_most(#info, #what, #keep.#field as ::core::primitive::u128, 2)?;)
                    }
                    Keep::Next => {
                        let max = Literal::u128_unsuffixed(n.saturating_sub(1) as u128);
                        quote!(::__bt::__private::check::at_most(#info, #what, #keep.#field as ::core::primitive::u128, #max)?;)
                    }
                    Keep::Used => {
                        let all = Literal::u128_unsuffixed(u128::MAX >> (128 - n.max(1)));
                        quote!(::__bt::__private::check::bits(#info, #what, #keep.#field as ::core::primitive::u128, #all)?;)
                    }
                    Keep::Subtree => {
                        let Kind::Subtree { path, .. } = &node.kind else {
                            unreachable!("only subtrees keep a subtree's part")
                        };
                        quote!(<#path as ::__bt::__private::Embed>::check_keep(&#keep.#field)?;)
                    }
                    Keep::Answer => quote!(#keep.#field.check(#info)?;),
                };
                checks.push(check);
            }
        }
        quote!(#(#checks)*)
    }

    /// The shared object's checks: `__check_with` (its counters within
    /// their nodes' bounds, and with tallies, equal to what the agents
    /// hold) and the public `check` over the agents loaded with it.
    pub(super) fn shared_checks(&self, shared_ty: &Ident) -> TokenStream {
        if self.tree.serde.is_none() {
            return TokenStream::new();
        }
        let name = &self.tree.name;
        let vis = &self.tree.vis;
        let shared: Vec<(usize, Shared)> = self
            .tree
            .nodes
            .iter()
            .filter_map(|n| Some((n.id, n.row.info().shared?)))
            .collect();
        let k = Literal::usize_unsuffixed(shared.len());
        let tallies = names::tallies();
        let mut counters = Vec::new();
        let mut arms = Vec::new();
        for (i, &(id, kind)) in shared.iter().enumerate() {
            let node = self.tree.node(id);
            let (field, info) = (self.shared_field(id), self.node_info(id));
            let i = Literal::usize_unsuffixed(i);
            let tally = quote!(#tallies.map(|__t| &__t[#i]));
            let id_lit = Literal::usize_unsuffixed(id);
            match kind {
                Shared::Gate => {
                    let Kind::Gate(capacity) = &node.kind else {
                        unreachable!("the table's gate is a gate")
                    };
                    let capacity = suffixed(capacity);
                    counters.push(quote! {
                        ::__bt::__private::check_gate(&self.#field, #info, #capacity, #tally)?;
                    });
                    arms.push(
                        quote!(#id_lit => __tally[#i].add(::core::option::Option::None, __h),),
                    );
                }
                Shared::Rendezvous => {
                    let Kind::Rendezvous { n, .. } = &node.kind else {
                        unreachable!("the table's rendezvous is a rendezvous")
                    };
                    let n = suffixed(n);
                    counters.push(quote! {
                        ::__bt::__private::check_rendezvous(&self.#field, #info, #n, #tally)?;
                    });
                    arms.push(quote!(#id_lit => __tally[#i].add(::core::option::Option::Some(&self.#field), __h),));
                }
                Shared::Cooldown => counters.push(quote! {
                    ::__bt::__private::check_cooldown(&self.#field, #info)?;
                }),
            }
        }
        let doc = format!(
            " Checks this shared object against the agents saved and loaded with it, before \
             any of them ticks: each gate's permits taken are exactly those its agents hold, \
             each rendezvous' group has exactly the members its agents say, with distinct \
             roles, and every counter is within its node's bounds. Loading each agent already \
             checked its own state; this checks what they share. The agents are `{name}` \
             states, or states of a tree that embeds `{name}` and ticks it with this object."
        );
        let hash = quote!(<#name as ::__bt::BehaviorTree>::LAYOUT_HASH);
        let type_name = shared_ty.to_string();
        let fields = quote!(&["layout", "counters"]);
        let impls = super::save::serde_impls(shared_ty, quote!(serialize_shared));
        quote! {
            impl #shared_ty {
                #[doc = #doc]
                #vis fn check<'__a, A: ::__bt::__private::Saved + '__a>(
                    &self,
                    agents: impl ::core::iter::IntoIterator<Item = &'__a A>,
                ) -> ::core::result::Result<(), ::__bt::save::InvalidState> {
                    let mut __tally = [::__bt::__private::Tally::default(); #k];
                    for __agent in agents {
                        let (__active, _) = <A as ::__bt::__private::Embed>::split(__agent);
                        <A as ::__bt::__private::Embed>::check_active(__active, &mut |__node, __h| {
                            if __node.tree != <#name as ::__bt::BehaviorTree>::NAME {
                                return;
                            }
                            match __node.id {
                                #(#arms)*
                                _ => {}
                            }
                        })?;
                    }
                    self.__check_with(::core::option::Option::Some(&__tally))
                }

                /// Checks the counters against their nodes' bounds, and
                /// with tallies, against what the agents hold.
                #[allow(clippy::all)]
                fn __check_with(
                    &self,
                    #tallies: ::core::option::Option<&[::__bt::__private::Tally; #k]>,
                ) -> ::core::result::Result<(), ::__bt::save::InvalidState> {
                    #(#counters)*
                    ::core::result::Result::Ok(())
                }
            }

            impl ::__bt::__private::SharedCounters for #shared_ty {
                const NAME: &'static ::core::primitive::str = #type_name;
                const HASH: ::core::primitive::u64 = #hash;
                fn save<S: ::__bt::__private::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    #shared_ty::serialize(self, serializer)
                }
                fn load<'de, D: ::__bt::__private::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    #shared_ty::deserialize(deserializer)
                }
            }

            impl<'de> ::__bt::__private::Load<'de> for #shared_ty {
                const NAME: &'static ::core::primitive::str = #type_name;
                const HASH: ::core::primitive::u64 = #hash;
                const FIELDS: &'static [&'static ::core::primitive::str] = #fields;
                type Parts = (::__bt::__private::Counters<#shared_ty>,);
                fn assemble((__counters,): Self::Parts) -> ::core::result::Result<Self, ::__bt::save::InvalidState> {
                    let __shared = __counters.0;
                    __shared.__check_with(::core::option::Option::None)?;
                    ::core::result::Result::Ok(__shared)
                }
            }

            #impls
        }
    }
}

/// One less than `count`, as a `u128` (0 for 0): the most a counter that
/// stops at `count` holds.
fn below(count: &Count) -> TokenStream {
    match count.literal() {
        Some(n) => Literal::u128_unsuffixed(u128::from(n).saturating_sub(1)).to_token_stream(),
        None => quote!((#count as ::core::primitive::u128).saturating_sub(1)),
    }
}
