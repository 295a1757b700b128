//! Expressions over message fields: `level >= WARN and name ~ "planner"`.
//!
//! The language `bagscope` takes for searching (`f` in the explorer) and for `--where` on the
//! command line, documented with examples in `docs/search.md`:
//!
//! - a field path as `echo` takes it (`header.frame_id`, `ranges[10]`,
//!   `transforms[*].child_frame_id` for any element; a leading `m.` as in `rosbag filter` is
//!   dropped), compared with `== != < <= > >=` to a number, a `"string"` (or `'string'`),
//!   `true`/`false`, or a constant of the type (`level >= WARN`, `status.status ==
//!   STATUS_NO_FIX`);
//! - `path ~ "text"` (substring, ignoring ASCII case) and `path =~ "regex"` on strings;
//!   `len(path)` of arrays and strings, `abs(path)` of numbers; `"text" in path` (Python's
//!   case-sensitive substring test);
//! - `and`, `or`, `not`, parentheses; a bare `"text"` searches every string field;
//! - a path alone is true when its value is non-zero / non-empty; `topic` (when the type has
//!   no such field) is the topic's name;
//! - computations wherever a field goes (either side of a comparison): `+ - * /`, unary
//!   minus, `norm(v)` / `norm(a, b…)`, `abs`, `sqrt`, `atan2(y, x)`, `yaw`/`roll`/`pitch` of a
//!   quaternion (as `tf.transformations`), `diff(x)` and `rate(x)` against the topic's
//!   previous message ([`Quantity`], two-stage evaluation with a [`Memory`] per topic).
//!
//! [`Expr::parse`] checks the syntax once; [`Expr::compile`] resolves it against a message
//! type (unknown fields and constants, and operators that do not fit a field's type, are
//! errors pointing at their column); [`Filter::matches`] evaluates it on decoded messages
//! without allocating ([`Filter::eval`] with the topic's [`Memory`] when it uses `diff` or
//! `rate`); [`Expr::compile_quantity`] compiles it as a number per message. The regular expressions and substring searchers of an expression are
//! built once and shared by every filter compiled from it (one per connection searched), and
//! substring tests take time linear in the string searched.

mod compile;
mod compute;
mod error;
mod eval;
mod lexer;
mod memory;
mod num;
mod parser;
mod quantity;
mod shared;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_compute;
mod value;

pub use compute::FUNCTIONS;
pub use error::{ExprError, ExprErrorKind};
pub use lexer::{ArithOp, CmpOp, MAX_EXPR_LEN};
pub use memory::Memory;
pub use num::Num;
pub use parser::Func;
pub use quantity::Quantity;

use std::sync::Arc;

use super::{DecodeError, MessageRef, MsgType, Schema, decode};

/// An expression whose syntax has been checked, not yet tied to a message type. Clones share
/// its compiled regular expressions and substring searchers.
#[derive(Debug, Clone)]
pub struct Expr {
    text: String,
    ast: parser::Ast,
    shared: Arc<shared::Shared>,
}

impl Expr {
    /// Parses `text`; the error points at the column where it goes wrong.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let ast = parser::parse(text)?;
        Ok(Expr {
            text: text.to_string(),
            shared: Arc::new(shared::Shared::for_ast(&ast)),
            ast,
        })
    }

    /// The text as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Compiles the expression for messages of type `ty` published on `topic`. Its regular
    /// expressions are compiled on the first call that needs them and shared by the filters
    /// of later calls.
    pub fn compile(&self, ty: &MsgType, topic: &str) -> Result<Filter, ExprError> {
        let compiler = compile::Compiler {
            text: &self.text,
            ty,
            topic,
            shared: &self.shared,
            slots: std::cell::Cell::new(0),
            diffs: std::cell::Cell::new(0),
        };
        let node = compiler.node(&self.ast)?;
        Ok(Filter {
            node,
            type_name: ty.name().to_string(),
            width: compiler.slots.get(),
            stateful: compiler.diffs.get() > 0,
        })
    }
}

/// An expression compiled for one message type.
#[derive(Debug, Clone)]
pub struct Filter {
    node: compile::Node,
    type_name: String,
    /// Numbers gathered per message.
    width: usize,
    /// True when it uses `diff()` or `rate()`.
    stateful: bool,
}

impl Filter {
    /// True when `msg` (a message of the type compiled for) satisfies the expression.
    pub fn matches(&self, msg: MessageRef<'_>) -> bool {
        self.node.eval(&eval::Direct(msg), None)
    }

    /// Decodes `payload` with `schema` (the type compiled for) and evaluates the expression.
    pub fn matches_payload(&self, schema: &Schema, payload: &[u8]) -> Result<bool, DecodeError> {
        Ok(self.matches(decode(schema, payload)?.root()))
    }

    /// The type the filter was compiled for.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// True when every regular expression and substring searcher of this filter is the very
    /// one (the same allocation) at the same place in `other`: two filters compiled from one
    /// [`Expr`] share them.
    pub fn shares_searchers_with(&self, other: &Filter) -> bool {
        self.node.shares_searchers_with(&other.node)
    }
}

impl Expr {
    /// True when the expression names a field `topic` (or `m.topic`): when the type has no
    /// such field, it tests the topic's name, so a filter compiled for one topic does not
    /// serve another of the same type.
    pub fn mentions_topic(&self) -> bool {
        self.ast.mentions_topic()
    }

    /// How many regular expressions of this expression (and its clones) have been compiled:
    /// at most one per distinct pattern, however many filters were compiled.
    pub fn regexes_compiled(&self) -> usize {
        self.shared.regexes_compiled()
    }
}
