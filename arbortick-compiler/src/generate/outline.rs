//! Splitting a large tree's `tick` into functions, so that rustc's time
//! grows with the tree's size and not faster: type inference, borrow
//! checking and LLVM all cost more than linearly in the size of one
//! function.
//!
//! A node with at least [`OUTLINE_NODES`] nodes in its subtree gets its own
//! function (`__tick_n<id>`), called where its code would stand; a
//! composite with more than [`CHUNK`] children runs them in functions of
//! [`CHUNK`] children each (`__tick_n<id>_from_<start>`). Each function is
//! an associated function of the tree's `Parts` type that takes what the
//! node's code names: its state, the keep part, the armed monitors, the
//! tick's time and node table, the redecide error, and the tree's bindings.
//! Nodes inside a scope that binds names for its children (a guard's
//! `when let`, a `switch` arm, a rendezvous' role, a `for_each` item) stay
//! inline. Every node's code is still generated exactly once.

use super::{Gen, names};
use crate::ir::{Kind, Tree};
use proc_macro2::TokenStream;
use quote::quote;

/// Nodes (itself included) a node's subtree needs for it to be outlined.
pub(super) const OUTLINE_NODES: usize = 64;

// A tag and the memory beside it are two places, which no outlined
// function takes: a node laid out so is never outlined, nor are the nodes
// below it.
const _: () = assert!(crate::lower::TAG_NODES < OUTLINE_NODES && crate::lower::TAG_NODES <= CHUNK);

/// Nodes (itself included) of the largest subtree whose state a reactive
/// parent moves into a local while it runs (its state is a few words).
pub(super) const SMALL_NODES: usize = 8;

/// Children per function of a wide composite.
pub(super) const CHUNK: usize = 32;

/// Per node: its subtree's size, and whether names bound by an ancestor
/// (or its own guard) are in scope in its code.
pub(super) struct Outline {
    sizes: Vec<usize>,
    bound: Vec<bool>,
    has_keep: bool,
    has_monitors: bool,
}

impl Outline {
    pub(super) fn new(tree: &Tree) -> Outline {
        let n = tree.nodes.len();
        let sizes = crate::ir::subtree_sizes(&tree.nodes);
        let mut bound = vec![false; n];
        for id in 1..n {
            let node = &tree.nodes[id];
            let parent = node.parent.expect("only the root has no parent");
            bound[id] = bound[parent]
                || node.binding().is_some()
                || matches!(
                    tree.nodes[parent].kind,
                    Kind::Switch(_) | Kind::Rendezvous { .. } | Kind::ForEach { .. }
                );
        }
        Outline {
            sizes,
            bound,
            // One keep field per slot a node keeps.
            has_keep: tree.nodes.iter().any(|n| !n.keep.is_empty()),
            has_monitors: tree
                .nodes
                .iter()
                .any(|n| matches!(n.kind, Kind::Monitor { .. })),
        }
    }
}

impl Gen<'_> {
    /// Whether node `id`'s subtree is small enough for its state to be
    /// moved out of its parent and back ([`SMALL_NODES`]).
    pub(super) fn small(&self, id: usize) -> bool {
        self.outline.sizes[id] <= SMALL_NODES
    }

    /// Whether node `id`'s subtree is large enough for functions of its own.
    pub(super) fn large(&self, id: usize) -> bool {
        self.outline.sizes[id] >= OUTLINE_NODES
    }

    /// Whether node `id` gets its own function.
    pub(super) fn outlines(&self, id: usize) -> bool {
        id != 0 && self.large(id) && !self.outline.bound[id]
    }

    /// Whether node `id`'s children may be split into functions: no name
    /// bound around it is in scope in their code.
    pub(super) fn splits(&self, id: usize) -> bool {
        !self.outline.bound[id]
    }

    /// Declarations and arguments of what outlined code may name besides
    /// node states and the tree's bindings, each followed by a comma.
    fn context_params(&self) -> (TokenStream, TokenStream) {
        let (mut decls, mut args) = (TokenStream::new(), TokenStream::new());
        if self.outline.has_keep {
            let (k, ty) = (names::keep(), self.keep_ty());
            decls.extend(quote!(#k: &mut #ty,));
            args.extend(quote!(#k,));
        }
        if self.outline.has_monitors {
            let (m, ty) = (names::monitors(), self.monitor_type());
            decls.extend(quote!(#m: &mut #ty,));
            args.extend(quote!(#m,));
        }
        if self.tree.context.is_some() {
            let (now, nodes) = (names::now(), names::nodes());
            let (level, statuses) = (names::trace_level(), names::trace_statuses());
            decls.extend(
                quote!(#now: ::core::primitive::f64, #nodes: &'static [::__bt::NodeInfo], #level: ::core::primitive::u8, #statuses: ::core::primitive::bool,),
            );
            args.extend(quote!(#now, #nodes, #level, #statuses,));
        }
        if self.gathers() {
            let (tg, sg) = (names::trace_gathers(), names::gathered());
            decls.extend(quote!(#tg: ::core::primitive::bool, #sg: &mut ::__bt::trace::Gathered,));
            args.extend(quote!(#tg, &mut *#sg,));
        }
        if self.tracing_context().is_some() {
            let hk = names::hooks();
            decls.extend(quote!(#hk: ::core::primitive::bool,));
            args.extend(quote!(#hk,));
        }
        if self.has_redecide_bound() {
            let error = names::error();
            decls.extend(quote!(#error: &mut ::core::option::Option<&'static ::__bt::NodeInfo>,));
            args.extend(quote!(#error,));
        }
        (decls, args)
    }

    /// The parameter and argument for node `id`'s state, if it has one.
    fn state_param(&self, id: usize) -> (TokenStream, TokenStream) {
        if !self.tree.node(id).has_state {
            return (TokenStream::new(), TokenStream::new());
        }
        let (place, ty) = (self.place(id), self.ty(id));
        (quote!(#place: &mut #ty,), quote!(#place,))
    }

    /// Node `id`'s code as a function; returns the call that evaluates it.
    pub(super) fn outline(&self, id: usize) -> TokenStream {
        let name = names::outlined(id);
        let body = self.tick(id);
        let (state, state_arg) = self.state_param(id);
        let (frame, frame_args) = self.context_params();
        let (params, args) = (self.params(), self.args());
        let doc = format!(" The code of{}.", self.tree.node(id).describe());
        let lints = lints();
        self.outlined.borrow_mut().push(quote! {
            #[doc = #doc]
            #[inline(never)]
            #lints
            fn #name(#state #frame #params) -> ::__bt::Status {
                #body
            }
        });
        quote!(Self::#name(#state_arg #frame_args #args))
    }

    /// Children of composite `id` from position `start` on, whose code is
    /// `body`, as a function that returns the composite's status when one
    /// of them ends it, and `None` when all of them went on. `resume`: the
    /// body reads the position the composite resumes at. Returns the call,
    /// which ends the composite's block when the function says so.
    pub(super) fn chunk(
        &self,
        id: usize,
        start: usize,
        resume: bool,
        body: TokenStream,
    ) -> TokenStream {
        let name = names::chunk(id, start);
        let (label, r) = (self.label(id), names::result());
        let (state, state_arg) = self.state_param(id);
        let (resume, resume_arg) = if resume {
            let at = names::resume_at();
            (quote!(#at: ::core::primitive::usize,), quote!(#at,))
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        let (frame, frame_args) = self.context_params();
        let (params, args) = (self.params(), self.args());
        let doc = format!(
            " Children {start} and on of{}.",
            self.tree.node(id).describe()
        );
        let lints = lints();
        self.outlined.borrow_mut().push(quote! {
            #[doc = #doc]
            #[inline(never)]
            #lints
            fn #name(#state #resume #frame #params) -> ::core::option::Option<::__bt::Status> {
                ::core::option::Option::Some(#label: {
                    #body
                    return ::core::option::Option::None;
                })
            }
        });
        quote! {
            if let ::core::option::Option::Some(#r) = Self::#name(#state_arg #resume_arg #frame_args #args) {
                break #label #r;
            }
        }
    }

    /// `pieces`, the children's code of composite `id`, in functions of
    /// [`CHUNK`] children when there are more.
    pub(super) fn chunked(&self, id: usize, pieces: &[TokenStream]) -> TokenStream {
        if pieces.len() <= CHUNK || !self.splits(id) {
            return quote!(#(#pieces)*);
        }
        pieces
            .chunks(CHUNK)
            .enumerate()
            .map(|(k, chunk)| self.chunk(id, k * CHUNK, false, quote!(#(#chunk)*)))
            .collect()
    }
}

/// Lints that outlined code does not follow (it takes every local `tick`
/// has, whether it uses it or not).
fn lints() -> TokenStream {
    quote! {
        #[allow(
            unused_labels,
            unused_doc_comments,
            unused_variables,
            unreachable_code,
            irrefutable_let_patterns,
            clippy::all
        )]
    }
}
