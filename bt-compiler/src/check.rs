//! Validation of the [`ast`](crate::ast): one function per rule, every
//! violation reported (none stops the others), each on the token to change.
//!
//! After [`check`] reports nothing, [`crate::lower`] may assume the tree is
//! well formed.

use crate::ast::{Arg, GroupKeyword, Input, Node, NodeKind, TreeDef};
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
        for node in tree.roots.iter().flat_map(walk) {
            leaf_has_mutable_agent(tree, node, errors);
            if let NodeKind::Group { keyword, .. } = &node.kind {
                group_has_children(node, *keyword, errors);
                group_arguments_are_valid(node, *keyword, errors);
            }
        }
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
    match keyword {
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
}
