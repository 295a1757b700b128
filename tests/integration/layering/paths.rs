//! Reading the module paths a Rust source names: a small lexer (comments, string and
//! character literals, lifetimes skipped) and a reader of the paths rooted at `crate`,
//! `super` or `self` — in `use` declarations, grouped (`use crate::{a, b::{c, d}}`) over
//! several lines or not, and in expressions — resolved against the module they are written in
//! (the file's module and the inline `mod x { … }` blocks around them).

use std::path::Path;

/// A token of Rust source, as far as paths need: what is not a name or one of these
/// punctuations is `Other`.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Star,
    Semi,
    Other,
}

/// Walks the characters of a source, producing tokens with their 1-based lines.
struct Lexer {
    c: Vec<char>,
    i: usize,
    line: usize,
    out: Vec<(Tok, usize)>,
}

impl Lexer {
    fn at(&self, k: usize) -> char {
        self.c.get(k).copied().unwrap_or('\0')
    }

    /// Advances over characters while `keep` holds, counting lines.
    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.i < self.c.len() && keep(self.c[self.i]) {
            self.line += usize::from(self.c[self.i] == '\n');
            self.i += 1;
        }
    }

    fn skip_ident(&mut self) {
        self.skip_while(|c| c.is_alphanumeric() || c == '_');
    }

    /// A block comment, nested ones included; `i` is at its `/*`.
    fn block_comment(&mut self) {
        let mut depth = 0;
        while self.i < self.c.len() {
            let two = (self.c[self.i], self.at(self.i + 1));
            if two == ('/', '*') {
                depth += 1;
                self.i += 2;
            } else if two == ('*', '/') {
                depth -= 1;
                self.i += 2;
                if depth == 0 {
                    return;
                }
            } else {
                self.skip_one();
            }
        }
    }

    fn skip_one(&mut self) {
        self.line += usize::from(self.c[self.i] == '\n');
        self.i += 1;
    }

    /// A string literal whose body starts at `i` (after the opening quote); `raw` is the
    /// number of `#` of a raw string (which has no escapes), `None` for others.
    fn string(&mut self, raw: Option<usize>) {
        let hashes = raw.unwrap_or(0);
        while self.i < self.c.len() {
            let ch = self.c[self.i];
            if ch == '\\' && raw.is_none() {
                self.i += 1;
                self.skip_one_if_any();
            } else if ch == '"' && (1..=hashes).all(|k| self.at(self.i + k) == '#') {
                self.i += 1 + hashes;
                return;
            } else {
                self.skip_one();
            }
        }
    }

    fn skip_one_if_any(&mut self) {
        if self.i < self.c.len() {
            self.skip_one();
        }
    }

    /// A character literal (`'a'`, `'\n'`, `'\u{1F600}'`) or a lifetime (`'a`, `'static`);
    /// `i` is at the quote.
    fn quote(&mut self) {
        if self.at(self.i + 1) == '\\' {
            self.i += 3;
            self.skip_while(|c| c != '\'');
            self.i += 1;
        } else if self.at(self.i + 2) == '\'' {
            self.i += 3;
        } else {
            self.i += 1;
            self.skip_ident();
        }
    }

    /// A word: an identifier, or the prefix of a raw or byte string (`r"…"`, `r#"…"#`,
    /// `br"…"`, `b"…"`, `b'…'`) or a raw identifier (`r#type`).
    fn word(&mut self) {
        let (start, line) = (self.i, self.line);
        self.skip_ident();
        let word: String = self.c[start..self.i].iter().collect();
        let hashes = self.c[self.i..].iter().take_while(|&&x| x == '#').count();
        let next = self.at(self.i);
        if matches!(word.as_str(), "r" | "br" | "cr") && self.at(self.i + hashes) == '"' {
            self.i += hashes + 1;
            self.string(Some(hashes));
        } else if matches!(word.as_str(), "b" | "c") && next == '"' {
            self.i += 1;
            self.string(None);
        } else if word == "b" && next == '\'' {
            self.quote();
        } else if word == "r" && hashes == 1 {
            self.i += 1;
            let s = self.i;
            self.skip_ident();
            let name = self.c[s..self.i].iter().collect();
            self.out.push((Tok::Ident(name), line));
        } else {
            self.out.push((Tok::Ident(word), line));
        }
    }

    fn punct(&mut self) {
        let tok = match self.c[self.i] {
            ':' if self.at(self.i + 1) == ':' => {
                self.i += 1;
                Tok::PathSep
            }
            '{' => Tok::Open,
            '}' => Tok::Close,
            ',' => Tok::Comma,
            '*' => Tok::Star,
            ';' => Tok::Semi,
            _ => Tok::Other,
        };
        self.out.push((tok, self.line));
        self.i += 1;
    }
}

/// The tokens of `src` with their 1-based line numbers; comments, string and character
/// literals and lifetimes are skipped.
pub fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let mut lx = Lexer {
        c: src.chars().collect(),
        i: 0,
        line: 1,
        out: Vec::new(),
    };
    while lx.i < lx.c.len() {
        let ch = lx.c[lx.i];
        match (ch, lx.at(lx.i + 1)) {
            (_, _) if ch.is_whitespace() => lx.skip_one(),
            ('/', '/') => lx.skip_while(|c| c != '\n'),
            ('/', '*') => lx.block_comment(),
            ('"', _) => {
                lx.i += 1;
                lx.string(None);
            }
            ('\'', _) => lx.quote(),
            (_, _) if ch.is_alphabetic() || ch == '_' => lx.word(),
            _ => lx.punct(),
        }
    }
    lx.out
}

/// A path rooted at `crate`, `super` or `self`, as written: its segments and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct UsePath {
    /// The module the path is written in (file module plus inline `mod` blocks).
    pub module: Vec<String>,
    pub segments: Vec<String>,
    pub line: usize,
}

fn tok(toks: &[(Tok, usize)], i: usize) -> Option<&Tok> {
    toks.get(i).map(|t| &t.0)
}

/// The paths of the group whose `{` is at `toks[i]`, each prefixed by `prefix`; returns them
/// and the index after the group.
fn group(toks: &[(Tok, usize)], mut i: usize, prefix: &[String]) -> (Vec<Vec<String>>, usize) {
    let mut out = Vec::new();
    i += 1;
    loop {
        match tok(toks, i) {
            None => return (out, i),
            Some(Tok::Close) => return (out, i + 1),
            Some(Tok::Comma) => i += 1,
            Some(_) => {
                let (sub, next) = path_tree(toks, i, prefix.to_vec());
                out.extend(sub);
                // Never loop on a token that is not part of a path.
                i = next.max(i + 1);
            }
        }
    }
}

/// The paths from `toks[i]` on (one path, or a group of them), each prefixed by `prefix`;
/// returns them and the index after them.
fn path_tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    mut segs: Vec<String>,
) -> (Vec<Vec<String>>, usize) {
    loop {
        match tok(toks, i) {
            Some(Tok::Ident(s)) => segs.push(s.clone()),
            Some(Tok::Star) => return (vec![segs], i + 1),
            Some(Tok::Open) => return group(toks, i, &segs),
            _ => return (vec![segs], i),
        }
        i += 1;
        match tok(toks, i) {
            Some(Tok::PathSep) => i += 1,
            Some(Tok::Ident(s)) if s == "as" => return (vec![segs], i + 2),
            _ => return (vec![segs], i),
        }
    }
}

/// Whether `toks[i]` starts a path rooted at `crate`, `super` or `self` (`$crate` too).
fn starts_path(toks: &[(Tok, usize)], i: usize) -> bool {
    let root = matches!(tok(toks, i), Some(Tok::Ident(w)) if matches!(w.as_str(), "crate" | "super" | "self"));
    root && tok(toks, i + 1) == Some(&Tok::PathSep)
        && !(i > 0 && tok(toks, i - 1) == Some(&Tok::PathSep))
}

/// The inline modules around a token: `(name, brace depth inside it)`, innermost last.
struct Scopes<'a> {
    file: &'a [String],
    inline: Vec<(String, usize)>,
    depth: usize,
}

impl Scopes<'_> {
    fn module(&self) -> Vec<String> {
        let mut m = self.file.to_vec();
        m.extend(self.inline.iter().map(|(n, _)| n.clone()));
        m
    }

    /// Follows the braces and `mod x {` at `toks[i]`; returns how many tokens it took.
    fn step(&mut self, toks: &[(Tok, usize)], i: usize) -> usize {
        match (tok(toks, i), tok(toks, i + 1), tok(toks, i + 2)) {
            (Some(Tok::Ident(m)), Some(Tok::Ident(name)), Some(Tok::Open)) if m == "mod" => {
                self.depth += 1;
                self.inline.push((name.clone(), self.depth));
                3
            }
            (Some(Tok::Open), _, _) => {
                self.depth += 1;
                1
            }
            (Some(Tok::Close), _, _) => {
                if self.inline.last().is_some_and(|(_, d)| *d == self.depth) {
                    self.inline.pop();
                }
                self.depth = self.depth.saturating_sub(1);
                1
            }
            _ => 1,
        }
    }
}

/// Every path rooted at `crate`, `super`, `self` (or a macro's `$crate`) in `src`, the source
/// of the module `module`, and the `crate::` paths of its doc comments.
pub fn crate_paths(src: &str, module: &[String]) -> Vec<UsePath> {
    let toks = tokens(src);
    let mut out = Vec::new();
    let mut scopes = Scopes {
        file: module,
        inline: Vec::new(),
        depth: 0,
    };
    let mut i = 0;
    while i < toks.len() {
        if starts_path(&toks, i) {
            let (line, module) = (toks[i].1, scopes.module());
            let (paths, next) = path_tree(&toks, i, Vec::new());
            out.extend(paths.into_iter().map(|segments| UsePath {
                module: module.clone(),
                segments,
                line,
            }));
            i = next.max(i + 1);
        } else {
            i += scopes.step(&toks, i);
        }
    }
    out.extend(doc_links(src, module));
    out
}

/// The `crate::` paths named in the doc comments (`///`, `//!`) of `src`, e.g. intra-doc
/// links: documentation that points up the layers is knowledge of them too. Plain comments
/// are prose and not read.
fn doc_links(src: &str, module: &[String]) -> Vec<UsePath> {
    let mut out = Vec::new();
    for (n, line) in src.lines().enumerate() {
        let t = line.trim_start();
        if !(t.starts_with("///") || t.starts_with("//!")) {
            continue;
        }
        for (at, _) in t.match_indices("crate::") {
            let before = t[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &t[at..];
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let segments = rest[..len]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            out.push(UsePath {
                module: module.to_vec(),
                segments,
                line: n + 1,
            });
        }
    }
    out
}

/// The crate-absolute module path `p` names (`crate::`, `super::`, `self::` resolved), without
/// `self` in group position; `None` when `super` goes above the crate.
pub fn resolve(p: &UsePath) -> Option<Vec<String>> {
    let mut segs = p.segments.iter().peekable();
    let mut abs: Vec<String> = if segs.next_if(|s| *s == "crate").is_some() {
        Vec::new()
    } else {
        p.module.clone()
    };
    while let Some(s) = segs.next_if(|s| *s == "self" || *s == "super") {
        if s == "super" {
            abs.pop()?;
        }
    }
    abs.extend(segs.filter(|s| *s != "self").cloned());
    Some(abs)
}

/// The module path of the file `file` below `src` (`bag/mod.rs` -> `bag`, `bag/iter.rs` ->
/// `bag::iter`).
pub fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut m: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if m.last().is_some_and(|l| l == "mod" || l == "lib") {
        m.pop();
    }
    m
}

/// The resolved paths of `src` written in `module`, as `a::b` strings.
#[cfg(test)]
fn resolved(src: &str, module: &[&str]) -> Vec<String> {
    let module: Vec<String> = module.iter().map(|s| (*s).to_string()).collect();
    crate_paths(src, &module)
        .iter()
        .filter_map(resolve)
        .map(|p| p.join("::"))
        .collect()
}

#[test]
fn nested_multi_line_groups_are_read_whole() {
    let src = "use crate::{\n    format::{self, Compression},\n    msg::{\n        Registry,\n        render::{json, yaml as y},\n    },\n    tui::{app::App, *},\n};\n";
    assert_eq!(
        resolved(src, &[]),
        [
            "format",
            "format::Compression",
            "msg::Registry",
            "msg::render::json",
            "msg::render::yaml",
            "tui::app::App",
            "tui",
        ]
    );
}

#[test]
fn super_and_self_resolve_against_the_module_written_in() {
    let m = ["bag", "writer", "atomic"];
    assert_eq!(
        resolved(
            "use super::super::Bag; use self::inner::X; use super::{super::super::tui, open_chunk::Y};",
            &m
        ),
        [
            "bag::Bag",
            "bag::writer::atomic::inner::X",
            "tui",
            "bag::writer::open_chunk::Y"
        ]
    );
    // Too many `super`s: not a path of the crate.
    assert!(resolved("use super::super::super::super::X;", &m).is_empty());
    // Inline modules add a level, and end with their block.
    let src = "mod tests {\n    fn f() { if x { y() } }\n    use super::super::a::B;\n}\nuse super::c::D;\n";
    assert_eq!(resolved(src, &["bag", "x"]), ["bag::a::B", "bag::c::D"]);
}

#[test]
fn paths_in_expressions_renames_and_macros_are_seen() {
    let src = "fn f() { let c = crate::catalog::Catalog::open::<u8>(p); }\nuse crate::tui as ui;\nmacro_rules! m { () => { $crate::cli::x() } }\nfn g() { self.x; crate::time::now() }";
    assert_eq!(
        resolved(src, &["msg"]),
        ["catalog::Catalog::open", "tui", "cli::x", "time::now"]
    );
}

#[test]
fn comments_strings_and_characters_are_not_paths() {
    let src = r####"
// use crate::tui::App;
/* crate::cli /* nested */ crate::cli */
/// See [`crate::catalog::Catalog`] (a doc link is read).
fn f<'a>(s: &'a str) -> (char, char, char, &'static str, &'a [u8], u8) {
    let _ = "crate::tui \" crate::cli";
    let _ = r#"crate::tui "quoted" "#;
    let _ = r"crate::tui \";
    let _ = b"crate::cli";
    ('{', '\'', '\u{7b}', "}", br##"crate::tui"##, b'"')
}
use crate::time::RosTime;
use crate::play::Player;
"####;
    assert_eq!(
        resolved(src, &[]),
        ["time::RosTime", "play::Player", "catalog::Catalog"]
    );
    let lines: Vec<usize> = crate_paths(src, &[]).iter().map(|p| p.line).collect();
    assert_eq!(lines, [12, 13, 4]);
}
