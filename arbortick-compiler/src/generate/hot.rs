//! Hot reload (a build with `hot-reload`): besides its compiled tick, a tree
//! gets the table of its expressions as compiled code reached by index,
//! which the interpreter calls when the program runs the tree live
//! (`bt::hot`).
//!
//! What is added to a tree `Name`:
//! - a field `hot` in `Name`: the agent's interpreter state, its running
//!   leaves' memories and its bound values, by place (`__NameHotMemory`
//!   and `__NameHotValue`, one variant per leaf type and bound type);
//! - `Name::__hot_engine`: the tree's engine, made at the first live tick
//!   from what the build knows (its tokens, its expressions in index order,
//!   `file!()`, `line!()`);
//! - at the top of `tick`, `try_tick` and `reset`: a live agent ticks
//!   through a closure that matches the expression's index and runs its
//!   code, with the `when let` values and `for_each` items in scope read
//!   from the agent's slots, and, for an expression of an embedded tree,
//!   that tree's bindings from the `subtree` nodes' arguments.
//!
//! Every expression's code is written as the compiled tick writes it
//! (typed on the user's tokens), so an error in it is the same error at the
//! same place, which rustc reports once.

use super::{Gen, names};
use crate::interpret::{self, Expression, Program, Use};
use crate::ir::{ClauseKind, Kind, Node};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// What a hot build adds to one tree.
pub(super) struct HotCode {
    /// The state type's field.
    pub field: TokenStream,
    /// First in `tick`.
    pub tick: TokenStream,
    /// First in `try_tick`.
    pub try_tick: TokenStream,
    /// First in `reset`.
    pub reset: TokenStream,
    /// The slot types and the engine's function.
    pub items: TokenStream,
}

/// Where an expression of a node comes from.
enum Source<'n> {
    /// A value: a condition, action, instant, duration, score, flags, or a
    /// random policy's generator.
    Expr(&'n syn::Expr),
    /// A `cond`'s condition, tested by `if` as the compiled tick tests it
    /// (so that rustc reports a type error in it once, for both).
    If(&'n syn::Expr),
    /// A hook whose result says whether to go on (`scope`'s `enter` and
    /// `tick`).
    Proceed(&'n syn::Expr),
    /// A hook whose result is dropped; `true` for one halting runs
    /// (`scope`'s `exit`, `after`'s `halted`).
    Hook(&'n syn::Expr, bool),
    WhenLet(&'n syn::Pat, &'n syn::Type, &'n syn::Expr),
    Item(&'n crate::args::Item),
    Switch(&'n syn::Expr),
    Leaf(&'n syn::Path, &'n syn::Expr),
}

/// The expressions of `node`, each with its use and text: what the
/// interpreter asks about it.
fn sources(node: &Node) -> Vec<(Use, String, Source<'_>)> {
    let mut out = Vec::new();
    let mut add = |used, text: String, source| out.push((used, text, source));
    match &node.kind {
        Kind::Cond(e) | Kind::Monitor { expr: e, .. } => {
            add(Use::Condition, interpret::text(e), Source::If(e))
        }
        Kind::Precondition { expr: e, .. } | Kind::RunWhile { expr: e, .. } => {
            add(Use::Condition, interpret::text(e), Source::Expr(e))
        }
        Kind::Action(e) => add(Use::Action, interpret::text(e), Source::Expr(e)),
        Kind::Instant(e) => add(Use::Instant, interpret::text(e), Source::Expr(e)),
        Kind::Leaf { path, literal } => add(
            Use::Leaf,
            interpret::text(literal),
            Source::Leaf(path, literal),
        ),
        Kind::Wait(d)
        | Kind::Cooldown(d)
        | Kind::Timeout(d)
        | Kind::Delay(d)
        | Kind::Every(d)
        | Kind::GlobalCooldown(d) => add(Use::Seconds, interpret::text(d), Source::Expr(d)),
        Kind::Switch(e) => add(Use::Arm, interpret::text(e), Source::Switch(e)),
        Kind::ForEach { item, .. } => {
            add(Use::Item, interpret::text(&item.expr), Source::Item(item))
        }
        Kind::Decider { rng: Some(rng), .. } => {
            add(Use::Pick, interpret::text(rng), Source::Expr(rng))
        }
        Kind::Scope { enter, tick, exit } => {
            for e in [enter, tick].into_iter().flatten() {
                add(Use::Hook, interpret::text(e), Source::Proceed(e));
            }
            if let Some(e) = exit {
                add(Use::Hook, interpret::text(e), Source::Hook(e, true));
            }
        }
        Kind::After {
            success,
            failure,
            finished,
            halted,
        } => {
            for e in [success, failure, finished].into_iter().flatten() {
                add(Use::Hook, interpret::text(e), Source::Hook(e, false));
            }
            if let Some(e) = halted {
                add(Use::Hook, interpret::text(e), Source::Hook(e, true));
            }
        }
        _ => {}
    }
    for clause in node.guard.iter().flat_map(|g| &g.clauses) {
        match &clause.kind {
            ClauseKind::When(e) => add(Use::Condition, interpret::text(e), Source::Expr(e)),
            ClauseKind::WhenLet { pat, ty, expr } => add(
                Use::Matches,
                interpret::text(expr),
                Source::WhenLet(pat, ty, expr),
            ),
            ClauseKind::Score(e) => add(Use::Score, interpret::text(e), Source::Expr(e)),
            ClauseKind::Every(d) => add(Use::Seconds, interpret::text(d), Source::Expr(d)),
            ClauseKind::Flags { expr, .. } => {
                add(Use::Flags, interpret::text(expr), Source::Expr(expr))
            }
            ClauseKind::Room(_) => {}
        }
    }
    out
}

/// One entry of the build's table, with the code the interpreter reaches
/// by its index.
struct Entry {
    used: Use,
    text: String,
    pattern: String,
    scope: Vec<String>,
    embedded: Vec<String>,
    /// The node it was first met at, for the comment.
    line: usize,
    /// The code, `Reply`-valued, with the bindings in scope.
    tick: TokenStream,
    /// For a leaf or a dropped hook: the code halting runs.
    halt: Option<TokenStream>,
}

impl Gen<'_> {
    /// The additions for a hot build, from the interpreter's view of the
    /// same tree: `Err` says why the tree stays compiled.
    pub(super) fn hot(&self, program: &Result<Program, String>) -> HotCode {
        let plan = program
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|program| self.hot_plan(program));
        match plan {
            Ok(code) => code,
            Err(reason) => self.hot_refused(&reason),
        }
    }

    fn hot_refused(&self, reason: &str) -> HotCode {
        let unit = quote!(::__bt::hot::__private::Agent<(), ()>);
        let build = self.hot_build("", &[], Some(reason));
        let name = &self.tree.name;
        HotCode {
            field: hot_field(self, unit),
            tick: quote!(let _ = self.hot.engaged(Self::__hot_engine);),
            try_tick: quote!(let _ = self.hot.engaged(Self::__hot_engine);),
            reset: TokenStream::new(),
            items: quote! {
                impl #name {
                    #build
                }
            },
        }
    }

    /// `Name::__hot_engine`: the engine, made from what the build knows.
    fn hot_build(&self, source: &str, entries: &[Entry], refused: Option<&str>) -> TokenStream {
        let tree = self.tree.name.to_string();
        let expressions = entries.iter().map(|e| {
            let used = Ident::new(&format!("{:?}", e.used), Span::call_site());
            let (text, pattern, scope, embedded) = (&e.text, &e.pattern, &e.scope, &e.embedded);
            quote!((::__bt::hot::Use::#used, #text, #pattern, &[#(#scope),*], &[#(#embedded),*]))
        });
        let refused = match refused {
            Some(reason) => quote!(::core::option::Option::Some(#reason)),
            None => quote!(::core::option::Option::None),
        };
        let vis = &self.tree.vis;
        quote! {
            /// Hot reload: this tree's live engine, which runs it on the
            /// interpreter and reloads it from its source file; `None`
            /// before `bt::hot::start`, or for a tree that stays compiled. Its current version has the tree's
            /// nodes and views after reloads.
            #vis fn live() -> ::core::option::Option<&'static ::__bt::hot::Live> {
                if !::__bt::hot::started() {
                    return ::core::option::Option::None;
                }
                Self::__hot_engine().map(::__bt::hot::__private::Engine::live)
            }

            /// Hot reload: a new agent that ticks the compiled tree even
            /// after `bt::hot::start`, to compare the live tree with the
            /// build.
            #vis fn compiled() -> Self {
                let mut state = <Self as ::core::default::Default>::default();
                state.hot = ::__bt::hot::__private::Agent::compiled();
                state
            }

            /// The tree's live engine, for hot reload: made at the first
            /// live tick from what the build knows.
            #[doc(hidden)]
            fn __hot_engine() -> ::core::option::Option<&'static ::__bt::hot::__private::Engine> {
                static ENGINE: ::__bt::hot::__private::Cell = ::__bt::hot::__private::Cell::new();
                ENGINE.get(&::__bt::hot::Build {
                    tree: #tree,
                    source: #source,
                    expressions: &[#(#expressions),*],
                    file: ::core::file!(),
                    line: ::core::line!(),
                    manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                    refused: #refused,
                })
            }
        }
    }

    fn hot_plan(&self, program: &Program) -> Result<HotCode, String> {
        let name = self.tree.name.to_string();
        let mut interpreter = program
            .interpreter(&name)
            .ok_or_else(|| format!("the interpreter has no tree `{name}`"))?;
        // Each tree laid out (this one and those it embeds), with its
        // generator.
        let laid: Vec<&crate::ir::Tree> = (interpreter.trees_laid_out().into_iter())
            .filter_map(|t| program.tree(t).map(|t| t.ir()))
            .collect();
        let gens: Vec<Gen> = laid.iter().skip(1).map(|t| Gen::new(t)).collect();
        let gen_of =
            |tree: &str| -> &Gen { (gens.iter()).find(|g| g.tree.name == tree).unwrap_or(self) };
        let unsupported = (laid.iter().flat_map(|t| &t.nodes)).find_map(|n| match &n.kind {
            Kind::Rendezvous { .. } => Some((n, "a `rendezvous`")),
            Kind::ForEach { .. } if when_let(n).is_some() => {
                Some((n, "a `for_each` with a `when let` guard"))
            }
            _ => None,
        });
        if let Some((node, what)) = unsupported {
            return Err(format!(
                "it has {what} (line {}), which hot reload does not run yet",
                node.line
            ));
        }
        let (memory_ty, value_ty) = (
            hot_type(&self.tree.name, "Memory"),
            hot_type(&self.tree.name, "Value"),
        );
        // Each expression once, in index order, as the interpreter meets it.
        struct Met {
            used: Use,
            text: String,
            pattern: String,
            scope: Vec<String>,
            embedded: Vec<String>,
            line: usize,
            tree: String,
            node: usize,
            place: usize,
            bound: Vec<usize>,
        }
        type MetKey = (Use, String, String, Vec<String>, Vec<String>);
        let mut met: Vec<Met> = Vec::new();
        let mut keys: std::collections::HashMap<MetKey, u32> = Default::default();
        let _ = interpreter.resolve(|e: &Expression| -> Result<u32, ()> {
            let scope: Vec<String> = e.scope.iter().map(|s| s.to_string()).collect();
            let embedded: Vec<String> = e.embedded.iter().map(|s| s.to_string()).collect();
            let key = (
                e.used,
                e.text.to_string(),
                e.pattern.to_string(),
                scope.clone(),
                embedded.clone(),
            );
            let next = met.len() as u32;
            let i = *keys.entry(key).or_insert(next);
            if i == next {
                met.push(Met {
                    used: e.used,
                    text: e.text.to_string(),
                    pattern: e.pattern.to_string(),
                    scope,
                    embedded,
                    line: e.line,
                    tree: e.at.tree.to_string(),
                    node: e.at.node,
                    place: e.at.place,
                    bound: e.at.bound.to_vec(),
                });
            }
            Ok(i)
        });
        let mut memory: Vec<(String, TokenStream)> = Vec::new();
        let mut values: Vec<(String, TokenStream)> = Vec::new();
        let mut entries: Vec<Entry> = Vec::new();
        for m in met {
            let g = gen_of(&m.tree);
            let binders: Vec<usize> = m.bound.iter().map(|&b| interpreter.node_at(b).1).collect();
            let (tick, halt) = g.hot_entry(
                (m.used, &m.text, m.node, m.line),
                &binders,
                &memory_ty,
                &value_ty,
                &mut memory,
                &mut values,
            )?;
            // An embedded tree's bindings, from the arguments of the
            // `subtree` nodes that embed it.
            let chain = self.hot_embedding(program, &interpreter, m.place);
            entries.push(Entry {
                used: m.used,
                text: m.text,
                pattern: m.pattern,
                scope: m.scope,
                embedded: m.embedded,
                line: m.line,
                tick: quote!({ #chain #tick }),
                halt: halt.map(|h| quote!({ #chain #h })),
            });
        }
        let build = self.hot_build(program.written(), &entries, None);
        Ok(self.hot_code(build, &entries, &memory_ty, &value_ty, &memory, &values))
    }

    /// For a place of an embedded tree: each enclosing `subtree` node's
    /// arguments, evaluated where that node is, bound to the embedded
    /// tree's parameters (a `&mut` reborrowed, a `&` copied), outermost
    /// first; nothing for a place of this tree.
    fn hot_embedding(
        &self,
        program: &Program,
        interpreter: &crate::interpret::Interpreter,
        place: usize,
    ) -> TokenStream {
        let mut code = TokenStream::new();
        for s in interpreter.embedding_places(place) {
            let (tree, node) = interpreter.node_at(s);
            let Some(node) = program.tree(tree).map(|t| t.ir().node(node)) else {
                continue;
            };
            let Kind::Subtree { path, args, .. } = &node.kind else {
                continue;
            };
            let name = path.segments.last().map(|s| s.ident.to_string());
            let Some(embedded) = name.as_deref().and_then(|n| program.tree(n)) else {
                continue;
            };
            let params = &embedded.ir().params;
            let temps: Vec<Ident> = (0..args.len())
                .map(|i| Ident::new(&format!("__arg{i}"), Span::mixed_site()))
                .collect();
            let given = args.iter().zip(params).map(|(arg, param)| match &param.ty {
                syn::Type::Reference(r) if r.mutability.is_some() => quote!(&mut *(#arg)),
                syn::Type::Reference(_) => quote!(&*(#arg)),
                _ => quote!(#arg),
            });
            let names = params.iter().map(|p| &p.name);
            code.extend(quote! {
                let (#(#temps,)*) = (#(#given,)*);
                #(let #names = #temps;)*
            });
        }
        code
    }

    /// The code of one expression: what it answers when ticked, and what
    /// halting runs.
    fn hot_entry(
        &self,
        (used, text, node, line): (Use, &str, usize, usize),
        binders: &[usize],
        memory_ty: &Ident,
        value_ty: &Ident,
        memory: &mut Vec<(String, TokenStream)>,
        values: &mut Vec<(String, TokenStream)>,
    ) -> Result<(TokenStream, Option<TokenStream>), String> {
        let node = self.tree.node(node);
        let found = sources(node);
        let mut matching = found.iter().filter(|(u, t, _)| *u == used && t == text);
        let Some((_, _, first)) = matching.next() else {
            return Err(format!("no code found for `{text}` (line {line})"));
        };
        // A hook met both as `enter` and as `exit` proceeds like `enter`.
        let source = match first {
            Source::Hook(..) => matching
                .find(|(_, _, s)| matches!(s, Source::Proceed(_)))
                .map_or(first, |(_, _, s)| s),
            _ => first,
        };
        let (slots, at, call) = (names::slots(), names::at(), names::call());
        let reply = quote!(::__bt::hot::__private::Reply);
        let binds = self.hot_binds(binders, value_ty, values);
        let slot = |list: &mut Vec<(String, TokenStream)>, prefix: &str, key: String, ty| {
            let k = match list.iter().position(|(k, _)| *k == key) {
                Some(k) => k,
                None => {
                    list.push((key, ty));
                    list.len() - 1
                }
            };
            format_ident!("{}{}", prefix, k)
        };
        let code = match source {
            Source::Expr(expr) => match used {
                Use::Condition => {
                    let (bind, ok) = self.typed_bool(expr);
                    quote!({ #bind #reply::Bool(#ok) })
                }
                Use::Action => {
                    let ty = quote_spanned!(expr.span()=> ::__bt::Status);
                    let r = names::result();
                    quote!({ let #r: #ty = #expr; #reply::Status(#r) })
                }
                Use::Instant => {
                    let ty = quote_spanned!(expr.span()=> ::__bt::Outcome);
                    let r = names::result();
                    quote!({ let #r: #ty = #expr; #reply::Outcome(#r) })
                }
                Use::Seconds => {
                    let value = super::seconds_value(expr);
                    let d = names::seconds();
                    let typed =
                        quote_spanned!(expr.span()=> let #d: ::core::primitive::f64 = #value;);
                    quote!({ #typed #reply::Seconds(#d) })
                }
                Use::Score => {
                    let s = names::score();
                    let typed =
                        quote_spanned!(expr.span()=> let #s: ::core::primitive::f32 = #expr;);
                    quote!({ #typed #reply::Score(#s) })
                }
                Use::Flags => {
                    let bits = quote_spanned!(expr.span()=> ::__bt::hot::__private::bits(#expr));
                    quote!(#reply::Bits(#bits))
                }
                Use::Pick => {
                    let candidates = names::candidates();
                    let pick =
                        quote_spanned!(expr.span()=> ::__bt::__private::pick(#expr, #candidates));
                    quote! {
                        match #call {
                            ::__bt::hot::__private::Call::Pick(#candidates) => #reply::Pick(#pick),
                            _ => #reply::Missing,
                        }
                    }
                }
                _ => {
                    return Err(format!(
                        "`{text}` is used in a way hot reload does not know"
                    ));
                }
            },
            Source::If(expr) => {
                let test = quote_spanned!(expr.span()=> if #expr { true } else { false });
                quote!(#reply::Bool(#test))
            }
            Source::Proceed(hook) => {
                let proceed = quote_spanned!(hook.span()=> ::__bt::HookResult::proceed(#hook));
                quote!(#reply::Bool(#proceed))
            }
            Source::Hook(hook, _) => quote!({ let _ = #hook; #reply::Bool(true) }),
            Source::WhenLet(pat, ty, expr) => {
                let variant = slot(values, "V", interpret::text(ty), quote!(#ty));
                let (v, ok) = (names::value(), names::verdict());
                quote! {{
                    let #v: #ty = #expr;
                    let #ok = if let #pat = &#v { true } else { false };
                    if #ok {
                        #slots.values[#at.place] = #value_ty::#variant(#v);
                    }
                    #reply::Bool(#ok)
                }}
            }
            Source::Item(item) => {
                let ty = &item.ty;
                let variant = slot(values, "V", interpret::text(ty), quote!(#ty));
                let (v, expr) = (names::value(), &item.expr);
                let given = quote_spanned!(expr.span()=> #expr);
                quote! {{
                    let #v: ::core::option::Option<#ty> = #given;
                    match #v {
                        ::core::option::Option::Some(#v) => {
                            #slots.values[#at.place] = #value_ty::#variant(#v);
                            #reply::Bool(true)
                        }
                        ::core::option::Option::None => #reply::Bool(false),
                    }
                }}
            }
            Source::Switch(expr) => {
                let arms = node.children.iter().enumerate().map(|(i, &c)| {
                    let pat = match &self.tree.node(c).arm {
                        Some(crate::ast::Arm::Pattern(pat)) => quote!(#pat),
                        Some(crate::ast::Arm::Equals(case)) => {
                            let v = names::value();
                            quote_spanned!(case.span()=> ref #v if ::core::cmp::PartialEq::eq(#v, &(#case)))
                        }
                        None => quote!(_),
                    };
                    quote!(#pat => #i,)
                });
                let scrutinee = quote_spanned!(expr.span()=> #expr);
                quote!(#reply::Arm(match #scrutinee { #(#arms)* }))
            }
            Source::Leaf(path, literal) => {
                let leaf = self.leaf_trait(path);
                let variant = slot(memory, "M", interpret::text(&leaf), quote!(#leaf::Memory));
                let agent = self.agent_arg();
                let (params, m, r) = (names::leaf(), names::memory(), names::result());
                let call_enum = quote!(::__bt::hot::__private::Call);
                let take = quote! {
                    let mut #m = match ::core::mem::take(&mut #slots.memory[#at.place]) {
                        #memory_ty::#variant(#m) => #m,
                        _ => ::core::default::Default::default(),
                    };
                };
                let halt = quote! {{
                    #take
                    #leaf::halt(&mut #m, #agent);
                    #reply::Done
                }};
                let tick = quote! {
                    match #call {
                        #call_enum::Halt => #halt,
                        #call_enum::Start => {
                            #binds
                            let #params = #literal;
                            let mut #m = ::core::default::Default::default();
                            let #r = #leaf::start(&#params, &mut #m, #agent);
                            if #r.is_running() {
                                #slots.memory[#at.place] = #memory_ty::#variant(#m);
                            }
                            #reply::Status(#r)
                        }
                        _ => {
                            #take
                            #binds
                            let #params = #literal;
                            let #r = #leaf::tick(&#params, &mut #m, #agent);
                            if #r.is_running() {
                                #slots.memory[#at.place] = #memory_ty::#variant(#m);
                            }
                            #reply::Status(#r)
                        }
                    }
                };
                return Ok((tick, Some(halt)));
            }
        };
        // Halting runs a hook met as an `exit` or `halted` anywhere.
        let on_halt = (found.iter())
            .any(|(u, t, s)| *u == used && t == text && matches!(s, Source::Hook(_, true)));
        let halt = on_halt.then(|| quote!({ #binds #code }));
        Ok((quote!({ #binds #code }), halt))
    }

    /// The bindings in scope, read from the places that hold them
    /// (`binders`: each one's node), as the compiled tick binds them: a
    /// `when let` pattern against `&T`, a `for_each` item as `&T`.
    fn hot_binds(
        &self,
        binders: &[usize],
        value_ty: &Ident,
        values: &mut Vec<(String, TokenStream)>,
    ) -> TokenStream {
        let (slots, at) = (names::slots(), names::at());
        let x = names::matched();
        let binds = binders.iter().enumerate().map(|(k, &node)| {
            let node = self.tree.node(node);
            let (ty, bind) = match (&node.kind, when_let(node)) {
                (_, Some((pat, ty))) => (ty, quote!(let #pat)),
                (Kind::ForEach { item, .. }, None) => {
                    let (name, ty) = (&item.name, &item.ty);
                    (ty, quote!(let #name: &#ty))
                }
                _ => unreachable!("a binder binds a `when let` or a `for_each` item"),
            };
            let key = interpret::text(ty);
            let variant = match values.iter().position(|(k, _)| *k == key) {
                Some(v) => format_ident!("V{}", v),
                None => {
                    values.push((key, quote!(#ty)));
                    format_ident!("V{}", values.len() - 1)
                }
            };
            quote! {
                #bind = (match &#slots.values[#at.bound[#k]] {
                    #value_ty::#variant(#x) => #x,
                    _ => ::__bt::hot::__private::unbound(),
                }) else {
                    ::__bt::hot::__private::unbound()
                };
            }
        });
        quote!(#(#binds)*)
    }

    fn hot_code(
        &self,
        build: TokenStream,
        entries: &[Entry],
        memory_ty: &Ident,
        value_ty: &Ident,
        memory: &[(String, TokenStream)],
        values: &[(String, TokenStream)],
    ) -> HotCode {
        let name = &self.tree.name;
        let (slots, at, call) = (names::slots(), names::at(), names::call());
        let (engine, live) = (names::engine(), names::live_agent());
        let reply = quote!(::__bt::hot::__private::Reply);
        let slots_ty = quote!(::__bt::hot::__private::Slots<#memory_ty, #value_ty>);
        // Trace events and node hooks go to the context's tracer, as in
        // compiled code: while ticking, and while halting when `reset`
        // takes the context.
        let cx = self.tracing_context().cloned();
        let halt_cx = cx
            .as_ref()
            .filter(|cx| self.halt_bindings().any(|p| p.name == **cx));
        let context = |cx: Option<&Ident>| -> (TokenStream, TokenStream) {
            let call_ty = quote!(::__bt::hot::__private::Call);
            let Some(cx) = cx else {
                return (
                    TokenStream::new(),
                    quote!(
                        <::__bt::hot::__private::Tracing as ::core::default::Default>::default()
                    ),
                );
            };
            let arms = quote! {
                match #call {
                    #call_ty::Trace(level, node, what) => {
                        ::__bt::__private::trace_emit(&#cx, level, node, *what);
                        return #reply::Done;
                    }
                    #call_ty::Before(node) => {
                        return #reply::Hooked(::__bt::__private::hook_before(&#cx, node));
                    }
                    #call_ty::After(node, status) => {
                        return #reply::Status(::__bt::__private::hook_after(&#cx, node, status));
                    }
                    _ => {}
                }
            };
            (arms, quote!(::__bt::hot::__private::Tracing::of(&#cx)))
        };
        let (tick_context, tracing) = context(cx.as_ref());
        let (halt_context, halt_tracing) = context(halt_cx);
        let closure = |arms: Vec<TokenStream>, context: &TokenStream| {
            quote! {
                |#slots: &mut #slots_ty, #at: &::__bt::hot::At<'_>, #call: ::__bt::hot::__private::Call<'_>| -> #reply {
                    let _ = (&#slots, #call);
                    #context
                    match #at.index {
                        #(#arms)*
                        _ => #reply::Missing,
                    }
                }
            }
        };
        let arm = |i: usize, e: &Entry, code: &TokenStream| {
            let i = i as u32;
            let doc = format!(" {:?} `{}` (line {})", e.used, e.text, e.line);
            quote! {
                #[doc = #doc]
                ::core::option::Option::Some(#i) => #code,
            }
        };
        let ticks = entries
            .iter()
            .enumerate()
            .map(|(i, e)| arm(i, e, &e.tick))
            .collect();
        // Only what the compiled halt can run: code naming a binding that
        // `reset` does not take belongs to nodes that are never running
        // when halted.
        let halting: std::collections::HashSet<String> =
            self.halt_bindings().map(|p| p.name.to_string()).collect();
        let params: std::collections::HashSet<String> = self
            .tree
            .params
            .iter()
            .map(|p| p.name.to_string())
            .collect();
        let halts = (entries.iter().enumerate())
            .filter_map(|(i, e)| e.halt.as_ref().map(|h| (i, e, h)))
            .filter(|(_, _, h)| {
                let mut named = std::collections::HashSet::new();
                super::names_in((*h).clone(), &mut named);
                named
                    .iter()
                    .all(|n| !params.contains(n) || halting.contains(n))
            })
            .map(|(i, e, h)| arm(i, e, h))
            .collect();
        let (tick_host, halt_host) = (closure(ticks, &tick_context), closure(halts, &halt_context));
        // Patterns bind what an expression may not use.
        let host = names::host();
        let allow = quote!(#[allow(unused_variables, irrefutable_let_patterns, clippy::all)]);
        let (tick_host, halt_host) = (
            quote!(#allow let #host = #tick_host;),
            quote!(#allow let #host = #halt_host;),
        );
        let input = match &self.tree.context {
            Some(cx) => quote! {
                ::__bt::hot::Input {
                    now: ::__bt::Context::now(&#cx),
                    decision: ::__bt::hot::__private::bits(::__bt::Context::decision_flags(&#cx)),
                    stimuli: ::__bt::hot::__private::bits(::__bt::Context::stimuli_flags(&#cx)),
                }
            },
            None => quote!(<::__bt::hot::Input as ::core::default::Default>::default()),
        };
        // One live tick, shared by `tick` and `try_tick`: `None` for an
        // agent that ticks compiled code.
        let (params, args) = (self.params(), self.args());
        let hot_tick = quote! {
            /// Hot reload: one tick of a live agent, on the interpreter
            /// through this tree's table of expressions; `None` for an
            /// agent that ticks compiled code.
            #[doc(hidden)]
            #[inline]
            #[allow(unused_variables)]
            fn __hot_try_tick(&mut self, #params) -> ::core::option::Option<::core::result::Result<::__bt::Status, ::__bt::TickError>> {
                let (#engine, #live, #slots) = self.hot.engaged(Self::__hot_engine)?;
                #tick_host
                let ticked = #engine.try_tick(#live, #slots, #input, #tracing, #host);
                ::core::option::Option::Some(
                    ticked.map_err(|(node, status)| ::__bt::TickError::RedecideLimit { node, status }),
                )
            }
        };
        let try_tick = quote! {
            if let ::core::option::Option::Some(ticked) = self.__hot_try_tick(#args) {
                return ticked;
            }
        };
        let tick = quote! {
            if let ::core::option::Option::Some(ticked) = self.__hot_try_tick(#args) {
                return ticked.unwrap_or_else(|error| error.status());
            }
        };
        let reset = quote! {
            if let ::core::option::Option::Some((#engine, #live, #slots)) = self.hot.running(Self::__hot_engine) {
                #halt_host
                #engine.reset(#live, #slots, #halt_tracing, #host);
                return;
            }
        };
        let variants = |prefix: &str, list: &[(String, TokenStream)]| -> Vec<TokenStream> {
            (list.iter().enumerate())
                .map(|(k, (text, ty))| {
                    let v = format_ident!("{}{}", prefix, k);
                    let doc = format!(" `{text}`");
                    quote!(#[doc = #doc] #v(#ty),)
                })
                .collect()
        };
        let (memory_variants, value_variants) = (variants("M", memory), variants("V", values));
        let memory_doc = format!(" The running leaves' memories of a live `{name}`, by leaf type.");
        let value_doc = format!(" The values a live `{name}` binds, by type.");
        HotCode {
            field: hot_field(
                self,
                quote!(::__bt::hot::__private::Agent<#memory_ty, #value_ty>),
            ),
            tick,
            try_tick,
            reset,
            items: quote! {
                #[doc = #memory_doc]
                #[doc(hidden)]
                #[derive(::core::clone::Clone, ::core::fmt::Debug, ::core::default::Default)]
                #[allow(non_camel_case_types, dead_code, clippy::large_enum_variant)]
                enum #memory_ty {
                    /// Nothing runs here.
                    #[default]
                    Empty,
                    #(#memory_variants)*
                }

                #[doc = #value_doc]
                #[doc(hidden)]
                #[derive(::core::clone::Clone, ::core::fmt::Debug, ::core::default::Default)]
                #[allow(non_camel_case_types, dead_code, clippy::large_enum_variant)]
                enum #value_ty {
                    /// Nothing is bound here.
                    #[default]
                    Empty,
                    #(#value_variants)*
                }

                impl #name {
                    #build

                    #hot_tick
                }
            },
        }
    }
}

/// `hot: Agent<..>`, out of reflection (its state is the interpreter's).
fn hot_field(g: &Gen, ty: TokenStream) -> TokenStream {
    let ignore = g.tree.reflect.is_some().then(|| quote!(#[reflect(ignore)]));
    quote! {
        /// Hot reload: this agent's state on the interpreter.
        #ignore
        hot: #ty,
    }
}

/// `__NameHotMemory`, `__NameHotValue`.
fn hot_type(tree: &Ident, what: &str) -> Ident {
    Ident::new(&format!("__{tree}Hot{what}"), Span::call_site())
}

/// The `when let` of a decider child's guard: its pattern and type.
fn when_let(node: &Node) -> Option<(&syn::Pat, &syn::Type)> {
    node.guard
        .iter()
        .flat_map(|g| &g.clauses)
        .find_map(|c| match &c.kind {
            ClauseKind::WhenLet { pat, ty, .. } => Some((pat, ty)),
            _ => None,
        })
}
