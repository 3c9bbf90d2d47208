//! Validation of the [`ast`](crate::ast): one function per rule, every
//! violation reported (none stops the others), each on the token to change.
//!
//! After [`check`] reports nothing, [`crate::lower`] may assume the tree is
//! well formed.

use crate::ast::{Arg, Args, ClauseKind, GroupKeyword, Input, Node, NodeKind, Param, TreeDef};
use crate::errors::Errors;
use proc_macro2::Span;
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{Expr, Lit, Type, UnOp};

/// The widest `parallel` supported: completion is tracked in a `u128` mask.
pub const MAX_PARALLEL_CHILDREN: usize = 128;

pub fn check(input: &Input, errors: &mut Errors) {
    tree_names_are_unique(input, errors);
    for tree in &input.trees {
        tree_has_exactly_one_root(tree, errors);
        labels_are_unique(tree, errors);
        at_most_one_context(tree, errors);
        for root in &tree.roots {
            sync_is_inside_a_rendezvous(root, false, errors);
        }
        for node in tree.roots.iter().flat_map(walk) {
            shared_needs_a_binding(tree, node, errors);
            leaf_has_mutable_agent(tree, node, errors);
            time_needs_a_context(tree, node, errors);
            guard_is_valid(node, errors);
            match &node.kind {
                NodeKind::Group { keyword, .. } => {
                    group_has_children(node, *keyword, errors);
                    group_arguments_are_valid(node, *keyword, errors);
                }
                NodeKind::Wait { ident, args } => {
                    duration_argument(ident, args.as_ref(), errors);
                }
                NodeKind::Monitor { ident, args } => {
                    single_expression(ident, args.as_ref(), "`monitor(me.heard_noise())`", errors);
                }
                _ => {}
            }
        }
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
    let NodeKind::Group { keyword, ident, .. } = &node.kind else {
        return;
    };
    if !keyword.is_shared() || shared_param(&tree.name, &tree.params).is_some() {
        return;
    }
    let name = &tree.name;
    errors.push(syn::Error::new(
        ident.span(),
        format!(
            "`{}` keeps its state in the tree's shared state, which every agent of `{name}` \
             uses: add `shared: &{name}Shared` to the header of `{name}` and tick every agent \
             with the same `{name}Shared::new()`",
            keyword.as_str()
        ),
    ));
}

/// `sync` waits for the other members of the rendezvous around it.
fn sync_is_inside_a_rendezvous(node: &Node, inside: bool, errors: &mut Errors) {
    match &node.kind {
        NodeKind::Sync(ident) if !inside => errors.push(syn::Error::new(
            ident.span(),
            "`sync` waits for the other members of a rendezvous, so it must be inside \
             `rendezvous(n) as role { .. }`",
        )),
        NodeKind::Group {
            keyword, children, ..
        } => {
            let inside = inside || *keyword == GroupKeyword::Rendezvous;
            for child in children {
                sync_is_inside_a_rendezvous(child, inside, errors);
            }
        }
        _ => {}
    }
}

/// `monitor(expr)`, `switch(expr)`: one positional expression.
fn single_expression(ident: &syn::Ident, args: Option<&Args>, example: &str, errors: &mut Errors) {
    match args.map(|a| a.items.as_slice()) {
        Some([Arg { name: None, .. }]) => {}
        _ => errors.push(syn::Error::new(
            args.map_or(ident.span(), |a| a.span),
            format!("`{ident}` takes one expression, as in {example}"),
        )),
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
        let mut error = syn::Error::new(
            second.name.span(),
            format!(
                "tree `{}` has two tick contexts, `{}` and `{}`; mark the one to use with \
                 `#[context]`",
                tree.name, first.name, second.name
            ),
        );
        error.combine(syn::Error::new(first.name.span(), "first context here"));
        errors.push(error);
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
    match &node.kind {
        NodeKind::Group { keyword, ident, .. } if keyword.needs_time() => {
            needs.push((
                ident.span(),
                format!("`{keyword}` reads the time", keyword = keyword.as_str()),
            ));
        }
        NodeKind::Wait { ident, .. } => {
            needs.push((ident.span(), "`wait` reads the time".to_string()))
        }
        _ => {}
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

/// Guard clauses: at most one `when let`, with its type; well-formed
/// `every(..)`, `flags(..)` and `stimuli(..)` arguments.
fn guard_is_valid(node: &Node, errors: &mut Errors) {
    let Some(guard) = &node.guard else { return };
    let mut binding: Option<Span> = None;
    for clause in &guard.clauses {
        match &clause.kind {
            ClauseKind::WhenLet { pat, ty, .. } => {
                if let Some(first) = binding {
                    let mut error = syn::Error::new(
                        clause.span,
                        "a guard binds at most one `when let`; match a tuple to bind several values",
                    );
                    error.combine(syn::Error::new(first, "first `when let` here"));
                    errors.push(error);
                }
                binding = Some(clause.span);
                if ty.is_none() {
                    let span = pat.span();
                    let pat = quote::quote!(#pat).to_string();
                    errors.push(syn::Error::new(
                        span,
                        format!(
                            "`when let` needs the type of the value it matches, because the \
                             agent's state keeps the value while the child runs: write \
                             `when let {pat}: Type = ..`"
                        ),
                    ));
                }
            }
            ClauseKind::Every(args) => {
                let ident = syn::Ident::new("every", clause.span);
                duration_argument(&ident, args.as_ref(), errors);
            }
            ClauseKind::Flags { stimuli, args } => {
                let word = if *stimuli { "stimuli" } else { "flags" };
                flag_arguments(word, clause.span, args.as_ref(), errors);
            }
            ClauseKind::When(_) | ClauseKind::Score(_) => {}
        }
    }
}

/// `flags(any = A, all = B, none = C)`: named, each at most once, at least one.
fn flag_arguments(word: &str, span: Span, args: Option<&Args>, errors: &mut Errors) {
    let example = format!("`{word}(any = A | B, none = C)`");
    let Some(args) = args.filter(|a| !a.items.is_empty()) else {
        errors.push(syn::Error::new(
            span,
            format!("`{word}` needs at least one of `any`, `all`, `none`, as in {example}"),
        ));
        return;
    };
    let mut seen: HashMap<String, Span> = HashMap::new();
    for arg in &args.items {
        let Some(name) = &arg.name else {
            errors.push(syn::Error::new(
                arg.value.span(),
                format!("`{word}` arguments are named `any`, `all` or `none`, as in {example}"),
            ));
            continue;
        };
        let key = name.to_string();
        if !["any", "all", "none"].contains(&key.as_str()) {
            errors.push(syn::Error::new(
                name.span(),
                format!("unknown `{word}` argument `{key}`; expected `any`, `all` or `none`"),
            ));
        } else if let Some(first) = seen.get(&key) {
            let mut error = syn::Error::new(name.span(), format!("`{key}` is given twice"));
            error.combine(syn::Error::new(*first, format!("`{key}` first given here")));
            errors.push(error);
        } else {
            seen.insert(key, name.span());
        }
    }
}

/// `wait(2.5)`, `every(1)`: one positional duration in seconds.
fn duration_argument(ident: &syn::Ident, args: Option<&Args>, errors: &mut Errors) {
    match args.map(|a| a.items.as_slice()) {
        Some([Arg { name: None, .. }]) => {}
        None | Some([]) => errors.push(syn::Error::new(
            ident.span(),
            format!("`{ident}` needs a duration in seconds, as in `{ident}(2.5)`"),
        )),
        Some(_) => errors.push(syn::Error::new(
            args.map_or(ident.span(), |a| a.span),
            format!("`{ident}` takes a single duration in seconds, as in `{ident}(2.5)`"),
        )),
    }
}

/// All nodes below and including `root`, depth first.
fn walk(root: &Node) -> Vec<&Node> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        out.push(node);
        if let NodeKind::Group { children, .. } = &node.kind {
            stack.extend(children.iter().rev());
        }
    }
    out
}

/// Two trees of one invocation would define the same state type.
fn tree_names_are_unique(input: &Input, errors: &mut Errors) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for tree in &input.trees {
        let name = tree.name.to_string();
        if let Some(first) = seen.get(&name) {
            let mut error =
                syn::Error::new(tree.name.span(), format!("tree `{name}` is defined twice"));
            error.combine(syn::Error::new(
                *first,
                format!("tree `{name}` first defined here"),
            ));
            errors.push(error);
        } else {
            seen.insert(name, tree.name.span());
        }
    }
}

/// A tree body holds exactly one node; several must be wrapped in a composite.
fn tree_has_exactly_one_root(tree: &TreeDef, errors: &mut Errors) {
    let name = &tree.name;
    match tree.roots.as_slice() {
        [] => errors.push(syn::Error::new(
            tree.body_span,
            format!("tree `{name}` has no root node; write one, e.g. `sequence {{ .. }}`"),
        )),
        [_] => {}
        [_, second, ..] => errors.push(syn::Error::new(
            second.span,
            format!(
                "tree `{name}` has more than one root node; a tree has exactly one root: wrap \
                 these nodes in `sequence {{ .. }}` or `select {{ .. }}`"
            ),
        )),
    }
}

/// Labels name nodes in the metadata, so within a tree each is used once.
fn labels_are_unique(tree: &TreeDef, errors: &mut Errors) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for node in tree.roots.iter().flat_map(walk) {
        let Some(label) = &node.label else { continue };
        let name = label.ident.to_string();
        if let Some(first) = seen.get(&name) {
            let mut error = syn::Error::new(
                label.span(),
                format!("duplicate label `'{name}` in tree `{}`", tree.name),
            );
            error.combine(syn::Error::new(
                *first,
                format!("label `'{name}` first used here"),
            ));
            errors.push(error);
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
fn group_has_children(node: &Node, keyword: GroupKeyword, errors: &mut Errors) {
    let NodeKind::Group {
        children,
        brace_span,
        ..
    } = &node.kind
    else {
        return;
    };
    let word = keyword.as_str();
    if keyword.is_decorator() {
        match children.as_slice() {
            [] => errors.push(syn::Error::new(
                *brace_span,
                format!("`{word}` needs exactly one child, found none"),
            )),
            [_] => {}
            [_, second, ..] => errors.push(syn::Error::new(
                second.span,
                format!(
                    "`{word}` takes exactly one child, found {}; wrap them in `sequence {{ .. }}` \
                     or `select {{ .. }}`",
                    children.len()
                ),
            )),
        }
    } else if children.is_empty() {
        errors.push(syn::Error::new(
            *brace_span,
            format!("`{word}` needs at least one child, found none"),
        ));
    }
}

fn group_arguments_are_valid(node: &Node, keyword: GroupKeyword, errors: &mut Errors) {
    let NodeKind::Group {
        ident,
        args,
        children,
        ..
    } = &node.kind
    else {
        return;
    };
    let word = keyword.as_str();
    if keyword.is_decider() && children.len() > MAX_PARALLEL_CHILDREN {
        errors.push(syn::Error::new(
            ident.span(),
            format!(
                "`{word}` supports at most {MAX_PARALLEL_CHILDREN} children, found {}",
                children.len()
            ),
        ));
    }
    match keyword {
        GroupKeyword::Timeout
        | GroupKeyword::Delay
        | GroupKeyword::Cooldown
        | GroupKeyword::GlobalCooldown => {
            duration_argument(ident, args.as_ref(), errors);
        }
        GroupKeyword::Gate => match args.as_ref().map(|a| a.items.as_slice()) {
            Some([Arg { name: None, value }]) => {
                if let Err(e) = count(value) {
                    errors.push(e);
                }
            }
            _ => errors.push(syn::Error::new(
                args.as_ref().map_or(ident.span(), |a| a.span),
                "`gate` takes how many agents may be inside at once, as in `gate(3) { .. }`",
            )),
        },
        GroupKeyword::Rendezvous => {
            match args.as_ref().map(|a| a.items.as_slice()) {
                Some([Arg { name: None, value }]) => match count(value) {
                    Err(e) => errors.push(e),
                    Ok(n) if n > 255 => errors.push(syn::Error::new(
                        value.span(),
                        "a rendezvous has at most 255 members",
                    )),
                    Ok(_) => {}
                },
                _ => errors.push(syn::Error::new(
                    args.as_ref().map_or(ident.span(), |a| a.span),
                    "`rendezvous` takes how many agents meet, as in `rendezvous(2) as role { .. }`",
                )),
            }
            if let NodeKind::Group { binding: None, .. } = &node.kind {
                errors.push(syn::Error::new(
                    ident.span(),
                    "`rendezvous` names the role binding its body sees: \
                     `rendezvous(2) as role { .. }` (`role` is 0..2)",
                ));
            }
        }
        GroupKeyword::Switch => {
            single_expression(
                ident,
                args.as_ref(),
                "`switch(me.weapon) { Weapon::Rifle => .., _ => .. }`",
                errors,
            );
        }
        GroupKeyword::Prioritized
        | GroupKeyword::Sequential
        | GroupKeyword::Random
        | GroupKeyword::Shuffle
        | GroupKeyword::Scored => decider_arguments(keyword, ident, args.as_ref(), errors),
        GroupKeyword::Scope => scope_arguments(ident, args.as_ref(), errors),
        GroupKeyword::Repeat | GroupKeyword::Retry => {
            let example = format!("`{word}(3) {{ .. }}`");
            match args.as_ref().map(|a| a.items.as_slice()) {
                None | Some([]) => errors.push(syn::Error::new(
                    ident.span(),
                    format!("`{word}` needs a count, as in {example}"),
                )),
                Some([Arg { name: None, value }]) => {
                    if let Err(e) = count(value) {
                        errors.push(e);
                    }
                }
                Some([first, ..]) => errors.push(syn::Error::new(
                    args.as_ref().map_or(first.value.span(), |a| a.span),
                    format!("`{word}` takes a single count, as in {example}"),
                )),
            }
        }
        GroupKeyword::Parallel => {
            if let Some(args) = args {
                parallel_arguments_are_valid(&args.items, children.len(), errors);
            }
            if children.len() > MAX_PARALLEL_CHILDREN {
                errors.push(syn::Error::new(
                    ident.span(),
                    format!(
                        "`parallel` supports at most {MAX_PARALLEL_CHILDREN} children, found {}",
                        children.len()
                    ),
                ));
            }
        }
        _ => {
            if let Some(args) = args {
                errors.push(syn::Error::new(
                    args.span,
                    format!("`{word}` takes no arguments"),
                ));
            }
        }
    }
}

/// `random(rng)` and `shuffle(rng)` take the RNG first; every decider group
/// may take `redecides = N`.
fn decider_arguments(
    keyword: GroupKeyword,
    ident: &syn::Ident,
    args: Option<&Args>,
    errors: &mut Errors,
) {
    let word = keyword.as_str();
    let wants_rng = matches!(keyword, GroupKeyword::Random | GroupKeyword::Shuffle);
    let items = args.map(|a| a.items.as_slice()).unwrap_or_default();
    let positional = items.iter().filter(|a| a.name.is_none()).count();
    if wants_rng && positional == 0 {
        errors.push(syn::Error::new(
            ident.span(),
            format!(
                "`{word}` needs the random number generator to draw from, as in `{word}(rng) {{ .. }}` \
                 with `rng: &mut impl bt::rand_core::Rng` (or `{word}(&mut agent.rng)`)"
            ),
        ));
    }
    let mut positional_seen = 0;
    let mut redecides_seen = false;
    for arg in items {
        match &arg.name {
            None => {
                positional_seen += 1;
                if !wants_rng || positional_seen > 1 {
                    errors.push(syn::Error::new(
                        arg.value.span(),
                        if wants_rng {
                            format!(
                                "`{word}` takes one random number generator, then `redecides = N`"
                            )
                        } else {
                            format!("`{word}` takes only `redecides = N`")
                        },
                    ));
                }
            }
            Some(name) if name == "redecides" && !redecides_seen => {
                redecides_seen = true;
                if let Err(e) = count(&arg.value) {
                    errors.push(e);
                }
            }
            Some(name) => errors.push(syn::Error::new(
                name.span(),
                format!("unknown or repeated `{word}` argument `{name}`; expected `redecides = N`"),
            )),
        }
    }
}

/// `scope(enter = .., tick = .., exit = ..)`: named hooks, at least one.
fn scope_arguments(ident: &syn::Ident, args: Option<&Args>, errors: &mut Errors) {
    let items = args.map(|a| a.items.as_slice()).unwrap_or_default();
    if items.is_empty() {
        errors.push(syn::Error::new(
            ident.span(),
            "`scope` needs at least one hook: `scope(enter = .., tick = .., exit = ..) { .. }`",
        ));
    }
    let mut seen: HashMap<String, Span> = HashMap::new();
    for arg in items {
        let Some(name) = &arg.name else {
            errors.push(syn::Error::new(
                arg.value.span(),
                "`scope` hooks are named: `enter = ..`, `tick = ..`, `exit = ..`",
            ));
            continue;
        };
        let key = name.to_string();
        if !["enter", "tick", "exit"].contains(&key.as_str()) {
            errors.push(syn::Error::new(
                name.span(),
                format!("unknown `scope` hook `{key}`; expected `enter`, `tick` or `exit`"),
            ));
        } else if seen.insert(key.clone(), name.span()).is_some() {
            errors.push(syn::Error::new(
                name.span(),
                format!("`{key}` is given twice"),
            ));
        }
    }
}

/// `parallel(success = N, failure = M)`: named, each at most once, each a
/// count no larger than the number of children.
fn parallel_arguments_are_valid(items: &[Arg], children: usize, errors: &mut Errors) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for arg in items {
        let Some(name) = &arg.name else {
            errors.push(syn::Error::new(
                arg.value.span(),
                "`parallel` arguments are named: `success = N` and/or `failure = M`",
            ));
            continue;
        };
        let key = name.to_string();
        if key != "success" && key != "failure" {
            errors.push(syn::Error::new(
                name.span(),
                format!("unknown `parallel` argument `{key}`; expected `success` or `failure`"),
            ));
            continue;
        }
        if let Some(first) = seen.get(&key) {
            let mut error = syn::Error::new(name.span(), format!("`{key}` is given twice"));
            error.combine(syn::Error::new(*first, format!("`{key}` first given here")));
            errors.push(error);
            continue;
        }
        seen.insert(key.clone(), name.span());
        match count(&arg.value) {
            Err(e) => errors.push(e),
            Ok(n) if n as usize > children => errors.push(syn::Error::new(
                arg.value.span(),
                format!(
                    "`{key} = {n}` can never be reached: this `parallel` has only {children} \
                     {}",
                    if children == 1 { "child" } else { "children" }
                ),
            )),
            Ok(_) => {}
        }
    }
}

/// A count argument: an integer literal of at least 1.
pub fn count(expr: &Expr) -> syn::Result<u32> {
    let bad = |message: &str| Err(syn::Error::new(expr.span(), message));
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(int) => match int.base10_parse::<u32>() {
                Ok(0) => bad("a count must be at least 1"),
                Ok(n) => Ok(n),
                Err(_) => bad("a count must fit in a `u32`"),
            },
            Lit::Float(_) => bad("a count must be a whole number, as in `3`"),
            _ => bad("expected a count: an integer literal such as `3`"),
        },
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            bad("a count cannot be negative; expected an integer literal of at least 1")
        }
        _ => bad("expected a count: an integer literal such as `3`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::TokenStream;
    use quote::quote;

    fn messages(tokens: TokenStream) -> Vec<String> {
        let mut errors = Errors::default();
        let input = crate::parse::parse(tokens, &mut errors);
        assert!(errors.is_empty(), "syntax errors: {:?}", errors.messages());
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
                repeat { success }, retry(n) { success }, repeat(1, 2) { success },
            } }
        });
        assert_eq!(found.len(), 6, "{found:?}");
        assert!(found[0].contains("cannot be negative"));
        assert!(found[1].contains("whole number"));
        assert!(found[2].contains("at least 1"));
        assert!(found[3].contains("needs a count"));
        assert!(found[4].contains("integer literal"));
        assert!(found[5].contains("single count"));
    }

    #[test]
    fn parallel_arguments() {
        let found = messages(quote! {
            tree T(a: &mut A) { parallel(success = 3, failur = 1, 2, success = 1) { success, failure } }
        });
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(found[0].contains("`success = 3` can never be reached"));
        assert!(found[1].contains("unknown `parallel` argument `failur`"));
        assert!(found[2].contains("are named"));
        assert!(found[3].contains("given twice"));
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
            "`prioritized` takes only `redecides = N`",
            "a count must be at least 1",
            "`when let` needs the type",
            "a guard binds at most one `when let`",
            "`flags` needs at least one of",
            "unknown `stimuli` argument `most`",
            "`any` is given twice",
            "`every` needs a duration",
            "`random` needs the random number generator",
            "`shuffle` takes one random number generator",
            "`scope` needs at least one hook",
            "unknown `scope` hook `leave`",
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
