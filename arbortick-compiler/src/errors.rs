//! Collects every error of an invocation so all are reported at once, in
//! source order.

use proc_macro2::TokenStream;

/// The errors found so far.
#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

/// Proof that an error was reported: what a step returns instead of a
/// value it could not build. Only [`Errors`] makes one, by recording an
/// error, so a `Result<T, Reported>` that failed always comes with a
/// message for the user, and no step needs a message of its own for
/// "something earlier went wrong".
#[derive(Clone, Copy, Debug)]
pub struct Reported(());

/// One error for something written twice: at the second place, saying
/// where the other is (`message (first at line 6, column 13)`, with
/// `other` = "first"), so that a mistake is one error; a proc macro cannot
/// attach a note to an error.
pub fn again(
    at: proc_macro2::Span,
    message: &str,
    other: &str,
    first: proc_macro2::Span,
) -> syn::Error {
    let start = first.start();
    syn::Error::new(
        at,
        format!(
            "{message} ({other} at line {}, column {})",
            start.line,
            start.column + 1
        ),
    )
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Records `error`, and returns the proof that it was.
    pub fn report(&mut self, error: syn::Error) -> Reported {
        self.push(error);
        Reported(())
    }

    /// The proof that an error was reported, if one was.
    pub fn reported(&self) -> Option<Reported> {
        (!self.errors.is_empty()).then_some(Reported(()))
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors in source order (by where each starts; errors found at
    /// one place keep the order they were found in).
    pub(crate) fn sorted(&self) -> Vec<&syn::Error> {
        let mut sorted: Vec<&syn::Error> = self.errors.iter().collect();
        sorted.sort_by_key(|e| {
            let start = e.span().start();
            (start.line, start.column)
        });
        sorted
    }

    /// One `compile_error!` per error, each on its own span.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.sorted()
            .into_iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }

    #[cfg(test)]
    pub fn messages(&self) -> Vec<String> {
        self.sorted().into_iter().map(ToString::to_string).collect()
    }
}
