//! The terminal side of the explorer: raw mode and the alternate screen ([`terminal`]), the
//! thread reading the terminal's input ([`input`]) and the answers to its queries
//! ([`term_replies`]), which graphics protocol it speaks ([`graphics`]), and the one stream of
//! events the loop blocks on ([`event`]).

pub mod event;
pub mod graphics;
pub mod input;
pub mod term_replies;
pub mod terminal;
