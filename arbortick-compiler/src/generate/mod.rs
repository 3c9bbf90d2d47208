//! [`ir`](crate::ir) -> Rust: per tree, a state type with `tick` and
//! `reset`, the node state types it nests, and the `BehaviorTree` impl.
//!
//! Code generation trusts the IR: it never validates and never re-parses.
//! Everything it emits is fully qualified (`::core::..`, `::__bt::..`); the
//! locals and block labels it introduces use `Span::mixed_site()`, so user
//! expressions can neither see nor shadow them; user expressions keep their
//! own spans, so type errors land on the user's tokens.

mod branch;
mod decide;
mod hot;
mod latch;
mod loaded;
mod meta;
mod names;
mod outline;
mod reflect;
mod request;
mod save;
mod shared;
mod state;
mod tick;
mod time;
mod views;

pub(crate) use views::{diagrams, leaked_view};

use crate::ast::TreeDef;
use crate::ir::{Keep, Kind, Shape, Tree};
use bt_runtime::Status;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::Lifetime;

/// The complete expansion of one valid tree.
///
/// The state type `Name` holds two parts: `active` (what lives only while
/// nodes run: the root's state and armed monitors) and `keep` (what
/// outlives activity). A tree embedded in another as a subtree keeps its
/// active part in the parent's running branch and its keep part in the
/// parent's keep part, through [`::__bt::__private::Embed`]; `Name::tick` ticks through
/// the same code (`__NameParts::try_tick`).
pub fn generate(tree: &Tree) -> TokenStream {
    names::runtime(generate_tree(tree, None), &tree.krate)
}

/// Like [`generate`], for a build with hot reload: the tree can also run on
/// the interpreter, with `program` (the same invocation, as the interpreter
/// reads it; `Err` says why it cannot) giving the table of expressions.
pub fn generate_hot(
    tree: &Tree,
    program: &Result<crate::interpret::Program, String>,
) -> TokenStream {
    names::runtime(generate_tree(tree, Some(program)), &tree.krate)
}

fn generate_tree(
    tree: &Tree,
    hot: Option<&Result<crate::interpret::Program, String>>,
) -> TokenStream {
    let mut g = Gen::new(tree);
    g.hot = hot.is_some();
    let hot = hot.map(|program| g.hot(program));
    let none = TokenStream::new();
    let (hot_field, hot_tick, hot_try_tick, hot_reset, hot_items) = match &hot {
        Some(h) => (&h.field, &h.tick, &h.try_tick, &h.reset, &h.items),
        None => (&none, &none, &none, &none, &none),
    };
    let attrs = &tree.attrs;
    let vis = &tree.vis;
    let name = &tree.name;
    let params = g.params();
    let args = g.args();
    let root_field = tree.nodes[0].has_state.then(|| {
        let ty = g.ty(0);
        let saved = g.saved_state(0);
        quote!(
            /// State of the root while it runs.
            #saved
            root: #ty,
        )
    });
    let monitors_field = (!g.monitors().is_empty()).then(|| {
        let ty = g.monitor_type();
        quote!(
            /// One bit per `monitor` that is armed: it was false when last
            /// reached, and is re-checked before each tick.
            monitors: #ty,
        )
    });
    let monitors_reset = monitors_field.as_ref().map(|_| quote!(self.monitors = 0;));
    let tick_body = g.tick_body();
    let reset_body = g.reset_body();
    let keep = g.keep_type();
    let shared_type = g.shared_type();
    // Each named count's limits, asserted once.
    let count_limits = tree
        .nodes
        .iter()
        .flat_map(|n| n.kind.counts())
        .filter_map(crate::ir::Count::assertion);
    let state_types = g.state_types();
    let meta = g.behavior_tree_impl();
    let answer = g.answer_impl();
    let (active_ty, keep_ty, parts) = (g.active_ident(), g.keep_ty(), g.parts_ident());
    let active_doc = format!(" What `{name}` keeps while nodes run.");
    let serde = g.tree_serde();
    let reflect = g.reflect_derive();
    let active_def = g.reflected(g.saved_type(quote! {
        #[doc = #active_doc]
        #[doc(hidden)]
        #[derive(::core::default::Default, ::core::clone::Clone, ::core::fmt::Debug)]
        #vis struct #active_ty {
            #root_field
            #monitors_field
        }
    }));
    let outlined = g.outlined.take();
    let outlined = (!outlined.is_empty()).then(|| {
        quote! {
            /// The parts of `tick` split off into functions of their own.
            impl #parts<'_> {
                #(#outlined)*
            }
        }
    });
    let (active, keep_local) = (names::active(), names::keep_part());
    let a = Lifetime::new("'__a", Span::mixed_site());
    let size_doc = format!(
        " Per-agent state of the `{name}` behavior tree: `{name}::default()` is an agent that \
         has not started; [`tick`]({name}::tick) advances it by one tick. Its size is \
         `{name}::STATE_SIZE` bytes (from `BehaviorTree`)."
    );
    let reset_trace = g.reset_trace();
    // `bt::node!(Tree, 'label)` names a node by its label, checked by rustc.
    let label_consts = tree.nodes.iter().filter_map(|node| {
        let label = node.label.as_ref()?;
        let ident = names::label_const(label);
        let id = node.id;
        Some(quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals, dead_code)]
            #vis const #ident: ::core::primitive::usize = #id;
        })
    });
    let (halt_params, halt_args) = (g.halt_params(), g.halt_args());
    let reset_takes = g.reset_takes();
    // A tree embedding this one halts it through `halt`, passing every
    // binding its `subtree(..)` names; when halting uses fewer, `halt`
    // forwards them to `halt_with`, which `reset` calls.
    let halt_body = quote! {
        #reset_body
        #monitors_reset
    };
    let (active_halt, halt_method) = if g.halting.iter().all(|&used| used) {
        let halt = quote! {
            /// Halts every running node, deepest first; what outlives
            /// activity stays.
            #[inline]
            #[allow(unused_variables, clippy::all)]
            #vis fn halt(&mut self, #params) {
                #halt_body
            }
        };
        (halt, quote!(halt))
    } else {
        let with = names::halt_with();
        let halt = quote! {
            /// Halts every running node, deepest first; what outlives
            /// activity stays. Takes every binding, as a parent tree
            /// passes them.
            #[inline]
            #[allow(unused_variables, clippy::all)]
            #vis fn halt(&mut self, #params) {
                self.#with(#halt_args);
            }

            /// [`halt`](Self::halt), taking only the bindings halting uses.
            #[inline]
            #[allow(unused_variables, clippy::all)]
            fn #with(&mut self, #halt_params) {
                #halt_body
            }
        };
        (halt, quote!(#with))
    };
    let has_docs = attrs.iter().any(|a| a.path().is_ident("doc"));
    let diagram = g.diagram_doc();
    let separator = has_docs.then(|| quote!(#[doc = ""]));
    let lints = quote! {
        #[allow(
            unused_labels,
            unused_doc_comments,
            unreachable_code,
            irrefutable_let_patterns,
            clippy::all
        )]
    };
    let unpack = quote! {
        let #active: &mut #active_ty = self.active;
        let #keep_local: &mut #keep_ty = self.keep;
    };
    // With a `redecides` bound the body returns a `Result`; without, it
    // returns the status, and `try_tick` never fails.
    let entry = |method: &str, ret: TokenStream| -> TokenStream {
        let ident = Ident::new(method, Span::call_site());
        let Some(quiet) = g.quiet_entry() else {
            return quote! {
                #[inline]
                #lints
                #vis fn #ident(self, #params) -> #ret {
                    #unpack
                    #tick_body
                }
            };
        };
        let (traced, body) = (names::traced_tick(), names::tick_body());
        // What the trace hook wants of the agent, asked once by the tick
        // and passed on to its body.
        let (level, statuses) = (names::trace_level(), names::trace_statuses());
        let wanted = quote! {
            #level: ::core::primitive::u8,
            #statuses: ::core::primitive::bool
        };
        quote! {
            #[inline]
            #vis fn #ident(self, #params) -> #ret {
                #quiet
                self.#body(#args, #level, #statuses)
            }

            /// The tick of an agent whose trace hook wants events: out of
            /// line, so that the quiet path does not set up its frame.
            #[doc(hidden)]
            #[inline(never)]
            fn #traced(self, #params, #wanted) -> #ret {
                self.#body(#args, #level, #statuses)
            }

            #[doc(hidden)]
            #[inline(always)]
            #lints
            fn #body(self, #params, #wanted) -> #ret {
                #unpack
                #tick_body
            }
        }
    };
    let parts_impl = if g.has_redecide_bound() {
        let try_tick = entry(
            "try_tick",
            quote!(::core::result::Result<::__bt::Status, ::__bt::TickError>),
        );
        quote! {
            impl #parts<'_> {
                /// One tick; see the tree's own `tick`.
                #[inline]
                #vis fn tick(self, #params) -> ::__bt::Status {
                    match self.try_tick(#args) {
                        ::core::result::Result::Ok(status) => status,
                        ::core::result::Result::Err(error) => error.status(),
                    }
                }

                /// One tick; see the tree's own `try_tick`.
                #try_tick
            }
        }
    } else {
        let tick = entry("tick", quote!(::__bt::Status));
        quote! {
            impl #parts<'_> {
                /// One tick; see the tree's own `tick`.
                #tick

                /// One tick; this tree has no `redecides` bound, so it never
                /// fails.
                #[inline]
                #vis fn try_tick(self, #params) -> ::core::result::Result<::__bt::Status, ::__bt::TickError> {
                    ::core::result::Result::Ok(self.tick(#args))
                }
            }
        }
    };
    let parts_doc =
        format!(" Both parts of a `{name}` state, borrowed: how a parent tree ticks it.");
    quote! {
        #reflect
        #(#attrs)*
        #separator
        #[doc = #size_doc]
        #(#[doc = #diagram])*
        #[derive(::core::default::Default, ::core::clone::Clone, ::core::fmt::Debug)]
        #vis struct #name {
            /// Lives while nodes run.
            active: #active_ty,
            /// Outlives activity.
            keep: #keep_ty,
            #hot_field
        }

        #hot_items

        impl #name {
            #(#label_consts)*

            /// Ticks the tree once for one agent and returns the root's status.
            ///
            /// `Running` means the agent is mid-way: the next tick resumes
            /// where this one stopped. `Success` and `Failure` leave the
            /// active path empty, so the next tick starts over from the root.
            /// A tick that hit a decider's `redecides` bound returns the
            /// status the tree computed anyway; use
            /// [`try_tick`](Self::try_tick) to see the error.
            #[inline]
            #vis fn tick(&mut self, #params) -> ::__bt::Status {
                #hot_tick
                <Self as ::__bt::__private::Embed>::parts(&mut self.active, &mut self.keep).tick(#args)
            }


            /// Like [`tick`](Self::tick), and reports a decider group that
            /// exceeded its `redecides = N` bound as an error. Trees without
            /// such a bound never return an error.
            #[inline]
            #vis fn try_tick(&mut self, #params) -> ::core::result::Result<::__bt::Status, ::__bt::TickError> {
                #hot_try_tick
                <Self as ::__bt::__private::Embed>::parts(&mut self.active, &mut self.keep).try_tick(#args)
            }

            #[doc = " Halts every running node, deepest first (running stateful"]
            #[doc = " leaves get their `halt` call, active scopes their `exit`,"]
            #[doc = " gates their permit back), and leaves the state as new,"]
            #[doc = " timers, cooldowns and `run_once` marks included. Call it when"]
            #[doc = " the agent leaves the tree for good (it dies, changes tree, or"]
            #[doc = " the level unloads)."]
            #[doc = ""]
            #[doc = #reset_takes]
            #[inline]
            #vis fn reset(&mut self, #halt_params) {
                #hot_reset
                self.active.#halt_method(#halt_args);
                self.keep = ::core::default::Default::default();
                #reset_trace
            }
        }

        #serde

        #active_def

        impl #active_ty {
            #active_halt
        }

        #[doc = #parts_doc]
        #[doc(hidden)]
        #vis struct #parts<#a> {
            active: &#a mut #active_ty,
            keep: &#a mut #keep_ty,
        }

        #parts_impl

        #outlined

        #keep

        #shared_type
        #(#count_limits)*

        #meta

        #answer

        #state_types
    }
}

/// The constant a tree defines per label (see [`crate::expand_node`]).
pub fn label_const(label: &str) -> Ident {
    names::label_const(label)
}

/// The bindings of `tree`'s header that its `reset` takes, in header
/// order: those halting uses (see `Gen::halting`).
pub fn reset_bindings(tree: &Tree) -> Vec<String> {
    Gen::new(tree)
        .halt_bindings()
        .map(|p| p.name.to_string())
        .collect()
}

/// What is emitted for a tree that has errors: its state type with `tick`,
/// `try_tick` and `reset` of the declared signatures, and the embedding
/// impl, so that the user's code calling them (or embedding the tree) still
/// type-checks and only the tree's own errors are reported.
pub fn skeleton(tree: &TreeDef, hot: bool) -> TokenStream {
    let krate = tree
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::bt));
    names::runtime(skeleton_tree(tree, hot), &krate)
}

fn skeleton_tree(tree: &TreeDef, hot: bool) -> TokenStream {
    let attrs = &tree.attrs;
    let vis = &tree.vis;
    let name = &tree.name;
    let params = tree.params.iter().map(|p| {
        let (n, ty) = (&p.name, &p.ty);
        quote!(#n: #ty)
    });
    let params = quote!(#(#params),*);
    let name_str = name.to_string();
    let active_ty = names::active_type(name);
    let parts = names::parts_type(name);
    // What a hot build's trees also have, so that code calling them
    // reports only the tree's own errors.
    let hot_fns = hot.then(|| {
        quote! {
            #vis fn live() -> ::core::option::Option<&'static ::__bt::hot::Live> {
                ::core::option::Option::None
            }
            #vis fn compiled() -> Self {
                ::core::default::Default::default()
            }
        }
    });
    quote! {
        #(#attrs)*
        #[derive(::core::default::Default, ::core::clone::Clone, ::core::fmt::Debug)]
        #vis struct #name {}

        #[allow(unused_variables)]
        impl #name {
            #vis fn tick(&mut self, #params) -> ::__bt::Status {
                ::core::unimplemented!("tree has errors")
            }
            #vis fn try_tick(&mut self, #params) -> ::core::result::Result<::__bt::Status, ::__bt::TickError> {
                ::core::unimplemented!("tree has errors")
            }
            #vis fn reset(&mut self, #params) {
                ::core::unimplemented!("tree has errors")
            }
            #hot_fns
        }

        #[doc(hidden)]
        #[derive(::core::default::Default, ::core::clone::Clone, ::core::fmt::Debug)]
        #vis struct #active_ty {}

        #[allow(unused_variables)]
        impl #active_ty {
            #vis fn halt(&mut self, #params) {
                ::core::unimplemented!("tree has errors")
            }
        }

        #[doc(hidden)]
        #vis struct #parts<'a>(::core::marker::PhantomData<&'a mut ()>);

        #[allow(unused_variables)]
        impl #parts<'_> {
            #vis fn tick(self, #params) -> ::__bt::Status {
                ::core::unimplemented!("tree has errors")
            }
        }

        impl ::__bt::__private::Embed for #name {
            type Active = #active_ty;
            type Keep = ();
            type Parts<'a> = #parts<'a>;
            fn parts<'a>(_: &'a mut #active_ty, _: &'a mut ()) -> #parts<'a> {
                #parts(::core::marker::PhantomData)
            }
            fn from_parts(_: #active_ty, _: ()) -> Self {
                #name {}
            }
            fn split(&self) -> (&#active_ty, &()) {
                ::core::unimplemented!("tree has errors")
            }
            fn is_active(_: &#active_ty) -> ::core::primitive::bool {
                false
            }
            fn visit_active<F: ::core::ops::FnMut(::__bt::ActiveNode)>(_: &#active_ty, _: ::core::primitive::usize, _: &mut F) {}
        }

        impl ::__bt::BehaviorTree for #name {
            const NAME: &'static ::core::primitive::str = #name_str;
            const NODES: &'static [::__bt::NodeInfo] = &[];
            const VIEW: &'static ::__bt::view::TreeView<'static> = &::__bt::view::TreeView {
                name: #name_str,
                nodes: &[],
                xml: &[],
                models: &[],
                subtrees: &[],
                size: 0,
            };
            const BTCPP_XML: &'static ::core::primitive::str = "";
            const BTCPP_INSTANCE_XML: &'static ::core::primitive::str = "";
            const MERMAID: &'static ::core::primitive::str = "";
            const DOT: &'static ::core::primitive::str = "";
            const LAYOUT_HASH: ::core::primitive::u64 = 0;
            fn is_active(&self) -> ::core::primitive::bool {
                false
            }
            fn visit_active<F: ::core::ops::FnMut(::__bt::ActiveNode)>(&self, _: ::core::primitive::usize, _: &mut F) {}
        }
    }
}

/// Naming and small pieces shared by the generators.
struct Gen<'a> {
    tree: &'a Tree,
    /// Where `tick` is split into functions.
    outline: outline::Outline,
    /// The functions split off `tick`, as they are generated.
    outlined: std::cell::RefCell<Vec<TokenStream>>,
    /// Per binding of the header: whether halting uses it (see
    /// [`halting`](Gen::halting)). The halt methods take these.
    halting: Vec<bool>,
    /// The context binding, if it can trace (see
    /// [`tracing_context`](Gen::tracing_context)).
    tracing: Option<Ident>,
    /// The state type has the `hot` field of a hot-reload build.
    hot: bool,
}

impl<'a> Gen<'a> {
    fn new(tree: &'a Tree) -> Gen<'a> {
        let mut g = Gen {
            tree,
            outline: outline::Outline::new(tree),
            outlined: Default::default(),
            halting: vec![false; tree.params.len()],
            tracing: Gen::find_tracing_context(tree),
            hot: false,
        };
        g.halting = g.halting();
        g
    }
}

impl Gen<'_> {
    /// The named state type of a node, e.g. `__GuardN3`.
    fn type_ident(&self, id: usize) -> Ident {
        names::state_type(&self.tree.name, id)
    }

    /// The state type of a node that has state.
    fn ty(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        match (&node.shape, &node.kind) {
            (Shape::Leaf, Kind::Leaf { path, .. }) => {
                // All of it on the user's path: a type that is not a leaf is
                // reported there, not on the macro call.
                let leaf = self.leaf_trait(path);
                let span = syn::spanned::Spanned::span(path);
                quote::quote_spanned!(span=> ::core::option::Option<#leaf::Memory>)
            }
            (Shape::Memory, Kind::Leaf { path, .. }) => {
                let leaf = self.leaf_trait(path);
                let span = syn::spanned::Spanned::span(path);
                quote::quote_spanned!(span=> #leaf::Memory)
            }
            (Shape::Subtree, Kind::Subtree { path, .. }) => {
                quote!(<#path as ::__bt::__private::Embed>::Active)
            }
            (Shape::Wait, _) => quote!(::core::option::Option<::core::primitive::f64>),
            (Shape::Ticket, _) => quote!(::core::option::Option<::core::primitive::u32>),
            (Shape::Arrived, _) => quote!(::core::primitive::bool),
            (Shape::Child, _) => self.ty(node.children[0]),
            (Shape::LeafOf(leaf), _) => self.ty(*leaf),
            _ => {
                let ident = self.type_ident(id);
                quote!(#ident)
            }
        }
    }

    /// `<Path as ::__bt::Leaf<Agent>>`, spanned on the user's path so that a
    /// type that is not a leaf is reported there.
    fn leaf_trait(&self, path: &syn::Path) -> TokenStream {
        let agent = &self.tree.agent;
        let span = syn::spanned::Spanned::span(path);
        quote::quote_spanned!(span=> <#path as ::__bt::Leaf<#agent>>)
    }

    /// `(place).tick(args)` or `(place).reset(args)` on an embedded tree's
    /// state, written as a method call inside the user's own parentheses, so
    /// that wrong arguments are reported there and counted as the user wrote
    /// them (without `self`). `path` only lends its span to the method name.
    fn subtree_call(
        &self,
        path: &syn::Path,
        method: &str,
        place: TokenStream,
        args: &[syn::Expr],
        paren: Span,
    ) -> TokenStream {
        let method = Ident::new(method, syn::spanned::Spanned::span(path));
        let mut group =
            proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, quote!(#(#args),*));
        group.set_span(paren);
        quote!((#place).#method #group)
    }

    /// What a composite's code names: its block's label, the local holding
    /// its state and its state type.
    fn frame(&self, id: usize) -> (Lifetime, Ident, Ident) {
        (self.label(id), self.place(id), self.type_ident(id))
    }

    /// The local holding `&mut` the node's state: `__s3`.
    fn place(&self, id: usize) -> Ident {
        names::place(id)
    }

    /// The label of the block implementing a node: `'n3`.
    fn label(&self, id: usize) -> Lifetime {
        names::block(id)
    }

    /// The variant or field naming a child in its parent's state: `N4` / `n4`.
    fn variant(&self, id: usize) -> Ident {
        names::variant(id)
    }

    fn field(&self, id: usize) -> Ident {
        names::field(id)
    }

    /// The bit of child `c` in its parallel's `running` mask, when `c`'s
    /// state is a stateful leaf's memory held bare in the parallel's record
    /// ([`Field::Masks`](crate::ir::Field::Masks)): set while the leaf runs.
    fn running_bit(&self, c: usize) -> Option<proc_macro2::Literal> {
        let node = self.tree.node(c);
        let parent = self.tree.node(node.parent?);
        let bare = matches!(node.shape, Shape::Memory | Shape::LeafOf(_));
        let parallel = matches!(
            parent.kind,
            Kind::Parallel { .. } | Kind::ParallelAll { .. }
        );
        (bare && parallel).then(|| {
            let i = parent
                .children
                .iter()
                .position(|&x| x == c)
                .expect("a node is among its parent's children");
            proc_macro2::Literal::u128_unsuffixed(1u128 << i)
        })
    }

    /// Halts child `c` of the parallel whose record is `record`, if `c` is
    /// a leaf's memory held bare there and its bit says that it runs, and
    /// drops the memory; with `clear`, also clears the bit (a record's own
    /// halt resets the whole mask after).
    fn halt_running_child(
        &self,
        c: usize,
        record: TokenStream,
        clear: bool,
    ) -> Option<TokenStream> {
        let bit = self.running_bit(c)?;
        let field = self.field(c);
        let halt = self.halt_place(c, quote::quote!(&mut #record.#field));
        let clear = clear.then(|| quote::quote!(#record.running &= !#bit;));
        Some(quote::quote! {
            if #record.running & #bit != 0 {
                #halt
                #record.#field = ::core::default::Default::default();
                #clear
            }
        })
    }

    /// `me: &mut Agent, cx: &Ctx`
    fn params(&self) -> TokenStream {
        let params = self.tree.params.iter().map(|p| {
            let (n, ty) = (&p.name, &p.ty);
            quote!(#n: #ty)
        });
        quote!(#(#params),*)
    }

    /// `me, cx`: the bindings, forwarded to the functions `tick` is split
    /// into.
    fn args(&self) -> TokenStream {
        let names = self.tree.params.iter().map(|p| &p.name);
        quote!(#(#names),*)
    }

    /// The bindings halting uses (`me, shared`), as the halt methods
    /// declare them.
    fn halt_params(&self) -> TokenStream {
        let params = self.halt_bindings().map(|p| {
            let (n, ty) = (&p.name, &p.ty);
            quote!(#n: #ty)
        });
        quote!(#(#params),*)
    }

    /// The bindings halting uses, forwarded to halt methods.
    fn halt_args(&self) -> TokenStream {
        let names = self.halt_bindings().map(|p| &p.name);
        quote!(#(#names),*)
    }

    fn halt_bindings(&self) -> impl Iterator<Item = &crate::ast::Param> {
        self.tree
            .params
            .iter()
            .zip(&self.halting)
            .filter_map(|(p, &used)| used.then_some(p))
    }

    /// Which bindings halting uses: those the code of every halt names.
    /// That code is generated once with halt methods taking nothing, and
    /// read for the bindings' names; what it names is what halting
    /// evaluates: a stateful leaf's `halt` takes the agent (the first
    /// binding), `exit` and `halted` hooks and an embedded tree's
    /// arguments are the user's expressions, a gate or rendezvous gives
    /// its place back through the shared binding, a `request` cancels
    /// through its stream and the context, and the context traces (unless
    /// its type is `Ctx` without a tracer, which never does).
    fn halting(&self) -> Vec<bool> {
        let mut code = self.reset_body();
        code.extend(self.reset_trace());
        for id in (0..self.tree.nodes.len()).filter(|&id| self.tree.has_named_type(id)) {
            code.extend(self.state_halt(id));
        }
        let mut named = std::collections::HashSet::new();
        names_in(code, &mut named);
        self.tree
            .params
            .iter()
            .map(|p| named.contains(&p.name.to_string()))
            .collect()
    }

    /// The doc line of `reset` saying which bindings it takes.
    fn reset_takes(&self) -> String {
        let names: Vec<String> = self
            .halt_bindings()
            .map(|p| format!("`{}`", p.name))
            .collect();
        let all = self.tree.params.len();
        match names.len() {
            0 if all == 0 => " Takes nothing: the tree has no bindings.".into(),
            0 => " Takes no binding: halting this tree calls nothing of the agent's.".into(),
            n if n == all => " Takes every binding: halting uses each of them.".into(),
            _ => format!(
                " Takes {}: the bindings halting uses (the crate's reference, \
                 \"Resetting\", says which).",
                names.join(", ")
            ),
        }
    }

    /// The `Reset` trace event `reset` emits, when the context can trace.
    fn reset_trace(&self) -> Option<TokenStream> {
        let cx = self.tracing_context()?;
        Some(quote! {
            if ::__bt::__private::trace_statuses(&#cx) {
                ::__bt::__private::trace_emit(&#cx, ::__bt::trace::STATUSES, &<Self as ::__bt::BehaviorTree>::NODES[0], ::__bt::trace::Event::Reset);
            }
        })
    }

    /// The context binding, unless its type is `Ctx` (by value or
    /// reference) without a tracer argument, or with `NoTrace`: such a
    /// context never traces, so halting need not take it to trace.
    fn tracing_context(&self) -> Option<&Ident> {
        self.tracing.as_ref()
    }

    /// Whether the tick gathers its statuses for a hook that takes them
    /// per tick (`Trace::GATHERS`): a tree with a tracing context and at
    /// most 63 nodes (their ids fit a byte with the status).
    fn gathers(&self) -> bool {
        self.tracing_context().is_some() && self.tree.nodes.len() < 64
    }

    /// Sends the statuses gathered (nothing when the tick does not gather).
    fn flush(&self) -> TokenStream {
        let Some(cx) = self.tracing_context().filter(|_| self.gathers()) else {
            return TokenStream::new();
        };
        let (tg, sg, nodes) = (names::trace_gathers(), names::gathered(), names::nodes());
        quote! {
            if #tg {
                ::__bt::__private::trace_flush(&#cx, #nodes, #sg);
            }
        }
    }

    /// [`tracing_context`](Self::tracing_context), worked out once.
    fn find_tracing_context(tree: &Tree) -> Option<Ident> {
        use syn::{GenericArgument, PathArguments, Type};
        let cx = tree.context.clone()?;
        let param = crate::check::context_param(&tree.params)?;
        let Some(last) = ctx_segment(&param.ty) else {
            return Some(cx);
        };
        let tracer = match &last.arguments {
            PathArguments::None => None,
            PathArguments::AngleBracketed(generics) => generics
                .args
                .iter()
                .filter(|a| matches!(a, GenericArgument::Type(_)))
                .nth(2),
            PathArguments::Parenthesized(_) => return Some(cx),
        };
        match tracer {
            None => None,
            Some(GenericArgument::Type(Type::Path(t)))
                if t.qself.is_none()
                    && t.path.segments.last().is_some_and(|s| s.ident == "NoTrace") =>
            {
                None
            }
            Some(_) => Some(cx),
        }
    }

    /// For a tree whose context binding is a `Ctx<.., impl Trace>` (by
    /// value, `&` or `&mut`): an agent its trace hook wants nothing of is
    /// ticked through the tick's body with [`Ctx::quiet`], the code compiled
    /// for `NoTrace`, inlined in place, so a quiet tracer costs one check
    /// per tick instead of a check at every trace point (and no call); an
    /// agent it wants events of is ticked through an out-of-line copy
    /// (`__traced_tick`), whose frame the quiet path then does not pay for,
    /// unless the hook gathers statuses (`Trace::GATHERS`: a recorder,
    /// which follows its agents' every tick): then the body is inlined for
    /// it too, and when the hook has node hooks (`Trace::HOOKS`, the live
    /// page) but calls none for this agent, with `Ctx::unhooked`, so that
    /// the inlined body has no hook points.
    ///
    /// The hook is asked its level and whether it wants statuses once,
    /// here: both are passed to the body (see
    /// [`passes_wanted`](Self::passes_wanted)).
    fn quiet_entry(&self) -> Option<TokenStream> {
        let (param, reference) = self.generic_trace_context()?;
        let (cx, quiet) = (&param.name, names::quiet());
        // The binding of a context made here, and the arguments that pass
        // it in place of the tree's own.
        let made = |local: &Ident| {
            let (binding, pass) = match reference {
                Some(true) => (quote!(mut #local), quote!(&mut #local)),
                Some(false) => (quote!(#local), quote!(&#local)),
                None => (quote!(#local), quote!(#local)),
            };
            let args = self.tree.params.iter().map(move |p| {
                let name = &p.name;
                if name == cx {
                    pass.clone()
                } else {
                    quote!(#name)
                }
            });
            (binding, args)
        };
        let unhooked = names::unhooked();
        let (binding, args) = made(&quiet);
        let (unhooked_binding, unhooked_args) = made(&unhooked);
        let (traced, body) = (names::traced_tick(), names::tick_body());
        let (level, statuses) = (names::trace_level(), names::trace_statuses());
        let all: Vec<&Ident> = self.tree.params.iter().map(|p| &p.name).collect();
        let wanted = ask_wanted(cx);
        Some(quote! {
            #wanted
            if ::__bt::__private::trace_is_quiet(&#cx, #level, #statuses) {
                let #binding = (#cx).quiet();
                return self.#body(#(#args),*, 0, false);
            }
            if ::__bt::__private::trace_enabled(&#cx) {
                // A hook that gathers follows its agents' every tick:
                // their traced tick is the common one, inlined here,
                // without the hook points unless the hook calls them for
                // this agent.
                if ::__bt::__private::trace_gathers(&#cx) {
                    if !::__bt::__private::trace_hooks(&#cx) {
                        return self.#body(#(#all),*, #level, #statuses);
                    }
                    if !::__bt::__private::hooks_wanted(&#cx) {
                        let #unhooked_binding = (#cx).unhooked();
                        return self.#body(#(#unhooked_args),*, #level, #statuses);
                    }
                }
                return self.#traced(#(#all),*, #level, #statuses);
            }
        })
    }

    /// Whether the tick's body takes the trace hook's level and its word
    /// on statuses as arguments (see [`quiet_entry`](Self::quiet_entry))
    /// rather than asking the hook itself.
    pub(super) fn passes_wanted(&self) -> bool {
        self.generic_trace_context().is_some()
    }

    /// The context parameter when it is a `Ctx<.., impl Trace>`, and how
    /// it is passed: `Some(mutable)` by reference, `None` by value.
    fn generic_trace_context(&self) -> Option<(&crate::ast::Param, Option<bool>)> {
        use syn::{GenericArgument, PathArguments, Type};
        let param = crate::check::context_param(&self.tree.params)?;
        let reference = match &param.ty {
            Type::Reference(r) => Some(r.mutability.is_some()),
            _ => None,
        };
        let PathArguments::AngleBracketed(generics) = &ctx_segment(&param.ty)?.arguments else {
            return None;
        };
        generics
            .args
            .iter()
            .any(|a| matches!(a, GenericArgument::Type(Type::ImplTrait(_))))
            .then_some((param, reference))
    }

    /// The active part's type: `__GuardActive`.
    fn active_ident(&self) -> Ident {
        names::active_type(&self.tree.name)
    }

    /// The borrowed-parts type: `__GuardParts`.
    fn parts_ident(&self) -> Ident {
        names::parts_type(&self.tree.name)
    }

    /// The keep part's type: `__GuardKeep`, or `()` when nothing outlives
    /// activity.
    fn keep_ty(&self) -> TokenStream {
        if self.keep_fields().is_empty() {
            quote!(())
        } else {
            let ident = self.keep_ident();
            quote!(#ident)
        }
    }

    /// The type holding what outlives activity: `__GuardKeep`.
    fn keep_ident(&self) -> Ident {
        names::keep_type(&self.tree.name)
    }

    /// Fields of the keep type: (name, type, initial value, doc).
    fn keep_fields(&self) -> Vec<(Ident, TokenStream, TokenStream, String)> {
        let mut fields = Vec::new();
        for node in &self.tree.nodes {
            let n = node.children.len();
            let what = node.describe();
            for &slot in &node.keep {
                let (ty, init, doc) = match slot {
                    Keep::Ready => (
                        quote!(::core::primitive::f64),
                        quote!(::core::primitive::f64::NEG_INFINITY),
                        format!(" Time from which{what} may run again."),
                    ),
                    Keep::Once => (
                        quote!(::core::primitive::u8),
                        quote!(0),
                        format!(" How{what} ended: 0 not yet, 1 success, 2 failure."),
                    ),
                    Keep::Next => (
                        uint_for(n as u128),
                        quote!(0),
                        format!(" Child{what} tries first next time."),
                    ),
                    Keep::Used => (
                        mask_for(n),
                        quote!(0),
                        format!(" Children of{what} chosen in this round."),
                    ),
                    Keep::Subtree => {
                        let Kind::Subtree { path, .. } = &node.kind else {
                            unreachable!("only subtrees keep a subtree's part")
                        };
                        (
                            quote!(<#path as ::__bt::__private::Embed>::Keep),
                            quote!(::core::default::Default::default()),
                            format!(" What the subtree{what} keeps across activations."),
                        )
                    }
                    Keep::Period => (
                        quote!(::core::primitive::f64),
                        quote!(::core::primitive::f64::NEG_INFINITY),
                        format!(" Time from which{what} may start its child again."),
                    ),
                    Keep::Every => (
                        quote!(::core::primitive::f64),
                        quote!(::core::primitive::f64::NEG_INFINITY),
                        format!(" Time from which the guard of{what} may be checked again."),
                    ),
                    Keep::Answer => (
                        quote!(::__bt::request::Slot),
                        quote!(::core::default::Default::default()),
                        format!(" The latest request of{what} and its answer."),
                    ),
                };
                fields.push((names::keep_field(node.id, slot), ty, init, doc));
            }
        }
        fields
    }

    /// The keep type, if the tree has anything that outlives activity.
    fn keep_type(&self) -> Option<TokenStream> {
        let fields = self.keep_fields();
        if fields.is_empty() {
            return None;
        }
        let ident = self.keep_ident();
        let vis = &self.tree.vis;
        let doc = format!(
            " What `{}` remembers across activations: cooldowns, `run_once` marks, `every` \
             timers, `sequential`, `shuffle` and `sequence_with_memory` positions.",
            self.tree.name
        );
        let time = self.saved_time();
        // Per field, in `keep_fields`' order: an embedded tree's keep part
        // is saved through its `Embed`.
        let embedded: Vec<Option<TokenStream>> = self
            .tree
            .nodes
            .iter()
            .flat_map(|node| {
                node.keep.iter().map(move |slot| {
                    let path = node.kind.subtree()?;
                    (*slot == Keep::Subtree && self.tree.serde.is_some())
                        .then(|| self.saved_embedded(path, "keep"))
                })
            })
            .collect();
        let decls = fields
            .iter()
            .zip(&embedded)
            .map(|((name, ty, _, doc), embedded)| {
                // The times, from which things may run again.
                let time =
                    (ty.to_string() == quote!(::core::primitive::f64).to_string()).then_some(&time);
                quote!(#[doc = #doc] #time #embedded #name: #ty,)
            });
        let inits = fields
            .iter()
            .map(|(name, _, init, _)| quote!(#name: #init,));
        let definition = self.reflected(self.saved_type(quote! {
            #[doc = #doc]
            #[doc(hidden)]
            #[derive(::core::clone::Clone, ::core::fmt::Debug)]
            #[allow(non_camel_case_types)]
            #vis struct #ident {
                #(#decls)*
            }
        }));
        Some(quote! {
            #definition

            impl ::core::default::Default for #ident {
                fn default() -> Self {
                    #ident { #(#inits)* }
                }
            }
        })
    }

    /// The first binding, which stateful leaves receive.
    fn agent_arg(&self) -> TokenStream {
        let name = self.tree.params.first().map(|p| &p.name);
        quote!(#name)
    }
}

/// The last segment of `ty`'s path (through references and parentheses)
/// when it names `Ctx`: where its flags and tracer arguments are.
/// `let __tl = ..; let __ts = ..;`: the trace hook's level for the agent
/// of context `cx` and whether it wants statuses, asked once per tick.
pub(super) fn ask_wanted(cx: &Ident) -> TokenStream {
    let (level, statuses) = (names::trace_level(), names::trace_statuses());
    quote! {
        let #level: ::core::primitive::u8 = ::__bt::__private::trace_level(&#cx);
        let #statuses: ::core::primitive::bool = ::__bt::__private::trace_statuses(&#cx);
    }
}

fn ctx_segment(mut ty: &syn::Type) -> Option<&syn::PathSegment> {
    while let syn::Type::Reference(syn::TypeReference { elem, .. })
    | syn::Type::Paren(syn::TypeParen { elem, .. }) = ty
    {
        ty = elem;
    }
    let syn::Type::Path(path) = ty else {
        return None;
    };
    path.path.segments.last().filter(|s| s.ident == "Ctx")
}

/// Adds to `names` every identifier in `code`, and every identifier a
/// string literal in it may capture as an inline format argument (`"{me}"`,
/// `"{me:?}"`), so that a binding a hook names only inside `format!` counts.
fn names_in(code: TokenStream, names: &mut std::collections::HashSet<String>) {
    use proc_macro2::TokenTree;
    for token in code {
        match token {
            TokenTree::Ident(ident) => {
                names.insert(ident.to_string());
            }
            TokenTree::Group(group) => names_in(group.stream(), names),
            TokenTree::Literal(literal) => {
                let text = literal.to_string();
                for piece in text.split('{').skip(1) {
                    let name: String = piece
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        names.insert(name);
                    }
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

/// `::__bt::Status::Success` etc.: a status, as generated code writes it.
fn status(status: Status) -> TokenStream {
    match status {
        Status::Success => quote!(::__bt::Status::Success),
        Status::Failure => quote!(::__bt::Status::Failure),
        Status::Running => quote!(::__bt::Status::Running),
    }
}

/// The narrowest unsigned integer holding `max`, fully qualified.
fn uint_for(max: u128) -> TokenStream {
    let bits = 128 - max.leading_zeros() as usize;
    mask_for(bits)
}

/// The narrowest unsigned integer with at least `bits` bits (at most 128,
/// which `check` enforces), fully qualified.
fn mask_for(bits: usize) -> TokenStream {
    let name = match bits {
        0..=8 => "u8",
        9..=16 => "u16",
        17..=32 => "u32",
        33..=64 => "u64",
        _ => "u128",
    };
    let ty = Ident::new(name, Span::call_site());
    quote!(::core::primitive::#ty)
}

/// A count as a `u32` expression: a literal with its suffix (`3u32`), or
/// the named constant's checked block.
pub(super) fn suffixed(count: &crate::ir::Count) -> TokenStream {
    match count.literal() {
        Some(n) => quote!(#n),
        None => quote!(#count),
    }
}

/// A duration as an `f64`: a literal as written, any other expression
/// through `Into<f64>`, so that `f32` (and integer) seconds need no cast.
pub(super) fn seconds_value(duration: &syn::Expr) -> TokenStream {
    if let syn::Expr::Lit(_) = duration {
        return quote!(#duration);
    }
    quote::quote_spanned!(syn::spanned::Spanned::span(duration)=> ::core::convert::Into::<::core::primitive::f64>::into(#duration))
}
