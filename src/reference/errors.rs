//! Errors: every mistake the macro reports, with its test case.
//!
//! Every problem in a tree is reported at once, in source order, each on the
//! token to change: unknown node kinds (with the closest keyword, or this
//! DSL's name for a BehaviorTree.CPP one: `fallback` is `select`), unknown
//! arguments (with the closest name), arguments given twice, missing or
//! extra; a label with no node after it; decorators without
//! exactly one child, empty composites, bad counts and thresholds, duplicate
//! labels, several or no roots; guards outside decider groups, a `when let`
//! without its type or twice in one guard, malformed `flags`/`stimuli`/
//! `every` clauses, `random`/`shuffle` without an RNG; time nodes, `every`
//! and flag clauses in a tree without a tick context; shared nodes in a
//! tree without its shared binding, `sync` outside a rendezvous, a
//! `request` whose stream is not a parameter or whose tree has no context, a
//! rendezvous without its role binding; a `when let` whose pattern always
//! matches; a label or tree that takes a name the macro generates (`'n3`
//! beside an unlabeled shared node 3, a tree `SquadShared` beside a tree
//! `Squad` with shared nodes); more than 128 children of a `parallel` or
//! decider group, more than 128 monitors. A syntax error inside a header or
//! an argument list loses nothing else: the other trees are generated. Type errors in your expressions
//! (a `score` that is not a number, a flag of the wrong type, a `switch`
//! that misses a case, a `when let` or role binding used out of scope) are
//! rustc's, on your tokens. The tree's type and methods are still
//! declared, so code using the tree reports nothing further.
//!
//! Each mistake, its message, and the cases in `tests/ui/fail` (one file
//! and its expected `.stderr` per case) that pin the message down:
//!
//! | mistake | error | ui case |
//! |---|---|---|
//! | a tree without the `tree` keyword | expected `tree`, as in `pub tree Name(..) { .. }` | `missing_tree_keyword` |
//! | a syntax error in a header | rustc's parse error; the other trees are still generated, and the tree keeps its parameters (a malformed one as anything), so calls of `tick` report nothing | `syntax_error_in_header_keeps_other_trees` |
//! | an empty parameter in a header | expected a parameter before this comma; the other parameters are kept, so calls of `tick` report nothing | `header_with_an_empty_parameter` |
//! | a tree defined twice | tree `T` is defined twice (first at line 4) | `tree_defined_twice` |
//! | a tree that embeds itself, directly or through others | tree `Patrol` embeds itself (`Patrol` embeds `Guard` embeds `Patrol`) | `tree_embeds_itself` |
//! | a tree nested deeper than the recursion limit allows | this node is nested 101 levels deep, more than the 100 that a `recursion_limit` of 128 lets rustc lay out | `tree_nested_too_deep` |
//! | no root / two roots | tree `T` has no root node / more than one root node | `tree_without_root`, `tree_with_two_roots` |
//! | an unknown keyword, or a BehaviorTree.CPP name | unknown node kind `fallback`; this DSL calls it `select` | `unknown_node_kind` |
//! | a misspelled keyword: one error, and what it holds is still read and checked | unknown node kind `sequense`; did you mean `sequence`? | `misspelled_kind_children_are_checked` |
//! | a missing comma between nodes | expected `,` after this node, before `action` (on the end of the node before) | `missing_comma` |
//! | a label with no node | label `'orphan` has no node after it | `label_without_node` |
//! | a label used twice | duplicate label `'attack` in tree `T`: each label names one node; rename this one (first at line 6, column 13) | `duplicate_labels` |
//! | `room('label)` naming no `gate` or `global_cooldown` | `room('walk)` asks a `gate` or `global_cooldown` whether it lets an agent in, but `'walk` labels an `action` / no node of tree `T` is labelled `'dor` | `room_without_a_gate` |
//! | a named count that is not a `u32` constant | rustc: mismatched types, expected `u32`, on the constant's name | `named_count_of_the_wrong_type` |
//! | a named count outside its limits | evaluation panicked: `capacity` of `gate` must be at least 1 / `members` of `rendezvous` must lie in 1..=255 | `named_count_out_of_its_limits` |
//! | `return` or `?` in a `cond`, `action` or `instant` block | `return` in an `action` would return from the whole tick, not from the node (a closure's `return` is fine) | `return_in_an_action` |
//! | a decider's child labelled again after its guard | this child is labelled `'attack` already: a decider's child takes one label, before its guard | `decider_child_labelled_twice` |
//! | `'static` or `'_` as a label | `'static` is a lifetime of Rust's own, not a label | `reserved_lifetime_as_label` |
//! | arguments where none are taken | `sequence` takes no arguments | `arguments_on_sequence` |
//! | an unknown argument | unknown `parallel` argument `succes` (did you mean `success`?) | `unknown_parallel_argument`, `after_with_a_misspelled_hook` |
//! | a count that is zero, negative or not whole | a count must be at least 1, or `forever` | `zero_repeat_count`, `negative_repeat_count`, `non_integer_retry_count`, `gate_zero` |
//! | a threshold above the number of children | `success = 3` can never be reached: this `parallel` has only 2 children | `parallel_threshold_above_child_count`, `parallel_all_threshold_too_high` |
//! | a flag argument that is not `true`/`false` | expected `true` or `false` | `run_once_then_skip_not_a_bool` |
//! | `for_each` without `item: Type = expression`, a binding given to another keyword, or `if_empty = skip` where nothing passes over it | expected a name for each item, its type, and the expression / unexpected binding / skips its node | `for_each_without_a_binding` |
//! | a `for_each` expression that does not give `Option<Type>` | rustc: mismatched types, on your expression | `for_each_item_of_the_wrong_type` |
//! | `try_catch` with fewer than two children | takes the children to try, then the one that runs if one of them fails | `try_catch_without_a_catch` |
//! | a `precondition`'s `otherwise` that is not a status, or `skip` where nothing can pass over it | expected `failure`, `success`, `running` or `skip` | `precondition_otherwise_not_a_status` |
//! | `random`/`shuffle` without a generator | `random` needs the random number generator to draw from | `random_without_rng` |
//! | a decorator without exactly one child | `invert` needs exactly one child, found none / takes exactly one child, found 2 | `decorator_without_child`, `decorator_with_two_children`, `keep_running_until_failure_with_two_children` |
//! | an empty composite | `reactive_sequence` needs at least one child, found none | `empty_composite` |
//! | a branch node with the wrong number of children | `if_then_else` takes a condition and one or two branches | `if_then_else_with_four_children`, `while_do_else_without_a_branch` |
//! | a skip where nothing can pass over it | `skip_if` skips its node, which only a sequence or a select can pass over | `skip_if_without_a_sequence_or_select` |
//! | a guard outside a decider group | guards (`when .. =>`, `else =>`) are only allowed on the children of decider groups | `guard_outside_decider_group` |
//! | a `when let` without its type | `when let` needs the type of the value it matches | `when_let_without_type` |
//! | a `when let` that cannot fail | `when let ready` always matches, so it never rejects the child | `when_let_always_matches` |
//! | time or flags without a tick context | `every` reads the time from the tick context, but tree `T` has no context parameter | `timers_without_context`, `every_without_context` |
//! | a shared node without the shared binding | `gate` keeps its state in the tree's shared state | `shared_node_without_shared_state` |
//! | a name the macro generates, taken | label `'n1` is the name `SquadShared` gives the unlabeled `gate` node 1 / tree `SquadShared` has the name of the shared state | `shared_field_name_taken`, `shared_state_name_taken` |
//! | `sync` outside a rendezvous | `sync` waits for the other members of a rendezvous | `sync_outside_rendezvous` |
//! | a `request` whose stream is not a parameter | the stream of a `request` must be a parameter of tree `T` (one of `me`, `cx`) | `request_stream_not_a_parameter` |
//! | a `request` without a tick context | `request` names its agent from the tick context, but tree `T` has no context parameter | `request_without_context` |
//! | a `request` value of the wrong type | rustc: mismatched types, on your value | `request_of_the_wrong_type` |
//! | a stateful leaf with a `&` agent | stateful leaf `Wait` receives the tree's first parameter as its agent, so it must be declared `&mut Agent` | `leaf_without_mutable_agent` |
//! | a condition, guard or precondition that is not `bool` | rustc: expected `bool`, on your expression | `cond_not_bool`, `guard_not_bool`, `precondition_not_bool` |
//! | an action that is not a `Status`, an instant that is not an `Outcome`, a score that is not a number, flags of the wrong type | rustc: mismatched types, on your expression | `action_wrong_type`, `instant_wrong_type`, `scored_guard_not_a_number`, `flag_precondition_not_flags` |
//! | a type used as a leaf that is not one | rustc: `Wander` is not a leaf of `Agent` (with a note naming `bt::Leaf` and `bt::future::FutureLeaf`), on the type | `leaf_type_not_a_leaf` |
//! | a subtree called with the wrong arguments | rustc: this method takes 2 arguments but 1 argument was supplied, in your parentheses | `subtree_wrong_arguments` |
//! | a type that is not a tree where a tree is expected (`bt::batch::resume_node`, `Batch::with_capacity`, a recorder) | rustc: `Wait` is not a tree declared with `behavior_tree!`, on the value (called as a subtree, `Wait(3)` in a tree: `Wait` is called as a subtree, but is not a tree, with a note that a stateful leaf is written with braces, once per place the tree's state holds it) | `not_a_tree` |
//! | a `switch` that misses a case | rustc: non-exhaustive patterns | `switch_not_exhaustive` |
//! | a `switch_eq` without a last `_ =>` arm, or with another one before it | needs a last arm `_ => ..` / takes one `_ =>` arm, the last | `switch_eq_without_a_default` |
//! | a name that is not in scope | rustc: cannot find value, on your token (generated locals are invisible to your code) | `unknown_binding`, `role_outside_rendezvous`, `when_let_binding_outside_body`, `generated_locals_are_hidden` |
//! | `#[bt(activation_times)]` on a tree without a context | `#[bt(activation_times)]` reads the time from the tick context, but tree `T` has no context parameter | (a unit test of the compiler) |
//! | `#[bt(serde)]` without the `serde` feature | `#[bt(serde)]` needs the `serde` feature of `bt` (with the line to add to Cargo.toml) | (a unit test of the compiler: the ui cases build with the feature) |
//! | a saved tree embedding a tree that is not saved | `Step` is embedded in `Walk`, which says `#[bt(serde)]`: add `#[bt(serde)]` to `Step` too (from another invocation: `Step` is embedded in a tree saved with serde, but is not saved itself, on the call) | `saved_tree_embeds_unsaved_tree` |
//! | `#[bt(reflect)]` without the `bevy_reflect` feature | `#[bt(reflect)]` needs the `bevy_reflect` feature of `bt` (with the line to add to Cargo.toml) | (a unit test of the compiler) |
//! | a reflected tree embedding a tree that is not reflected | `Step` is embedded in `Walk`, which says `#[bt(reflect)]`: add `#[bt(reflect)]` to `Step` too | (a unit test of the compiler) |
//! | a saved tree's leaf whose memory cannot be saved | rustc: the trait bound `Route: serde::Deserialize<'de>` is not satisfied, on the leaf | `saved_leaf_memory_not_serializable` |
//! | `bt::node!(Tree, 'label)` with a label the tree does not have | rustc: no associated item named `__LABEL_wacth` found for `Guard`, on the label, with the label of a similar name | `node_macro_unknown_label` |
//! | many mistakes at once | every one reported, in source order; the tree's type is still declared | `all_errors_reported_at_once`, `broken_tree_still_declares_its_type` |

#[allow(unused_imports)]
use crate::*;
