//! The `BehaviorTree` impl: the static node table and the walk over an
//! agent's active path.

use super::{Gen, names};
use crate::ir::{Field, Kind, Shape};
use crate::kinds::Row as _;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    pub(super) fn behavior_tree_impl(&self) -> TokenStream {
        let name = &self.tree.name;
        let hot = self
            .hot
            .then(|| quote!(hot: ::core::default::Default::default(),));
        // A live agent's active path is the interpreter's.
        let (live_is_active, live_visit) = if self.hot {
            (
                quote! {
                    if let ::core::option::Option::Some(live) = self.hot.live() {
                        return live.is_active();
                    }
                },
                quote! {
                    if let ::core::option::Option::Some(live) = self.hot.live() {
                        return live.visit_active(depth, visit);
                    }
                },
            )
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        let name_str = name.to_string();
        let nodes = self.tree.nodes.iter().map(|node| {
            let id = node.id;
            let kind = syn::Ident::new(node.row.info().runtime, proc_macro2::Span::call_site());
            let label = match &node.label {
                Some(l) => quote!(::core::option::Option::Some(#l)),
                None => quote!(::core::option::Option::None),
            };
            let parent = match node.parent {
                Some(p) => quote!(::core::option::Option::Some(#p)),
                None => quote!(::core::option::Option::None),
            };
            let (depth, line, column, detail) = (node.depth, node.line, node.column, &node.detail);
            let can_run = node.can_run;
            let guard = match &node.guard {
                Some(g) => {
                    let text = &g.text;
                    quote!(::core::option::Option::Some(#text))
                }
                None => quote!(::core::option::Option::None),
            };
            quote! {
                ::__bt::NodeInfo {
                    tree: #name_str,
                    id: #id,
                    kind: ::__bt::NodeKind::#kind,
                    label: #label,
                    parent: #parent,
                    depth: #depth,
                    line: #line,
                    column: #column,
                    detail: #detail,
                    guard: #guard,
                    can_run: #can_run,
                }
            }
        });
        let views = self.view_consts();
        let layout = self.layout_hash();
        let max_requests = self.max_requests_const();
        let embed_answer = self.embed_answer();
        let embed_checks = self.embed_checks();
        let root = self.tree.node(0);
        let active_local = names::active();
        let (is_active, visit) = if root.has_state {
            let active = self.active(0, quote!(&#active_local.root));
            let visit = self.visit(0, Some(quote!(&#active_local.root)), None);
            let guarded = quote!(if #active { #visit });
            (active, guarded)
        } else {
            (quote!(false), TokenStream::new())
        };
        let (depth, visitor) = (names::depth(), names::visitor());
        let active_ty = self.active_ident();
        let keep_ty = self.keep_ty();
        let parts = self.parts_ident();
        let keep_param = names::keep_part();
        let a = syn::Lifetime::new("'__a", proc_macro2::Span::mixed_site());
        quote! {
            impl ::__bt::BehaviorTree for #name {
                const NAME: &'static ::core::primitive::str = #name_str;
                const NODES: &'static [::__bt::NodeInfo] = &[#(#nodes),*];
                #views
                const LAYOUT_HASH: ::core::primitive::u64 = #layout;
                #max_requests

                #[inline]
                fn is_active(&self) -> ::core::primitive::bool {
                    #live_is_active
                    <Self as ::__bt::__private::Embed>::is_active(&self.active)
                }

                fn visit_active<F: ::core::ops::FnMut(::__bt::ActiveNode)>(&self, depth: ::core::primitive::usize, visit: &mut F) {
                    #live_visit
                    <Self as ::__bt::__private::Embed>::visit_active(&self.active, depth, visit)
                }
            }

            impl ::__bt::__private::Embed for #name {
                type Active = #active_ty;
                type Keep = #keep_ty;
                type Parts<#a> = #parts<#a>;

                #[inline]
                fn parts<#a>(active: &#a mut #active_ty, #keep_param: &#a mut #keep_ty) -> #parts<#a> {
                    #parts { active, keep: #keep_param }
                }

                #[inline]
                fn from_parts(active: #active_ty, keep: #keep_ty) -> Self {
                    #name { active, keep, #hot }
                }

                #[inline]
                fn split(&self) -> (&#active_ty, &#keep_ty) {
                    (&self.active, &self.keep)
                }

                #embed_answer

                #embed_checks

                #[inline]
                #[allow(unused_variables)]
                fn is_active(#active_local: &#active_ty) -> ::core::primitive::bool {
                    #is_active
                }

                #[allow(unused_variables, clippy::all)]
                fn visit_active<F: ::core::ops::FnMut(::__bt::ActiveNode)>(#active_local: &#active_ty, #depth: ::core::primitive::usize, #visitor: &mut F) {
                    #visit
                }
            }
        }
    }

    /// `bool` expression: does the state of node `id` at `place` (a `&` to
    /// it) hold a running node?
    fn active(&self, id: usize, place: TokenStream) -> TokenStream {
        let node = self.tree.node(id);
        match &node.shape {
            Shape::None => quote!(false),
            // Its parent's variant exists only while it runs.
            Shape::Memory | Shape::LeafOf(_) => quote!(true),
            Shape::Leaf | Shape::Wait | Shape::Ticket => {
                quote!(::core::option::Option::is_some(#place))
            }
            Shape::Subtree => {
                let Kind::Subtree { path, .. } = &node.kind else {
                    unreachable!("only subtrees embed a tree")
                };
                quote!(<#path as ::__bt::__private::Embed>::is_active(#place))
            }
            Shape::Child => self.active(node.children[0], place),
            Shape::Arrived => quote!(*(#place)),
            // Asked of the named type, so that deep trees stay linear.
            Shape::OneOf | Shape::Tagged(_) | Shape::Decider | Shape::Record(_) => {
                quote!((#place).is_active())
            }
        }
    }

    /// The body of a named state type's `is_active(&self)`.
    pub(super) fn is_active_body(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        let Shape::Record(fields) = &node.shape else {
            return quote!(!::core::matches!(*self, Self::Idle));
        };
        // A latch or membership is set for as long as anything below runs;
        // without one, ask the fields and the children.
        let mut tests = Vec::new();
        for &field in fields {
            match field {
                Field::Latch(_) => return quote!(self.active),
                Field::Member => {
                    return quote!(self.member.phase != ::__bt::__private::Phase::Idle);
                }
                Field::Count(_) => tests.push(quote!(self.count != 0)),
                Field::Masks { failed, running } => {
                    let masks = [
                        Some(quote!(self.succeeded)),
                        failed.then(|| quote!(self.failed)),
                        running.then(|| quote!(self.running)),
                    ];
                    let masks = masks.iter().flatten();
                    tests.push(quote!((#(#masks)|*) != 0));
                }
                Field::Child | Field::Children => {
                    for (name, c) in self.child_fields(id, field) {
                        // A leaf's memory held bare runs if its bit in the
                        // `running` mask, tested above, is set.
                        if self.running_bit(c).is_none() {
                            tests.push(self.active(c, quote!(&self.#name)));
                        }
                    }
                }
                Field::Since | Field::Passed | Field::Running | Field::Item => {}
            }
        }
        if tests.is_empty() {
            quote!(false)
        } else {
            quote!(#(#tests)||*)
        }
    }

    /// Whether node `id`'s part of the walk is a method of its state type
    /// (`__visit_active`), so that no function grows with the tree.
    pub(super) fn visits_apart(&self, id: usize) -> bool {
        id != 0 && self.large(id) && self.tree.has_named_type(id)
    }

    /// The `__visit_active` method of node `id`'s state type, if it has one.
    pub(super) fn visit_method(&self, id: usize) -> Option<TokenStream> {
        if !self.visits_apart(id) {
            return None;
        }
        let (depth, visitor, since) = (names::depth(), names::visitor(), names::since());
        let body = self.visit_here(id, Some(quote!(self)), Some(quote!(#since)));
        Some(quote! {
            /// Reports this node and its active descendants.
            #[allow(unused_variables, clippy::all)]
            fn __visit_active<F: ::core::ops::FnMut(::__bt::ActiveNode)>(
                &self,
                #depth: ::core::primitive::usize,
                #visitor: &mut F,
                #since: ::core::option::Option<::core::primitive::f64>,
            ) {
                #body
            }
        })
    }

    /// Reports node `id`, known to be active, then its active descendants.
    /// `place` is a `&` to its state, if it has one; `since` an
    /// `Option<f64>` expression for when it activated, if its parent knows.
    fn visit(
        &self,
        id: usize,
        place: Option<TokenStream>,
        since: Option<TokenStream>,
    ) -> TokenStream {
        match place {
            Some(place) if self.visits_apart(id) => {
                let (depth, visitor) = (names::depth(), names::visitor());
                let since = since.unwrap_or_else(|| quote!(::core::option::Option::None));
                quote!((#place).__visit_active(#depth, #visitor, #since);)
            }
            place => self.visit_here(id, place, since),
        }
    }

    /// Whether node `id` (a [`Shape::OneOf`]) has more children that can
    /// run without state than fit in one chunk of a wide composite: their
    /// variants are then visited through one computed index, since an arm
    /// each that reports its node would make the function's borrow check
    /// grow faster than the number of children.
    fn many_bare_children(&self, id: usize) -> bool {
        self.tree
            .node(id)
            .children
            .iter()
            .filter(|&&c| {
                let child = self.tree.node(c);
                child.can_run && !child.has_state
            })
            .count()
            > super::outline::CHUNK
    }

    /// The active child of node `id` (a [`Shape::OneOf`] whose state is
    /// at `place`): the children with state are visited in their arms;
    /// the others give their node id, reported once after the match.
    fn visit_bare_by_index(&self, id: usize, place: &TokenStream) -> TokenStream {
        let node = self.tree.node(id);
        let ty = self.type_ident(id);
        let tree_name = &self.tree.name;
        let (depth, visitor) = (names::depth(), names::visitor());
        let bare = names::index();
        let arms = node
            .children
            .iter()
            .filter(|&&c| self.tree.node(c).can_run)
            .map(|&c| {
                if self.tree.node(c).has_state {
                    self.visit_arm(id, c, quote!(::core::primitive::usize::MAX))
                } else {
                    let variant = self.variant(c);
                    quote!(#ty::#variant => #c,)
                }
            });
        let child_depth = node.depth + 1;
        // `usize::MAX`: no child without state runs.
        quote! {
            let #bare: ::core::primitive::usize = match #place {
                #(#arms)*
                _ => ::core::primitive::usize::MAX,
            };
            if #bare != ::core::primitive::usize::MAX {
                #visitor(::__bt::ActiveNode {
                    info: &<#tree_name as ::__bt::BehaviorTree>::NODES[#bare],
                    depth: #depth + #child_depth,
                    since: ::core::option::Option::None,
                });
            }
        }
    }

    /// The arm of node `id`'s match that visits its child `c`, which has
    /// state, held in `c`'s variant; the arm's value is `then`.
    fn visit_arm(&self, id: usize, c: usize, then: TokenStream) -> TokenStream {
        let (ty, variant) = (self.type_ident(id), self.variant(c));
        let x = names::matched_child(c);
        let visit = self.visit(c, Some(quote!(#x)), None);
        quote!(#ty::#variant(#x) => { #visit #then })
    }

    /// [`Gen::visit`], written out here.
    fn visit_here(
        &self,
        id: usize,
        place: Option<TokenStream>,
        since: Option<TokenStream>,
    ) -> TokenStream {
        let node = self.tree.node(id);
        let tree_name = &self.tree.name;
        let (depth, visitor) = (names::depth(), names::visitor());
        let node_depth = node.depth;
        let own_since = place.as_ref().and_then(|place| match &node.shape {
            Shape::Wait => Some(quote!(*(#place))),
            Shape::Record(fields) if fields.contains(&Field::Since) => {
                Some(quote!(::core::option::Option::Some((#place).t)))
            }
            _ => None,
        });
        let since = own_since
            .or(since)
            .unwrap_or_else(|| quote!(::core::option::Option::None));
        let report = quote! {
            #visitor(::__bt::ActiveNode {
                info: &<#tree_name as ::__bt::BehaviorTree>::NODES[#id],
                depth: #depth + #node_depth,
                since: #since,
            });
        };
        let place = match (&node.shape, place) {
            // A decorator passes its state, or none, to its child.
            (Shape::Child, place) => {
                let below = self.visit(node.children[0], place, None);
                return quote!(#report #below);
            }
            (_, Some(place)) => place,
            // Nothing else runs below a node without state.
            (_, None) => return report,
        };
        let below = match &node.shape {
            Shape::Child
            | Shape::None
            | Shape::Leaf
            | Shape::Memory
            | Shape::Wait
            | Shape::Ticket
            | Shape::Arrived => TokenStream::new(),
            Shape::Subtree => {
                let Kind::Subtree { path, .. } = &node.kind else {
                    unreachable!("only subtrees embed a tree")
                };
                quote!(<#path as ::__bt::__private::Embed>::visit_active(#place, #depth + #node_depth + 1, #visitor);)
            }
            // The leaf's memory is the whole state of this node and of the
            // one child of it that runs.
            Shape::LeafOf(_) => {
                let c = node
                    .children
                    .iter()
                    .copied()
                    .find(|&c| self.tree.node(c).can_run)
                    .expect("a node that is its leaf's memory has a child that runs");
                self.visit(c, Some(place), None)
            }
            Shape::Record(fields) => {
                // Several children: name the record once.
                let several = fields.contains(&Field::Children);
                let v = names::value();
                let record = if several {
                    quote!(#v)
                } else {
                    quote!((#place))
                };
                let children =
                    fields
                        .iter()
                        .flat_map(|&f| self.child_fields(id, f))
                        .map(|(name, c)| {
                            let active = match self.running_bit(c) {
                                Some(bit) => quote!(#record.running & #bit != 0),
                                None => self.active(c, quote!(&#record.#name)),
                            };
                            // A tag is visited with the memory beside it.
                            let place = match self.tree.node(c).shape {
                                Shape::Tagged(_) => {
                                    let m = names::memory_field(c);
                                    quote!((&#record.#name, &#record.#m))
                                }
                                _ => quote!(&#record.#name),
                            };
                            let visit = self.visit(c, Some(place), None);
                            quote!(if #active { #visit })
                        });
                let bind = several.then(|| quote!(let #v = #place;));
                quote!(#bind #(#children)*)
            }
            Shape::Decider => {
                use super::decide::{Field, field_local};
                let arms = node
                    .children
                    .iter()
                    .filter(|&&c| self.tree.node(c).can_run)
                    .map(|&c| {
                        let pattern = self.variant_pattern(id, c, &[Field::State, Field::Since]);
                        let since = self.tree.activation_times.then(|| {
                            let t = field_local(Field::Since);
                            quote!(::core::option::Option::Some(*#t))
                        });
                        let state = self.tree.node(c).has_state.then(|| {
                            let s = field_local(Field::State);
                            quote!(#s)
                        });
                        let visit = self.visit(c, state, since);
                        quote!(#pattern => { #visit })
                    });
                quote! {
                    match #place {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
            // A tag is visited with the memory beside it, which is the
            // state of its running child with state.
            Shape::OneOf if self.many_bare_children(id) => self.visit_bare_by_index(id, &place),
            Shape::OneOf | Shape::Tagged(_) => {
                let ty = self.type_ident(id);
                let tagged = matches!(node.shape, Shape::Tagged(_));
                let (tag, memory) = (names::matched_child(id), names::memory_place(id));
                let arms = node
                    .children
                    .iter()
                    .filter(|&&c| self.tree.node(c).can_run)
                    .map(|&c| {
                        let variant = self.variant(c);
                        let stateful = self.tree.node(c).has_state;
                        if stateful && !tagged {
                            self.visit_arm(id, c, TokenStream::new())
                        } else {
                            let visit = self.visit(c, stateful.then(|| quote!(#memory)), None);
                            quote!(#ty::#variant => { #visit })
                        }
                    });
                let (bind, scrutinee) = if tagged {
                    (quote!(let (#tag, #memory) = #place;), quote!(*#tag))
                } else {
                    (TokenStream::new(), quote!(#place))
                };
                quote! {
                    #bind
                    match #scrutinee {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        };
        quote! {
            #report
            #below
        }
    }
}
