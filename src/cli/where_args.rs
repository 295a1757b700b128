//! `--where EXPR` of `echo`, `export` and `filter`: keep only the messages an expression
//! (docs/search.md) holds for, compiled once per message type (connections of one type share
//! the schema and the filter, and every filter shares the expression's regular expressions).

use std::io::Write;

use clap::Args;

use crate::bag::Connection;
use crate::catalog::{BagConn, DecodePlans, Kept, Schemas};
use crate::msg::Decoded;
use crate::msg::expr::{Expr, ExprError};

/// The `--where` option.
#[derive(Args, Debug, Clone, Default)]
pub struct WhereArgs {
    /// Keep only messages for which EXPR holds, e.g. `level >= WARN`,
    /// `header.frame_id == "base"`, `transforms[*].child_frame_id ~ "arm"` (docs/search.md).
    /// Every selected topic's type must have the fields it names.
    #[arg(long = "where", value_name = "EXPR")]
    pub expr: Option<String>,
}

/// The compiled `--where` filter of every selected connection: its decode plan (see
/// [`DecodePlans`]), so that a kept message is decoded once, to test and to use.
pub struct Where {
    plans: DecodePlans,
    /// Messages that could not be decoded to test (not kept).
    undecodable: std::sync::atomic::AtomicU64,
}

impl WhereArgs {
    /// The filter for `conns` (bag index, connection), or `Ok(None)` without `--where`.
    /// `Err` holds the lines to print when the expression does not parse or does not fit a
    /// topic's type.
    pub fn compile<'c>(
        &self,
        conns: impl IntoIterator<Item = (usize, &'c Connection)>,
        schemas: &Schemas,
    ) -> Result<Option<Where>, WhereError> {
        let Some(text) = &self.expr else {
            return Ok(None);
        };
        let expr = Expr::parse(text).map_err(|e| WhereError {
            context: String::new(),
            error: Box::new(e),
        })?;
        // A connection without a schema cannot be decoded: it gets no plan, its messages
        // are reported when reading and never match.
        let plans =
            DecodePlans::new(conns, Some(&expr), schemas.registry()).map_err(|e| WhereError {
                context: format!("topic '{}' ({}): ", e.topic, e.datatype),
                error: e.error,
            })?;
        Ok(Some(Where {
            plans,
            undecodable: std::sync::atomic::AtomicU64::new(0),
        }))
    }
}

impl Where {
    /// True when the message `data` of connection `conn` satisfies the expression; a message
    /// that does not decode does not (it is counted and reported by [`Where::report`]).
    pub fn keep(&self, conn: BagConn, data: &[u8]) -> bool {
        self.decode_kept(conn, data).is_some()
    }

    /// The message `data` of connection `conn` decoded, when it satisfies the expression:
    /// [`Where::keep`] that hands on what it decoded.
    pub fn decode_kept<'d>(&'d self, conn: BagConn, data: &'d [u8]) -> Option<Decoded<'d>> {
        match self.plans.get(conn)?.keep(data) {
            Kept::Yes(decoded) => Some(decoded),
            Kept::No => None,
            Kept::Undecodable(_) => {
                self.undecodable
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                None
            }
        }
    }

    /// How many messages could not be decoded to test (none of them kept).
    pub fn undecodable(&self) -> u64 {
        self.undecodable.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Prints how many messages could not be tested, if any.
    pub fn report(&self) {
        let n = self.undecodable.load(std::sync::atomic::Ordering::Relaxed);
        if n > 0 {
            super::term::print_warning(format_args!(
                "--where: {n} messages could not be decoded to test the expression: none kept"
            ));
        }
    }
}

/// Why `--where` cannot be used.
#[derive(Debug)]
pub struct WhereError {
    context: String,
    error: Box<ExprError>,
}

impl std::fmt::Display for WhereError {
    /// The first line of the error: what does not fit, and where.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--where: {}{}", self.context, self.error.message())
    }
}

impl std::error::Error for WhereError {}

impl WhereError {
    /// Prints the error, then the expression with a `^` under the column, on stderr.
    pub fn print(&self) {
        super::term::print_error(self);
        let mut err = std::io::stderr().lock();
        for line in self.error.pointer().lines() {
            let _ = writeln!(err, "  {}", crate::printable::escape_line(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ConnectionHeader;

    #[test]
    fn one_filter_for_every_connection_of_a_type() {
        let conns: Vec<Connection> = (0..3000u32)
            .map(|id| {
                let topic = format!("/t{id}");
                Connection {
                    id,
                    file_id: id,
                    datatype: "std_msgs/String".into(),
                    md5sum: "992ce8a1687cec8c8bd883ec73ca41d1".into(),
                    message_definition: "string data\n".into(),
                    callerid: None,
                    latching: None,
                    header: ConnectionHeader::build(&topic, "std_msgs/String", "*", "", None, None),
                    topic,
                    message_count: 1,
                }
            })
            .collect();
        let args = WhereArgs {
            expr: Some(r#"data =~ "\w{20}""#.into()),
        };
        let w = args
            .compile(conns.iter().map(|c| (0, c)), &Schemas::default())
            .unwrap()
            .unwrap();
        let first = w.plans.get(BagConn::new(0, 0)).unwrap();
        let (schema, filter) = (first.schema(), first.filter().unwrap());
        assert_eq!(w.plans.len(), 3000);
        assert!((0..3000).all(|id| {
            let p = w.plans.get(BagConn::new(0, id)).unwrap();
            std::sync::Arc::ptr_eq(p.schema(), schema)
                && std::sync::Arc::ptr_eq(p.filter().unwrap(), filter)
        }));
        let mut payload = 21u32.to_le_bytes().to_vec();
        payload.extend(b"a_word_of_twenty_one_");
        assert!(w.keep(BagConn::new(0, 2999), &payload));
        assert!(!w.keep(BagConn::new(0, 2999), &[1, 0, 0, 0, b'a']));
    }
}
