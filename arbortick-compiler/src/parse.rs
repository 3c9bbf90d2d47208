//! tokens -> [`ast`](crate::ast), recovering after each bad node or tree so
//! that every syntax error in the input is reported in one go. Keywords and
//! their arguments are read against the node-kind table ([`crate::kinds`],
//! [`crate::args`]).

use crate::args;
use crate::ast::{
    Arg, Args, Arm, Clause, ClauseKind, Guard, Input, Node, NodeKind, Param, TreeDef,
};
use crate::errors::Errors;
use crate::kinds::Row as _;
use crate::kinds::{self, Children, GUARD_WORDS, Kind, Syntax};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, Lifetime, Pat, Token, Type, Visibility, braced, parenthesized};

mod kw {
    syn::custom_keyword!(tree);
}

/// Parses a whole invocation. Syntax errors go to `errors`; whatever parsed
/// cleanly is returned so later stages can still check it.
pub fn parse(tokens: TokenStream, errors: &mut Errors) -> Input {
    let mut trees = Vec::new();
    let parser = |input: ParseStream| {
        parse_input(input, errors, &mut trees);
        Ok(())
    };
    if let Err(e) = parser.parse2(tokens) {
        errors.push(e);
    }
    Input { trees }
}

fn parse_input(input: ParseStream, errors: &mut Errors, trees: &mut Vec<TreeDef>) {
    if input.is_empty() {
        errors.push(syn::Error::new(
            Span::call_site(),
            "expected at least one tree: `tree Name(agent: &mut Agent) { ... }`",
        ));
    }
    while !input.is_empty() {
        match parse_tree(input, errors) {
            Ok(tree) => trees.push(tree),
            Err(e) => {
                errors.push(e);
                skip_past_body(input);
            }
        }
    }
}

/// `#[attrs] vis tree Name(params) { root }`
fn parse_tree(input: ParseStream, errors: &mut Errors) -> syn::Result<TreeDef> {
    let mut attrs = input.call(Attribute::parse_outer)?;
    let BtAttrs {
        krate,
        recursion_limit,
        serde,
        reflect,
        activation_times,
    } = take_bt_attrs(&mut attrs, errors);
    let vis: Visibility = input.parse()?;
    if !input.peek(kw::tree) {
        return Err(
            input.error("expected `tree`, as in `pub tree Name(agent: &mut Agent) { ... }`")
        );
    }
    input.parse::<kw::tree>()?;
    let name: Ident = input.parse()?;
    if !input.peek(syn::token::Paren) {
        return Err(input.error(format!(
            "expected the parameters of tree `{name}` in parentheses, as in `{name}(agent: &mut Agent)`"
        )));
    }
    let header;
    parenthesized!(header in input);
    // A bad header is reported, and the tree's body is still parsed so that
    // its own errors, and the other trees, are not lost.
    let (params, header_broken) = parse_params(&header, errors);
    if !input.peek(syn::token::Brace) {
        return Err(input.error(format!("expected the body of tree `{name}` in braces")));
    }
    let body;
    let brace = braced!(body in input);
    let (roots, broken) = parse_nodes_counting(&body, errors, List::Nodes);
    Ok(TreeDef {
        attrs,
        krate,
        recursion_limit,
        serde,
        reflect,
        activation_times,
        vis,
        name,
        params,
        header_broken,
        body_span: brace.span.join(),
        roots,
        broken,
    })
}

/// What a tree's `#[bt(..)]` attributes say.
struct BtAttrs {
    krate: Option<syn::Path>,
    recursion_limit: Option<(u32, Span)>,
    serde: Option<Span>,
    reflect: Option<Span>,
    activation_times: Option<Span>,
}

/// Removes `#[bt(..)]` from a tree's attributes and returns what it says:
/// `crate = path`, `recursion_limit = N`, `serde`, `reflect` and
/// `activation_times`.
fn take_bt_attrs(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> BtAttrs {
    let (mut krate, mut limit, mut serde, mut reflect, mut times) = (None, None, None, None, None);
    attrs.retain(|attr| {
        if !attr.path().is_ident("bt") {
            return true;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                krate = Some(meta.value()?.parse::<syn::Path>()?);
                Ok(())
            } else if meta.path.is_ident("recursion_limit") {
                let value: syn::LitInt = meta.value()?.parse()?;
                let n: u32 = value.base10_parse()?;
                if !(crate::check::DEFAULT_RECURSION_LIMIT..=crate::check::MAX_RECURSION_LIMIT)
                    .contains(&n)
                {
                    return Err(syn::Error::new(
                        value.span(),
                        format!(
                            "`recursion_limit` is between {} (rustc's default) and {}",
                            crate::check::DEFAULT_RECURSION_LIMIT,
                            crate::check::MAX_RECURSION_LIMIT
                        ),
                    ));
                }
                limit = Some((n, value.span()));
                Ok(())
            } else if meta.path.is_ident("serde") {
                serde = Some(meta.path.span());
                Ok(())
            } else if meta.path.is_ident("reflect") {
                reflect = Some(meta.path.span());
                Ok(())
            } else if meta.path.is_ident("activation_times") {
                times = Some(meta.path.span());
                Ok(())
            } else {
                Err(meta.error(
                    "expected `crate = path`, `recursion_limit = N`, `serde`, `reflect` \
                     or `activation_times`, as in \
                     `#[bt(crate = my_engine::bt)]`",
                ))
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
        false
    });
    BtAttrs {
        krate,
        recursion_limit: limit,
        serde,
        reflect,
        activation_times: times,
    }
}

/// `[#[context]] name: Type`
/// The parameters of a header, each parsed on its own: a bad one is
/// reported and left out, and the others are kept, so that the tree's
/// skeleton still has them and the user's calls of `tick` type-check.
fn parse_params(header: ParseStream, errors: &mut Errors) -> (Vec<Param>, bool) {
    use proc_macro2::{Spacing, TokenTree};
    let mut tokens: Vec<TokenTree> = Vec::new();
    let _ = header.step(|cursor| {
        let mut rest = *cursor;
        while let Some((token, next)) = rest.token_tree() {
            tokens.push(token);
            rest = next;
        }
        Ok(((), rest))
    });
    // Split at the commas outside angle brackets (`Ctx<A, B>` is one
    // parameter; the `>` of `->` closes nothing).
    let mut chunks: Vec<(Vec<TokenTree>, Option<Span>)> = vec![(Vec::new(), None)];
    let mut depth = 0usize;
    let mut arrow = false;
    for token in tokens {
        let mut is_arrow_head = false;
        if let TokenTree::Punct(p) = &token {
            match p.as_char() {
                ',' if depth == 0 => {
                    chunks.last_mut().expect("one chunk").1 = Some(p.span());
                    chunks.push((Vec::new(), None));
                    continue;
                }
                '<' => depth += 1,
                '>' if !arrow => depth = depth.saturating_sub(1),
                '-' => is_arrow_head = p.spacing() == Spacing::Joint,
                _ => {}
            }
        }
        arrow = is_arrow_head;
        chunks.last_mut().expect("one chunk").0.push(token);
    }
    let last = chunks.len() - 1;
    let mut params = Vec::new();
    let mut broken = false;
    for (i, (chunk, comma)) in chunks.into_iter().enumerate() {
        if chunk.is_empty() {
            // A trailing comma is fine; an empty parameter is not.
            if i != last && !(i == 0 && last == 0) {
                let span = comma.unwrap_or_else(Span::call_site);
                errors.push(syn::Error::new(
                    span,
                    "expected a parameter before this comma, as in `agent: &mut Agent`",
                ));
            }
            continue;
        }
        let end = comma.unwrap_or_else(|| chunk.last().expect("not empty").span());
        // A named parameter that does not parse is kept, as anything: the
        // skeleton's methods still take it, so calls of `tick` type-check.
        let placeholder = match (chunk.first(), chunk.get(1)) {
            (Some(TokenTree::Ident(name)), Some(TokenTree::Punct(colon)))
                if colon.as_char() == ':' =>
            {
                Some(Param {
                    context_attr: None,
                    shared_attr: None,
                    name: name.clone(),
                    ty: syn::parse_quote!(impl ::core::marker::Sized),
                })
            }
            _ => None,
        };
        let stream: TokenStream = chunk.into_iter().collect();
        let parsed = parse_param.parse2(stream);
        if parsed.is_err() {
            broken = true;
            params.extend(placeholder);
        }
        match parsed {
            Ok(param) => params.push(param),
            // A parameter that ends too soon: said where it ends.
            Err(e) if e.to_string().starts_with("unexpected end of input") => {
                let message = e.to_string();
                let message = message
                    .strip_prefix("unexpected end of input, ")
                    .unwrap_or(&message);
                errors.push(syn::Error::new(end, message));
            }
            Err(e) => errors.push(e),
        }
    }
    (params, broken)
}

fn parse_param(input: ParseStream) -> syn::Result<Param> {
    let mut context_attr = None;
    let mut shared_attr = None;
    for attr in input.call(Attribute::parse_outer)? {
        let is_path = matches!(attr.meta, syn::Meta::Path(_));
        if attr.path().is_ident("context") && is_path {
            context_attr = Some(attr.pound_token.span);
        } else if attr.path().is_ident("shared") && is_path {
            shared_attr = Some(attr.pound_token.span);
        } else {
            return Err(syn::Error::new_spanned(
                attr,
                "a tree parameter takes only `#[context]` (the tick context) or `#[shared]` \
                 (the tree's shared state)",
            ));
        }
    }
    let name: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
    let ty = input.parse()?;
    Ok(Param {
        context_attr,
        shared_attr,
        name,
        ty,
    })
}

/// What the children of a node look like.
#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    /// Plain nodes.
    Nodes,
    /// Children of a decider group: each may have a guard.
    Deciders,
    /// Arms of a `switch`: `PATTERN => node`.
    Arms,
    /// Arms of a `switch_eq`: `VALUE => node`, `_ => node`.
    Cases,
}

/// A comma-separated list of nodes; a bad node is reported, skipped and
/// counted.
fn parse_nodes_counting(input: ParseStream, errors: &mut Errors, list: List) -> (Vec<Node>, usize) {
    let mut nodes = Vec::new();
    let mut broken = 0;
    while !input.is_empty() {
        let start = input.fork();
        let node = if list == List::Arms {
            parse_arm(input, errors)
        } else if list == List::Cases {
            parse_case(input, errors)
        } else {
            parse_node(input, errors, list == List::Deciders)
        };
        match node {
            Ok(node) => nodes.push(node),
            Err(e) => {
                errors.push(e);
                broken += 1;
                skip_to_comma(input);
            }
        }
        if input.is_empty() {
            break;
        }
        if input.peek(Token![,]) {
            let _ = input.parse::<Token![,]>();
        } else {
            // On the end of the node before: that is where the comma goes.
            let end = tokens_between(&start, input)
                .into_iter()
                .last()
                .map_or_else(|| input.span(), |last| last.span());
            let next = input
                .fork()
                .parse::<TokenTree>()
                .map(|t| t.to_string())
                .unwrap_or_default();
            errors.push(syn::Error::new(
                end,
                format!(
                    "expected `,` after this node, before `{next}`: nodes are separated by commas"
                ),
            ));
            skip_to_comma(input);
            let _ = input.parse::<Token![,]>();
        }
    }
    (nodes, broken)
}

fn starts_with_guard_word(input: ParseStream) -> bool {
    input
        .fork()
        .parse::<Ident>()
        .is_ok_and(|i| GUARD_WORDS.contains(&i.to_string().as_str()))
}

/// `every(2) { child }` is the `every` decorator, `every(2) => child` a
/// guard: a guard word that is also a keyword starts a node when its
/// arguments are followed by braces.
fn is_keyword_node(input: ParseStream) -> bool {
    let fork = input.fork();
    let Ok(word) = fork.parse::<Ident>() else {
        return false;
    };
    crate::kinds::from_keyword(&word.to_string()).is_some()
        && fork.peek(syn::token::Paren)
        && fork.parse::<TokenTree>().is_ok()
        && fork.peek(syn::token::Brace)
}

fn parse_node(input: ParseStream, errors: &mut Errors, deciders: bool) -> syn::Result<Node> {
    let label = if input.peek(Lifetime) {
        let label: Lifetime = input.parse()?;
        input.parse::<Token![:]>()?;
        if input.is_empty() || input.peek(Token![,]) {
            return Err(syn::Error::new(
                label.span(),
                format!("label `{label}` has no node after it: write `{label}: node`"),
            ));
        }
        Some(label)
    } else {
        None
    };
    let starts_guard =
        input.peek(Token![else]) || (starts_with_guard_word(input) && !is_keyword_node(input));
    let guard = if starts_guard {
        if !deciders {
            let span = input.span();
            let _: TokenTree = input.parse()?;
            skip_to_comma(input);
            return Err(syn::Error::new(
                span,
                "guards (`when .. =>`, `else =>`) are only allowed on the children of decider \
                 groups: prioritized, sequential, random, shuffle, scored",
            ));
        }
        let guard = parse_guard(input, errors)?;
        if input.peek(Lifetime) {
            let misplaced: Lifetime = input.fork().parse()?;
            let message = match &label {
                Some(label) => format!(
                    "this child is labelled `{label}` already: a decider's child takes one \
                     label, before its guard, which names the child (and its state in the \
                     tree's shared object, if it keeps any there); remove `{misplaced}:`"
                ),
                None => format!(
                    "a decider's label goes before its guard: `{misplaced}: when .. => child`"
                ),
            };
            return Err(syn::Error::new(misplaced.span(), message));
        }
        Some(guard)
    } else {
        None
    };
    let mut node = parse_unguarded(input, label, errors)?;
    node.guard = guard;
    Ok(node)
}

/// `PATTERN => node`, an arm of a `switch`.
fn parse_arm(input: ParseStream, errors: &mut Errors) -> syn::Result<Node> {
    let pat = Pat::parse_multi_with_leading_vert(input)?;
    if !input.peek(Token![=>]) {
        return Err(input.error("expected `=>` and the node this arm runs"));
    }
    input.parse::<Token![=>]>()?;
    let mut node = parse_node(input, errors, false)?;
    node.arm = Some(Box::new(Arm::Pattern(pat)));
    Ok(node)
}

/// `VALUE => node` or `_ => node`, an arm of a `switch_eq`.
fn parse_case(input: ParseStream, errors: &mut Errors) -> syn::Result<Node> {
    let arm = if input.peek(Token![_]) && input.peek2(Token![=>]) {
        Arm::Pattern(Pat::parse_single(input)?)
    } else {
        Arm::Equals(input.parse::<Expr>()?)
    };
    if !input.peek(Token![=>]) {
        return Err(input.error("expected `=>` and the node this arm runs"));
    }
    input.parse::<Token![=>]>()?;
    let mut node = parse_node(input, errors, false)?;
    node.arm = Some(Box::new(arm));
    Ok(node)
}

/// `clause clause .. =>` or `else =>`.
fn parse_guard(input: ParseStream, errors: &mut Errors) -> syn::Result<Guard> {
    let start = input.fork();
    let mut clauses = Vec::new();
    if input.peek(Token![else]) {
        input.parse::<Token![else]>()?;
    } else {
        while !input.peek(Token![=>]) {
            if input.is_empty() || input.peek(Token![,]) {
                return Err(input.error("expected `=>` and the child after the guard"));
            }
            clauses.push(parse_clause(input, errors)?);
        }
    }
    let tokens = tokens_between(&start, input);
    if !input.peek(Token![=>]) {
        return Err(input.error("expected `=>` after `else`"));
    }
    input.parse::<Token![=>]>()?;
    Ok(Guard { clauses, tokens })
}

fn parse_clause(input: ParseStream, errors: &mut Errors) -> syn::Result<Clause> {
    let start = input.fork();
    let word: Ident = input.parse().map_err(|_| {
        input.error(format!(
            "expected a guard clause ({}) or `=>`",
            GUARD_WORDS
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let span = word.span();
    let text = word.to_string();
    let kind = match text.as_str() {
        "when" if input.peek(Token![let]) => {
            input.parse::<Token![let]>()?;
            let pat = Pat::parse_single(input)?;
            let ty = if input.peek(Token![:]) {
                input.parse::<Token![:]>()?;
                Some(Box::new(input.parse()?))
            } else {
                None
            };
            input.parse::<Token![=]>()?;
            ClauseKind::WhenLet {
                pat: Box::new(pat),
                ty,
                expr: Expr::parse_without_eager_brace(input)?,
            }
        }
        "when" => ClauseKind::When(Expr::parse_without_eager_brace(input)?),
        "score" => ClauseKind::Score(Expr::parse_without_eager_brace(input)?),
        "every" => {
            let raw = parse_args(input)?;
            ClauseKind::Every(args::read("every", span, raw.as_ref(), "", errors))
        }
        "room" => {
            let content;
            parenthesized!(content in input);
            let label: Lifetime = content.parse().map_err(|_| {
                syn::Error::new(
                    content.span(),
                    "expected the label of a `gate` or `global_cooldown`, as in `room('repair)`",
                )
            })?;
            if !content.is_empty() {
                return Err(content.error("`room` takes one label, as in `room('repair)`"));
            }
            ClauseKind::Room(label)
        }
        "flags" | "stimuli" => {
            let raw = parse_args(input)?;
            ClauseKind::Flags {
                stimuli: text == "stimuli",
                flags: args::read(&text, span, raw.as_ref(), "", errors).map(Box::new),
            }
        }
        _ => {
            let hint = kinds::closest(&text, GUARD_WORDS.iter().copied())
                .map(|c| format!("did you mean `{c}`? "))
                .unwrap_or_default();
            return Err(syn::Error::new(
                span,
                format!(
                    "unknown guard clause `{word}`; {hint}a guard is made of {}, then `=>`",
                    GUARD_WORDS
                        .iter()
                        .map(|w| format!("`{w}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    };
    Ok(Clause {
        kind,
        span,
        tokens: tokens_between(&start, input),
    })
}

/// The tokens consumed between `start` (a fork taken earlier) and `end`.
fn tokens_between(start: ParseStream, end: ParseStream) -> TokenStream {
    let mut tokens = TokenStream::new();
    let _ = start.step(|cursor| {
        let mut rest = *cursor;
        while rest != end.cursor() {
            match rest.token_tree() {
                Some((tt, next)) => {
                    tt.to_tokens(&mut tokens);
                    rest = next;
                }
                None => break,
            }
        }
        Ok(((), rest))
    });
    tokens
}

/// `(args)` if present. A syntax error inside is returned after the rest of
/// the parentheses is skipped, so the enclosing list goes on cleanly.
pub(crate) fn parse_args(input: ParseStream) -> syn::Result<Option<Args>> {
    if !input.peek(syn::token::Paren) {
        return Ok(None);
    }
    let content;
    let paren = parenthesized!(content in input);
    let items = match content.parse_terminated(parse_arg, Token![,]) {
        Ok(items) => items.into_iter().collect(),
        Err(e) => {
            skip_rest(&content);
            return Err(e);
        }
    };
    Ok(Some(Args {
        span: paren.span.join(),
        items,
    }))
}

/// A node after its label and guard.
fn parse_unguarded(
    input: ParseStream,
    label: Option<Lifetime>,
    errors: &mut Errors,
) -> syn::Result<Node> {
    // A raw identifier (`r#type`) is never a keyword: it names a leaf.
    let keyword = input.fork().parse::<Ident>().ok().filter(|ident| {
        let word = ident.to_string();
        !input.peek2(Token![::])
            && word.starts_with(|c: char| c.is_ascii_lowercase())
            && !word.starts_with("r#")
    });
    let Some(ident) = keyword else {
        return parse_path_node(input, label);
    };
    let word = ident.to_string();
    let span = ident.span();
    let Some(kind) = crate::kinds::from_keyword(&word) else {
        input.parse::<Ident>()?;
        let kind = misspelled(input, ident, errors)?;
        return Ok(Node {
            label,
            guard: None,
            arm: None,
            kind,
            span,
        });
    };
    input.parse::<Ident>()?;
    let kind = match kind.info().syntax {
        Syntax::Expr if kind == Kind::Cond => NodeKind::Cond(input.parse()?),
        Syntax::Expr if kind == Kind::Instant => NodeKind::Instant(input.parse()?),
        Syntax::Expr => NodeKind::Action(input.parse()?),
        _ => parse_keyword(input, kind, ident, errors)?,
    };
    Ok(Node {
        label,
        guard: None,
        arm: None,
        kind,
        span,
    })
}

/// A word that is no keyword, followed by what that node would hold: the
/// error is reported once, on the word, and the node stands for the kind
/// the word most likely means (a sequence if none), so that its arguments
/// are skipped and its children or expression are still read and checked.
fn misspelled(input: ParseStream, ident: Ident, errors: &mut Errors) -> syn::Result<NodeKind> {
    let word = ident.to_string();
    let reported = errors.report(syn::Error::new(ident.span(), unknown_kind(&word)));
    let guess = kinds::closest(&word, kinds::keywords())
        .and_then(kinds::from_keyword)
        .unwrap_or(Kind::Sequence);
    let info = guess.info();
    let ends = input.is_empty() || input.peek(Token![,]);
    if info.syntax == Syntax::Expr && !ends && !input.peek(syn::token::Brace) {
        let expr: Expr = input.parse()?;
        return Ok(if guess == Kind::Cond {
            NodeKind::Cond(expr)
        } else if guess == Kind::Instant {
            NodeKind::Instant(expr)
        } else {
            NodeKind::Action(expr)
        });
    }
    let args = parse_args(input).unwrap_or_else(|error| {
        errors.push(error);
        None
    });
    let binding = if input.peek(Token![as]) {
        input.parse::<Token![as]>()?;
        Some(input.parse::<Ident>()?)
    } else {
        None
    };
    let (children, brace_span) = if input.peek(syn::token::Brace) {
        let content;
        let brace = braced!(content in input);
        let list = match info.children {
            Children::Guarded => List::Deciders,
            Children::Arms => List::Arms,
            Children::Cases => List::Cases,
            Children::None
            | Children::One
            | Children::Many
            | Children::Branches
            | Children::ThenLast => List::Nodes,
        };
        (
            parse_nodes_counting(&content, errors, list).0,
            brace.span.join(),
        )
    } else {
        (Vec::new(), ident.span())
    };
    Ok(NodeKind::Keyword {
        kind: if info.syntax == Syntax::Keyword {
            guess
        } else {
            Kind::Sequence
        },
        ident,
        args,
        typed: Err(reported),
        children,
        broken: 0,
        brace_span,
        binding,
        misspelled: true,
    })
}

/// "unknown node kind", with the closest keyword if it looks like a typo.
fn unknown_kind(word: &str) -> String {
    if let Some((_, ours)) = kinds::BTCPP_NAMES
        .iter()
        .find(|(theirs, _)| *theirs == word)
    {
        return format!("unknown node kind `{word}`; this DSL calls it `{ours}`");
    }
    let loop_word = word.strip_prefix("loop_").map_or(word, |_| "loop");
    if let Some((_, advice)) = kinds::BTCPP_SPELLINGS
        .iter()
        .find(|(theirs, _)| *theirs == loop_word)
    {
        return format!("unknown node kind `{word}`: {advice}");
    }
    match kinds::closest(word, kinds::keywords()) {
        Some(close) => format!("unknown node kind `{word}`; did you mean `{close}`?"),
        None => format!(
            "unknown node kind `{word}`; expected a node keyword such as `sequence`, `select` or \
             `cond`, a stateful leaf type (`MoveTo {{ .. }}`) or a subtree call (`Patrol(agent)`)"
        ),
    }
}

/// `keyword [(args)] [as binding] [{ children }]`, as its table row says.
fn parse_keyword(
    input: ParseStream,
    kind: Kind,
    ident: Ident,
    errors: &mut Errors,
) -> syn::Result<NodeKind> {
    let info = kind.info();
    let raw = parse_args(input)?;
    let binding = if info.binds && input.peek(Token![as]) {
        input.parse::<Token![as]>()?;
        Some(input.parse::<Ident>()?)
    } else {
        None
    };
    let example = match info.children {
        Children::None => "",
        _ => " { .. }",
    };
    let Some(read) = kinds::read_args(kind) else {
        return Err(syn::Error::new(
            ident.span(),
            format!("`{ident}` is written `{ident} <expression>`"),
        ));
    };
    let written = raw.as_ref();
    let typed = args::read_with(
        info.keyword,
        ident.span(),
        written,
        &info.params,
        example,
        errors,
        read,
    )
    .map(Box::new);
    let list = match info.children {
        Children::None => {
            if input.peek(syn::token::Brace) {
                let children: TokenTree = input.parse()?;
                return Err(syn::Error::new(
                    children.span(),
                    format!("`{ident}` takes no children"),
                ));
            }
            return Ok(NodeKind::Keyword {
                kind,
                brace_span: ident.span(),
                ident,
                args: raw,
                typed,
                children: Vec::new(),
                broken: 0,
                binding,
                misspelled: false,
            });
        }
        Children::Guarded => List::Deciders,
        Children::Arms => List::Arms,
        Children::Cases => List::Cases,
        Children::One | Children::Many | Children::Branches | Children::ThenLast => List::Nodes,
    };
    if !input.peek(syn::token::Brace) {
        let what = if info.children == Children::One {
            "its child"
        } else {
            "its children"
        };
        return Err(input.error(format!("expected `{{ .. }}` after `{ident}` with {what}")));
    }
    let content;
    let brace = braced!(content in input);
    let (children, broken) = parse_nodes_counting(&content, errors, list);
    Ok(NodeKind::Keyword {
        kind,
        ident,
        args: raw,
        typed,
        children,
        broken,
        brace_span: brace.span.join(),
        binding,
        misspelled: false,
    })
}

/// `success = 2` is a named argument; anything else is positional.
fn arg_of(expr: Expr) -> Arg {
    if let Expr::Assign(assign) = &expr
        && let Expr::Path(path) = &*assign.left
        && let Some(name) = path.path.get_ident()
    {
        return Arg {
            name: Some(name.clone()),
            value: (*assign.right).clone(),
            binds: None,
        };
    }
    Arg {
        name: None,
        value: expr,
        binds: None,
    }
}

/// One argument: a binding `name: Type = expression`, or an expression
/// (`success = 2` is one too, read by [`arg_of`]).
fn parse_arg(input: ParseStream) -> syn::Result<Arg> {
    if input.peek(Ident) && input.peek2(Token![:]) && !input.peek2(Token![::]) {
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let ty: Type = input.parse()?;
        input.parse::<Token![=]>()?;
        return Ok(Arg {
            name: None,
            value: input.parse()?,
            binds: Some((name, Box::new(ty))),
        });
    }
    Ok(arg_of(input.parse()?))
}

/// A node written as Rust: a stateful leaf literal (`MoveTo { .. }`, `Idle`)
/// or a subtree call (`Patrol(me)`).
fn parse_path_node(input: ParseStream, label: Option<Lifetime>) -> syn::Result<Node> {
    let expr: Expr = input.parse()?;
    let span = expr.span();
    let kind = match &expr {
        Expr::Struct(literal) if literal.qself.is_none() => NodeKind::Leaf {
            path: literal.path.clone(),
            literal: expr.clone(),
        },
        Expr::Path(path) if path.qself.is_none() => NodeKind::Leaf {
            path: path.path.clone(),
            literal: expr.clone(),
        },
        Expr::Call(call) => match &*call.func {
            Expr::Path(path) if path.qself.is_none() => NodeKind::Subtree {
                path: path.path.clone(),
                args: call.args.iter().cloned().collect(),
                paren: call.paren_token.span.join(),
                call: expr.clone(),
            },
            _ => return Err(not_a_node(span)),
        },
        _ => return Err(not_a_node(span)),
    };
    Ok(Node {
        label,
        guard: None,
        arm: None,
        kind,
        span,
    })
}

fn not_a_node(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "expected a node: a keyword such as `sequence` or `cond`, a stateful leaf type \
         (`MoveTo { .. }`) or a subtree call (`Patrol(agent)`); wrap Rust expressions in `cond` \
         or `action`",
    )
}

/// Skips to the next `,` of this list (not consuming it) or its end.
fn skip_to_comma(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

/// Skips everything left in a delimited group, so that dropping it does not
/// make its parent fail.
fn skip_rest(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((_, next)) = rest.token_tree() {
            rest = next;
        }
        Ok(((), rest))
    });
}

/// After a bad tree header: skips to just past the next braced group (the
/// tree's body) so the next tree can still be parsed.
fn skip_past_body(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            rest = next;
            if matches!(&tt, TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace)
            {
                break;
            }
        }
        Ok(((), rest))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse_ok(tokens: TokenStream) -> Input {
        let mut errors = Errors::default();
        let input = parse(tokens, &mut errors);
        assert!(
            errors.is_empty(),
            "unexpected errors: {:?}",
            errors.messages()
        );
        input
    }

    fn parse_err(tokens: TokenStream) -> Vec<String> {
        let mut errors = Errors::default();
        parse(tokens, &mut errors);
        errors.messages()
    }

    #[test]
    fn parses_header_and_nested_nodes() {
        let input = parse_ok(quote! {
            /// Docs.
            pub tree Guard(me: &mut Agent, dt: f32) {
                select {
                    'fight: sequence { cond me.sees_enemy(), Attack { power: 2 } },
                    repeat(3) { action me.idle() },
                    Patrol(me),
                    Rest,
                    success,
                }
            }
        });
        let tree = &input.trees[0];
        assert_eq!(tree.name, "Guard");
        assert_eq!(tree.params.len(), 2);
        assert_eq!(tree.attrs.len(), 1);
        let root = &tree.roots[0];
        assert_eq!(root.kind(), Kind::Select);
        let children = root.children();
        assert_eq!(children.len(), 5);
        assert_eq!(children[0].label.as_ref().unwrap().ident, "fight");
        assert_eq!(children[2].kind(), Kind::Subtree);
        assert_eq!(children[3].kind(), Kind::Leaf);
        assert_eq!(children[4].kind(), Kind::Success);
        let NodeKind::Keyword {
            typed: Ok(typed), ..
        } = &children[1].kind
        else {
            panic!()
        };
        let kinds::Typed::Repeat(bound) = &**typed else {
            panic!()
        };
        assert_eq!(bound.count.as_ref().and_then(args::Count::literal), Some(3));
    }

    #[test]
    fn named_arguments_are_recognised() {
        let input = parse_ok(quote! {
            tree T(a: &mut A) { parallel(success = 1, failure = 2) { running, running } }
        });
        let NodeKind::Keyword {
            typed: Ok(typed), ..
        } = &input.trees[0].roots[0].kind
        else {
            panic!()
        };
        let kinds::Typed::Parallel(parallel) = &**typed else {
            panic!()
        };
        let given = (
            parallel.success.as_ref().and_then(args::Threshold::literal),
            parallel.failure.as_ref().and_then(args::Threshold::literal),
        );
        assert_eq!(given, (Some(1), Some(2)));
    }

    #[test]
    fn unknown_keyword_suggests_the_closest_and_parsing_continues() {
        let messages = parse_err(quote! {
            tree T(a: &mut A) { sequence { sequense { success }, cond a.ok(), selekt { failure }, frobnicate } }
        });
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert_eq!(
            messages[0],
            "unknown node kind `sequense`; did you mean `sequence`?"
        );
        assert_eq!(
            messages[1],
            "unknown node kind `selekt`; did you mean `select`?"
        );
        assert!(messages[2].starts_with("unknown node kind `frobnicate`; expected a node keyword"));
    }

    #[test]
    fn behavior_tree_cpp_nodes_without_a_keyword_say_what_to_write() {
        let messages = parse_err(quote! {
            tree T(a: &mut A) {
                sequence {
                    sleep(500),
                    reactive_fallback { success },
                    async_fallback { success },
                    loop_double { success },
                    fallback { success },
                }
            }
        });
        assert_eq!(messages.len(), 5, "{messages:?}");
        assert!(
            messages[0].starts_with("unknown node kind `sleep`: "),
            "{}",
            messages[0]
        );
        assert!(messages[0].contains("`wait(seconds)`"), "{}", messages[0]);
        assert_eq!(
            messages[1],
            "unknown node kind `reactive_fallback`; this DSL calls it `reactive_select`"
        );
        assert_eq!(
            messages[2],
            "unknown node kind `async_fallback`; this DSL calls it `async_select`"
        );
        assert!(messages[3].contains("`LoopInt`"), "{}", messages[3]);
        assert_eq!(
            messages[4],
            "unknown node kind `fallback`; this DSL calls it `select`"
        );
    }

    #[test]
    fn a_label_without_a_node_says_so() {
        let messages = parse_err(quote! { tree T(a: &mut A) { sequence { success, 'x: } } });
        assert_eq!(
            messages,
            ["label `'x` has no node after it: write `'x: node`"]
        );
    }

    #[test]
    fn a_syntax_error_in_parentheses_keeps_the_other_trees() {
        let mut errors = Errors::default();
        let input = parse(
            quote! {
                tree A(a: &mut A) { repeat(,) { success } }
                tree B(b: &mut, c: u8) { success }
                tree C(c: &mut C) { success }
            },
            &mut errors,
        );
        assert_eq!(errors.messages().len(), 2, "{:?}", errors.messages());
        let names: Vec<String> = input.trees.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["A", "B", "C"]);
    }

    #[test]
    fn crate_path_attribute_is_taken_from_the_attributes() {
        let input = parse_ok(quote! {
            /// Docs.
            #[bt(crate = engine::bt)]
            tree T(a: &mut A) { success }
        });
        let tree = &input.trees[0];
        assert_eq!(tree.attrs.len(), 1);
        let krate = tree.krate.as_ref().unwrap();
        assert_eq!(quote!(#krate).to_string(), "engine :: bt");
    }

    #[test]
    fn missing_comma_is_reported() {
        let messages = parse_err(quote! { tree T(a: &mut A) { sequence { success failure } } });
        assert_eq!(
            messages,
            ["expected `,` after this node, before `failure`: nodes are separated by commas"]
        );
    }

    #[test]
    fn bad_header_does_not_hide_the_next_tree() {
        let mut errors = Errors::default();
        let input = parse(
            quote! {
                fn Bad(a: &mut A) { success }
                tree Good(a: &mut A) { success }
            },
            &mut errors,
        );
        assert_eq!(errors.messages().len(), 1);
        assert_eq!(input.trees.len(), 1);
        assert_eq!(input.trees[0].name, "Good");
    }

    #[test]
    fn guards_parse_into_clauses_in_order() {
        let input = parse_ok(quote! {
            tree T(a: &mut A, #[context] c: &C) {
                prioritized {
                    'x: every(2) flags(any = M::A) stimuli(none = S::B) when a.ok() => success,
                    when let Some(v): Option<u8> = a.v() score a.s() => action a.go(*v),
                    else => running,
                    failure,
                }
            }
        });
        let tree = &input.trees[0];
        assert!(tree.params[1].context_attr.is_some());
        let children = tree.roots[0].children();
        let kinds = |i: usize| -> Vec<&'static str> {
            children[i]
                .guard
                .as_ref()
                .map(|g| {
                    g.clauses
                        .iter()
                        .map(|c| match &c.kind {
                            ClauseKind::When(_) => "when",
                            ClauseKind::WhenLet { ty, .. } => {
                                assert!(ty.is_some());
                                "when let"
                            }
                            ClauseKind::Score(_) => "score",
                            ClauseKind::Every(_) => "every",
                            ClauseKind::Flags { stimuli: false, .. } => "flags",
                            ClauseKind::Flags { stimuli: true, .. } => "stimuli",
                            ClauseKind::Room(_) => "room",
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        assert_eq!(kinds(0), ["every", "flags", "stimuli", "when"]);
        assert_eq!(kinds(1), ["when let", "score"]);
        assert!(
            children[2]
                .guard
                .as_ref()
                .is_some_and(|g| g.clauses.is_empty())
        );
        assert!(children[3].guard.is_none());
        assert_eq!(children[0].label.as_ref().unwrap().ident, "x");
    }

    #[test]
    fn guards_need_a_decider_group_and_an_arrow() {
        let messages = parse_err(quote! {
            tree T(a: &mut A) { sequence { when a.ok() => success } }
        });
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].starts_with("guards (`when .. =>`, `else =>`) are only allowed"));
        let messages = parse_err(quote! {
            tree T(a: &mut A) { prioritized { when a.ok(), success } }
        });
        assert_eq!(messages, ["expected `=>` and the child after the guard"]);
        let messages = parse_err(quote! {
            tree T(a: &mut A) { prioritized { wen a.ok() => success } }
        });
        assert!(
            messages[0].starts_with("unknown node kind `wen`"),
            "{messages:?}"
        );
    }
}
