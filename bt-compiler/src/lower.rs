//! [`ast`](crate::ast) -> [`ir`](crate::ir): flattens each checked tree into
//! a pre-order node table and computes the state layout facts.

use crate::ast::{self, Constant, GroupKeyword, NodeKind};
use crate::check;
use crate::ir::{self, FlagMode, Kind, Node, Policy, Tree};
use proc_macro2::Span;
use quote::ToTokens;

/// Lowers one tree that passed [`check`](crate::check).
pub fn lower(tree: &ast::TreeDef) -> Tree {
    let mut nodes = Vec::new();
    if let Some(root) = tree.roots.first() {
        push(root, None, 0, None, &mut nodes);
    }
    analyse(&mut nodes);
    Tree {
        attrs: tree.attrs.clone(),
        vis: tree.vis.clone(),
        name: tree.name.clone(),
        params: tree.params.clone(),
        agent: tree
            .params
            .first()
            .and_then(|p| check::agent_type(&p.ty))
            .cloned(),
        context: check::context_param(&tree.params).map(|p| p.name.clone()),
        shared: check::shared_param(&tree.name, &tree.params).map(|p| p.name.clone()),
        nodes,
    }
}

/// Appends `node` and its subtree in pre-order; returns its id.
/// `rendezvous` is the innermost enclosing rendezvous node.
fn push(
    node: &ast::Node,
    parent: Option<usize>,
    depth: usize,
    rendezvous: Option<usize>,
    nodes: &mut Vec<Node>,
) -> usize {
    let id = nodes.len();
    let start = node
        .label
        .as_ref()
        .map_or(node.span, |l| l.apostrophe)
        .start();
    let (kind, children, detail) = match &node.kind {
        NodeKind::Group {
            keyword,
            ident,
            args,
            children,
            binding,
            ..
        } => {
            let mut detail = match args {
                Some(a) => format!("{ident}{}", source(a.span, || args_text(a))),
                None => ident.to_string(),
            };
            let kind = match (keyword, binding) {
                (GroupKeyword::Rendezvous, Some(role)) => {
                    detail = format!("{detail} as {role}");
                    Kind::Rendezvous {
                        n: positional_count(args.as_ref()),
                        role: role.clone(),
                    }
                }
                _ => group_kind(*keyword, args.as_ref(), children.len()),
            };
            (kind, Some(children), detail)
        }
        NodeKind::Sync(ident) => (
            Kind::Sync {
                rendezvous: rendezvous.unwrap_or_default(),
            },
            None,
            ident.to_string(),
        ),
        NodeKind::Monitor { ident, args } => {
            let expr = args
                .as_ref()
                .and_then(|a| a.items.first())
                .map(|a| a.value.clone())
                .unwrap_or_else(|| syn::parse_quote!(false));
            let index = nodes
                .iter()
                .filter(|n| matches!(n.kind, Kind::Monitor { .. }))
                .count();
            let detail = format!("{ident}({})", expr_text(&expr));
            (Kind::Monitor { expr, index }, None, detail)
        }
        NodeKind::Cond(e) => (
            Kind::Cond(e.clone()),
            None,
            format!("cond {}", expr_text(e)),
        ),
        NodeKind::Action(e) => (
            Kind::Action(e.clone()),
            None,
            format!("action {}", expr_text(e)),
        ),
        NodeKind::Constant(c) => (Kind::Constant(*c), None, constant_word(*c).to_string()),
        NodeKind::Wait { ident, args } => {
            let detail = match args {
                Some(a) => format!("{ident}{}", source(a.span, || args_text(a))),
                None => ident.to_string(),
            };
            (Kind::Wait(duration(args.as_ref())), None, detail)
        }
        NodeKind::Leaf { path, literal } => (
            Kind::Leaf {
                path: path.clone(),
                literal: literal.clone(),
            },
            None,
            expr_text(literal),
        ),
        NodeKind::Subtree {
            path,
            args,
            paren,
            call,
        } => (
            Kind::Subtree {
                path: path.clone(),
                args: args.clone(),
                paren: *paren,
            },
            None,
            expr_text(call),
        ),
    };
    nodes.push(Node {
        id,
        parent,
        depth,
        children: Vec::new(),
        kind,
        label: node.label.as_ref().map(|l| l.ident.to_string()),
        line: start.line as u32,
        column: start.column as u32 + 1,
        detail,
        guard: node.guard.as_ref().map(guard),
        arm: node.arm.as_deref().cloned(),
        can_run: false,
        has_state: false,
    });
    let inner = match nodes[id].kind {
        Kind::Rendezvous { .. } => Some(id),
        _ => rendezvous,
    };
    for child in children.into_iter().flatten() {
        let child_id = push(child, Some(id), depth + 1, inner, nodes);
        nodes[id].children.push(child_id);
    }
    id
}

fn group_kind(keyword: GroupKeyword, args: Option<&ast::Args>, children: usize) -> Kind {
    let positional = || {
        args.and_then(|a| a.items.first())
            .and_then(|a| check::count(&a.value).ok())
            .unwrap_or(1)
    };
    let named = |name: &str| {
        args.into_iter()
            .flat_map(|a| &a.items)
            .find(|a| a.name.as_ref().is_some_and(|n| n == name))
            .and_then(|a| check::count(&a.value).ok())
    };
    match keyword {
        GroupKeyword::Sequence => Kind::Sequence,
        GroupKeyword::ReactiveSequence => Kind::ReactiveSequence,
        GroupKeyword::Select => Kind::Select,
        GroupKeyword::ReactiveSelect => Kind::ReactiveSelect,
        GroupKeyword::Parallel => {
            let n = children as u32;
            let success = named("success").unwrap_or(n);
            // Success becomes impossible once more than `n - success` failed.
            let failure = named("failure").unwrap_or(1).min(n - success + 1);
            Kind::Parallel { success, failure }
        }
        GroupKeyword::Invert => Kind::Invert,
        GroupKeyword::ForceSuccess => Kind::ForceSuccess,
        GroupKeyword::ForceFailure => Kind::ForceFailure,
        GroupKeyword::Repeat => Kind::Repeat(positional()),
        GroupKeyword::Retry => Kind::Retry(positional()),
        GroupKeyword::Prioritized
        | GroupKeyword::Sequential
        | GroupKeyword::Random
        | GroupKeyword::Shuffle
        | GroupKeyword::Scored => Kind::Decider {
            policy: match keyword {
                GroupKeyword::Prioritized => Policy::Prioritized,
                GroupKeyword::Sequential => Policy::Sequential,
                GroupKeyword::Random => Policy::Random,
                GroupKeyword::Shuffle => Policy::Shuffle,
                _ => Policy::Scored,
            },
            rng: args
                .and_then(|a| a.items.iter().find(|a| a.name.is_none()))
                .map(|a| a.value.clone()),
            redecides: named("redecides"),
        },
        GroupKeyword::Scope => {
            let hook = |name: &str| {
                args.into_iter()
                    .flat_map(|a| &a.items)
                    .find(|a| a.name.as_ref().is_some_and(|n| n == name))
                    .map(|a| a.value.clone())
            };
            Kind::Scope {
                enter: hook("enter"),
                tick: hook("tick"),
                exit: hook("exit"),
            }
        }
        GroupKeyword::Timeout => Kind::Timeout(duration(args)),
        GroupKeyword::Delay => Kind::Delay(duration(args)),
        GroupKeyword::Cooldown => Kind::Cooldown(duration(args)),
        GroupKeyword::RunOnce => Kind::RunOnce,
        GroupKeyword::Gate => Kind::Gate(positional()),
        GroupKeyword::GlobalCooldown => Kind::GlobalCooldown(duration(args)),
        GroupKeyword::Rendezvous => Kind::Rendezvous {
            n: positional(),
            role: syn::Ident::new("role", proc_macro2::Span::call_site()),
        },
        GroupKeyword::Switch => Kind::Switch(
            args.and_then(|a| a.items.first())
                .map(|a| a.value.clone())
                .unwrap_or_else(|| syn::parse_quote!(())),
        ),
    }
}

fn positional_count(args: Option<&ast::Args>) -> u32 {
    args.and_then(|a| a.items.first())
        .and_then(|a| check::count(&a.value).ok())
        .unwrap_or(1)
}

/// The single duration argument, an integer literal read as seconds
/// (`wait(2)` means `wait(2.0)`).
fn duration(args: Option<&ast::Args>) -> syn::Expr {
    let value = args
        .and_then(|a| a.items.first())
        .map(|a| a.value.clone())
        .unwrap_or_else(|| syn::parse_quote!(0.0));
    seconds(value)
}

fn seconds(value: syn::Expr) -> syn::Expr {
    if let syn::Expr::Lit(lit) = &value
        && let syn::Lit::Int(int) = &lit.lit
        && int.suffix().is_empty()
    {
        let float = syn::LitFloat::new(&format!("{}.0", int.base10_digits()), int.span());
        return syn::Expr::Lit(syn::ExprLit {
            attrs: Vec::new(),
            lit: syn::Lit::Float(float),
        });
    }
    value
}

fn guard(guard: &ast::Guard) -> ir::Guard {
    let mut clauses = Vec::new();
    for clause in &guard.clauses {
        let text = tokens_text(clause.tokens.clone());
        let mut push = |kind| {
            clauses.push(ir::Clause {
                kind,
                text: text.clone(),
            })
        };
        match &clause.kind {
            ast::ClauseKind::When(e) => push(ir::ClauseKind::When(e.clone())),
            ast::ClauseKind::WhenLet { pat, ty, expr } => push(ir::ClauseKind::WhenLet {
                pat: (**pat).clone(),
                ty: ty
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| syn::parse_quote!(_)),
                expr: expr.clone(),
            }),
            ast::ClauseKind::Score(e) => push(ir::ClauseKind::Score(e.clone())),
            ast::ClauseKind::Every(args) => push(ir::ClauseKind::Every(duration(args.as_ref()))),
            ast::ClauseKind::Flags { stimuli, args } => {
                for arg in args.iter().flat_map(|a| &a.items) {
                    let mode = match arg.name.as_ref().map(|n| n.to_string()).as_deref() {
                        Some("all") => FlagMode::All,
                        Some("none") => FlagMode::None,
                        _ => FlagMode::Any,
                    };
                    push(ir::ClauseKind::Flags {
                        stimuli: *stimuli,
                        mode,
                        expr: arg.value.clone(),
                    });
                }
            }
        }
    }
    let text = if guard.clauses.is_empty() {
        "else".to_string()
    } else {
        tokens_text(guard.tokens.clone())
    };
    ir::Guard { clauses, text }
}

/// Bottom-up: children have larger ids than their parent, so a reverse
/// sweep sees every child before its parent.
fn analyse(nodes: &mut [Node]) {
    for id in (0..nodes.len()).rev() {
        let any_child_runs = nodes[id].children.iter().any(|&c| nodes[c].can_run);
        let only_child_state = nodes[id]
            .children
            .first()
            .is_some_and(|&c| nodes[c].has_state);
        let (can_run, has_state) = match &nodes[id].kind {
            Kind::Cond(_) | Kind::Constant(Constant::Success | Constant::Failure) => (false, false),
            Kind::Action(_) | Kind::Constant(Constant::Running) => (true, false),
            Kind::Leaf { .. } | Kind::Subtree { .. } => (true, true),
            Kind::Invert
            | Kind::ForceSuccess
            | Kind::ForceFailure
            | Kind::Cooldown(_)
            | Kind::RunOnce => (any_child_runs, only_child_state),
            Kind::Wait(_) | Kind::Delay(_) | Kind::Rendezvous { .. } | Kind::Sync { .. } => {
                (true, true)
            }
            Kind::Monitor { .. } => (false, false),
            _ => (any_child_runs, any_child_runs),
        };
        nodes[id].can_run = can_run;
        nodes[id].has_state = has_state;
    }
}

fn constant_word(c: Constant) -> &'static str {
    match c {
        Constant::Success => "success",
        Constant::Failure => "failure",
        Constant::Running => "running",
    }
}

/// The user's own text where the compiler can give it, else the tokens.
fn source(span: Span, fallback: impl FnOnce() -> String) -> String {
    span.source_text().unwrap_or_else(fallback)
}

/// The user's text of an expression. Spans of whole expressions are not
/// available to stable proc macros, so the text is rebuilt from its tokens,
/// with a space wherever the source had a gap between two tokens.
fn expr_text(expr: &syn::Expr) -> String {
    tokens_text(expr.to_token_stream())
}

/// The user's text of a token sequence, as for [`expr_text`].
fn tokens_text(stream: proc_macro2::TokenStream) -> String {
    let mut tokens = Vec::new();
    flatten(stream, &mut tokens);
    let mut text = String::new();
    let mut last_end = None;
    for (token, start, end) in tokens {
        if last_end.is_some_and(|e: proc_macro2::LineColumn| e != start) {
            text.push(' ');
        }
        text.push_str(&token);
        last_end = Some(end);
    }
    text
}

/// Tokens as (text, start, end), delimiters included.
fn flatten(
    tokens: proc_macro2::TokenStream,
    out: &mut Vec<(String, proc_macro2::LineColumn, proc_macro2::LineColumn)>,
) {
    use proc_macro2::{Delimiter, TokenTree};
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                // A delimiter is one character wide.
                let one_char = |span: Span| {
                    let start = span.start();
                    (
                        start,
                        proc_macro2::LineColumn {
                            line: start.line,
                            column: start.column + 1,
                        },
                    )
                };
                // syn re-creates groups with one span for the whole group, so
                // the closing delimiter is found from where the group ends.
                let end = g.span().end();
                let close_at = proc_macro2::LineColumn {
                    line: end.line,
                    column: end.column.saturating_sub(1),
                };
                let (o_start, o_end) = one_char(g.span_open());
                let (c_start, c_end) = (close_at, end);
                if !open.is_empty() {
                    out.push((open.to_string(), o_start, o_end));
                }
                flatten(g.stream(), out);
                if !close.is_empty() {
                    out.push((close.to_string(), c_start, c_end));
                }
            }
            other => {
                // Compilers report only where a token starts; it ends one
                // column per character later (multi-line literals aside).
                let (text, start) = (other.to_string(), other.span().start());
                let end = proc_macro2::LineColumn {
                    line: start.line,
                    column: start.column + text.chars().count(),
                };
                out.push((text, start, end));
            }
        }
    }
}

fn args_text(args: &ast::Args) -> String {
    let items: Vec<String> = args
        .items
        .iter()
        .map(|a| match &a.name {
            Some(name) => format!("{name} = {}", a.value.to_token_stream()),
            None => a.value.to_token_stream().to_string(),
        })
        .collect();
    format!("({})", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Errors;
    use proc_macro2::TokenStream;
    use quote::quote;

    fn lower_one(tokens: TokenStream) -> Tree {
        let mut errors = Errors::default();
        let input = crate::parse::parse(tokens, &mut errors);
        check::check(&input, &mut errors);
        assert!(errors.is_empty(), "{:?}", errors.messages());
        lower(&input.trees[0])
    }

    #[test]
    fn pre_order_ids_parents_and_depths() {
        // Parsed from text, so tokens carry real positions.
        let tree = lower_one(
            "tree T(a: &mut A) { select { sequence { cond a.x(), action a.y() }, success } }"
                .parse()
                .unwrap(),
        );
        let shape: Vec<(usize, Option<usize>, usize)> = tree
            .nodes
            .iter()
            .map(|n| (n.id, n.parent, n.depth))
            .collect();
        assert_eq!(
            shape,
            [
                (0, None, 0),
                (1, Some(0), 1),
                (2, Some(1), 2),
                (3, Some(1), 2),
                (4, Some(0), 1)
            ]
        );
        assert_eq!(tree.nodes[0].children, [1, 4]);
        assert_eq!(tree.nodes[2].detail, "cond a.x()");
    }

    #[test]
    fn state_facts() {
        let tree = lower_one(quote! {
            tree T(a: &mut A) {
                sequence {
                    sequence { cond a.x(), success },
                    invert { action a.y() },
                    invert { Walk },
                    repeat(2) { cond a.z() },
                    parallel { cond a.x(), cond a.y() },
                }
            }
        });
        let facts: Vec<(bool, bool)> = tree
            .nodes
            .iter()
            .map(|n| (n.can_run, n.has_state))
            .collect();
        assert_eq!(
            facts,
            [
                (true, true),   // sequence: remembers its running child
                (false, false), // sequence of instant children
                (false, false),
                (false, false),
                (true, false), // invert over an action: runs, no memory
                (true, false),
                (true, true), // invert over a leaf: the leaf's memory
                (true, true),
                (false, false), // repeat over a cond: finishes within a tick
                (false, false),
                (false, false), // parallel of conds
                (false, false),
                (false, false),
            ]
        );
        assert!(tree.has_named_type(8) && tree.has_named_type(10) && !tree.has_named_type(1));
    }

    #[test]
    fn parallel_failure_threshold_includes_impossible_success() {
        let tree = lower_one(quote! {
            tree T(a: &mut A) { parallel(success = 2, failure = 3) { running, running, running } }
        });
        assert!(matches!(
            tree.nodes[0].kind,
            Kind::Parallel {
                success: 2,
                failure: 2
            }
        ));
        let tree = lower_one(quote! { tree T(a: &mut A) { parallel { running, running } } });
        assert!(matches!(
            tree.nodes[0].kind,
            Kind::Parallel {
                success: 2,
                failure: 1
            }
        ));
    }
}
