//! The `BehaviorTree` impl: the static node table and the walk over an
//! agent's active path.

use super::{Gen, names};
use crate::ir::Kind;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    pub(super) fn behavior_tree_impl(&self) -> TokenStream {
        let name = &self.tree.name;
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
                }
            }
        });
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
                const NAME: &'static str = #name_str;
                const NODES: &'static [::__bt::NodeInfo] = &[#(#nodes),*];

                #[inline]
                fn is_active(&self) -> bool {
                    <Self as ::__bt::__private::Embed>::is_active(&self.active)
                }

                fn visit_active<F: ::core::ops::FnMut(::__bt::ActiveNode)>(&self, depth: usize, visit: &mut F) {
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
                #[allow(unused_variables)]
                fn is_active(#active_local: &#active_ty) -> bool {
                    #is_active
                }

                #[allow(unused_variables, clippy::all)]
                fn visit_active<F: ::core::ops::FnMut(::__bt::ActiveNode)>(#active_local: &#active_ty, #depth: usize, #visitor: &mut F) {
                    #visit
                }
            }
        }
    }

    /// `bool` expression: does the state of node `id` at `place` (a `&` to
    /// it) hold a running node?
    fn active(&self, id: usize, place: TokenStream) -> TokenStream {
        let node = self.tree.node(id);
        match &node.kind {
            Kind::Leaf { .. } => quote!(::core::option::Option::is_some(#place)),
            Kind::Subtree { path, .. } => {
                quote!(<#path as ::__bt::__private::Embed>::is_active(#place))
            }
            kind if kind.is_transparent() => self.active(node.children[0], place),
            Kind::Wait(_) => quote!(::core::option::Option::is_some(#place)),
            Kind::Scope { .. } | Kind::GlobalCooldown(_) => quote!((#place).active),
            Kind::Gate(_) => quote!((#place).held),
            Kind::Rendezvous { .. } => {
                quote!((#place).member.phase != ::__bt::__private::Phase::Idle)
            }
            Kind::Sync { .. } => quote!(*(#place)),
            Kind::Timeout(_) | Kind::Delay(_) => {
                quote!(::core::option::Option::is_some(&(#place).start))
            }
            Kind::Parallel { .. } => {
                let children = node
                    .children
                    .iter()
                    .filter(|&&c| self.tree.node(c).has_state)
                    .map(|&c| {
                        let field = self.field(c);
                        self.active(c, quote!(&(#place).#field))
                    });
                quote!(((#place).succeeded | (#place).failed) != 0 #(|| #children)*)
            }
            Kind::Repeat(_) | Kind::Retry(_) => {
                let c = node.children[0];
                let child = self.tree.node(c).has_state.then(|| {
                    let child = self.active(c, quote!(&(#place).child));
                    quote!(|| #child)
                });
                quote!((#place).count != 0 #child)
            }
            _ => {
                let ty = self.type_ident(id);
                quote!(!::core::matches!(*(#place), #ty::Idle))
            }
        }
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
        let node = self.tree.node(id);
        let tree_name = &self.tree.name;
        let (depth, visitor) = (names::depth(), names::visitor());
        let node_depth = node.depth;
        let own_since = match (&node.kind, &place) {
            (Kind::Wait(_), Some(place)) => Some(quote!(*(#place))),
            (Kind::Timeout(_) | Kind::Delay(_), Some(place)) => Some(quote!((#place).start)),
            (Kind::Scope { .. }, Some(place)) if self.tree.context.is_some() => {
                Some(quote!(::core::option::Option::Some((#place).t)))
            }
            _ => None,
        };
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
        let child_state = |field: TokenStream| {
            let c = node.children[0];
            if self.tree.node(c).has_state {
                let active = self.active(c, field.clone());
                let visit = self.visit(c, Some(field), None);
                quote!(if #active { #visit })
            } else {
                TokenStream::new()
            }
        };
        let below = match (&node.kind, place) {
            (kind, place) if kind.is_transparent() => self.visit(node.children[0], place, None),
            (Kind::Wait(_) | Kind::Sync { .. }, _) => TokenStream::new(),
            (
                Kind::Scope { .. }
                | Kind::Timeout(_)
                | Kind::Delay(_)
                | Kind::Gate(_)
                | Kind::GlobalCooldown(_)
                | Kind::Rendezvous { .. },
                Some(place),
            ) => child_state(quote!(&(#place).child)),
            (Kind::Decider { .. }, Some(place)) => {
                use super::decide::{Field, field_local};
                let arms = node
                    .children
                    .iter()
                    .filter(|&&c| self.tree.node(c).can_run)
                    .map(|&c| {
                        let pattern = self.decider_pattern(id, c, &[Field::State, Field::Since]);
                        let has_since = self.tree.context.is_some();
                        let since = has_since.then(|| {
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
            (_, None) | (Kind::Leaf { .. }, _) => TokenStream::new(),
            (Kind::Subtree { path, .. }, Some(place)) => {
                quote!(<#path as ::__bt::__private::Embed>::visit_active(#place, #depth + #node_depth + 1, #visitor);)
            }
            (Kind::Parallel { .. }, Some(place)) => {
                let v = names::value();
                let children = node
                    .children
                    .iter()
                    .filter(|&&c| self.tree.node(c).has_state)
                    .map(|&c| {
                        let field = self.field(c);
                        let active = self.active(c, quote!(&#v.#field));
                        let visit = self.visit(c, Some(quote!(&#v.#field)), None);
                        quote!(if #active { #visit })
                    });
                quote! {
                    let #v = #place;
                    #(#children)*
                }
            }
            (Kind::Repeat(_) | Kind::Retry(_), Some(place)) => {
                let c = node.children[0];
                if self.tree.node(c).has_state {
                    let active = self.active(c, quote!(&(#place).child));
                    let visit = self.visit(c, Some(quote!(&(#place).child)), None);
                    quote!(if #active { #visit })
                } else {
                    TokenStream::new()
                }
            }
            (_, Some(place)) => {
                let ty = self.type_ident(id);
                let arms = node
                    .children
                    .iter()
                    .filter(|&&c| self.tree.node(c).can_run)
                    .map(|&c| {
                        let variant = self.variant(c);
                        if self.tree.node(c).has_state {
                            let x = names::matched_child(c);
                            let visit = self.visit(c, Some(quote!(#x)), None);
                            quote!(#ty::#variant(#x) => { #visit })
                        } else {
                            let visit = self.visit(c, None, None);
                            quote!(#ty::#variant => { #visit })
                        }
                    });
                quote! {
                    match #place {
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
