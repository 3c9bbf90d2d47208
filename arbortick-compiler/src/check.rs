//! Validation of the [`ast`](crate::ast): one function per rule, every
//! violation reported (none stops the others), each on the token to change.
//! Arity and needs come from the node-kind table; arguments were already
//! read and typed by [`crate::args`] while parsing.
//!
//! A rule whose result lowering needs (where a skipping node sits, a
//! `parallel`'s resolved thresholds, a rendezvous's role, a request's
//! stream, the root) is a public function returning that result or its
//! error: `check` reports the error, and [`crate::lower`] takes the result
//! from the same function, so it cannot disagree with what was checked.

use crate::args::Spanned;
use crate::ast::{ClauseKind, Input, Node, NodeKind, Param, TreeDef};
use crate::errors::{Errors, again};
use crate::kinds::Row as _;
use crate::kinds::{Children, Kind, Typed};
use bt_runtime::Status;
use proc_macro2::Span;
use std::collections::HashMap;
use syn::spanned::Spanned as _;
use syn::{Pat, Type};

/// The widest `parallel` or decider group: completion and masks are kept
/// in a `u128`.
pub const MAX_CHILDREN_IN_A_MASK: usize = 128;

/// rustc's default `recursion_limit`.
pub const DEFAULT_RECURSION_LIMIT: u32 = 128;
/// The highest `#[bt(recursion_limit = N)]` accepted.
pub const MAX_RECURSION_LIMIT: u32 = 328;
/// Levels of the recursion limit that rustc uses beyond a tree's depth
/// when it lays out the nested state types (measured: a chain of 130
/// nested nodes overflows the default 128).
pub const RECURSION_MARGIN: u32 = 28;

pub fn check(input: &Input, errors: &mut Errors) {
    check_with(
        input,
        cfg!(feature = "serde"),
        cfg!(feature = "reflect"),
        errors,
    );
}

/// [`check`], with the runtime's `serde` and `bevy_reflect` features on or
/// off as given: the interpreter derives nothing, so it takes them as on.
pub fn check_with(input: &Input, serde: bool, reflect: bool, errors: &mut Errors) {
    tree_names_are_unique(input, errors);
    trees_do_not_embed_themselves(input, errors);
    embedded_trees_match(input, "serde", |t| t.serde, "saved", errors);
    embedded_trees_match(input, "reflect", |t| t.reflect, "reflected", errors);
    shared_types_do_not_collide(input, errors);
    for tree in &input.trees {
        shared_fields_are_unique(tree, errors);
        monitors_fit(tree, errors);
        tree_has_exactly_one_root(tree, errors);
        depth_fits(tree, errors);
        labels_are_unique(tree, errors);
        at_most_one_context(tree, errors);
        serde_is_available(tree, serde, errors);
        reflect_is_available(tree, reflect, errors);
        if !tree.header_broken {
            activation_times_need_a_context(tree, errors);
        }
        for root in &tree.roots {
            sync_is_inside_a_rendezvous(root, false, errors);
            skips_are_passed_over(None, root, errors);
        }
        for node in tree.roots.iter().flat_map(walk) {
            // What the parameters must give, said only of a whole header.
            if !tree.header_broken {
                shared_needs_a_binding(tree, node, errors);
                leaf_has_mutable_agent(tree, node, errors);
                time_needs_a_context(tree, node, errors);
                request_stream_is_a_parameter(tree, node, errors);
            }
            guard_is_valid(node, errors);
            room_names_a_shared_node(tree, node, errors);
            expressions_do_not_return(node, errors);
            if let NodeKind::Keyword { .. } = node.kind {
                children_match_the_kind(node, errors);
                masks_fit(node, errors);
                arguments_fit_the_children(node, errors);
                binding_is_named(node, errors);
            }
        }
    }
}

/// `#[bt(serde)]` derives through `bt`'s re-export of serde, which exists
/// only with its `serde` feature (which turns on this crate's).
fn serde_is_available(tree: &TreeDef, enabled: bool, errors: &mut Errors) {
    if let (Some(span), false) = (tree.serde, enabled) {
        errors.push(syn::Error::new(
            span,
            "`#[bt(serde)]` needs the `serde` feature of `bt`: in Cargo.toml, \
             `arbortick = { version = \"0.1\", features = [\"serde\"] }`",
        ));
    }
}

/// `#[bt(reflect)]` derives through `bt`'s re-export of `bevy_reflect`,
/// which exists only with its `bevy_reflect` feature (which turns on this
/// crate's `reflect`).
fn reflect_is_available(tree: &TreeDef, enabled: bool, errors: &mut Errors) {
    if let (Some(span), false) = (tree.reflect, enabled) {
        errors.push(syn::Error::new(
            span,
            "`#[bt(reflect)]` needs the `bevy_reflect` feature of `bt`: in Cargo.toml, \
             `arbortick = { version = \"0.1\", features = [\"bevy_reflect\"] }`",
        ));
    }
}

/// Activation times are read from the tick context's clock.
fn activation_times_need_a_context(tree: &TreeDef, errors: &mut Errors) {
    if let (Some(span), None) = (tree.activation_times, context_param(&tree.params)) {
        errors.push(syn::Error::new(
            span,
            format!(
                "`#[bt(activation_times)]` reads the time from the tick context, but tree `{}` \
                 has no context parameter; add one to the header, e.g. `cx: &bt::Ctx`",
                tree.name
            ),
        ));
    }
}

/// The shared-state binding: the parameter marked `#[shared]`, else the one
/// whose type is `&<Tree>Shared`.
pub fn shared_param<'a>(tree_name: &syn::Ident, params: &'a [Param]) -> Option<&'a Param> {
    let wanted = format!("{tree_name}Shared");
    params.iter().find(|p| p.shared_attr.is_some()).or_else(|| {
        params.iter().find(|p| match &p.ty {
            Type::Reference(r) => matches!(&*r.elem, Type::Path(t)
                if t.path.segments.last().is_some_and(|s| s.ident == wanted)),
            _ => false,
        })
    })
}

/// Gates, global cooldowns and rendezvous keep their state in the tree's
/// shared object, which the header must take.
fn shared_needs_a_binding(tree: &TreeDef, node: &Node, errors: &mut Errors) {
    let NodeKind::Keyword { kind, ident, .. } = &node.kind else {
        return;
    };
    if !kind.info().needs_shared || shared_param(&tree.name, &tree.params).is_some() {
        return;
    }
    let name = &tree.name;
    errors.push(syn::Error::new(
        ident.span(),
        format!(
            "`{}` keeps its state in the tree's shared state, which every agent of `{name}` \
             uses: add `shared: &{name}Shared` to the header of `{name}` and tick every agent \
             with the same `{name}Shared::new()`",
            kind.keyword()
        ),
    ));
}

/// The error for a `sync` outside every rendezvous.
pub fn sync_outside(sync: &syn::Ident) -> syn::Error {
    syn::Error::new(
        sync.span(),
        "`sync` waits for the other members of a rendezvous, so it must be inside \
         `rendezvous(n) as role { .. }`",
    )
}

/// `sync` waits for the other members of the rendezvous around it.
fn sync_is_inside_a_rendezvous(node: &Node, inside: bool, errors: &mut Errors) {
    if let NodeKind::Keyword {
        kind: Kind::Sync,
        ident,
        ..
    } = &node.kind
        && !inside
    {
        errors.push(sync_outside(ident));
    }
    let inside = inside || node.kind() == Kind::Rendezvous;
    for child in node.children() {
        sync_is_inside_a_rendezvous(child, inside, errors);
    }
}

/// The tick context binding: the parameter marked `#[context]`, else the
/// one whose type is `Ctx<..>`, `&Ctx<..>` or `&mut Ctx<..>`.
pub fn context_param(params: &[Param]) -> Option<&Param> {
    params
        .iter()
        .find(|p| p.context_attr.is_some())
        .or_else(|| params.iter().find(|p| is_ctx_type(&p.ty)))
}

fn is_ctx_type(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => is_ctx_type(&r.elem),
        Type::Paren(p) => is_ctx_type(&p.elem),
        Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Ctx")
        }
        _ => false,
    }
}

/// A tree reads time and flags from one context.
fn at_most_one_context(tree: &TreeDef, errors: &mut Errors) {
    let marked: Vec<&Param> = tree
        .params
        .iter()
        .filter(|p| p.context_attr.is_some())
        .collect();
    let candidates: Vec<&Param> = if marked.is_empty() {
        tree.params.iter().filter(|p| is_ctx_type(&p.ty)).collect()
    } else {
        marked
    };
    if let [first, second, ..] = candidates.as_slice() {
        let message = format!(
            "tree `{}` has two tick contexts, `{}` and `{}`; mark the one to use with \
             `#[context]`",
            tree.name, first.name, second.name
        );
        errors.push(again(
            second.name.span(),
            &message,
            "first",
            first.name.span(),
        ));
    }
}

/// Time nodes and flag or time guard clauses read the tick context.
fn time_needs_a_context(tree: &TreeDef, node: &Node, errors: &mut Errors) {
    if context_param(&tree.params).is_some() {
        return;
    }
    let mut needs = Vec::new();
    for clause in node.guard.iter().flat_map(|g| &g.clauses) {
        match &clause.kind {
            ClauseKind::Every(_) => needs.push((clause.span, "`every` reads the time".to_string())),
            ClauseKind::Flags { stimuli, .. } => needs.push((
                clause.span,
                if *stimuli {
                    "`stimuli` reads the stimuli flags".to_string()
                } else {
                    "`flags` reads the decision flags".to_string()
                },
            )),
            _ => {}
        }
    }
    if let NodeKind::Keyword { kind, ident, .. } = &node.kind
        && kind.info().needs_context
    {
        let what = if *kind == Kind::Request {
            "names its agent"
        } else {
            "reads the time"
        };
        needs.push((ident.span(), format!("`{}` {what}", kind.keyword())));
    }
    for (span, what) in needs {
        errors.push(syn::Error::new(
            span,
            format!(
                "{what} from the tick context, but tree `{}` has no context parameter; add one \
                 to the header, e.g. `cx: &bt::Ctx<Flags, Senses>` (or mark a binding whose type \
                 implements `bt::Context` with `#[context]`)",
                tree.name
            ),
        ));
    }
}

/// `request(stream, ..)`: the stream is one of the tree's parameters, so
/// that halting (which has the tree's parameters, not the tick's locals)
/// can push the cancellation.
fn request_stream_is_a_parameter(tree: &TreeDef, node: &Node, errors: &mut Errors) {
    if let NodeKind::Keyword {
        typed: Ok(typed), ..
    } = &node.kind
        && let Typed::Request(request) = &**typed
        && let Err(error) = request_stream(tree, &request.stream)
    {
        errors.push(error);
    }
}

/// The parameter a `request` pushes into: its `stream` argument, which
/// must name one of the tree's parameters.
pub fn request_stream<'a>(tree: &TreeDef, stream: &'a syn::Expr) -> syn::Result<&'a syn::Ident> {
    let named = match stream {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    };
    if let Some(name) = named
        && tree.params.iter().any(|p| p.name == *name)
    {
        return Ok(name);
    }
    let params: Vec<String> = tree
        .params
        .iter()
        .map(|p| format!("`{}`", p.name))
        .collect();
    Err(syn::Error::new_spanned(
        stream,
        format!(
            "the stream of a `request` must be a parameter of tree `{}` (one of {}), e.g. \
             `paths: &mut bt::request::Requests<FindPath>` in the header and \
             `request(paths, FindPath {{ .. }})`",
            tree.name,
            if params.is_empty() {
                "none yet".to_string()
            } else {
                params.join(", ")
            }
        ),
    ))
}

/// Guard clauses: at most one `when let`, with its type and a pattern that
/// can fail.
fn guard_is_valid(node: &Node, errors: &mut Errors) {
    let Some(guard) = &node.guard else { return };
    let mut binding: Option<Span> = None;
    for clause in &guard.clauses {
        let ClauseKind::WhenLet { pat, ty, .. } = &clause.kind else {
            continue;
        };
        if let Some(first) = binding {
            errors.push(again(
                clause.span,
                "a guard binds at most one `when let`; match a tuple to bind several values",
                "first",
                first,
            ));
        }
        binding = Some(clause.span);
        let text = quote::quote!(#pat).to_string();
        if let Err(error) = when_let_type(pat, ty.as_deref()) {
            errors.push(error);
        }
        if is_irrefutable(pat) {
            errors.push(syn::Error::new(
                pat.span(),
                format!(
                    "`when let {text}` always matches, so it never rejects the child; use \
                     `when <condition>` to decide, or a pattern that can fail (`Some(..)`)"
                ),
            ));
        }
    }
}

/// `room('label)` in a guard names a `gate` or `global_cooldown` of the
/// same tree.
fn room_names_a_shared_node(tree: &TreeDef, node: &Node, errors: &mut Errors) {
    for clause in node.guard.iter().flat_map(|g| &g.clauses) {
        if let ClauseKind::Room(label) = &clause.kind
            && let Err(error) = room_target(tree, label)
        {
            errors.push(error);
        }
    }
}

/// The node a `room('label)` clause asks: the `gate` or `global_cooldown`
/// labelled so in `tree`.
pub fn room_target<'a>(tree: &'a TreeDef, label: &syn::Lifetime) -> syn::Result<&'a Node> {
    let named = tree
        .roots
        .iter()
        .flat_map(walk)
        .find(|n| n.label.as_ref().is_some_and(|l| l.ident == label.ident));
    match named {
        Some(node) if matches!(node.kind(), Kind::Gate | Kind::GlobalCooldown) => Ok(node),
        Some(node) => {
            let keyword = node.kind().keyword();
            let article = if keyword.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            Err(syn::Error::new(
                label.span(),
                format!(
                    "`room({label})` asks a `gate` or `global_cooldown` whether it lets an agent \
                     in, but `{label}` labels {article} `{keyword}`"
                ),
            ))
        }
        None => {
            let labels: Vec<String> = tree
                .roots
                .iter()
                .flat_map(walk)
                .filter(|n| matches!(n.kind(), Kind::Gate | Kind::GlobalCooldown))
                .filter_map(|n| n.label.as_ref().map(|l| l.ident.to_string()))
                .collect();
            let close =
                crate::kinds::closest(&label.ident.to_string(), labels.iter().map(String::as_str));
            let known = match close {
                Some(close) => format!("did you mean `'{close}`?"),
                None if labels.is_empty() => {
                    "it has no labelled `gate` or `global_cooldown`".to_string()
                }
                None => {
                    let labels: Vec<String> = labels.iter().map(|l| format!("`'{l}`")).collect();
                    format!("its gates and cooldowns are labelled {}", labels.join(", "))
                }
            };
            Err(syn::Error::new(
                label.span(),
                format!(
                    "no node of tree `{}` is labelled `{label}`; {known}",
                    tree.name
                ),
            ))
        }
    }
}

/// `return` (or `?`) in a node's expression would return from the whole
/// generated tick, skipping its bookkeeping; the block's value is the
/// status. Closures and nested functions may return as usual.
fn expressions_do_not_return(node: &Node, errors: &mut Errors) {
    use syn::visit::Visit;
    struct Returns(Vec<(Span, &'static str)>);
    impl<'ast> Visit<'ast> for Returns {
        fn visit_expr_return(&mut self, e: &'ast syn::ExprReturn) {
            self.0.push((e.return_token.span, "return"));
        }
        fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
            self.0.push((e.question_token.span, "?"));
            self.visit_expr(&e.expr);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let (expr, what) = match &node.kind {
        NodeKind::Cond(e) => (e, "a `cond`"),
        NodeKind::Action(e) => (e, "an `action`"),
        NodeKind::Instant(e) => (e, "an `instant`"),
        NodeKind::Keyword { .. } | NodeKind::Leaf { .. } | NodeKind::Subtree { .. } => return,
    };
    let mut found = Returns(Vec::new());
    found.visit_expr(expr);
    for (span, token) in found.0 {
        errors.push(syn::Error::new(
            span,
            format!(
                "`{token}` in {what} would return from the whole tick, not from the node: \
                 make the block's last expression its value (`if done {{ \
                 Status::Success }} else {{ Status::Running }}`), or move the code into a \
                 method or closure"
            ),
        ));
    }
}

/// The type of the value a `when let` matches, which must be written.
pub fn when_let_type<'a>(pat: &Pat, ty: Option<&'a Type>) -> syn::Result<&'a Type> {
    ty.ok_or_else(|| {
        let text = quote::quote!(#pat).to_string();
        syn::Error::new(
            pat.span(),
            format!(
                "`when let` needs the type of the value it matches, because the agent's state \
                 keeps the value while the child runs: write `when let {text}: Type = ..`"
            ),
        )
    })
}

/// A pattern that matches every value: a binding, `_`, or tuples and
/// references of those.
fn is_irrefutable(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => p.subpat.is_none() && !starts_upper(&p.ident),
        Pat::Wild(_) => true,
        Pat::Tuple(t) => t.elems.iter().all(is_irrefutable),
        Pat::Reference(r) => is_irrefutable(&r.pat),
        Pat::Paren(p) => is_irrefutable(&p.pat),
        Pat::Type(t) => is_irrefutable(&t.pat),
        _ => false,
    }
}

/// `None` and unit variants look like bindings; they start with a capital.
fn starts_upper(ident: &syn::Ident) -> bool {
    ident.to_string().starts_with(|c: char| c.is_uppercase())
}

/// All nodes below and including `root`, depth first.
fn walk(root: &Node) -> Vec<&Node> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        out.push(node);
        stack.extend(node.children().iter().rev());
    }
    out
}

/// Two trees of one invocation would define the same state type.
fn tree_names_are_unique(input: &Input, errors: &mut Errors) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for tree in &input.trees {
        let name = tree.name.to_string();
        if let Some(first) = seen.get(&name) {
            errors.push(syn::Error::new(
                tree.name.span(),
                format!(
                    "tree `{name}` is defined twice (first at line {}); rename one of them",
                    first.start().line
                ),
            ));
        } else {
            seen.insert(name, tree.name.span());
        }
    }
}

/// A tree saved with serde (or reflected) saves (or reflects) the trees it
/// embeds: those of this invocation must say `#[bt(serde)]` (or
/// `#[bt(reflect)]`) too. (Trees from elsewhere are checked by the
/// generated code, on the same token.)
fn embedded_trees_match(
    input: &Input,
    option: &str,
    says: fn(&TreeDef) -> Option<proc_macro2::Span>,
    done: &str,
    errors: &mut Errors,
) {
    let unsaved: HashMap<String, &TreeDef> = input
        .trees
        .iter()
        .filter(|t| says(t).is_none())
        .map(|t| (t.name.to_string(), t))
        .collect();
    for tree in input.trees.iter().filter(|t| says(t).is_some()) {
        for node in tree.roots.iter().flat_map(walk) {
            if let NodeKind::Subtree { path, .. } = &node.kind
                && let Some(name) = path.get_ident().map(ToString::to_string)
                && unsaved.contains_key(&name)
            {
                errors.push(syn::Error::new_spanned(
                    path,
                    format!(
                        "`{name}` is embedded in `{}`, which says `#[bt({option})]`: add \
                         `#[bt({option})]` to `{name}` too, so its state can be {done}",
                        tree.name
                    ),
                ));
            }
        }
    }
}

/// A tree's state holds the state of every tree it embeds, so no tree may
/// embed itself, directly or through other trees of the invocation (across
/// invocations rustc reports the cycle, as "cycle detected when computing
/// layout").
fn trees_do_not_embed_themselves(input: &Input, errors: &mut Errors) {
    let index: HashMap<String, usize> = input
        .trees
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.to_string(), i))
        .collect();
    // Per tree: the embedding nodes naming a tree of this invocation.
    let calls: Vec<Vec<(usize, &Node)>> = input
        .trees
        .iter()
        .map(|tree| {
            tree.roots
                .iter()
                .flat_map(walk)
                .filter_map(|node| {
                    let NodeKind::Subtree { path, .. } = &node.kind else {
                        return None;
                    };
                    let callee = index.get(&path.get_ident()?.to_string())?;
                    Some((*callee, node))
                })
                .collect()
        })
        .collect();
    // Depth-first from each tree back to itself, through trees that come
    // later in the invocation: each cycle is reported once, from its first
    // tree, on that tree's node that starts the cycle.
    for (start, tree) in input.trees.iter().enumerate() {
        let mut stack: Vec<Vec<usize>> = vec![vec![start]];
        let mut visited = vec![false; input.trees.len()];
        'search: while let Some(path) = stack.pop() {
            let at = *path.last().expect("paths start with a tree");
            for &(callee, _) in &calls[at] {
                if callee == start {
                    let first = path.get(1).copied().unwrap_or(start);
                    let Some(&(_, node)) = calls[start].iter().find(|(c, _)| *c == first) else {
                        continue;
                    };
                    let names: Vec<String> = path
                        .iter()
                        .chain([&start])
                        .map(|&t| format!("`{}`", input.trees[t].name))
                        .collect();
                    errors.push(syn::Error::new(
                        node.span,
                        format!(
                            "tree `{}` embeds itself ({}), so its state would contain itself; \
                             break the cycle",
                            tree.name,
                            names.join(" embeds ")
                        ),
                    ));
                    break 'search;
                }
                if callee > start && !visited[callee] {
                    visited[callee] = true;
                    let mut longer = path.clone();
                    longer.push(callee);
                    stack.push(longer);
                }
            }
        }
    }
}

/// A tree with shared nodes declares `<Tree>Shared`; no tree of the same
/// invocation may have that name.
fn shared_types_do_not_collide(input: &Input, errors: &mut Errors) {
    for tree in &input.trees {
        let has_shared = tree
            .roots
            .iter()
            .flat_map(walk)
            .any(|n| n.kind().info().needs_shared);
        let shared = format!("{}Shared", tree.name);
        let Some(other) = input.trees.iter().find(|t| t.name == shared) else {
            continue;
        };
        if has_shared {
            let message = format!(
                "tree `{shared}` has the name of the shared state that tree `{}` declares for \
                 its gates, cooldowns and rendezvous; rename one of the trees",
                tree.name
            );
            errors.push(again(
                other.name.span(),
                &message,
                &format!("tree `{}` is", tree.name),
                tree.name.span(),
            ));
        }
    }
}

/// Shared nodes are fields of `<Tree>Shared`, named by their label or, when
/// unlabeled, `n<id>`: a label may not take an unlabeled node's name.
fn shared_fields_are_unique(tree: &TreeDef, errors: &mut Errors) {
    let nodes: Vec<&Node> = tree.roots.iter().flat_map(walk).collect();
    for (id, node) in nodes.iter().enumerate() {
        if !node.kind().info().needs_shared || node.label.is_some() {
            continue;
        }
        let generated = format!("n{id}");
        if let Some(label) = nodes
            .iter()
            .filter_map(|n| n.label.as_ref())
            .find(|l| l.ident == generated)
        {
            errors.push(syn::Error::new(
                label.span(),
                format!(
                    "label `{label}` is the name `{}Shared` gives the unlabeled `{}` node {id}; \
                     rename this label, or label that node",
                    tree.name,
                    node.kind().keyword()
                ),
            ));
        }
    }
}

/// Armed monitors are kept in one `u128` per agent.
fn monitors_fit(tree: &TreeDef, errors: &mut Errors) {
    let mut monitors = tree
        .roots
        .iter()
        .flat_map(walk)
        .filter(|n| n.kind() == Kind::Monitor);
    if let Some(extra) = monitors.nth(MAX_CHILDREN_IN_A_MASK) {
        errors.push(syn::Error::new(
            extra.span,
            format!("a tree has at most {MAX_CHILDREN_IN_A_MASK} monitors; this is one more"),
        ));
    }
}

/// A tree body holds exactly one node; several must be wrapped in a composite.
fn tree_has_exactly_one_root(tree: &TreeDef, errors: &mut Errors) {
    match tree.roots.as_slice() {
        // The nodes that did not parse were reported.
        [] if tree.broken > 0 => {}
        [_, second, ..] => errors.push(syn::Error::new(
            second.span,
            format!(
                "tree `{}` has more than one root node; a tree has exactly one root: wrap \
                 these nodes in `sequence {{ .. }}` or `select {{ .. }}`",
                tree.name
            ),
        )),
        _ => {
            if let Err(error) = root(tree) {
                errors.push(error);
            }
        }
    }
}

/// The tree's root node.
pub fn root(tree: &TreeDef) -> syn::Result<&Node> {
    tree.roots.first().ok_or_else(|| {
        syn::Error::new(
            tree.body_span,
            format!(
                "tree `{}` has no root node; write one, e.g. `sequence {{ .. }}`",
                tree.name
            ),
        )
    })
}

fn labels_are_unique(tree: &TreeDef, errors: &mut Errors) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for node in tree.roots.iter().flat_map(walk) {
        let Some(label) = &node.label else { continue };
        let name = label.ident.to_string();
        if matches!(name.as_str(), "static" | "_") {
            errors.push(syn::Error::new(
                label.span(),
                format!(
                    "`'{name}` is a lifetime of Rust's own, not a label: name the node with a \
                     label of its own, such as `'door`"
                ),
            ));
            continue;
        }
        if let Some(first) = seen.get(&name) {
            let message = format!(
                "duplicate label `'{name}` in tree `{}`: each label names one node; rename this one",
                tree.name
            );
            errors.push(again(label.span(), &message, "first", *first));
        } else {
            seen.insert(name, label.span());
        }
    }
}

/// A stateful leaf receives the tree's first parameter as `&mut Agent`.
fn leaf_has_mutable_agent(tree: &TreeDef, node: &Node, errors: &mut Errors) {
    let NodeKind::Leaf { path, .. } = &node.kind else {
        return;
    };
    if tree
        .params
        .first()
        .and_then(|p| agent_type(&p.ty))
        .is_some()
    {
        return;
    }
    let leaf = quote::quote!(#path).to_string().replace(' ', "");
    let found = match tree.params.first() {
        Some(p) => {
            let ty = &p.ty;
            format!("`{}: {}`", p.name, quote::quote!(#ty))
        }
        None => "no parameters".to_string(),
    };
    errors.push(syn::Error::new(
        path.span(),
        format!(
            "stateful leaf `{leaf}` receives the tree's first parameter as its agent, so it must \
             be declared `&mut Agent`; tree `{}` has {found}",
            tree.name
        ),
    ));
}

/// The `A` of a first parameter declared `&mut A`.
pub fn agent_type(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) if r.mutability.is_some() => Some(&r.elem),
        Type::Paren(p) => agent_type(&p.elem),
        _ => None,
    }
}

/// Decorators wrap exactly one child; composites need at least one.
/// Children that did not parse count: they were reported already.
fn children_match_the_kind(node: &Node, errors: &mut Errors) {
    let NodeKind::Keyword {
        kind,
        children,
        broken,
        brace_span,
        misspelled: false,
        ..
    } = &node.kind
    else {
        return;
    };
    let word = kind.keyword();
    let count = children.len() + broken;
    match kind.info().children {
        Children::None => {}
        Children::One => match count {
            0 => errors.push(syn::Error::new(
                *brace_span,
                format!("`{word}` needs exactly one child, found none"),
            )),
            1 => {}
            _ => errors.push(syn::Error::new(
                children.get(1).map_or(*brace_span, |c| c.span),
                format!(
                    "`{word}` takes exactly one child, found {count}; wrap them in \
                     `sequence {{ .. }}` or `select {{ .. }}`"
                ),
            )),
        },
        Children::Branches => {
            let extra = children.get(3).map(|c| c.span);
            if count < 2 || extra.is_some() {
                errors.push(syn::Error::new(
                    extra.unwrap_or(*brace_span),
                    format!(
                        "`{word}` takes a condition and one or two branches, as in \
                         `{word} {{ cond me.ready(), act, otherwise }}`; found {count} {}",
                        if count == 1 { "child" } else { "children" }
                    ),
                ));
            }
        }
        Children::ThenLast => {
            if count < 2 {
                errors.push(syn::Error::new(
                    children.first().map_or(*brace_span, |c| c.span),
                    format!(
                        "`{word}` takes the children to try, then the one that runs if one of \
                         them fails, as in `{word} {{ act, cleanup }}`; found {count} {}",
                        if count == 1 { "child" } else { "children" }
                    ),
                ));
            }
        }
        Children::Cases => {
            // One `_` arm, the last: the value may equal no case.
            let default = |c: &Node| {
                matches!(
                    c.arm.as_deref(),
                    Some(crate::ast::Arm::Pattern(syn::Pat::Wild(_)))
                )
            };
            let misplaced = children.iter().rev().skip(1).find(|c| default(c));
            if let Some(extra) = misplaced {
                errors.push(syn::Error::new(
                    extra.span,
                    format!("`{word}` takes one `_ =>` arm, the last: arms after it never run"),
                ));
            } else if *broken == 0 && !children.last().is_some_and(default) {
                errors.push(syn::Error::new(
                    children.last().map_or(*brace_span, |c| c.span),
                    format!(
                        "`{word}` needs a last arm `_ => ..` for a value that equals no case, \
                         as in `{word}(me.slot) {{ 1 => a, 2 => b, _ => idle }}`"
                    ),
                ));
            }
        }
        Children::Many | Children::Guarded | Children::Arms => {
            if count == 0 {
                errors.push(syn::Error::new(
                    *brace_span,
                    format!("`{word}` needs at least one child, found none"),
                ));
            }
        }
    }
}

/// `parallel`, `parallel_all` and decider groups keep one bit per child.
fn masks_fit(node: &Node, errors: &mut Errors) {
    let NodeKind::Keyword {
        kind,
        ident,
        children,
        ..
    } = &node.kind
    else {
        return;
    };
    let masked = matches!(kind, Kind::Parallel | Kind::ParallelAll) || kind.takes_guards();
    if masked && children.len() > MAX_CHILDREN_IN_A_MASK {
        errors.push(syn::Error::new(
            ident.span(),
            format!(
                "`{}` supports at most {MAX_CHILDREN_IN_A_MASK} children, found {}; group some \
                 of them in a nested `{}`",
                kind.keyword(),
                children.len(),
                kind.keyword()
            ),
        ));
    }
}

/// Arguments whose limits depend on the children: `parallel` thresholds;
/// and a rendezvous's size, which a member's role must fit.
fn arguments_fit_the_children(node: &Node, errors: &mut Errors) {
    let NodeKind::Keyword {
        kind,
        typed: Ok(typed),
        children,
        ..
    } = &node.kind
    else {
        return;
    };
    let n = children.len();
    if let Typed::Rendezvous(r) = &**typed
        && let crate::args::Count::Literal(members) = &r.members
        && members.value > 255
    {
        errors.push(syn::Error::new(
            members.span,
            "a rendezvous has at most 255 members",
        ));
    }
    let thresholds = if let Typed::Parallel(p) = &**typed {
        vec![("success", &p.success), ("failure", &p.failure)]
    } else if let Typed::ParallelAll(p) = &**typed {
        vec![("max_failures", &p.max_failures)]
    } else {
        Vec::new()
    };
    for (key, given) in thresholds {
        if let Some(crate::args::Threshold::Literal(given)) = given
            && let Err(error) = threshold(*kind, key, *given, n)
        {
            errors.push(error);
        }
    }
}

/// A `parallel` threshold for its `n` children (see [`resolve_threshold`]),
/// or the error saying it can never be reached.
pub fn threshold(kind: Kind, key: &str, given: Spanned<i64>, n: usize) -> syn::Result<u32> {
    resolve_threshold(given.value, n).ok_or_else(|| {
        let children = if n == 1 { "child" } else { "children" };
        syn::Error::new(
            given.span,
            format!(
                "`{key} = {}` can never be reached: this `{}` has only {n} {children}",
                given.value,
                kind.keyword()
            ),
        )
    })
}

/// The status with which a child of `parent` lets it go on to the next
/// child, so that a skipped child can be passed over: `Some(true)`
/// (Success) under a sequence, `Some(false)` (Failure) under a select.
pub fn passes_over(parent: Kind) -> Option<bool> {
    parent.info().passes_over
}

/// `skip_if`, `run_while`, `run_once(then_skip = true)`,
/// `precondition(.., otherwise = skip)` and `for_each(.., if_empty = skip)`
/// let their parent pass over them, which needs a sequence or a select.
fn skips_are_passed_over(parent: Option<&Node>, node: &Node, errors: &mut Errors) {
    if let NodeKind::Keyword {
        kind,
        ident,
        typed: Ok(typed),
        ..
    } = &node.kind
        && typed.skips()
        && let Err(error) = passed_over_as(parent.map(Node::kind), *kind, ident)
    {
        errors.push(error);
    }
    for child in node.children() {
        skips_are_passed_over(Some(node), child, errors);
    }
}

/// The status as which `parent` passes over a skipping node of `kind`
/// (written `ident`): Success under a sequence, Failure under a select;
/// else the error saying where to put it.
pub fn passed_over_as(parent: Option<Kind>, kind: Kind, ident: &syn::Ident) -> syn::Result<Status> {
    match parent.and_then(passes_over) {
        Some(true) => Ok(Status::Success),
        Some(false) => Ok(Status::Failure),
        None => {
            let under = match parent {
                Some(p) => format!("this one is under `{}`", p.keyword()),
                None => "this one is the root".to_string(),
            };
            let instead = if kind == Kind::Precondition {
                "`otherwise = success` / `otherwise = failure`"
            } else if kind == Kind::ForEach {
                "`if_empty = success` / `if_empty = failure`"
            } else {
                "`success_if` / `failure_if`"
            };
            Err(syn::Error::new(
                ident.span(),
                format!(
                    "`{}` skips its node, which only a sequence (as Success) or a select (as \
                     Failure) can pass over, and {under}; put it directly inside a sequence or \
                     select, or use {instead}",
                    kind.keyword()
                ),
            ))
        }
    }
}

/// Each level of nesting is a level of nested state types and blocks; rustc
/// lays out types only as deep as the crate's `recursion_limit` allows. The
/// first node too deep is reported, once per tree.
fn depth_fits(tree: &TreeDef, errors: &mut Errors) {
    let limit = tree
        .recursion_limit
        .map_or(DEFAULT_RECURSION_LIMIT, |(n, _)| n);
    let max_depth = (limit - RECURSION_MARGIN) as usize;
    let mut stack: Vec<(&Node, usize)> = tree.roots.iter().rev().map(|r| (r, 0)).collect();
    while let Some((node, depth)) = stack.pop() {
        if depth > max_depth {
            let advice = if limit < MAX_RECURSION_LIMIT {
                let raised = (limit * 2).min(MAX_RECURSION_LIMIT);
                format!(
                    "flatten the tree, or raise the limit: `#![recursion_limit = \"{raised}\"]` \
                     at the crate root and `#[bt(recursion_limit = {raised})]` on the tree"
                )
            } else {
                "flatten the tree".to_string()
            };
            errors.push(syn::Error::new(
                node.span,
                format!(
                    "this node is nested {depth} levels deep, more than the {max_depth} that a \
                     `recursion_limit` of {limit} lets rustc lay out; {advice}"
                ),
            ));
            return;
        }
        stack.extend(node.children().iter().rev().map(|c| (c, depth + 1)));
    }
}

/// A `parallel` threshold for `n` children: a positive one as given, a
/// negative one counted from `n` (`-1` is `n`). `None` when it cannot be
/// reached (more than `n`, or less than 1).
pub fn resolve_threshold(given: i64, n: usize) -> Option<u32> {
    let n = i64::try_from(n).ok()?;
    let resolved = if given < 0 { n + given + 1 } else { given };
    if (1..=n).contains(&resolved) {
        u32::try_from(resolved).ok()
    } else {
        None
    }
}

/// `rendezvous(2) as role`: the body sees its role under the given name.
fn binding_is_named(node: &Node, errors: &mut Errors) {
    if let NodeKind::Keyword {
        kind,
        ident,
        binding,
        ..
    } = &node.kind
        && kind.info().binds
        && let Err(error) = role(*kind, ident, binding.as_ref())
    {
        errors.push(error);
    }
}

/// The name of a rendezvous's role binding, which must be given.
pub fn role<'a>(
    kind: Kind,
    ident: &syn::Ident,
    binding: Option<&'a syn::Ident>,
) -> syn::Result<&'a syn::Ident> {
    binding.ok_or_else(|| {
        syn::Error::new(
            ident.span(),
            format!(
                "`{0}` names the role binding its body sees: `{0}(2) as role {{ .. }}` (`role` \
                 is 0..2)",
                kind.keyword()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::TokenStream;
    use quote::quote;

    fn messages(tokens: TokenStream) -> Vec<String> {
        let mut errors = Errors::default();
        let input = crate::parse::parse(tokens, &mut errors);
        check(&input, &mut errors);
        errors.messages()
    }

    #[test]
    fn valid_tree_passes() {
        let found = messages(quote! {
            tree T(a: &mut A) {
                parallel(success = 1, failure = 2) {
                    'x: repeat(2) { Walk { to: 1 } },
                    retry(3) { action a.go() },
                }
            }
        });
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn serde_needs_the_feature_and_says_how_to_turn_it_on() {
        let mut errors = Errors::default();
        let input = crate::parse::parse(
            quote! { #[bt(serde)] tree T(a: &mut A) { success } },
            &mut errors,
        );
        serde_is_available(&input.trees[0], true, &mut errors);
        assert!(errors.is_empty());
        serde_is_available(&input.trees[0], false, &mut errors);
        assert_eq!(
            errors.messages(),
            [
                "`#[bt(serde)]` needs the `serde` feature of `bt`: in Cargo.toml, \
              `arbortick = { version = \"0.1\", features = [\"serde\"] }`"
            ]
        );
    }

    #[test]
    fn reflect_needs_the_feature_and_says_how_to_turn_it_on() {
        let mut errors = Errors::default();
        let input = crate::parse::parse(
            quote! { #[bt(reflect)] tree T(a: &mut A) { success } },
            &mut errors,
        );
        reflect_is_available(&input.trees[0], true, &mut errors);
        assert!(errors.is_empty());
        reflect_is_available(&input.trees[0], false, &mut errors);
        assert_eq!(
            errors.messages(),
            [
                "`#[bt(reflect)]` needs the `bevy_reflect` feature of `bt`: in Cargo.toml, \
              `arbortick = { version = \"0.1\", features = [\"bevy_reflect\"] }`"
            ]
        );
    }

    #[test]
    fn a_reflected_tree_embeds_reflected_trees() {
        let mut errors = Errors::default();
        let input = crate::parse::parse(
            quote! {
                tree Step(a: &mut A) { success }
                #[bt(reflect)] tree Walk(a: &mut A) { sequence { Step(a), Step(a) } }
                #[bt(reflect)] tree Run(a: &mut A) { Walk(a) }
            },
            &mut errors,
        );
        embedded_trees_match(&input, "reflect", |t| t.reflect, "reflected", &mut errors);
        assert_eq!(
            errors.messages(),
            ["`Step` is embedded in `Walk`, which says `#[bt(reflect)]`: add `#[bt(reflect)]` \
                 to `Step` too, so its state can be reflected"; 2]
        );
    }

    #[test]
    fn activation_times_need_a_context() {
        assert_eq!(
            messages(quote! { #[bt(activation_times)] tree T(a: &mut A) { success } }),
            [
                "`#[bt(activation_times)]` reads the time from the tick context, but tree `T` has \
                 no context parameter; add one to the header, e.g. `cx: &bt::Ctx`"
            ]
        );
        assert!(
            messages(quote! {
                #[bt(activation_times)] tree T(a: &mut A, cx: &bt::Ctx) { success }
            })
            .is_empty()
        );
    }

    #[test]
    fn root_count() {
        assert_eq!(
            messages(quote! { tree T(a: &mut A) {} }),
            ["tree `T` has no root node; write one, e.g. `sequence { .. }`"]
        );
        let two = messages(quote! { tree T(a: &mut A) { success, failure } });
        assert!(two[0].starts_with("tree `T` has more than one root node"));
    }

    #[test]
    fn child_counts() {
        let found = messages(quote! {
            tree T(a: &mut A) { sequence { invert {}, force_success { success, failure }, select {} } }
        });
        assert_eq!(
            found,
            [
                "`invert` needs exactly one child, found none",
                "`force_success` takes exactly one child, found 2; wrap them in `sequence { .. }` \
                 or `select { .. }`",
                "`select` needs at least one child, found none",
            ]
        );
    }

    #[test]
    fn counts_must_be_positive_integers() {
        let found = messages(quote! {
            tree T(a: &mut A) { sequence {
                repeat(-1) { success }, retry(1.5) { success }, repeat(0) { success },
                repeat { success }, retry(N) { success }, repeat(1, 2) { success },
            } }
        });
        // `retry(N)` is a named count: rustc checks it.
        assert_eq!(found.len(), 5, "{found:?}");
        assert!(found[0].contains("cannot be negative"));
        assert!(found[1].contains("whole number"));
        assert!(found[2].contains("at least 1"));
        assert!(found[3].contains("needs a count"));
        assert!(found[4].starts_with("unexpected argument: `repeat` is written"));
    }

    #[test]
    fn parallel_arguments() {
        let found = messages(quote! {
            tree T(a: &mut A) { parallel(success = 3, failur = 1, 2, success = 1) { success, failure } }
        });
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(
            found[0].contains("unknown `parallel` argument `failur` (did you mean `failure`?)")
        );
        assert!(found[1].starts_with("unexpected argument"));
        assert!(found[2].contains("given twice"));
        assert!(found[3].contains("`success = 3` can never be reached"));
    }

    #[test]
    fn duplicate_labels_and_trees() {
        let found = messages(quote! {
            tree T(a: &mut A) { sequence { 'x: success, 'x: failure } }
            tree T(a: &mut A) { success }
        });
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("defined twice"));
        assert!(found[1].contains("duplicate label `'x`"));
    }

    #[test]
    fn generated_names_do_not_collide_with_user_names() {
        let found = messages(quote! {
            tree Squad(a: &mut A, shared: &SquadShared) { select { gate(1) { success }, 'n1: success } }
            tree SquadShared(a: &mut A) { success }
        });
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("tree `SquadShared` has the name of the shared state"));
        assert!(found[1].starts_with("label `'n1` is the name `SquadShared` gives"));
        assert!(
            messages(quote! {
                tree Squad(a: &mut A, shared: &SquadShared) { select { 'n1: gate(1) { success } } }
                tree SquadShared(a: &mut A) { success }
            })
            .len()
                == 1
        );
    }

    #[test]
    fn too_many_children_or_monitors_are_errors_not_panics() {
        let wide: Vec<proc_macro2::TokenStream> = (0..129).map(|_| quote!(success)).collect();
        let found = messages(quote! { tree T(a: &mut A) { parallel { #(#wide),* } } });
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("`parallel` supports at most 128 children, found 129"));
        let monitors: Vec<proc_macro2::TokenStream> =
            (0..129).map(|_| quote!(monitor(a.ok()))).collect();
        let found = messages(quote! { tree T(a: &mut A) { sequence { #(#monitors),* } } });
        assert_eq!(found, ["a tree has at most 128 monitors; this is one more"]);
        let exact: Vec<proc_macro2::TokenStream> = (0..128).map(|_| quote!(running)).collect();
        let tokens = quote! { tree T(a: &mut A) { parallel { #(#exact),* } } };
        assert!(messages(tokens.clone()).is_empty());
        let expanded = crate::expand(tokens).to_string();
        assert!(expanded.contains("u128") && !expanded.contains("compile_error"));
        let found = messages(quote! { tree T(a: &mut A) { parallel_all { #(#wide),* } } });
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("`parallel_all` supports at most 128 children, found 129"));
        let tokens = quote! { tree T(a: &mut A) { parallel_all { #(#exact),* } } };
        assert!(!crate::expand(tokens).to_string().contains("compile_error"));
    }

    #[test]
    fn leaves_need_a_mutable_agent() {
        let found = messages(quote! { tree T(a: &A) { Walk { to: 1 } } });
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("`a: & A`"), "{found:?}");
        assert!(messages(quote! { tree T() { Walk } })[0].contains("no parameters"));
    }

    #[test]
    fn arguments_where_none_are_taken() {
        assert_eq!(
            messages(quote! { tree T(a: &mut A) { sequence(2) { success } } }),
            ["`sequence` takes no arguments"]
        );
    }

    #[test]
    fn context_is_required_by_time_and_flags() {
        let found = messages(quote! {
            tree T(a: &mut A) {
                prioritized {
                    every(1) stimuli(any = X) => wait(1),
                    else => timeout(2) { delay(1) { cooldown(1) { success } } },
                }
            }
        });
        let heads: Vec<&str> = found
            .iter()
            .map(|m| m.split(" reads").next().unwrap())
            .collect();
        assert_eq!(
            heads,
            [
                "`every`",
                "`stimuli`",
                "`wait`",
                "`timeout`",
                "`delay`",
                "`cooldown`"
            ]
        );
        assert!(
            messages(quote! {
                tree T(a: &mut A, cx: &bt::Ctx<M, S>) { prioritized { every(1) => wait(1) } }
            })
            .is_empty()
        );
        assert!(
            messages(quote! {
                tree T(a: &mut A, cx: Ctx<M, S>, d: &mut Ctx<M, S>) { wait(1) }
            })[0]
                .contains("two tick contexts")
        );
    }

    #[test]
    fn guard_and_decider_arguments() {
        let found = messages(quote! {
            tree T(a: &mut A, cx: &Ctx) {
                prioritized(3, redecides = 0) {
                    when let x = 1 when let y: u8 = 2 => success,
                    flags() => success,
                    stimuli(most = A, any = B, any = C) => success,
                    every => success,
                    else => random { success },
                    else => shuffle(r, s) { success },
                    else => scope { success },
                    else => scope(enter = a.x(), leave = a.y()) { success },
                }
            }
        });
        let expected = [
            "unexpected argument: `prioritized` is written `prioritized(redecides = N) { .. }`",
            "a count must be at least 1",
            "`flags` needs at least one of `any`, `all`, `none`",
            "unknown `stimuli` argument `most`",
            "`any` is given twice",
            "`every` needs a duration in seconds",
            "`random` needs the random number generator",
            "unexpected argument: `shuffle` is written `shuffle(rng, redecides = N) { .. }`",
            "`scope` needs at least one of `enter`, `tick`, `exit`",
            "unknown `scope` argument `leave`",
            "`when let` needs the type",
            "`when let x` always matches",
            "a guard binds at most one `when let`",
            "`when let y` always matches",
        ];
        assert_eq!(found.len(), expected.len(), "{found:#?}");
        for (message, start) in found.iter().zip(expected) {
            assert!(
                message.starts_with(start),
                "{message} should start with {start}"
            );
        }
    }
}
