//! Per-agent state types and halting.
//!
//! A composite that runs one child at a time stores an enum whose variant is
//! the running child and holds that child's state, so exclusive branches
//! share bytes. A `parallel` stores a struct: completion masks and the state
//! of each child that has one. `repeat`/`retry` store their count beside the
//! child's state. Decorators that only map statuses have their child's state.
//! Every state's `Default` is "not running", and every node leaves its state
//! at `Default` when it finishes or is halted.
//!
//! Halting is deepest-first: a node halts its running child (recursively,
//! innermost first) and then resets itself; a `parallel` halts its children
//! in order.

use super::{Gen, mask_for, names, uint_for};
use crate::ir::Kind;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    /// Body of the generated `reset` method.
    pub(super) fn reset_body(&self) -> TokenStream {
        if self.tree.node(0).has_state {
            self.halt_place(0, quote!(&mut self.root))
        } else {
            TokenStream::new()
        }
    }

    /// Halts the state of node `id` found at `place` (an expression of type
    /// `&mut` its state type).
    pub(super) fn halt_place(&self, id: usize, place: TokenStream) -> TokenStream {
        let node = self.tree.node(id);
        match &node.kind {
            Kind::Leaf { path, .. } => {
                let leaf = self.leaf_trait(path);
                let agent = self.agent_arg();
                let memory = names::memory();
                quote! {
                    if let ::core::option::Option::Some(mut #memory) = ::core::option::Option::take(#place) {
                        #leaf::halt(&mut #memory, #agent);
                    }
                }
            }
            Kind::Subtree { path, args, paren } => {
                let call = self.subtree_call(path, "halt", place, args, *paren);
                quote!(#call;)
            }
            kind if kind.is_transparent() => self.halt_place(node.children[0], place),
            Kind::Wait(_) => quote!(*(#place) = ::core::option::Option::None;),
            Kind::Sync { .. } => quote!(*(#place) = false;),
            _ => {
                let args = self.args();
                quote!((#place).halt(#args);)
            }
        }
    }

    /// The named state types of every node that has one, with their `halt`.
    pub(super) fn state_types(&self) -> TokenStream {
        (0..self.tree.nodes.len())
            .filter(|&id| self.tree.has_named_type(id))
            .map(|id| self.state_type(id))
            .collect()
    }

    fn state_type(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let params = self.params();
        let derive = quote! {
            #[doc(hidden)]
            #[derive(::core::default::Default, ::core::clone::Clone, ::core::fmt::Debug)]
            #[allow(non_camel_case_types)]
        };
        let (definition, halt) = match &node.kind {
            Kind::Parallel { .. } => self.parallel_type(id),
            Kind::Repeat(n) | Kind::Retry(n) => self.counter_type(id, *n),
            Kind::Decider { .. } => self.decider_type(id),
            Kind::Scope { exit, .. } => self.scope_type(id, exit.as_ref()),
            Kind::Timeout(_) => self.timed_type(id, false),
            Kind::Delay(_) => self.timed_type(id, true),
            Kind::Gate(_) => self.flagged_type(id, "held", "holds a permit of the gate"),
            Kind::GlobalCooldown(_) => {
                self.flagged_type(id, "active", "entered past the cooldown and runs its child")
            }
            Kind::Rendezvous { n, .. } => self.member_type(id, *n),
            _ => self.one_of_type(id),
        };
        let index = self.is_decider(id).then(|| {
            let n = node.children.len();
            let arms = node
                .children
                .iter()
                .enumerate()
                .filter(|(_, c)| self.tree.node(**c).can_run)
                .map(|(k, &c)| {
                    let pattern = self.decider_pattern(id, c, &[]);
                    quote!(#pattern => #k,)
                });
            quote! {
                /// Position of the active child among the group's children;
                /// the number of children when none is active.
                #[inline]
                fn index(&self) -> usize {
                    match self {
                        #(#arms)*
                        Self::Idle => #n,
                    }
                }
            }
        });
        quote! {
            #derive
            #definition

            impl #ident {
                /// Halts the running children, deepest first, then resets.
                #[inline]
                #[allow(unused_variables, clippy::all)]
                fn halt(&mut self, #params) {
                    #halt
                }

                #index
            }
        }
    }

    /// `enum { Idle, N4(state of n4), N5, .. }`: one variant per child that
    /// can be running, holding that child's state.
    fn one_of_type(&self, id: usize) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(" State of{}: which child is running.", node.describe());
        let mut variants = Vec::new();
        let mut halts = Vec::new();
        for &c in &node.children {
            let child = self.tree.node(c);
            if !child.can_run {
                continue;
            }
            let variant = self.variant(c);
            let child_doc = format!("{} is running.", child.describe());
            if child.has_state {
                let ty = self.ty(c);
                variants.push(quote!(#[doc = #child_doc] #variant(#ty),));
                let x = names::matched();
                let halt = self.halt_place(c, quote!(#x));
                halts.push(quote!(Self::#variant(#x) => { #halt }));
            } else {
                variants.push(quote!(#[doc = #child_doc] #variant,));
            }
        }
        enum_with_halt(&ident, &doc, "No child is running.", &variants, &halts)
    }

    /// `enum { Idle, N4(state, value, since), .. }` for a decider group:
    /// one variant per child that can be active.
    fn decider_type(&self, id: usize) -> (TokenStream, TokenStream) {
        use super::decide::{Field, field_local};
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(
            " State of{}: the active child, its state, the value its guard bound and when it \
             activated.",
            node.describe()
        );
        let mut variants = Vec::new();
        let mut halts = Vec::new();
        for &c in &node.children {
            let child = self.tree.node(c);
            if !child.can_run {
                continue;
            }
            let variant = self.variant(c);
            let child_doc = format!("{} is active.", child.describe());
            let fields = self.decider_fields(c);
            if fields.is_empty() {
                variants.push(quote!(#[doc = #child_doc] #variant,));
            } else {
                let tys = fields.iter().map(|(_, ty)| ty);
                variants.push(quote!(#[doc = #child_doc] #variant(#(#tys),*),));
            }
            if child.has_state {
                let pattern = self.decider_pattern(id, c, &[Field::State]);
                let halt = self.halt_place(c, {
                    let s = field_local(Field::State);
                    quote!(#s)
                });
                halts.push(quote!(#pattern => { #halt }));
            }
        }
        enum_with_halt(&ident, &doc, "No child is active.", &variants, &halts)
    }

    /// `struct { active, child, t }` for a `scope` whose child can run.
    fn scope_type(&self, id: usize, exit: Option<&syn::Expr>) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(" State of{}: whether it was entered.", node.describe());
        let (child_field, halt_child) = self.child_field(id);
        let since = self.tree.context.as_ref().map(|_| {
            quote!(/// When the scope was entered.
                t: f64,)
        });
        let exit = exit.map(|e| quote!(let _ = #e;));
        let definition = quote! {
            #[doc = #doc]
            struct #ident {
                /// `enter` ran and `exit` has not.
                active: bool,
                #child_field
                #since
            }
        };
        let halt = quote! {
            if self.active {
                #halt_child
                self.active = false;
                #exit
            }
        };
        (definition, halt)
    }

    /// `struct { start, [passed], child }` for `timeout` and `delay`.
    fn timed_type(&self, id: usize, delay: bool) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(" State of{}: when it started.", node.describe());
        let (child_field, halt_child) = self.child_field(id);
        let passed = delay.then(|| {
            quote!(/// The delay is over; the child runs.
            passed: bool,)
        });
        let reset_passed = delay.then(|| quote!(self.passed = false;));
        let definition = quote! {
            #[doc = #doc]
            struct #ident {
                /// First tick of the current run.
                start: ::core::option::Option<f64>,
                #passed
                #child_field
            }
        };
        let halt = quote! {
            #halt_child
            self.start = ::core::option::Option::None;
            #reset_passed
        };
        (definition, halt)
    }

    /// `struct { <flag>: bool, child }` for `gate` and `global_cooldown`;
    /// halting gives a gate's permit back.
    fn flagged_type(&self, id: usize, flag: &str, what: &str) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(" State of{}.", node.describe());
        let flag_doc = format!(" The agent {what}.");
        let flag = quote::format_ident!("{}", flag);
        let (child_field, halt_child) = self.child_field(id);
        let release = matches!(node.kind, Kind::Gate(_)).then(|| {
            let shared = &self.tree.shared;
            let field = self.shared_field(id);
            quote!(::__bt::__private::gate_leave(&#shared.#field);)
        });
        let definition = quote! {
            #[doc = #doc]
            struct #ident {
                #[doc = #flag_doc]
                #flag: bool,
                #child_field
            }
        };
        let halt = quote! {
            if self.#flag {
                #halt_child
                self.#flag = false;
                #release
            }
        };
        (definition, halt)
    }

    /// `struct { member, child }` for `rendezvous`: halting leaves the group.
    fn member_type(&self, id: usize, n: u32) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(" State of{}: this agent's membership.", node.describe());
        let (child_field, halt_child) = self.child_field(id);
        let shared = &self.tree.shared;
        let field = self.shared_field(id);
        let n = proc_macro2::Literal::u32_unsuffixed(n);
        let definition = quote! {
            #[doc = #doc]
            struct #ident {
                /// Phase, group, role and `sync` points passed.
                member: ::__bt::__private::Member,
                #child_field
            }
        };
        let halt = quote! {
            match self.member.phase {
                ::__bt::__private::Phase::Idle => {}
                ::__bt::__private::Phase::Waiting => {
                    ::__bt::__private::rendezvous_leave(&#shared.#field, self.member.generation, #n);
                }
                ::__bt::__private::Phase::Meeting => {
                    #halt_child
                    ::__bt::__private::rendezvous_leave(&#shared.#field, self.member.generation, #n);
                }
            }
            self.member = ::core::default::Default::default();
        };
        (definition, halt)
    }

    /// `child: <state>` and its halt, when the only child has state.
    fn child_field(&self, id: usize) -> (TokenStream, TokenStream) {
        let c = self.tree.node(id).children[0];
        if !self.tree.node(c).has_state {
            return (TokenStream::new(), TokenStream::new());
        }
        let ty = self.ty(c);
        let child_doc = format!(" State of{}.", self.tree.node(c).describe());
        (
            quote!(#[doc = #child_doc] child: #ty,),
            self.halt_place(c, quote!(&mut self.child)),
        )
    }

    /// `struct { succeeded, failed, n4: state of n4, .. }`.
    fn parallel_type(&self, id: usize) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(
            " State of{}: which children finished, and the state of those that may run.",
            node.describe()
        );
        let mask = mask_for(node.children.len());
        let mut fields = Vec::new();
        let mut halts = Vec::new();
        for &c in &node.children {
            let child = self.tree.node(c);
            if !child.has_state {
                continue;
            }
            let field = self.field(c);
            let ty = self.ty(c);
            let child_doc = format!(" State of{}.", child.describe());
            fields.push(quote!(#[doc = #child_doc] #field: #ty,));
            halts.push(self.halt_place(c, quote!(&mut self.#field)));
        }
        let definition = quote! {
            #[doc = #doc]
            struct #ident {
                /// Bit `i` set: child `i` succeeded.
                succeeded: #mask,
                /// Bit `i` set: child `i` failed.
                failed: #mask,
                #(#fields)*
            }
        };
        let halt = quote! {
            #(#halts)*
            self.succeeded = 0;
            self.failed = 0;
        };
        (definition, halt)
    }

    /// `struct { count, child: state of the child }` for `repeat` / `retry`.
    fn counter_type(&self, id: usize, n: u32) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(" State of{}: finished runs of the child.", node.describe());
        let count = uint_for(n.into());
        let c = node.children[0];
        let (field, halt_child) = if self.tree.node(c).has_state {
            let ty = self.ty(c);
            let child_doc = format!(" State of{}.", self.tree.node(c).describe());
            (
                quote!(#[doc = #child_doc] child: #ty,),
                self.halt_place(c, quote!(&mut self.child)),
            )
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        let definition = quote! {
            #[doc = #doc]
            struct #ident {
                /// Runs of the child that ended the way that continues the loop.
                count: #count,
                #field
            }
        };
        let halt = quote! {
            #halt_child
            self.count = 0;
        };
        (definition, halt)
    }
}

/// `enum Ident { Idle, variants.. }` and its halt: halt the child of the
/// current variant (`halts` are the match arms), then become `Idle`.
fn enum_with_halt(
    ident: &proc_macro2::Ident,
    doc: &str,
    idle_doc: &str,
    variants: &[TokenStream],
    halts: &[TokenStream],
) -> (TokenStream, TokenStream) {
    let idle_doc = format!(" {idle_doc}");
    let halt_match = (!halts.is_empty()).then(|| {
        quote! {
            match self {
                #(#halts)*
                _ => {}
            }
        }
    });
    let definition = quote! {
        #[doc = #doc]
        enum #ident {
            #[doc = #idle_doc]
            #[default]
            Idle,
            #(#variants)*
        }
    };
    let halt = quote! {
        #halt_match
        *self = Self::Idle;
    };
    (definition, halt)
}
