//! `if_then_else` and `while_do_else`: a condition child picks one of two
//! branches. The state is the composite enum (`Shape::OneOf`): the running
//! branch, or the condition while it runs.
//!
//! `if_then_else` checks its condition once and runs the picked branch to
//! the end. `while_do_else` checks it every tick and switches branch (halting
//! the other) when it changes.

use super::{Gen, names, status};
use bt_runtime::Status;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    /// `if_then_else { condition, then, else }`: the condition runs once
    /// (to the end, if it returns Running); on Success the second child
    /// runs, on Failure the third (or, without one, the node fails). The
    /// picked branch runs until it finishes, and its status is the node's.
    pub(super) fn if_then_else(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        let (label, place) = (self.label(id), self.place(id));
        let (c, then) = (node.children[0], node.children[1]);
        let otherwise = node.children.get(2).copied();
        let (r, pick) = (names::result(), names::pick());
        let (ok, fail, running) = (
            status(Status::Success),
            status(Status::Failure),
            status(Status::Running),
        );
        // A finished condition left the enum `Idle`.
        let on_failure = match otherwise {
            Some(_) => quote!(false),
            None => quote!(break #label #fail),
        };
        let decide = names::decide(id);
        // A running branch resumes; otherwise the condition (re)runs.
        let branches = [Some((then, true)), otherwise.map(|b| (b, false))];
        let arms: Vec<TokenStream> = branches
            .into_iter()
            .flatten()
            .filter_map(|(b, to)| {
                let pattern = self.variant_test(id, b)?;
                Some(quote!(#pattern => break #decide #to,))
            })
            .collect();
        let resume = (!arms.is_empty()).then(|| {
            quote! {
                match *#place {
                    #(#arms)*
                    _ => {}
                }
            }
        });
        let condition = self.in_variant(id, c, false);
        let branch = |b: usize| self.in_variant(id, b, false);
        let else_branch = match otherwise {
            Some(b) => branch(b),
            None => quote!(#fail),
        };
        let then_branch = branch(then);
        quote! {
            #label: {
                let #pick: ::core::primitive::bool = #decide: {
                    #resume
                    let #r: ::__bt::Status = #condition;
                    match #r {
                        #ok => true,
                        #fail => #on_failure,
                        #running => break #label #running,
                    }
                };
                if #pick { #then_branch } else { #else_branch }
            }
        }
    }

    /// `while_do_else { condition, do, else }`: the condition runs every
    /// tick; on Success the second child runs, on Failure the third (or,
    /// without one, the node fails), and the branch not picked is halted.
    /// A condition that returns Running makes the node return Running; it
    /// then keeps the condition's state, so a branch that was running is
    /// halted (BehaviorTree.CPP leaves it running without ticking it).
    pub(super) fn while_do_else(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        let (label, place, _) = self.frame(id);
        let (c, then) = (node.children[0], node.children[1]);
        let otherwise = node.children.get(2).copied();
        let r = names::result();
        let args = self.halt_args();
        let (ok, fail, running) = (
            status(Status::Success),
            status(Status::Failure),
            status(Status::Running),
        );
        let halt = node.has_state.then(|| quote!(#place.halt(#args);));
        let condition = self.reactive_condition(id, c);
        let then_branch = self.in_variant(id, then, true);
        let else_branch = match otherwise {
            Some(b) => self.in_variant(id, b, true),
            None => quote!({ #halt #fail }),
        };
        quote! {
            #label: {
                let #r: ::__bt::Status = #condition;
                match #r {
                    #ok => #then_branch,
                    #fail => #else_branch,
                    #running => #running,
                }
            }
        }
    }

    /// Evaluates the condition `c` of `while_do_else` `id` into `__r`
    /// without disturbing a running branch: on a fresh state unless the
    /// condition itself was running, moved into the enum (halting the
    /// branch) only if it returns Running.
    fn reactive_condition(&self, id: usize, c: usize) -> TokenStream {
        let child = self.tree.node(c);
        let eval = self.eval(c);
        let r = names::result();
        let Some(pattern) = self.variant_test(id, c) else {
            return quote!({ #eval #r });
        };
        let (place, ty, variant) = (self.place(id), self.type_ident(id), self.variant(c));
        let args = self.halt_args();
        if !child.has_state {
            return quote! {{
                #eval
                if #r.is_running() && !::core::matches!(*#place, #pattern) {
                    #place.halt(#args);
                    *#place = #ty::#variant;
                }
                #r
            }};
        }
        let (child_place, child_ty) = (self.place(c), self.ty(c));
        let (temp, x) = (names::temp(), names::matched());
        quote! {{
            let mut #temp: ::core::option::Option<#child_ty> = ::core::option::Option::None;
            let #child_place = match #place {
                #ty::#variant(#x) => #x,
                _ => #temp.insert(::core::default::Default::default()),
            };
            #eval
            if #r.is_running() {
                if let ::core::option::Option::Some(#temp) = #temp {
                    #place.halt(#args);
                    *#place = #ty::#variant(#temp);
                }
            }
            #r
        }}
    }

    /// The pattern matching child `c`'s variant in composite `id`'s enum,
    /// if `c` can be running.
    fn variant_test(&self, id: usize, c: usize) -> Option<TokenStream> {
        let child = self.tree.node(c);
        if !child.can_run {
            return None;
        }
        let (ty, variant) = (self.type_ident(id), self.variant(c));
        Some(if child.has_state {
            quote!(#ty::#variant(..))
        } else {
            quote!(#ty::#variant)
        })
    }

    /// Evaluates child `c` of composite `id` (whose state is an enum) into
    /// `__r`, with its state in the enum: entered fresh unless the enum holds
    /// it already (`halt_other`: halting what the enum held first), left
    /// `Idle` when the child finishes and holding it while it runs.
    pub(super) fn in_variant(&self, id: usize, c: usize, halt_other: bool) -> TokenStream {
        let node = self.tree.node(id);
        let child = self.tree.node(c);
        let eval = self.eval(c);
        let r = names::result();
        let Some(pattern) = self.variant_test(id, c).filter(|_| node.has_state) else {
            // A branch that cannot run has no variant: the other branch,
            // if it was running, is halted all the same.
            let halt = (halt_other && node.has_state).then(|| {
                let (place, args) = (self.place(id), self.halt_args());
                quote!(#place.halt(#args);)
            });
            return quote!({ #halt #eval #r });
        };
        let (place, ty, variant) = (self.place(id), self.type_ident(id), self.variant(c));
        let halt = halt_other.then(|| {
            let args = self.halt_args();
            quote!(#place.halt(#args);)
        });
        let fresh = if child.has_state {
            quote!(#ty::#variant(::core::default::Default::default()))
        } else {
            quote!(#ty::#variant)
        };
        let bind = child.has_state.then(|| {
            let (child_place, x) = (self.place(c), names::matched());
            quote! {
                let #child_place = match #place {
                    #ty::#variant(#x) => #x,
                    _ => ::core::unreachable!(),
                };
            }
        });
        quote! {{
            if !::core::matches!(*#place, #pattern) {
                #halt
                *#place = #fresh;
            }
            #bind
            #eval
            if #r.is_done() {
                *#place = #ty::Idle;
            }
            #r
        }}
    }
}
