//! The `behavior_tree!` compiler, as a plain library on `proc_macro2`
//! tokens. The `bt-macros` crate wraps it in the proc macro; benchmarks and
//! tools call [`expand`] directly. Use the DSL through the `bt` crate, whose
//! documentation is the DSL reference.
//!
//! The pipeline, one module per stage:
//! tokens --`parse`--> `ast` --`check`--> (all errors, at once)
//! --`lower`--> `ir` --`generate`--> Rust.

mod args;
mod ast;
mod check;
mod errors;
mod generate;
pub mod interpret;
mod ir;
pub mod kinds;
pub mod live;
mod lower;
mod parse;

/// Compiles the body of one `behavior_tree!` invocation into Rust.
///
/// A tree with errors expands to `compile_error!`s at the offending tokens,
/// plus a skeleton of each tree's type so the user's other code still
/// type-checks.
pub fn expand(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    expand_with(tokens, false)
}

/// Like [`expand`], for a build with hot reload (`bt`'s `hot-reload`
/// feature): each tree can also run on the interpreter, which calls its
/// expressions' compiled code by index (`bt::hot`).
pub fn expand_hot(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    expand_with(tokens, true)
}

fn expand_with(tokens: proc_macro2::TokenStream, hot: bool) -> proc_macro2::TokenStream {
    if let Some(span) = nested_too_deep(&tokens) {
        return syn::Error::new(
            span,
            format!(
                "brackets nested more than {MAX_GROUP_DEPTH} deep: more than any tree may nest \
                 (at most {} nodes deep)",
                check::MAX_RECURSION_LIMIT - check::RECURSION_MARGIN
            ),
        )
        .to_compile_error();
    }
    let tokens = see_through_fragments(tokens);
    let source = if hot {
        tokens.clone()
    } else {
        Default::default()
    };
    let mut errors = errors::Errors::default();
    let input = parse::parse(tokens, &mut errors);
    check::check(&input, &mut errors);
    let lowered = match errors.reported() {
        Some(reported) => Err(reported),
        None => input
            .trees
            .iter()
            .map(|tree| lower::lower(tree, &mut errors))
            .collect::<Result<Vec<_>, _>>(),
    };
    match lowered {
        Ok(trees) if hot => {
            // The interpreter's view of the same invocation: the table of
            // expressions comes from it.
            let program = interpret::Program::from_tokens(source).map_err(|errors| {
                let first = errors.into_iter().next();
                first.map_or_else(String::new, |e| e.message)
            });
            (trees.iter())
                .map(|tree| generate::generate_hot(tree, &program))
                .collect()
        }
        Ok(trees) => trees.iter().map(generate::generate).collect(),
        Err(errors::Reported { .. }) => {
            // One skeleton per name: a tree defined twice is declared once.
            let mut declared = std::collections::HashSet::new();
            let skeletons = input
                .trees
                .iter()
                .filter(|tree| declared.insert(tree.name.to_string()))
                .map(|tree| generate::skeleton(tree, hot));
            let errors = errors.to_compile_errors();
            quote::quote!(#errors #(#skeletons)*)
        }
    }
}

/// `bt::node!(Tree, 'label)`, as the macro receives it: the crate path,
/// the tree type and the label. Expands to `&'static NodeInfo` of that
/// node, read through the constant the tree's expansion defines per label,
/// so that a label the tree does not have is rustc's error on the label.
pub fn expand_node(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    let mut parts: Vec<proc_macro2::TokenStream> = vec![proc_macro2::TokenStream::new()];
    for token in tokens {
        match &token {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(Default::default()),
            _ => parts.last_mut().expect("one part at least").extend([token]),
        }
    }
    let usage = |span: proc_macro2::Span| {
        syn::Error::new(
            span,
            "expected `node!(Tree, 'label)`: a tree type and a node's label",
        )
        .to_compile_error()
    };
    let [krate, tree, label] = &parts[..] else {
        return usage(proc_macro2::Span::call_site());
    };
    let Ok(ty) = syn::parse2::<syn::Type>(tree.clone()) else {
        return usage(proc_macro2::Span::call_site());
    };
    let Ok(label) = syn::parse2::<syn::Lifetime>(label.clone()) else {
        let span = label
            .clone()
            .into_iter()
            .next()
            .map_or(proc_macro2::Span::call_site(), |t| t.span());
        return usage(span);
    };
    let mut constant = generate::label_const(&label.ident.to_string());
    constant.set_span(label.span());
    quote::quote!(&<#ty as #krate::BehaviorTree>::NODES[<#ty>::#constant])
}

/// A tree written by `macro_rules!` receives its `$x:literal` and
/// `$x:path` fragments (and `expr`, `ty`, ...) wrapped in invisible groups
/// (`Delimiter::None`). Where the DSL reads a count, a leaf path or a
/// keyword, it looks inside them: a group holding one literal (or a negated
/// one), or only identifiers and path punctuation, is replaced by what it
/// holds. Other groups (expressions) stay whole, as Rust parses them, so an
/// operator substituted in keeps its precedence.
fn see_through_fragments(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    fn atomic(stream: &proc_macro2::TokenStream) -> bool {
        let tokens: Vec<TokenTree> = stream.clone().into_iter().collect();
        match tokens.as_slice() {
            [TokenTree::Literal(_)] => true,
            [TokenTree::Punct(p), TokenTree::Literal(_)] => p.as_char() == '-',
            _ => {
                !tokens.is_empty()
                    && tokens.iter().all(|t| match t {
                        TokenTree::Ident(_) => true,
                        TokenTree::Punct(p) => matches!(p.as_char(), ':' | '<' | '>' | ','),
                        _ => false,
                    })
            }
        }
    }
    tokens
        .into_iter()
        .flat_map(|token| -> Vec<TokenTree> {
            match token {
                TokenTree::Group(group)
                    if group.delimiter() == Delimiter::None && atomic(&group.stream()) =>
                {
                    see_through_fragments(group.stream()).into_iter().collect()
                }
                TokenTree::Group(group) => {
                    let mut inner =
                        Group::new(group.delimiter(), see_through_fragments(group.stream()));
                    inner.set_span(group.span());
                    vec![TokenTree::Group(inner)]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// Deeper input is refused before it is parsed: parsing recurses per
/// level, and the deepest tree allowed nests far less.
const MAX_GROUP_DEPTH: usize = 400;

/// The span of the first group nested deeper than [`MAX_GROUP_DEPTH`],
/// found without recursion.
fn nested_too_deep(tokens: &proc_macro2::TokenStream) -> Option<proc_macro2::Span> {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(level) = stack.last_mut() {
        match level.next() {
            Some(proc_macro2::TokenTree::Group(group)) => {
                if stack.len() >= MAX_GROUP_DEPTH {
                    return Some(group.span());
                }
                stack.push(group.stream().into_iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// Expands and pretty-prints, as `cargo expand` would show it.
    pub(crate) fn pretty(tokens: proc_macro2::TokenStream) -> String {
        let file = syn::parse2::<syn::File>(super::expand(tokens)).expect("expansion parses");
        prettyplease::unparse(&file)
    }

    /// Lowers and generates without the checks (which refuse
    /// `#[bt(serde)]` unless this crate's `serde` feature is on; the code
    /// generated does not depend on it).
    fn pretty_unchecked(tokens: proc_macro2::TokenStream) -> String {
        let mut errors = super::errors::Errors::default();
        let input = super::parse::parse(tokens, &mut errors);
        assert!(errors.is_empty(), "{:?}", errors.messages());
        let expansion: proc_macro2::TokenStream = input
            .trees
            .iter()
            .map(|tree| {
                super::generate::generate(
                    &super::lower::lower(tree, &mut Default::default()).unwrap(),
                )
            })
            .collect();
        prettyplease::unparse(&syn::parse2::<syn::File>(expansion).expect("expansion parses"))
    }

    #[test]
    fn saved_tree_expansion() {
        insta::assert_snapshot!(pretty_unchecked(quote! {
            #[bt(serde)]
            pub tree Saved(me: &mut Agent, cx: &Ctx, shared: &SavedShared) {
                prioritized {
                    when let Some(x): Option<f32> = me.target => sequence { MoveTo { x: *x }, wait(1) },
                    else => cooldown(2) { 'door: gate(1) { Idle } },
                }
            }
        }));
    }

    #[test]
    fn async_sequence_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            tree Steps(me: &mut Agent) {
                async_sequence { cond me.ready(), Aim, action me.fire() }
            }
        }));
    }

    #[test]
    fn try_catch_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            tree Careful(me: &mut Agent) {
                try_catch { cond me.ready(), Aim, action me.fire(), Holster }
            }
        }));
    }

    #[test]
    fn switch_eq_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            tree Errand(me: &mut Agent) {
                switch_eq(me.at) { me.home => Rest, "shop" => action me.buy(), _ => failure }
            }
        }));
    }

    #[test]
    fn for_each_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            tree Route(me: &mut Agent) {
                for_each(to: Point = me.route.pop_front(), if_empty = failure) { MoveTo { to: *to } }
            }
        }));
    }

    #[test]
    fn small_tree_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            /// Attack what is visible, else idle.
            pub tree Small(me: &mut Agent) {
                select {
                    sequence { cond me.enemy_visible(), Attack { power: 2 } },
                    action me.idle(),
                }
            }
        }));
    }

    /// A hot-reload build: the compiled tick, and the table of the tree's
    /// expressions that the live tick calls by index (a leaf's memory and a
    /// `when let` value kept in the agent's slots).
    #[test]
    fn hot_tree_expansion() {
        let file = syn::parse2::<syn::File>(super::expand_hot(quote! {
            pub tree Hot(me: &mut Agent, cx: &Ctx) {
                prioritized {
                    when let Some(f): Option<u8> = me.food() score f32::from(*f) => Eat { bites: *f },
                    else => sequence { cond me.ready(), wait(1.5), action me.idle() },
                }
            }
        }))
        .expect("expansion parses");
        insta::assert_snapshot!(prettyplease::unparse(&file));
    }

    /// A tree whose context can trace has hook points around each node:
    /// a replaced or changed status halts or holds the node's state.
    #[test]
    fn hooked_tree_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            pub tree Hooked(me: &mut Agent, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
                sequence { cond me.ready(), Walk { to: 3 } }
            }
        }));
    }

    #[test]
    fn reactive_parallel_repeat_and_subtree_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            tree Busy(me: &mut Agent, dt: f32) {
                'top: reactive_select {
                    reactive_sequence { cond me.hurt(), Heal },
                    parallel(success = 1) {
                        repeat(3) { MoveTo { x: dt } },
                        invert { action me.wait() },
                    },
                    retry(2) { Patrol(me, dt) },
                }
            }
        }));
    }

    #[test]
    fn decider_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            pub tree Brain(me: &mut Critter, cx: &Ctx<Mode, Senses>) {
                'root: prioritized(redecides = 4) {
                    'flee: stimuli(any = Senses::HIT) when me.hp < 20.0 => Flee,
                    'eat: when let Some(food): Option<u32> = me.food => action me.eat(*food),
                    'look: every(2) => scope(enter = me.look(), exit = me.stop()) { wait(1) },
                    'idle: else => cooldown(3) { run_once { action me.idle() } },
                }
            }
        }));
    }

    #[test]
    fn policy_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            tree Idle(me: &mut Critter, rng: &mut Rng) {
                sequence {
                    shuffle(rng) { action me.a(), action me.b() },
                    scored { score me.s() => action me.a(), action me.b() },
                }
            }
        }));
    }

    #[test]
    fn shared_state_expansion() {
        insta::assert_snapshot!(pretty(quote! {
            pub tree Squad(me: &mut Soldier, cx: &Ctx, shared: &SquadShared) {
                select {
                    sequence { monitor(me.heard_noise()), Investigate },
                    'grenade: gate(1) { Throw },
                    'pair: rendezvous(2) as role { sequence { Move { role }, sync, Shoot } },
                    'taunt: global_cooldown(5) { action me.taunt() },
                    switch(me.weapon) { Weapon::Rifle => Rifle(me), _ => action me.punch() },
                }
            }
        }));
    }

    #[test]
    fn a_crate_path_replaces_every_runtime_path() {
        let expanded = super::expand(quote! {
            #[bt(crate = engine::bt)]
            tree T(me: &mut Agent, cx: &Ctx, shared: &TShared) {
                sequence { gate(2) { Walk }, wait(1), prioritized { when me.ok() => success } }
            }
        })
        .to_string();
        assert!(expanded.contains("engine :: bt :: Status"), "{expanded}");
        assert!(expanded.contains("engine :: bt :: __private :: gate_enter"));
        // Every runtime path is the given one.
        assert_eq!(
            expanded.matches(":: bt ::").count(),
            expanded.matches("engine :: bt ::").count()
        );
        assert!(!expanded.contains("__bt"));
        let broken = super::expand(quote! {
            #[bt(crate = engine::bt)]
            tree T(me: &mut Agent) { sequence {} }
        })
        .to_string();
        assert!(broken.contains("engine :: bt :: Status") && !broken.contains("__bt"));
    }

    #[test]
    fn tree_with_errors_expands_to_errors_and_a_skeleton() {
        insta::assert_snapshot!(pretty(quote! {
            pub tree Broken(me: &mut Agent) { sequence { invert {}, fallback { success } } }
        }));
    }

    /// `reset` takes the bindings halting uses: one tree per rule of the
    /// reference's "Resetting", with the bindings it must take.
    #[test]
    fn reset_takes_only_the_bindings_halting_uses() {
        let cases: &[(&str, &[&str])] = &[
            // Nothing stateful, an untraced context: nothing.
            (
                "tree T(me: &mut A, cx: &Ctx) { sequence { cond me.ok(), wait(1), action me.go() } }",
                &[],
            ),
            // A stateful leaf halts with the agent.
            (
                "tree T(me: &mut A, cx: &Ctx) { sequence { wait(1), Walk } }",
                &["me"],
            ),
            // A gate gives its permit back through the shared binding.
            (
                "tree T(me: &mut A, cx: &Ctx<F, S>, shared: &TShared) { 'g: gate(2) { wait(1) } }",
                &["shared"],
            ),
            // An `exit` hook's bindings, wherever they are named.
            (
                "tree T(me: &mut A, log: &mut Vec<String>, cx: &Ctx) { \
                 scope(exit = log.push(format!(\"{cx:?}\"))) { wait(1) } }",
                &["log", "cx"],
            ),
            // An `after`'s `halted` hook; its `success` hook does not count.
            (
                "tree T(me: &mut A, n: &mut u32, cx: &Ctx) { \
                 after(success = me.cheer(), halted = *n += 1) { wait(1) } }",
                &["n"],
            ),
            // A context that can trace, for the `Halted` and `Reset` events.
            (
                "tree T(me: &mut A, cx: &Ctx<F, S, impl Trace>) { action me.go() }",
                &["cx"],
            ),
            (
                "tree T(me: &mut A, cx: &Ctx<F, S, NoTrace>) { wait(1) }",
                &[],
            ),
            // A context of the user's type may trace.
            (
                "tree T(me: &mut A, #[context] cx: &Mine) { action me.go() }",
                &["cx"],
            ),
            // A request cancels through its stream and the context.
            (
                "tree T(me: &mut A, out: &mut Requests<u8>, cx: &Ctx) { request(out, 1) }",
                &["out", "cx"],
            ),
        ];
        for (source, expected) in cases {
            let mut errors = crate::errors::Errors::default();
            let input = crate::parse::parse(source.parse().expect("tokens"), &mut errors);
            crate::check::check(&input, &mut errors);
            let tree = crate::lower::lower(&input.trees[0], &mut errors);
            assert!(
                errors.is_empty(),
                "{source}: {:?}",
                errors.to_compile_errors().to_string()
            );
            let tree = tree.unwrap_or_else(|_| panic!("{source} lowers"));
            assert_eq!(
                crate::generate::reset_bindings(&tree),
                *expected,
                "{source}"
            );
        }
    }
}
