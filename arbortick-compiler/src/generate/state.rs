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
use crate::ir::{Field, Kind, Shape};
use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, quote};

impl Gen<'_> {
    /// Body of the generated `reset` method.
    pub(super) fn reset_body(&self) -> TokenStream {
        if self.tree.node(0).has_state {
            self.halt_place(0, quote!(&mut self.root))
        } else {
            TokenStream::new()
        }
    }

    /// The level-2 `Halted` event of the leaf whose node id `id` gives, in
    /// a tree whose context can trace (nothing for `Ctx` without a tracer,
    /// whose level is the constant 0).
    fn trace_halted(&self, id: TokenStream) -> Option<TokenStream> {
        let cx = self.tracing_context()?;
        let name = &self.tree.name;
        Some(quote! {
            if ::__bt::__private::trace_level(&#cx) >= 2 {
                ::__bt::__private::trace_emit(&#cx, 2, &<#name as ::__bt::BehaviorTree>::NODES[#id], ::__bt::trace::Event::Halted);
            }
        })
    }

    /// Halts the state of node `id` found at `place` (an expression of type
    /// `&mut` its state type).
    pub(super) fn halt_place(&self, id: usize, place: TokenStream) -> TokenStream {
        self.halt_place_as(id, place, None)
    }

    /// [`halt_place`](Self::halt_place); a leaf's `Halted` event names the
    /// node `halted` gives (for a tag, the leaf of the running child), else
    /// `id`.
    fn halt_place_as(
        &self,
        id: usize,
        place: TokenStream,
        halted: Option<TokenStream>,
    ) -> TokenStream {
        let halted =
            halted.unwrap_or_else(|| proc_macro2::Literal::usize_unsuffixed(id).to_token_stream());
        let node = self.tree.node(id);
        match &node.shape {
            Shape::None => TokenStream::new(),
            Shape::Leaf => self.halt_leaf_in_option(id, place, halted),
            Shape::Memory => {
                // The parent resets its variant after this.
                let Kind::Leaf { path, .. } = &node.kind else {
                    unreachable!("only leaves have leaf memory")
                };
                let leaf = self.leaf_trait(path);
                let agent = self.agent_arg();
                let halted = self.trace_halted(halted);
                quote!(#halted #leaf::halt(#place, #agent);)
            }
            Shape::Subtree => {
                let Kind::Subtree { path, args, paren } = &node.kind else {
                    unreachable!("only subtrees embed a tree")
                };
                let call = self.subtree_call(path, "halt", place, args, *paren);
                quote!(#call;)
            }
            Shape::Child => self.halt_place(node.children[0], place),
            Shape::LeafOf(leaf) => self.halt_place(*leaf, place),
            Shape::Wait => quote!(*(#place) = ::core::option::Option::None;),
            Shape::Ticket => {
                let Kind::Request { stream, slot, .. } = &node.kind else {
                    unreachable!("only requests hold a ticket")
                };
                let cx = self
                    .tree
                    .context
                    .as_ref()
                    .expect("checked: a request has a context");
                let g = names::generation();
                quote! {
                    if let ::core::option::Option::Some(#g) = ::core::option::Option::take(#place) {
                        ::__bt::__private::request_cancel(&mut *#stream, &#cx, #slot, #g);
                    }
                }
            }
            Shape::Arrived => quote!(*(#place) = false;),
            Shape::OneOf | Shape::Decider | Shape::Record(_) => {
                let args = self.halt_args();
                quote!((#place).halt(#args);)
            }
            Shape::Tagged(_) => unreachable!("a tag is halted with its memory: `halt_tagged`"),
        }
    }

    /// Halts stateful leaf `id` whose memory is in the `Option` at `place`
    /// (a `&mut` expression), if there is one; its `Halted` event names
    /// node `halted`.
    pub(super) fn halt_leaf_in_option(
        &self,
        id: usize,
        place: TokenStream,
        halted: TokenStream,
    ) -> TokenStream {
        let Kind::Leaf { path, .. } = &self.tree.node(id).kind else {
            unreachable!("only leaves have leaf memory")
        };
        let leaf = self.leaf_trait(path);
        let agent = self.agent_arg();
        let memory = names::memory();
        let halted = self.trace_halted(halted);
        quote! {
            if let ::core::option::Option::Some(mut #memory) = ::core::option::Option::take(#place) {
                #halted
                #leaf::halt(&mut #memory, #agent);
            }
        }
    }

    /// Halts the state of node `id` ([`Shape::Tagged`]) whose tag is at
    /// `place` and memory at `memory` (`&mut` expressions).
    pub(super) fn halt_tagged(
        &self,
        id: usize,
        place: TokenStream,
        memory: TokenStream,
    ) -> TokenStream {
        debug_assert!(matches!(self.tree.node(id).shape, Shape::Tagged(_)));
        let args = self.halt_args();
        quote!((#place).halt(#memory, #args);)
    }

    /// The leaf memory type beside the tag of node `id`, if its state is
    /// [`Shape::Tagged`].
    pub(super) fn tagged_memory(&self, id: usize) -> Option<TokenStream> {
        match self.tree.node(id).shape {
            Shape::Tagged(leaf) => Some(self.ty(leaf)),
            _ => None,
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
        let params = self.halt_params();
        let derive = quote! {
            #[doc(hidden)]
            #[derive(::core::default::Default, ::core::clone::Clone, ::core::fmt::Debug)]
            #[allow(non_camel_case_types)]
        };
        let (definition, halt) = self.state_definition(id);
        // A tag halts the memory beside it, which its parent passes.
        let memory = self.tagged_memory(id).map(|ty| {
            let m = names::memory();
            quote!(#m: &mut #ty,)
        });
        let is_active = self.is_active_body(id);
        let index = (node.shape == Shape::Decider).then(|| {
            let n = node.children.len();
            let arms = node
                .children
                .iter()
                .enumerate()
                .filter(|(_, c)| self.tree.node(**c).can_run)
                .map(|(k, &c)| {
                    let pattern = self.variant_pattern(id, c, &[]);
                    quote!(#pattern => #k,)
                });
            quote! {
                /// Position of the active child among the group's children;
                /// the number of children when none is active.
                #[inline]
                fn index(&self) -> ::core::primitive::usize {
                    match self {
                        #(#arms)*
                        Self::Idle => #n,
                    }
                }
            }
        });
        let visit = self.visit_method(id);
        let position = self.position_method(id);
        let check = self.check_method(id);
        let definition = self.reflected(self.saved_type(quote!(#derive #definition)));
        quote! {
            #definition

            impl #ident {
                #visit
                #position

                /// Halts the running children, deepest first, then resets.
                #[inline]
                #[allow(unused_variables, clippy::all)]
                fn halt(&mut self, #memory #params) {
                    #halt
                }

                /// Whether a node below runs (or this one holds something).
                #[inline]
                #[allow(dead_code, clippy::all)]
                fn is_active(&self) -> ::core::primitive::bool {
                    #is_active
                }

                #index

                #check
            }
        }
    }

    /// The named state type of node `id` and the body of its `halt`.
    fn state_definition(&self, id: usize) -> (TokenStream, TokenStream) {
        match &self.tree.node(id).shape {
            Shape::Record(fields) => self.record_type(id, fields),
            Shape::Tagged(leaf) => self.tag_type(id, *leaf),
            _ => self.enum_type(id),
        }
    }

    /// The body of the `halt` of node `id`'s named state type.
    pub(super) fn state_halt(&self, id: usize) -> TokenStream {
        self.state_definition(id).1
    }

    /// The enum of a composite that remembers one child: a variant per
    /// child that can be running, holding the child's state (in a decider
    /// group also its guard's value and when it activated), then `Idle`.
    /// `Idle` comes last so that a fieldless group's discriminant is its
    /// active child's position, which `index` then reads as it is.
    fn enum_type(&self, id: usize) -> (TokenStream, TokenStream) {
        use super::decide::{Field, field_local};
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let (what, idle, child_is) = if node.shape == Shape::Decider {
            (
                "the active child, its state, the value its guard bound and when it activated",
                " No child is active.",
                "is active.",
            )
        } else {
            (
                "which child is running",
                " No child is running.",
                "is running.",
            )
        };
        let doc = format!(" State of{}: {what}.", node.describe());
        let mut variants = Vec::new();
        let mut halts = Vec::new();
        for &c in &node.children {
            let child = self.tree.node(c);
            if !child.can_run {
                continue;
            }
            let variant = self.variant(c);
            let child_doc = self.variant_doc(c, child_is, "this is its memory");
            let fields = self.variant_fields(c);
            if fields.is_empty() {
                variants.push(quote!(#[doc = #child_doc] #variant,));
            } else {
                let tys = fields.iter().map(|(field, ty)| {
                    let saved = match field {
                        Field::State => self.saved_state(c),
                        Field::Since => self.saved_time(),
                        Field::Value => TokenStream::new(),
                    };
                    quote!(#saved #ty)
                });
                variants.push(quote!(#[doc = #child_doc] #variant(#(#tys),*),));
            }
            if child.has_state {
                let pattern = self.variant_pattern(id, c, &[Field::State]);
                let state = field_local(Field::State);
                let halt = self.halt_place(c, quote!(#state));
                halts.push(quote!(#pattern => { #halt }));
            }
        }
        // An async form yields before each child but the first.
        if matches!(node.kind, Kind::AsyncSequence | Kind::AsyncSelect) {
            for &c in &node.children[1..] {
                let variant = names::start_variant(c);
                let child_doc = format!(
                    " Returned `Running` after the child before{}, which starts on the next tick.",
                    self.tree.node(c).describe()
                );
                variants.push(quote!(#[doc = #child_doc] #variant,));
            }
        }
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
                #(#variants)*
                #[doc = #idle]
                #[default]
                Idle,
            }
        };
        let halt = quote! {
            #halt_match
            *self = Self::Idle;
        };
        (definition, halt)
    }

    /// The doc of child `c`'s variant in its parent's enum: the child
    /// `child_is` (running, active), and for a node that is its leaf's
    /// memory, that the leaf runs too and `memory_is` (where its memory is).
    fn variant_doc(&self, c: usize, child_is: &str, memory_is: &str) -> String {
        let child = self.tree.node(c);
        match child.shape {
            Shape::LeafOf(leaf) => format!(
                "{} {child_is} So is{}, which runs exactly when it does: {memory_is}.",
                child.describe(),
                self.tree.node(leaf).describe()
            ),
            _ => format!("{} {child_is}", child.describe()),
        }
    }

    /// A [`Shape::Tagged`] state: a fieldless enum, `Idle` and then a
    /// variant per child that can be running; `halt` halts leaf `leaf`'s
    /// type's memory beside it if a child with state runs, and resets both.
    /// `Idle` comes first, so that the tag of no running child is 0.
    fn tag_type(&self, id: usize, leaf: usize) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(
            " State of{}: which child is running. The memory beside it, in the parent's `{}` field, is the memory of the running child's leaf.",
            node.describe(),
            names::memory_field(id)
        );
        let mut variants = Vec::new();
        let mut stateful = Vec::new();
        for &c in &node.children {
            let child = self.tree.node(c);
            if !child.can_run {
                continue;
            }
            let variant = self.variant(c);
            let mut child_doc = self.variant_doc(c, "is running.", "the memory is its");
            if child.shape == Shape::Memory {
                child_doc.push_str(" The memory is its.");
            }
            variants.push(quote!(#[doc = #child_doc] #variant,));
            if child.has_state {
                stateful.push(quote!(Self::#variant));
            }
        }
        let definition = quote! {
            #[doc = #doc]
            enum #ident {
                /// No child is running.
                #[default]
                Idle,
                #(#variants)*
            }
        };
        let m = names::memory();
        // The running child says which leaf's memory this is.
        let leaves = node.children.iter().filter_map(|&c| {
            let child = self.tree.node(c);
            let leaf = match child.shape {
                Shape::LeafOf(leaf) => leaf,
                _ => c,
            };
            let (variant, leaf) = (
                self.variant(c),
                proc_macro2::Literal::usize_unsuffixed(leaf),
            );
            child.has_state.then(|| quote!(Self::#variant => #leaf,))
        });
        let fallback = proc_macro2::Literal::usize_unsuffixed(leaf);
        let halted = quote!(match *self { #(#leaves)* _ => #fallback });
        let halt_leaf = self.halt_place_as(leaf, quote!(#m), Some(halted));
        let halt = quote! {
            if ::core::matches!(*self, #(#stateful)|*) {
                #halt_leaf
                *#m = ::core::default::Default::default();
            }
            *self = Self::Idle;
        };
        (definition, halt)
    }

    /// A [`Shape::Record`]: the fields in order, and `halt`, which (if the
    /// record is entered) halts the children, gives back what entering
    /// took, and resets the fields.
    fn record_type(&self, id: usize, fields: &[Field]) -> (TokenStream, TokenStream) {
        let node = self.tree.node(id);
        let ident = self.type_ident(id);
        let doc = format!(" State of{}.", node.describe());
        let mut decls = Vec::new();
        let mut entered = None;
        let mut halts = Vec::new();
        let mut release = TokenStream::new();
        let mut resets = Vec::new();
        for field in fields {
            match field {
                Field::Latch(how) => {
                    decls.push(quote!(/// Entered and not yet left.
                        active: ::core::primitive::bool,));
                    entered = Some(quote!(self.active));
                    resets.push(quote!(self.active = false;));
                    release = self.release(id, *how);
                }
                Field::Since => {
                    let saved = self.saved_time();
                    decls.push(quote!(/// When it was entered.
                        #saved t: ::core::primitive::f64,));
                }
                Field::Passed => {
                    decls.push(quote!(/// The delay is over; the child runs.
                        passed: ::core::primitive::bool,));
                    resets.push(quote!(self.passed = false;));
                }
                Field::Running => {
                    decls.push(quote!(/// The child returned Running on its last tick.
                        running: ::core::primitive::bool,));
                    resets.push(quote!(self.running = false;));
                }
                Field::Item => {
                    let Kind::ForEach { item, .. } = &node.kind else {
                        unreachable!("only a for_each holds an item")
                    };
                    let ty = &item.ty;
                    decls.push(quote!(/// The item the child runs with, while it runs.
                        item: ::core::option::Option<#ty>,));
                    resets.push(quote!(self.item = ::core::option::Option::None;));
                }
                Field::Count(n) => {
                    let ty = uint_for((*n).into());
                    decls.push(
                        quote!(/// Runs of the child that ended the way that continues the loop.
                        count: #ty,),
                    );
                    resets.push(quote!(self.count = 0;));
                }
                Field::Masks { failed, running } => {
                    let ty = mask_for(node.children.len());
                    decls.push(quote! {
                        /// Bit `i` set: child `i` succeeded.
                        succeeded: #ty,
                    });
                    resets.push(quote!(self.succeeded = 0;));
                    if *failed {
                        decls.push(quote! {
                            /// Bit `i` set: child `i` failed.
                            failed: #ty,
                        });
                        resets.push(quote!(self.failed = 0;));
                    }
                    if *running {
                        decls.push(quote! {
                            /// Bit `i` set: child `i`, whose field is a leaf's
                            /// memory, runs.
                            running: #ty,
                        });
                        resets.push(quote!(self.running = 0;));
                    }
                }
                Field::Member => {
                    decls.push(quote!(/// Phase, group, role and `sync` points passed.
                        member: ::__bt::__private::Member,));
                    entered = Some(quote!(self.member.phase != ::__bt::__private::Phase::Idle));
                    let Kind::Rendezvous { n, .. } = &node.kind else {
                        unreachable!("only a rendezvous has members")
                    };
                    let shared = self.shared_place(id);
                    release = quote!(::__bt::__private::rendezvous_leave(&#shared, self.member.generation, #n););
                    resets.push(quote!(self.member = ::core::default::Default::default();));
                }
                Field::Child | Field::Children => {
                    for (name, c) in self.child_fields(id, *field) {
                        let ty = self.ty(c);
                        let child = self.tree.node(c);
                        let child_doc = match (&child.shape, self.running_bit(c)) {
                            (Shape::LeafOf(leaf), Some(_)) => format!(
                                " State of{}, while its bit in `running` is set. So is{}, which runs exactly when it does: this is its memory.",
                                child.describe(),
                                self.tree.node(*leaf).describe()
                            ),
                            (_, Some(_)) => format!(
                                " State of{}, while its bit in `running` is set.",
                                child.describe()
                            ),
                            _ => format!(" State of{}.", child.describe()),
                        };
                        let saved = self.saved_state(c);
                        decls.push(quote!(#[doc = #child_doc] #saved #name: #ty,));
                        if let Shape::Tagged(leaf) = child.shape {
                            let (m, ty) = (names::memory_field(c), self.ty(leaf));
                            let (doc, saved) = (
                                format!(
                                    " The memory of the leaf that runs below{}, as its `{name}` says; `Default` while none does.",
                                    child.describe()
                                ),
                                self.saved_state(leaf),
                            );
                            decls.push(quote!(#[doc = #doc] #saved #m: #ty,));
                            halts.push(self.halt_tagged(
                                c,
                                quote!(self.#name),
                                quote!(&mut self.#m),
                            ));
                            continue;
                        }
                        // A leaf's memory held bare: halted if it runs.
                        halts.push(
                            self.halt_running_child(c, quote!(self), false)
                                .unwrap_or_else(|| self.halt_place(c, quote!(&mut self.#name))),
                        );
                    }
                }
            }
        }
        let give_back = quote!(#(#halts)* #release);
        let give_back = match entered {
            Some(test) if !give_back.is_empty() => quote!(if #test { #give_back }),
            _ => give_back,
        };
        let definition = quote! {
            #[doc = #doc]
            struct #ident {
                #(#decls)*
            }
        };
        (definition, quote!(#give_back #(#resets)*))
    }

    /// The record fields holding children's states, with the child each
    /// holds: `child` for [`Field::Child`], `n<c>` per child with state for
    /// [`Field::Children`].
    pub(super) fn child_fields(&self, id: usize, field: Field) -> Vec<(Ident, usize)> {
        let node = self.tree.node(id);
        match field {
            Field::Child => vec![(names::child_field(), node.children[0])],
            Field::Children => node
                .children
                .iter()
                .filter(|&&c| self.tree.node(c).has_state)
                .map(|&c| (self.field(c), c))
                .collect(),
            _ => Vec::new(),
        }
    }
}
