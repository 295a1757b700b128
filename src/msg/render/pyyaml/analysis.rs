//! PyYAML's `analyze_scalar` and `choose_scalar_style`, reduced to what a block sequence of
//! strings needs: may a string be written plain, single-quoted, or only double-quoted?

use super::resolver::resolves_to_non_string;
use super::{is_break, is_space_or_break};

/// How a scalar is written.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Style {
    Plain,
    Single,
    Double,
}

/// `choose_scalar_style` for an item of a block sequence or a value of a block mapping (no
/// simple key, not in flow); `unicode`: the emitter's `allow_unicode`.
pub(super) fn choose_style(text: &[char], unicode: bool) -> Style {
    let a = analyze(text, unicode);
    let s: String = text.iter().collect();
    if a.allow_block_plain && !resolves_to_non_string(&s) {
        Style::Plain
    } else if a.allow_single_quoted {
        Style::Single
    } else {
        Style::Double
    }
}

struct Analysis {
    allow_block_plain: bool,
    allow_single_quoted: bool,
}

/// PyYAML's `analyze_scalar`, reduced to the two answers needed.
fn analyze(text: &[char], unicode: bool) -> Analysis {
    if text.is_empty() {
        return Analysis {
            allow_block_plain: true,
            allow_single_quoted: true,
        };
    }
    let line_breaks = text.iter().any(|&c| is_break(c));
    // With `allow_unicode`, printable non-ASCII characters are not special.
    let printable_unicode = |c: char| {
        (c == '\u{85}'
            || ('\u{a0}'..='\u{d7ff}').contains(&c)
            || ('\u{e000}'..='\u{fffd}').contains(&c)
            || ('\u{10000}'..'\u{10ffff}').contains(&c))
            && c != '\u{feff}'
    };
    let special_characters = text
        .iter()
        .any(|&c| !(c == '\n' || (' '..='~').contains(&c) || (unicode && printable_unicode(c))));
    let space = |c: &char| *c == ' ' || is_break(*c);
    // A leading or trailing space or break.
    let spaces_at_edge = text.first().is_some_and(space) || text.last().is_some_and(space);
    // A space right after a line break, or a line break right after a space.
    let break_and_space = text.windows(2).any(|w| match w {
        [a, b] => (is_break(*a) && *b == ' ') || (*a == ' ' && is_break(*b)),
        _ => false,
    });
    let mut allow_block_plain = true;
    let mut allow_single_quoted = true;
    if spaces_at_edge {
        allow_block_plain = false;
    }
    if break_and_space || special_characters {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if line_breaks || block_indicators(text) {
        allow_block_plain = false;
    }
    Analysis {
        allow_block_plain,
        allow_single_quoted,
    }
}

/// Whether the text holds a character that would start or end a block structure where it is
/// (`analyze_scalar`'s `block_indicators`).
fn block_indicators(text: &[char]) -> bool {
    let starts_with = |p: &str| text.iter().take(3).copied().eq(p.chars());
    if starts_with("---") || starts_with("...") {
        return true;
    }
    let mut preceded_by_whitespace = true;
    let mut followed_by_whitespace =
        text.len() == 1 || text.get(1).is_some_and(|&c| is_space_or_break(c));
    for (index, &ch) in text.iter().enumerate() {
        let indicator = if index == 0 {
            "#,[]{}&*!|>'\"%@`".contains(ch)
                || (matches!(ch, '?' | ':' | '-') && followed_by_whitespace)
        } else {
            (ch == ':' && followed_by_whitespace) || (ch == '#' && preceded_by_whitespace)
        };
        if indicator {
            return true;
        }
        preceded_by_whitespace = is_space_or_break(ch);
        followed_by_whitespace =
            index + 2 >= text.len() || text.get(index + 2).is_some_and(|&c| is_space_or_break(c));
    }
    false
}
