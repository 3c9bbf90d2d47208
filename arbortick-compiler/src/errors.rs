//! Collects every error of an invocation so all are reported at once, in
//! source order.

use proc_macro2::TokenStream;

/// The errors found so far.
#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
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
