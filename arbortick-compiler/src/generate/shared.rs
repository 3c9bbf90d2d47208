//! Synchronized trees: nodes whose state is shared by every agent of the
//! tree (`gate`, `global_cooldown`, `rendezvous` with its `sync` points),
//! `monitor`s, and `switch`, which picks a child at run time.
//!
//! Shared state lives in the generated `<Tree>Shared` struct, one field per
//! shared node, reached through the header's shared binding. Each agent
//! still keeps its own part (does it hold a permit, its role, ...) in its
//! state, so halting and `reset` give everything back.

use super::{Gen, names, status};
use crate::ast::Arm;
use crate::ir::{Count, Kind};
use crate::kinds::Row as _;
use crate::kinds::Shared;
use bt_runtime::Status;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

impl Gen<'_> {
    /// The field of node `id` in the shared struct: its label, else `n<id>`.
    pub(super) fn shared_field(&self, id: usize) -> Ident {
        names::shared_field(id, self.tree.node(id).label.as_deref())
    }

    /// `shared.<field>`.
    pub(super) fn shared_place(&self, id: usize) -> TokenStream {
        let shared = &self.tree.shared;
        let field = self.shared_field(id);
        quote!(#shared.#field)
    }

    /// The `<Tree>Shared` type, if the tree has shared nodes.
    pub(super) fn shared_type(&self) -> Option<TokenStream> {
        let fields: Vec<(Ident, TokenStream, String)> = self
            .tree
            .nodes
            .iter()
            .filter_map(|n| Some((n, n.row.info().shared?)))
            .map(|(n, shared)| {
                let ty = match shared {
                    Shared::Gate => {
                        // A gate's row describes `Kind::Gate`.
                        let capacity = if let Kind::Gate(capacity) = &n.kind {
                            quote!(#capacity)
                        } else {
                            quote!({ ::core::primitive::u32::MAX })
                        };
                        quote!(::__bt::shared::Gate<#capacity>)
                    }
                    Shared::Cooldown => quote!(::__bt::shared::GlobalCooldown),
                    Shared::Rendezvous => quote!(::__bt::shared::Rendezvous),
                };
                (
                    self.shared_field(n.id),
                    ty,
                    format!(" Shared state of{}.", n.describe()),
                )
            })
            .collect();
        if fields.is_empty() {
            return None;
        }
        let name = &self.tree.name;
        let vis = &self.tree.vis;
        let ident = names::shared_type(name);
        let doc = format!(
            " State of the `{name}` tree shared by every agent that ticks it: one field per \
             `gate`, `global_cooldown` and `rendezvous`, named by its label. Create one with \
             `{ident}::new()` and pass the same one to every agent's `tick`; it is `Sync`, so \
             agents may tick on many threads."
        );
        let decls = fields
            .iter()
            .map(|(f, ty, doc)| quote!(#[doc = #doc] pub #f: #ty,));
        let inits = fields.iter().map(|(f, ty, _)| quote!(#f: <#ty>::new(),));
        // Saved behind its tree's layout hash: serde's derive gives
        // inherent functions (`remote = "Self"`), which the trait impls of
        // `shared_checks` call.
        let remote = self
            .tree
            .serde
            .is_some()
            .then(|| quote!(#[serde(remote = "Self")]));
        let definition = self.saved_type(quote! {
            #remote
            #[doc = #doc]
            #[derive(::core::fmt::Debug, ::core::default::Default)]
            #vis struct #ident {
                #(#decls)*
            }
        });
        let checks = self.shared_checks(&ident);
        Some(quote! {
            #definition

            #checks

            impl #ident {
                /// Fresh shared state: gates empty, cooldowns ready, no
                /// rendezvous forming.
                #vis const fn new() -> Self {
                    #ident { #(#inits)* }
                }
            }
        })
    }

    /// The child's place and evaluation, inside a node whose state has a
    /// `child` field.
    pub(super) fn child_in_field(&self, id: usize) -> TokenStream {
        let c = self.tree.node(id).children[0];
        let place = self.place(id);
        let bind = self.tree.node(c).has_state.then(|| {
            let child_place = self.place(c);
            quote!(let #child_place = &mut #place.child;)
        });
        let eval = self.eval(c);
        quote!(#bind #eval)
    }

    /// `rendezvous(n) as role { child }`: join, wait (`Running`) until `n`
    /// members are there, then run the child with `role` bound.
    pub(super) fn rendezvous(&self, id: usize, n: &Count, role: &Ident) -> TokenStream {
        let label = self.label(id);
        let place = self.place(id);
        let shared = self.shared_place(id);
        let member = names::member(id);
        let (r, fail, running) = (
            names::result(),
            status(Status::Failure),
            status(Status::Running),
        );
        let (generation, assigned) = (names::generation(), names::role());
        let child = self.child_in_field(id);
        quote! {
            #label: {
                let #member = &mut #place.member;
                if #member.phase == ::__bt::__private::Phase::Idle {
                    match ::__bt::__private::rendezvous_join(&#shared, #n) {
                        ::core::option::Option::Some((#generation, #assigned)) => {
                            #member.phase = ::__bt::__private::Phase::Waiting;
                            #member.generation = #generation;
                            #member.role = #assigned as ::core::primitive::u8;
                            #member.syncs = 0;
                        }
                        ::core::option::Option::None => break #label #fail,
                    }
                }
                if #member.phase == ::__bt::__private::Phase::Waiting {
                    match ::__bt::__private::rendezvous_poll(&#shared, #member.generation, #n) {
                        ::__bt::__private::Meeting::Waiting => break #label #running,
                        ::__bt::__private::Meeting::Dissolved => {
                            *#member = ::core::default::Default::default();
                            break #label #fail;
                        }
                        ::__bt::__private::Meeting::Complete => {
                            #member.phase = ::__bt::__private::Phase::Meeting;
                        }
                    }
                }
                let #role: ::core::primitive::usize = #member.role as ::core::primitive::usize;
                #child
                if #r.is_done() {
                    let #member = &mut #place.member;
                    ::__bt::__private::rendezvous_leave(&#shared, #member.generation, #n);
                    *#member = ::core::default::Default::default();
                }
                #r
            }
        }
    }

    /// `sync`: counts this member's arrival once, then waits until every
    /// member arrived; fails if one left first.
    pub(super) fn sync(&self, id: usize, rendezvous: usize) -> TokenStream {
        let place = self.place(id);
        let shared = self.shared_place(rendezvous);
        let member = names::member(rendezvous);
        let Kind::Rendezvous { n, .. } = &self.tree.node(rendezvous).kind else {
            unreachable!("check puts every sync inside a rendezvous")
        };
        let (ok, fail, running) = (
            status(Status::Success),
            status(Status::Failure),
            status(Status::Running),
        );
        quote! {{
            if !*#place {
                ::__bt::__private::rendezvous_arrive(&#shared, #member.generation);
                *#place = true;
            }
            match ::__bt::__private::rendezvous_sync(&#shared, #member.generation, #n, ::core::primitive::u32::from(#member.syncs)) {
                ::__bt::__private::Sync::Passed => {
                    *#place = false;
                    #member.syncs += 1;
                    #ok
                }
                ::__bt::__private::Sync::Waiting => #running,
                ::__bt::__private::Sync::Broken => {
                    *#place = false;
                    #fail
                }
            }
        }}
    }

    /// `monitor(expr)`: like `cond`; when false it stays armed, and the
    /// tick's first step re-checks it (see [`Gen::monitor_prepass`]).
    pub(super) fn monitor(&self, expr: &syn::Expr, index: usize) -> TokenStream {
        let monitors = names::monitors();
        let bit = self.monitor_bit(index);
        let (ok, fail) = (status(Status::Success), status(Status::Failure));
        let test = quote_spanned!(expr.span()=> if #expr);
        quote! {{
            #test {
                *#monitors &= !#bit;
                #ok
            } else {
                *#monitors |= #bit;
                #fail
            }
        }}
    }

    fn monitor_bit(&self, index: usize) -> TokenStream {
        let ty = self.monitor_type();
        let index = Literal::usize_unsuffixed(index);
        quote!(((1 as #ty) << #index))
    }

    /// Monitors in the tree, as (node id, expression, index).
    pub(super) fn monitors(&self) -> Vec<(usize, &syn::Expr, usize)> {
        self.tree
            .nodes
            .iter()
            .filter_map(|n| {
                let Kind::Monitor { expr, index } = &n.kind else {
                    return None;
                };
                Some((n.id, expr, *index))
            })
            .collect()
    }

    /// The integer holding one "armed" bit per monitor.
    pub(super) fn monitor_type(&self) -> TokenStream {
        super::mask_for(self.monitors().len())
    }

    /// Before the tree: armed monitors are checked; the first that fires
    /// halts the active path (deepest first) and disarms every monitor, so
    /// the tree is evaluated from the root in this same tick.
    pub(super) fn monitor_prepass(&self) -> TokenStream {
        let monitors = self.monitors();
        if monitors.is_empty() {
            return TokenStream::new();
        }
        let fired = names::fired();
        let active = names::active();
        let tree_name = &self.tree.name;
        let checks = monitors.iter().map(|(id, expr, index)| {
            let bit = self.monitor_bit(*index);
            let test = quote_spanned!(expr.span()=> (#expr));
            quote! {
                if #fired.is_none() && #active.monitors & #bit != 0 && #test {
                    #fired = ::core::option::Option::Some(#id);
                }
            }
        });
        let halt = self
            .tree
            .node(0)
            .has_state
            .then(|| self.halt_place(0, quote!(&mut #active.root)));
        let trace = self.tree.context.as_ref().map(|cx| {
            quote! {
                if ::__bt::__private::trace_monitor(&#cx) {
                    ::__bt::__private::trace_emit(
                        &#cx,
                        1,
                        &<#tree_name as ::__bt::BehaviorTree>::NODES[0],
                        ::__bt::trace::Event::MonitorFired {
                            monitor: &<#tree_name as ::__bt::BehaviorTree>::NODES[node],
                        },
                    );
                }
            }
        });
        quote! {
            if #active.monitors != 0 {
                let mut #fired: ::core::option::Option<::core::primitive::usize> = ::core::option::Option::None;
                #(#checks)*
                if let ::core::option::Option::Some(node) = #fired {
                    let _ = node;
                    #trace
                    #halt
                    #active.monitors = 0;
                }
            }
        }
    }

    /// `switch(expr) { PATTERN => child, .. }`: the arm matching this tick
    /// runs; a different arm than last tick's halts the old one first.
    /// `switch_eq(expr) { VALUE => child, .., _ => child }` is the same
    /// `match`, each value a guard: `ref v if PartialEq::eq(v, &(VALUE))`,
    /// tried in order.
    pub(super) fn switch(&self, id: usize, expr: &syn::Expr) -> TokenStream {
        let node = self.tree.node(id);
        let (label, place, ty) = self.frame(id);
        let r = names::result();
        let args = self.halt_args();
        let x = names::matched();
        let arms = node.children.iter().map(|&c| {
            let child = self.tree.node(c);
            let pat = match child.arm.as_ref().expect("switch children are arms") {
                Arm::Pattern(pat) => quote!(#pat),
                Arm::Equals(case) => {
                    let v = names::value();
                    quote_spanned!(case.span()=> ref #v if ::core::cmp::PartialEq::eq(#v, &(#case)))
                }
            };
            let variant = self.variant(c);
            let eval = self.eval(c);
            if !node.has_state {
                return quote!(#pat => { #eval #r });
            }
            let this = match (child.can_run, child.has_state) {
                (false, _) => TokenStream::new(),
                (true, true) => quote!(| #ty::#variant(..)),
                (true, false) => quote!(| #ty::#variant),
            };
            let switch_away = quote! {
                if !::core::matches!(*#place, #ty::Idle #this) {
                    #place.halt(#args);
                }
            };
            let enter = if child.has_state {
                let child_place = self.place(c);
                quote! {
                    if ::core::matches!(*#place, #ty::Idle) {
                        *#place = #ty::#variant(::core::default::Default::default());
                    }
                    let #child_place = match #place {
                        #ty::#variant(#x) => #x,
                        _ => ::core::unreachable!(),
                    };
                }
            } else {
                TokenStream::new()
            };
            let remember = if !child.can_run {
                TokenStream::new()
            } else if child.has_state {
                quote!(if #r.is_done() { *#place = #ty::Idle; })
            } else {
                quote!(*#place = if #r.is_done() { #ty::Idle } else { #ty::#variant };)
            };
            quote! {
                #pat => {
                    #switch_away
                    #enter
                    #eval
                    #remember
                    #r
                }
            }
        });
        let scrutinee = quote_spanned!(expr.span()=> #expr);
        quote! {
            #label: {
                match #scrutinee {
                    #(#arms)*
                }
            }
        }
    }
}
