//! What an expression needs to search strings, built once per expression and shared (`Arc`)
//! by every [`Filter`](super::Filter) compiled from it: the regular expressions of `=~`
//! (compiled on first use, so that a pattern on a number field is reported as a type
//! mismatch, not compiled for nothing) and the substring searchers of `~`, `in` and a bare
//! `"text"` (built with the expression). A search over thousands of connections then holds
//! one automaton per pattern, not one per connection.
//!
//! Substring searches take time linear in the text: [`memchr::memmem`] for `in`, and for the
//! case-insensitive `~` and bare text, Knuth–Morris–Pratt over ASCII-folded bytes with
//! `memchr2` skipping to the next possible start.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};

use super::lexer::CmpOp;
use super::parser::Ast;

/// Largest compiled regular expression (bytes of the automaton).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A regular expression compiled once, or why it does not compile.
type RegexSlot = OnceLock<Result<Arc<Regex>, String>>;

/// The searchers of one expression, by the text they search for.
#[derive(Debug, Default)]
pub(super) struct Shared {
    regexes: HashMap<String, RegexSlot>,
    folded: HashMap<Box<[u8]>, Arc<FoldedNeedle>>,
    exact: HashMap<Box<[u8]>, Arc<ExactNeedle>>,
}

impl Shared {
    /// The searchers `ast` uses: substring searchers built now, regex slots left empty.
    pub(super) fn for_ast(ast: &Ast) -> Shared {
        let mut shared = Shared::default();
        shared.collect(ast);
        shared
    }

    fn collect(&mut self, ast: &Ast) {
        match ast {
            Ast::Or(items) | Ast::And(items) => items.iter().for_each(|a| self.collect(a)),
            Ast::Not(inner, _) => self.collect(inner),
            Ast::Str(s, _) => self.add_folded(s),
            Ast::In { needle, .. } => {
                let key: Box<[u8]> = needle.as_bytes().into();
                self.exact
                    .entry(key)
                    .or_insert_with_key(|k| Arc::new(ExactNeedle::new(k)));
            }
            Ast::Compare { op, rhs, .. } => match (op, rhs.as_ref()) {
                (CmpOp::Regex, Ast::Str(s, _)) => {
                    self.regexes.entry(s.clone()).or_default();
                }
                (CmpOp::Like, Ast::Str(s, _)) => self.add_folded(s),
                _ => {}
            },
            _ => {}
        }
    }

    fn add_folded(&mut self, text: &str) {
        let key: Box<[u8]> = text.as_bytes().to_ascii_lowercase().into();
        self.folded
            .entry(key)
            .or_insert_with_key(|k| Arc::new(FoldedNeedle::new(k)));
    }

    /// The compiled `pattern` (compiled on the first call); `Err` says why it does not
    /// compile.
    pub(super) fn regex(&self, pattern: &str) -> Result<Arc<Regex>, String> {
        match self.regexes.get(pattern) {
            Some(slot) => slot.get_or_init(|| build_regex(pattern)).clone(),
            // Not seen when parsing (cannot happen): compiled for this caller alone.
            None => build_regex(pattern),
        }
    }

    /// The case-insensitive searcher of `text`.
    pub(super) fn folded(&self, text: &str) -> Arc<FoldedNeedle> {
        let key = text.as_bytes().to_ascii_lowercase();
        self.folded
            .get(key.as_slice())
            .cloned()
            .unwrap_or_else(|| Arc::new(FoldedNeedle::new(&key)))
    }

    /// The case-sensitive searcher of `text`.
    pub(super) fn exact(&self, text: &str) -> Arc<ExactNeedle> {
        self.exact
            .get(text.as_bytes())
            .cloned()
            .unwrap_or_else(|| Arc::new(ExactNeedle::new(text.as_bytes())))
    }

    /// How many regular expressions have been compiled so far.
    pub(super) fn regexes_compiled(&self) -> usize {
        self.regexes.values().filter(|s| s.get().is_some()).count()
    }
}

fn build_regex(pattern: &str) -> Result<Arc<Regex>, String> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(Arc::new)
        .map_err(|e| {
            let first = e.to_string();
            first.lines().last().unwrap_or_default().trim().to_string()
        })
}

/// A case-sensitive substring searcher (Python's `in`).
#[derive(Debug)]
pub(super) struct ExactNeedle(memmem::Finder<'static>);

impl ExactNeedle {
    fn new(needle: &[u8]) -> Self {
        ExactNeedle(memmem::Finder::new(needle).into_owned())
    }

    /// True when `hay` holds the needle (an empty needle is everywhere).
    pub(super) fn is_in(&self, hay: &[u8]) -> bool {
        self.0.find(hay).is_some()
    }
}

/// A substring searcher ignoring ASCII case: the needle in ASCII lower case and its
/// Knuth–Morris–Pratt failure table.
#[derive(Debug)]
pub(super) struct FoldedNeedle {
    needle: Box<[u8]>,
    /// `fail[i]`: the length of the longest proper border of `needle[..=i]`.
    fail: Box<[usize]>,
}

impl FoldedNeedle {
    /// The searcher of `needle`, which is in ASCII lower case.
    pub(super) fn new(needle: &[u8]) -> Self {
        let mut fail = vec![0usize; needle.len()];
        let mut k = 0usize;
        for (i, &c) in needle.iter().enumerate().skip(1) {
            while k > 0 && needle.get(k) != Some(&c) {
                k = fail.get(k - 1).copied().unwrap_or(0);
            }
            if needle.get(k) == Some(&c) {
                k += 1;
            }
            if let Some(f) = fail.get_mut(i) {
                *f = k;
            }
        }
        FoldedNeedle {
            needle: needle.into(),
            fail: fail.into(),
        }
    }

    /// True when `hay` holds the needle, ignoring ASCII case; linear in `hay`'s length.
    pub(super) fn is_in(&self, hay: &[u8]) -> bool {
        let n = &self.needle;
        let Some(&first) = n.first() else {
            return true;
        };
        let upper = first.to_ascii_uppercase();
        let mut k = 0usize;
        let mut i = 0usize;
        while i < hay.len() {
            if k == 0 {
                // Nothing matched yet: jump to the next byte that can start the needle.
                match hay
                    .get(i..)
                    .and_then(|rest| memchr::memchr2(first, upper, rest))
                {
                    Some(p) => i += p,
                    None => return false,
                }
            }
            let Some(c) = hay.get(i).map(u8::to_ascii_lowercase) else {
                return false;
            };
            while k > 0 && n.get(k) != Some(&c) {
                k = self.fail.get(k - 1).copied().unwrap_or(0);
            }
            if n.get(k) == Some(&c) {
                k += 1;
                if k == n.len() {
                    return true;
                }
            }
            i += 1;
        }
        false
    }
}
