//! The `BehaviorTree` impl: the static node table and the walk over an
//! agent's active path.

use super::{Gen, local};
use crate::ir::Kind;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    pub(super) fn behavior_tree_impl(&self) -> TokenStream {
        let name = &self.tree.name;
        let name_str = name.to_string();
        let nodes = self.tree.nodes.iter().map(|node| {
            let id = node.id;
            let kind = syn::Ident::new(node.kind.runtime_name(), proc_macro2::Span::call_site());
            let label = match &node.label {
                Some(l) => quote!(::core::option::Option::Some(#l)),
                None => quote!(::core::option::Option::None),
            };
            let parent = match node.parent {
                Some(p) => quote!(::core::option::Option::Some(#p)),
                None => quote!(::core::option::Option::None),
            };
            let (depth, line, column, detail) = (node.depth, node.line, node.column, &node.detail);
            quote! {
                ::bt::NodeInfo {
                    tree: #name_str,
                    id: #id,
                    kind: ::bt::NodeKind::#kind,
                    label: #label,
                    parent: #parent,
                    depth: #depth,
                    line: #line,
                    column: #column,
                    detail: #detail,
                }
            }
        });
        let root = self.tree.node(0);
        let (is_active, visit) = if root.has_state {
            let active = self.active(0, quote!(&self.root));
            let visit = self.visit(0, Some(quote!(&self.root)));
            let guarded = quote!(if #active { #visit });
            (active, guarded)
        } else {
            (quote!(false), TokenStream::new())
        };
        let (depth, visitor) = (local("__depth"), local("__visit"));
        quote! {
            impl ::bt::BehaviorTree for #name {
                const NAME: &'static str = #name_str;
                const NODES: &'static [::bt::NodeInfo] = &[#(#nodes),*];

                #[inline]
                fn is_active(&self) -> bool {
                    #is_active
                }

                #[allow(clippy::all)]
                fn visit_active<F: ::core::ops::FnMut(::bt::ActiveNode)>(&self, #depth: usize, #visitor: &mut F) {
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
            Kind::Subtree { .. } => quote!(::bt::BehaviorTree::is_active(#place)),
            kind if kind.is_transparent() => self.active(node.children[0], place),
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
    /// `place` is a `&` to its state, if it has one.
    fn visit(&self, id: usize, place: Option<TokenStream>) -> TokenStream {
        let node = self.tree.node(id);
        let (depth, visitor) = (local("__depth"), local("__visit"));
        let node_depth = node.depth;
        let report = quote! {
            #visitor(::bt::ActiveNode {
                info: &<Self as ::bt::BehaviorTree>::NODES[#id],
                depth: #depth + #node_depth,
            });
        };
        let below = match (&node.kind, place) {
            (kind, place) if kind.is_transparent() => self.visit(node.children[0], place),
            (_, None) | (Kind::Leaf { .. }, _) => TokenStream::new(),
            (Kind::Subtree { .. }, Some(place)) => {
                quote!(::bt::BehaviorTree::visit_active(#place, #depth + #node_depth + 1, #visitor);)
            }
            (Kind::Parallel { .. }, Some(place)) => {
                let v = local("__v");
                let children = node
                    .children
                    .iter()
                    .filter(|&&c| self.tree.node(c).has_state)
                    .map(|&c| {
                        let field = self.field(c);
                        let active = self.active(c, quote!(&#v.#field));
                        let visit = self.visit(c, Some(quote!(&#v.#field)));
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
                    let visit = self.visit(c, Some(quote!(&(#place).child)));
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
                            let x = local(&format!("__x{c}"));
                            let visit = self.visit(c, Some(quote!(#x)));
                            quote!(#ty::#variant(#x) => { #visit })
                        } else {
                            let visit = self.visit(c, None);
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
