//! `scope` hooks and the time nodes: `wait`, `timeout`, `delay`,
//! `cooldown`, `run_once`. Time is the tick context's `now`, read once per
//! tick into `__now`; durations are read each tick they are needed.

use super::{Gen, names, status};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

impl Gen<'_> {
    /// `let __d: f64 = <duration>;`, typed on the user's expression.
    fn seconds(&self, duration: &syn::Expr) -> TokenStream {
        let d = names::seconds();
        quote_spanned!(duration.span()=> let #d: f64 = #duration;)
    }

    /// `scope(enter = .., tick = .., exit = ..) { child }`.
    pub(super) fn scope(
        &self,
        id: usize,
        enter: Option<&syn::Expr>,
        tick: Option<&syn::Expr>,
        exit: Option<&syn::Expr>,
    ) -> TokenStream {
        let node = self.tree.node(id);
        let c = node.children[0];
        let label = self.label(id);
        let place = self.place(id);
        let r = names::result();
        let fail = status("Failure");
        let args = self.args();
        let proceed =
            |hook: &syn::Expr| quote_spanned!(hook.span()=> ::__bt::HookResult::proceed(#hook));
        let exit_code = exit.map(|e| quote!(let _ = #e;));
        let eval = self.eval(c);
        if node.has_state {
            let enter = enter.map(|e| {
                let call = proceed(e);
                quote!(if !#call { break #label #fail; })
            });
            let since = self.tree.context.as_ref().map(|_| {
                let now = names::now();
                quote!(#place.t = #now;)
            });
            let tick = tick.map(|e| {
                let call = proceed(e);
                quote!(if !#call { #place.halt(#args); break #label #fail; })
            });
            let child = self.child_in_field(id);
            quote! {
                #label: {
                    if !#place.active {
                        #enter
                        #place.active = true;
                        #since
                    }
                    #tick
                    #child
                    if #r.is_done() {
                        #place.active = false;
                        #exit_code
                    }
                    #r
                }
            }
        } else {
            let enter = enter.map(|e| {
                let call = proceed(e);
                quote!(if !#call { break #label #fail; })
            });
            let tick = tick.map(|e| {
                let call = proceed(e);
                quote!(if !#call { #exit_code break #label #fail; })
            });
            quote! {
                #label: {
                    #enter
                    #tick
                    #eval
                    #exit_code
                    #r
                }
            }
        }
    }

    /// `wait(s)`: `Running` until `s` seconds after its first tick.
    pub(super) fn wait(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let place = self.place(id);
        let (now, start, d) = (names::now(), names::start(), names::seconds());
        let seconds = self.seconds(duration);
        let (ok, running) = (status("Success"), status("Running"));
        quote! {{
            let #start: f64 = *#place.get_or_insert(#now);
            #seconds
            if #now - #start >= #d {
                *#place = ::core::option::Option::None;
                #ok
            } else {
                #running
            }
        }}
    }

    /// `timeout(s) { child }`: the child fails, halted, once `s` seconds
    /// have passed since it started without finishing.
    pub(super) fn timeout(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let node = self.tree.node(id);
        let c = node.children[0];
        let eval = self.eval(c);
        let r = names::result();
        if !node.has_state {
            return quote!({ #eval #r });
        }
        let label = self.label(id);
        let place = self.place(id);
        let (now, start, d) = (names::now(), names::start(), names::seconds());
        let seconds = self.seconds(duration);
        let fail = status("Failure");
        let args = self.args();
        let child = self.child_in_field(id);
        quote! {
            #label: {
                let #start: f64 = *#place.start.get_or_insert(#now);
                #seconds
                if #now - #start >= #d {
                    #place.halt(#args);
                    break #label #fail;
                }
                #child
                if #r.is_done() {
                    #place.start = ::core::option::Option::None;
                }
                #r
            }
        }
    }

    /// `delay(s) { child }`: `Running` for `s` seconds, then the child.
    pub(super) fn delay(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let label = self.label(id);
        let place = self.place(id);
        let (now, start, d, r) = (
            names::now(),
            names::start(),
            names::seconds(),
            names::result(),
        );
        let seconds = self.seconds(duration);
        let running = status("Running");
        let child = self.child_in_field(id);
        quote! {
            #label: {
                if !#place.passed {
                    let #start: f64 = *#place.start.get_or_insert(#now);
                    #seconds
                    if #now - #start < #d {
                        break #label #running;
                    }
                    #place.passed = true;
                }
                #child
                if #r.is_done() {
                    #place.start = ::core::option::Option::None;
                    #place.passed = false;
                }
                #r
            }
        }
    }

    /// `cooldown(s) { child }`: after the child finishes, the node fails
    /// without ticking it until `s` seconds have passed.
    pub(super) fn cooldown(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let node = self.tree.node(id);
        let c = node.children[0];
        let label = self.label(id);
        let (now, keep, d, r) = (
            names::now(),
            names::keep(),
            names::seconds(),
            names::result(),
        );
        let field = names::keep_field(id, "ready");
        let seconds = self.seconds(duration);
        let fail = status("Failure");
        let pass = self.pass_place(id);
        let eval = self.eval(c);
        quote! {
            #label: {
                if #now < #keep.#field {
                    break #label #fail;
                }
                #pass
                #eval
                if #r.is_done() {
                    #seconds
                    #keep.#field = #now + #d;
                }
                #r
            }
        }
    }

    /// `run_once { child }`: the child runs until it finishes once; later
    /// ticks return the status it finished with, without ticking it.
    pub(super) fn run_once(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        let c = node.children[0];
        let label = self.label(id);
        let (keep, r) = (names::keep(), names::result());
        let field = names::keep_field(id, "once");
        let (ok, fail, running) = (status("Success"), status("Failure"), status("Running"));
        let pass = self.pass_place(id);
        let eval = self.eval(c);
        quote! {
            #label: {
                match #keep.#field {
                    1 => break #label #ok,
                    2 => break #label #fail,
                    _ => {}
                }
                #pass
                #eval
                match #r {
                    #ok => #keep.#field = 1,
                    #fail => #keep.#field = 2,
                    #running => {}
                }
                #r
            }
        }
    }

    /// For a node whose state is its child's: hands the place down.
    pub(super) fn pass_place(&self, id: usize) -> Option<TokenStream> {
        let node = self.tree.node(id);
        node.has_state.then(|| {
            let (outer, inner) = (self.place(id), self.place(node.children[0]));
            quote!(let #inner = &mut *#outer;)
        })
    }
}
