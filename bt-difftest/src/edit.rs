//! Random edits of tree source text, as a person makes them while a
//! program runs: remove, reorder, duplicate, wrap and unwrap nodes, change
//! numbers. Edits work on token trees; which of them give a valid tree is
//! the compiler's to say ([`edit`] retries until one does).
//!
//! ```
//! use bt_difftest::{edit, generator::Rng};
//! let source = "tree T(w: &mut W) { sequence { cond w.c(1), action w.a(2) } }";
//! let valid = |text: &str| bt_compiler::interpret::Program::parse(text).is_ok();
//! let edit = edit::edit(source, &mut Rng(7), valid).unwrap();
//! assert_ne!(edit.text, source);
//! ```

use crate::generator::Rng;
use proc_macro2::{Delimiter, Group, Literal, Spacing, TokenStream, TokenTree};

/// What [`edit`] did, for failure messages.
#[derive(Clone, Debug)]
pub struct Edit {
    /// What kind of edit.
    pub what: &'static str,
    /// The edited source.
    pub text: String,
}

/// An edit of `source` that `valid` accepts, drawn from `rng`; `None`
/// when none of a few hundred tries does.
pub fn edit(source: &str, rng: &mut Rng, valid: impl Fn(&str) -> bool) -> Option<Edit> {
    let tokens: TokenStream = source.parse().ok()?;
    let groups = count_groups(&tokens);
    const KINDS: [&str; 6] = ["remove", "swap", "wrap", "unwrap", "number", "duplicate"];
    let first = rng.below(KINDS.len());
    for attempt in 0..KINDS.len() * 40 {
        // Each kind of edit in turn, from a random one, 40 tries each.
        let what = KINDS[(first + attempt / 40) % KINDS.len()];
        let target = rng.below(groups.max(1));
        let mut seen = 0;
        let edited = if what == "number" {
            let literals = count_numbers(&tokens);
            if literals == 0 {
                continue;
            }
            let at = rng.below(literals);
            let value = rng.below(6);
            renumber(&tokens, at, value, &mut 0)
        } else {
            rewrite(&tokens, target, &mut seen, &mut |items| {
                edit_items(items, what, rng)
            })
        };
        let text = edited.to_string();
        if text != tokens.to_string() && valid(&text) {
            return Some(Edit { what, text });
        }
    }
    None
}

/// A brace group that holds nodes: not a struct literal's fields
/// (`L { k: 1 }`).
fn holds_nodes(g: &Group, prev: Option<&TokenTree>) -> bool {
    let literal =
        matches!(prev, Some(TokenTree::Ident(i)) if i.to_string().starts_with(char::is_uppercase));
    g.delimiter() == Delimiter::Brace && !literal
}

fn count_groups(tokens: &TokenStream) -> usize {
    let mut prev = None;
    let mut n = 0;
    for t in tokens.clone() {
        if let TokenTree::Group(g) = &t {
            n += usize::from(holds_nodes(g, prev.as_ref())) + count_groups(&g.stream());
        }
        prev = Some(t);
    }
    n
}

fn is_number(l: &Literal) -> bool {
    let s = l.to_string();
    s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

fn count_numbers(tokens: &TokenStream) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => count_numbers(&g.stream()),
            TokenTree::Literal(l) => usize::from(is_number(&l)),
            _ => 0,
        })
        .sum()
}

/// Replaces the `at`-th number literal with another of the same form.
fn renumber(tokens: &TokenStream, at: usize, value: usize, seen: &mut usize) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), renumber(&g.stream(), at, value, seen));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            TokenTree::Literal(l) if is_number(&l) => {
                *seen += 1;
                if *seen - 1 != at {
                    return TokenTree::Literal(l);
                }
                let s = l.to_string();
                if s.contains('.') {
                    TokenTree::Literal(Literal::f64_unsuffixed(value as f64 * 0.5 + 0.1))
                } else {
                    TokenTree::Literal(Literal::u32_unsuffixed(value as u32 + 1))
                }
            }
            other => other,
        })
        .collect()
}

/// Rebuilds `tokens`, passing the items of the `target`-th brace group
/// (pre-order) through `f`.
fn rewrite(
    tokens: &TokenStream,
    target: usize,
    seen: &mut usize,
    f: &mut dyn FnMut(Vec<Vec<TokenTree>>) -> Vec<Vec<TokenTree>>,
) -> TokenStream {
    let mut prev: Option<TokenTree> = None;
    let mut out = Vec::new();
    for t in tokens.clone() {
        let next = match &t {
            TokenTree::Group(g) => {
                let mut stream = g.stream();
                if holds_nodes(g, prev.as_ref()) {
                    *seen += 1;
                    if *seen - 1 == target {
                        stream = join(f(split(&stream)));
                        out.push(TokenTree::Group(Group::new(Delimiter::Brace, stream)));
                        prev = Some(t);
                        continue;
                    }
                }
                TokenTree::Group(Group::new(g.delimiter(), rewrite(&stream, target, seen, f)))
            }
            other => other.clone(),
        };
        out.push(next);
        prev = Some(t);
    }
    out.into_iter().collect()
}

/// Items separated by top-level commas.
fn split(stream: &TokenStream) -> Vec<Vec<TokenTree>> {
    let mut items = vec![Vec::new()];
    for t in stream.clone() {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => items.push(Vec::new()),
            _ => items.last_mut().expect("not empty").push(t),
        }
    }
    items.retain(|item| !item.is_empty());
    items
}

fn join(items: Vec<Vec<TokenTree>>) -> TokenStream {
    let mut out = Vec::new();
    for item in items {
        out.extend(item);
        out.push(TokenTree::Punct(proc_macro2::Punct::new(
            ',',
            Spacing::Alone,
        )));
    }
    out.into_iter().collect()
}

/// Where a decider child's node starts: after its `=>`.
fn node_start(item: &[TokenTree]) -> usize {
    item.windows(2)
        .position(|w| match (&w[0], &w[1]) {
            (TokenTree::Punct(a), TokenTree::Punct(b)) => a.as_char() == '=' && b.as_char() == '>',
            _ => false,
        })
        .map_or(0, |i| i + 2)
}

fn edit_items(mut items: Vec<Vec<TokenTree>>, what: &str, rng: &mut Rng) -> Vec<Vec<TokenTree>> {
    if items.is_empty() {
        return items;
    }
    let i = rng.below(items.len());
    match what {
        "remove" => {
            items.remove(i);
        }
        "swap" => {
            let j = rng.below(items.len());
            items.swap(i, j);
        }
        "duplicate" => {
            let copy = items[i].clone();
            items.insert(i, copy);
        }
        "wrap" => {
            let at = node_start(&items[i]);
            let node: TokenStream = items[i][at..].iter().cloned().collect();
            let wrapper = [
                "sequence",
                "force_success",
                "timeout(3)",
                "select",
                "invert",
                "repeat(2)",
            ][rng.below(6)];
            let wrapped: TokenStream = format!("{wrapper} {{ {node} }}")
                .parse()
                .expect("valid tokens");
            items[i].truncate(at);
            items[i].extend(wrapped);
        }
        "unwrap" => {
            let at = node_start(&items[i]);
            // `kw { only }` or `kw(args) { only }`: the only child.
            if let Some(TokenTree::Group(g)) = items[i].last()
                && g.delimiter() == Delimiter::Brace
                && items[i].len() - at <= 3
            {
                let inner = split(&g.stream());
                if inner.len() == 1 {
                    let only = inner[0].clone();
                    items[i].truncate(at);
                    items[i].extend(only);
                }
            }
        }
        _ => {}
    }
    items
}
