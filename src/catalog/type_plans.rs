//! One plan per message type for an expression over many connections (`--where`, the
//! explorer's search): connections with the same type, checksum and definition share one
//! compiled schema and one compiled filter (one per topic when the expression tests the
//! topic's name), instead of one each; the filters share the expression's regular
//! expressions. A bag of 300 000 topics of one type then costs one schema and one filter.

use std::collections::HashMap;
use std::sync::Arc;

use crate::bag::Connection;
use crate::msg::expr::{Expr, ExprError, Filter};
use crate::msg::{MsgError, Registry, Schema};

use super::schemas::compile;

/// What identifies a compiled schema: type, md5sum, definition.
type TypeKey<'c> = (&'c str, &'c str, &'c str);

/// A compiled schema, or why there is none.
pub type SchemaResult = Result<Arc<Schema>, Arc<MsgError>>;

/// The schemas and filters of one expression, by message type.
pub struct TypePlans<'c, 'e> {
    expr: Option<&'e Expr>,
    registry: &'e Registry,
    by_topic: bool,
    schemas: HashMap<TypeKey<'c>, SchemaResult>,
    filters: HashMap<(TypeKey<'c>, &'c str), Result<Arc<Filter>, ExprError>>,
}

impl<'c, 'e> TypePlans<'c, 'e> {
    /// Plans for `expr`, with `registry` for connections that carry no definition.
    pub fn new(expr: &'e Expr, registry: &'e Registry) -> Self {
        TypePlans {
            expr: Some(expr),
            registry,
            by_topic: expr.mentions_topic(),
            schemas: HashMap::new(),
            filters: HashMap::new(),
        }
    }

    /// Schemas only (no expression), with `registry` for connections that carry no
    /// definition: [`TypePlans::plan`] then tests nothing and answers `Ok(None)`.
    pub fn schemas_only(registry: &'e Registry) -> Self {
        TypePlans {
            expr: None,
            registry,
            by_topic: false,
            schemas: HashMap::new(),
            filters: HashMap::new(),
        }
    }

    fn key(conn: &'c Connection) -> TypeKey<'c> {
        (&conn.datatype, &conn.md5sum, &conn.message_definition)
    }

    /// The compiled schema of `conn`'s type (compiled for the first connection of the type).
    pub fn schema(&mut self, conn: &'c Connection) -> SchemaResult {
        let registry = self.registry;
        self.schemas
            .entry(Self::key(conn))
            .or_insert_with(|| compile(conn, registry).schema)
            .clone()
    }

    /// The schema of `conn` and the expression compiled for it; `Ok(None)` when the type has
    /// no schema (its messages cannot be decoded) or there is no expression, `Err` when the
    /// expression does not fit it.
    #[allow(clippy::type_complexity)]
    pub fn plan(
        &mut self,
        conn: &'c Connection,
    ) -> Result<Option<(Arc<Schema>, Arc<Filter>)>, ExprError> {
        let Some(expr) = self.expr else {
            return Ok(None);
        };
        let Ok(schema) = self.schema(conn) else {
            return Ok(None);
        };
        let topic: &'c str = if self.by_topic { &conn.topic } else { "" };
        let filter = self
            .filters
            .entry((Self::key(conn), topic))
            .or_insert_with(|| expr.compile(schema.root(), &conn.topic).map(Arc::new))
            .clone()?;
        Ok(Some((schema, filter)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ConnectionHeader;

    fn conn(id: u32, topic: &str, datatype: &str, definition: &str) -> Connection {
        Connection {
            id,
            file_id: id,
            topic: topic.to_string(),
            datatype: datatype.to_string(),
            md5sum: "*".to_string(),
            message_definition: definition.to_string(),
            callerid: None,
            latching: None,
            header: ConnectionHeader::build(topic, datatype, "*", definition, None, None),
            message_count: 0,
            message_encoding: "ros1".into(),
            schema_encoding: "ros1msg".into(),
        }
    }

    #[test]
    fn one_schema_and_one_filter_per_type() {
        let registry = Registry::bundled();
        let conns: Vec<Connection> = (0..50)
            .map(|i| conn(i, &format!("/s{i}"), "std_msgs/String", "string data\n"))
            .chain((50..60).map(|i| {
                conn(
                    i,
                    &format!("/h{i}"),
                    "std_msgs/Header",
                    "uint32 seq\ntime stamp\nstring frame_id\n",
                )
            }))
            .collect();
        let expr = Expr::parse(r#"data =~ "\w{20}" or frame_id ~ "x""#).unwrap();
        let mut plans = TypePlans::new(&expr, &registry);
        let strings: Vec<_> = conns[..50].iter().map(|c| plans.plan(c)).collect();
        // `data` and `frame_id` are not both fields of either type: an error for each type.
        assert!(strings.iter().all(Result::is_err));
        let expr = Expr::parse(r#"data =~ "\w{20}""#).unwrap();
        let mut plans = TypePlans::new(&expr, &registry);
        let (s0, f0) = plans.plan(&conns[0]).unwrap().unwrap();
        for c in &conns[1..50] {
            let (s, f) = plans.plan(c).unwrap().unwrap();
            assert!(Arc::ptr_eq(&s, &s0) && Arc::ptr_eq(&f, &f0), "{}", c.topic);
        }
        assert!(plans.plan(&conns[55]).is_err());
        assert_eq!(expr.regexes_compiled(), 1);
        // Naming the topic: one filter per topic, still one regex.
        let expr = Expr::parse(r#"data =~ "\w{20}" and topic == "/s3""#).unwrap();
        let mut plans = TypePlans::new(&expr, &registry);
        let (_, a) = plans.plan(&conns[3]).unwrap().unwrap();
        let (_, b) = plans.plan(&conns[4]).unwrap().unwrap();
        assert!(!Arc::ptr_eq(&a, &b) && a.shares_searchers_with(&b));
        assert_eq!(expr.regexes_compiled(), 1);
    }
}
