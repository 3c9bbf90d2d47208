//! Nodes that keep time or marks outside a latch: `wait`, `cooldown`,
//! `run_once`. Time is the tick context's `now`, read once per tick into
//! `__now`; durations are read each tick they are needed.

use super::{Gen, names, status};
use crate::ir::{Keep, Shape};
use bt_runtime::Status;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    /// `wait(s)`: `Running` until `s` seconds after its first tick.
    pub(super) fn wait(&self, id: usize, duration: &syn::Expr) -> TokenStream {
        let place = self.place(id);
        let (now, start, d) = (names::now(), names::start(), names::seconds());
        let seconds = self.seconds(duration);
        let (ok, running) = (status(Status::Success), status(Status::Running));
        quote! {{
            let #start: ::core::primitive::f64 = *#place.get_or_insert(#now);
            #seconds
            if #now - #start >= #d {
                *#place = ::core::option::Option::None;
                #ok
            } else {
                #running
            }
        }}
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
        let field = names::keep_field(id, Keep::Ready);
        let seconds = self.seconds(duration);
        let fail = status(Status::Failure);
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
    /// ticks return the status it finished with, without ticking it; with
    /// `then_skip = true`, `skip`, the status its parent passes over.
    pub(super) fn run_once(&self, id: usize, skip: Option<Status>) -> TokenStream {
        let node = self.tree.node(id);
        let c = node.children[0];
        let label = self.label(id);
        let (keep, r) = (names::keep(), names::result());
        let field = names::keep_field(id, Keep::Once);
        let (ok, fail, running) = (
            status(Status::Success),
            status(Status::Failure),
            status(Status::Running),
        );
        let pass = self.pass_place(id);
        let eval = self.eval(c);
        let done = match skip {
            Some(skip) => {
                let skip = super::status(skip);
                quote!(if #keep.#field != 0 { break #label #skip; })
            }
            None => quote! {
                match #keep.#field {
                    1 => break #label #ok,
                    2 => break #label #fail,
                    _ => {}
                }
            },
        };
        quote! {
            #label: {
                #done
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
        // A node that is its leaf's memory has no place of its own: the
        // leaf's code finds the memory in the holder's variant.
        let own = !matches!(node.shape, Shape::LeafOf(_));
        (node.has_state && own).then(|| {
            let (outer, inner) = (self.place(id), self.place(node.children[0]));
            quote!(let #inner = &mut *#outer;)
        })
    }
}
