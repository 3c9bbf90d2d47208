//! Latched decorators: `scope`, `timeout`, `delay`, `gate`,
//! `global_cooldown`, `every`, `after` and the preconditions `skip_if`,
//! `success_if`, `failure_if` and `run_while`. Each one enters once (it may refuse, taking nothing),
//! runs its child while entered, and leaves when the child finishes or the
//! node is halted, giving back what entering took. One generator, [`Latch`],
//! writes that shape; each kind only says what entering, holding and
//! finishing do.
//!
//! With state (the child may run), the record's `active` field is the
//! latch and `t` the entry time. Without state the child finishes within
//! the tick, so the node enters, runs the child and leaves in one go.

use super::{Gen, names, status};
use crate::ir::{Count, Field, Keep, Kind, Release, Shape};
use bt_runtime::Status;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// What a latched node does besides the latch itself. Code in `hold` may
/// end the node's tick with `break 'n<id> <status>`.
#[derive(Default)]
struct Latch {
    /// What the node returns when `enter` refuses or `stop` fires:
    /// Failure unless given.
    refuse: Option<TokenStream>,
    /// Checked before entering: when false, the node returns `refuse` and
    /// nothing is held.
    enter: Option<TokenStream>,
    /// Once entered, before anything else.
    entered: TokenStream,
    /// Each tick while entered, before the child: statements, then a
    /// condition that, when true, halts the node and returns `refuse`.
    stop: Option<(TokenStream, TokenStream)>,
    /// Each tick while entered, after `stop`, before the child.
    hold: TokenStream,
    /// After the child finished, once what entering took is given back.
    finish: TokenStream,
}

impl Gen<'_> {
    /// Gives back what entering node `id` took: a gate's permit, a scope's
    /// `exit` hook; an `after`'s `halted` hook. Used by `halt`, and (except
    /// the `halted` hook) when the child finishes.
    pub(super) fn release(&self, id: usize, how: Release) -> TokenStream {
        let node = &self.tree.node(id).kind;
        match (how, node) {
            (Release::Nothing, _) => TokenStream::new(),
            (Release::Permit, _) => {
                let shared = self.shared_place(id);
                quote!(::__bt::__private::gate_leave(&#shared);)
            }
            (Release::Exit, Kind::Scope { exit: Some(e), .. })
            | (
                Release::Halted,
                Kind::After {
                    halted: Some(e), ..
                },
            ) => quote!(let _ = #e;),
            _ => unreachable!("a release names a hook its node has"),
        }
    }

    fn latch(&self, id: usize, latch: Latch) -> TokenStream {
        let node = self.tree.node(id);
        let label = self.label(id);
        let r = names::result();
        let release = match node.kind.release() {
            Release::Halted => TokenStream::new(),
            how => self.release(id, how),
        };
        let Latch {
            refuse,
            enter,
            entered,
            stop,
            hold,
            finish,
        } = latch;
        let refuse = refuse.unwrap_or_else(|| status(Status::Failure));
        let enter = enter.map(|condition| quote!(if !(#condition) { break #label #refuse; }));
        if !node.has_state {
            let stop = stop.map(|(setup, condition)| {
                quote!(#setup if #condition { #release break #label #refuse; })
            });
            let eval = self.eval(node.children[0]);
            return quote! {
                #label: {
                    #enter
                    #entered
                    #stop
                    #hold
                    #eval
                    #release
                    #finish
                    #r
                }
            };
        }
        let place = self.place(id);
        let since =
            matches!(&node.shape, Shape::Record(f) if f.contains(&Field::Since)).then(|| {
                let now = names::now();
                quote!(#place.t = #now;)
            });
        let stop = stop.map(|(setup, condition)| {
            let args = self.halt_args();
            quote!(#setup if #condition { #place.halt(#args); break #label #refuse; })
        });
        let child = self.child_in_field(id);
        quote! {
            #label: {
                if !#place.active {
                    #enter
                    #place.active = true;
                    #since
                    #entered
                }
                #stop
                #hold
                #child
                if #r.is_done() {
                    #place.active = false;
                    #release
                    #finish
                }
                #r
            }
        }
    }

    /// `let __ok: bool = <expr>;` and `__ok`: a user condition, typed as
    /// `bool` on the user's tokens (a condition that is not `bool` is
    /// reported there as "expected `bool`").
    pub(super) fn typed_bool(&self, expr: &syn::Expr) -> (TokenStream, proc_macro2::Ident) {
        let ok = names::verdict();
        let bind = quote_spanned!(expr.span()=> let #ok: ::core::primitive::bool = #expr;);
        (bind, ok)
    }

    /// `{ let __ok: bool = <expr>; __ok }`, see [`Gen::typed_bool`].
    fn condition(&self, expr: &syn::Expr) -> TokenStream {
        let (bind, ok) = self.typed_bool(expr);
        quote!({ #bind #ok })
    }

    /// `skip_if`, `success_if`, `failure_if` (`when`: true) and
    /// `precondition` (`when`: false): before the child starts, a condition
    /// equal to `when` returns `then` without ticking it; a running child is
    /// not re-checked. `run_while` (`while_running`): the condition must
    /// hold to start the child and on every tick it runs; when false, the
    /// child is halted and the node returns `then`, the status its parent
    /// passes over.
    pub(super) fn precondition(
        &self,
        id: usize,
        expr: &syn::Expr,
        then: Status,
        when: bool,
        while_running: bool,
    ) -> TokenStream {
        let condition = self.condition(expr);
        let (enter, stop) = if while_running {
            // A stop also runs on the tick that enters.
            (None, Some((TokenStream::new(), quote!(!#condition))))
        } else if when {
            (Some(quote!(!#condition)), None)
        } else {
            (Some(condition), None)
        };
        self.latch(
            id,
            Latch {
                refuse: Some(status(then)),
                enter,
                stop,
                ..Latch::default()
            },
        )
    }

    /// `after(success = .., failure = .., finished = .., halted = ..)
    /// { child }`: runs the hook for how the child finished (`finished`
    /// after either), or `halted` if the node is halted while the child runs.
    pub(super) fn after(
        &self,
        id: usize,
        success: Option<&syn::Expr>,
        failure: Option<&syn::Expr>,
        finished: Option<&syn::Expr>,
    ) -> TokenStream {
        let r = names::result();
        let hook = |e: Option<&syn::Expr>| e.map(|e| quote!(let _ = #e;));
        let (success, failure, finished) = (hook(success), hook(failure), hook(finished));
        let by_status = (success.is_some() || failure.is_some())
            .then(|| quote!(if #r.is_success() { #success } else { #failure }));
        self.latch(
            id,
            Latch {
                finish: quote!(#by_status #finished),
                ..Latch::default()
            },
        )
    }

    /// `every(s) { child }`: the child starts at most once every `s`
    /// seconds, measured from its last start; in between the node fails
    /// without ticking it. A running child is not interrupted.
    pub(super) fn every(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let (now, d, keep) = (names::now(), names::seconds(), names::keep());
        let field = names::keep_field(id, Keep::Period);
        let seconds = self.seconds(duration);
        self.latch(
            id,
            Latch {
                enter: Some(quote!(#now >= #keep.#field)),
                entered: quote! {
                    #seconds
                    #keep.#field = #now + #d;
                },
                ..Latch::default()
            },
        )
    }

    /// `let __d: f64 = <duration>;`, typed on the user's expression.
    pub(super) fn seconds(&self, duration: &syn::Expr) -> TokenStream {
        let d = names::seconds();
        let value = super::seconds_value(duration);
        quote_spanned!(duration.span()=> let #d: ::core::primitive::f64 = #value;)
    }

    /// `scope(enter = .., tick = .., exit = ..) { child }`: `enter` may
    /// refuse entry, `tick` may end the scope each tick, `exit` runs once
    /// the scope is left.
    pub(super) fn scope(
        &self,
        id: usize,
        enter: Option<&syn::Expr>,
        tick: Option<&syn::Expr>,
    ) -> TokenStream {
        let proceed =
            |hook: &syn::Expr| quote_spanned!(hook.span()=> ::__bt::HookResult::proceed(#hook));
        self.latch(
            id,
            Latch {
                enter: enter.map(proceed),
                stop: tick.map(|e| {
                    let call = proceed(e);
                    (TokenStream::new(), quote!(!#call))
                }),
                ..Latch::default()
            },
        )
    }

    /// `timeout(s) { child }`: the child fails, halted, once `s` seconds
    /// have passed since it started without finishing. `s <= 0` is no
    /// timer, as in BehaviorTree.CPP.
    pub(super) fn timeout(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let stop = self.tree.node(id).has_state.then(|| {
            let (now, d, place) = (names::now(), names::seconds(), self.place(id));
            (
                self.seconds(duration),
                quote!(#d > 0.0 && #now - #place.t >= #d),
            )
        });
        self.latch(
            id,
            Latch {
                stop,
                ..Latch::default()
            },
        )
    }

    /// `delay(s) { child }`: `Running` for `s` seconds, then the child.
    pub(super) fn delay(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let (label, place) = (self.label(id), self.place(id));
        let (now, d) = (names::now(), names::seconds());
        let seconds = self.seconds(duration);
        let running = status(Status::Running);
        self.latch(
            id,
            Latch {
                hold: quote! {
                    if !#place.passed {
                        #seconds
                        if #now - #place.t < #d {
                            break #label #running;
                        }
                        #place.passed = true;
                    }
                },
                finish: quote!(#place.passed = false;),
                ..Latch::default()
            },
        )
    }

    /// `gate(n) { child }`: a permit is taken on entry and given back when
    /// the child finishes or is halted; no permit, the gate fails.
    pub(super) fn gate(&self, id: usize, n: &Count) -> TokenStream {
        let shared = self.shared_place(id);
        self.latch(
            id,
            Latch {
                enter: Some(quote!(::__bt::__private::gate_enter(&#shared, #n))),
                ..Latch::default()
            },
        )
    }

    /// `global_cooldown(s) { child }`: entry is refused until `s` seconds
    /// after any agent last finished the child (a halted child does not
    /// start the cooldown).
    pub(super) fn global_cooldown(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let shared = self.shared_place(id);
        let (now, d) = (names::now(), names::seconds());
        let seconds = self.seconds(duration);
        self.latch(
            id,
            Latch {
                enter: Some(quote!(#shared.is_ready(#now))),
                finish: quote! {
                    #seconds
                    ::__bt::__private::cooldown_start(&#shared, #now, #d);
                },
                ..Latch::default()
            },
        )
    }
}
