//! Compiled message types: the decode plan for one connection.
//!
//! A [`Schema`] is built once per connection from its `message_definition` (or from the
//! [`Registry`](super::Registry) for old bags) and shared behind an `Arc`; decoding is a walk
//! over its [`MsgType`] tree, with nested types already resolved and sizes precomputed.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::error::MsgError;
use super::md5::{hex_md5, md5_text};
use super::parse::{self, ParsedBase};
use super::primitive::Primitive;
use super::ros2_parse;
use super::types::{Elem, Field, FieldType, MsgType, Op, Ros2Type, cdr_plan};
use super::wire::Wire;

/// How deeply message types may nest. Real types nest fewer than ten levels; the limit keeps
/// a hostile definition from exhausting the stack of the recursive walks.
pub const MAX_DEPTH: usize = 64;

/// The largest node vector the decoder reserves up front.
const NODE_HINT_CAP: usize = 4096;

/// A compiled decode plan for one top-level message type.
#[derive(Debug)]
pub struct Schema {
    root: Arc<MsgType>,
    /// How many nodes to reserve for a decoded message: the type's count with empty arrays,
    /// raised to the largest message decoded so far (capped), so that a stream of similar
    /// messages decodes with one allocation each.
    node_guess: AtomicUsize,
    /// How payloads of this type are laid out.
    wire: Wire,
}

/// Where the compiler finds the text of a type: `(text, line number of its first line)`.
pub(crate) type Lookup<'s> = dyn Fn(&str) -> Option<(&'s str, usize)> + 's;

impl Schema {
    /// Compiles a connection's `message_definition` (main text, then `====` + `MSG: pkg/Type`
    /// sections) for the type `datatype`.
    ///
    /// Unqualified type names resolve to the enclosing message's package, `Header` (and the
    /// historical `roslib/Header`) to `std_msgs/Header`. A definition that declares nothing is
    /// [`MsgError::EmptyDefinition`]; use [`Schema::for_connection`] to accept genuinely empty
    /// types such as `std_msgs/Empty`.
    pub fn from_definition(datatype: &str, definition: &str) -> Result<Arc<Schema>, MsgError> {
        let datatype = checked_name(datatype)?;
        let sections = parse::split_sections(datatype, definition)?;
        let (main, deps) = sections
            .split_first()
            .ok_or_else(|| MsgError::EmptyDefinition {
                datatype: datatype.to_string(),
            })?;
        if parse::is_blank(main.text) {
            return Err(MsgError::EmptyDefinition {
                datatype: datatype.to_string(),
            });
        }
        let table: HashMap<&str, (&str, usize)> = deps
            .iter()
            .filter_map(|s| Some((s.name.as_deref()?, (s.text, s.first_line))))
            .collect();
        let lookup = |name: &str| table.get(name).copied();
        Self::compile(datatype, main.text, 1, &lookup)
    }

    /// Compiles `datatype` from `text`, finding nested types with `lookup`.
    pub(crate) fn compile<'s>(
        datatype: &str,
        text: &'s str,
        first_line: usize,
        lookup: &Lookup<'s>,
    ) -> Result<Arc<Schema>, MsgError> {
        Self::compile_as(Wire::Ros1, datatype, text, first_line, lookup)
    }

    /// Compiles `datatype` from `text` in the dialect of `wire`: ROS1 `.msg` for
    /// [`Wire::Ros1`], ROS 2 `.msg` for [`Wire::Cdr`] (where `lookup` is asked for the
    /// canonical `pkg/msg/Type` names).
    pub(crate) fn compile_as<'s>(
        wire: Wire,
        datatype: &str,
        text: &'s str,
        first_line: usize,
        lookup: &Lookup<'s>,
    ) -> Result<Arc<Schema>, MsgError> {
        let mut compiler = Compiler {
            top: datatype,
            lookup,
            done: HashMap::new(),
            stack: Vec::new(),
            ros2: wire == Wire::Cdr,
        };
        let root = compiler.compile(datatype, text, first_line)?;
        let node_guess = AtomicUsize::new(root.node_hint);
        Ok(Arc::new(Schema {
            root,
            node_guess,
            wire,
        }))
    }

    /// A schema of the already compiled type `root` read as `wire` (the JSON schemas, whose
    /// types are built from a jsonschema or for each message).
    pub(crate) fn from_root(root: Arc<MsgType>, wire: Wire) -> Arc<Schema> {
        Arc::new(Schema {
            node_guess: AtomicUsize::new(root.node_hint),
            root,
            wire,
        })
    }

    /// Nodes to reserve for decoding a message of this schema.
    pub(crate) fn node_guess(&self) -> usize {
        self.node_guess.load(Ordering::Relaxed)
    }

    /// Records that a message took `nodes` nodes (raises the guess, up to a cap).
    pub(crate) fn saw_nodes(&self, nodes: usize) {
        self.node_guess
            .fetch_max(nodes.min(NODE_HINT_CAP), Ordering::Relaxed);
    }

    /// How payloads of this type are laid out: [`decode`](super::decode) reads them so.
    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// The top-level type name.
    pub fn datatype(&self) -> &str {
        &self.root.name
    }

    /// The genmsg md5sum of the top-level type. Compare it with the connection's md5sum: a
    /// mismatch means the definition is not what the publisher used (warn, do not fail).
    pub fn md5sum(&self) -> &str {
        &self.root.md5sum
    }

    /// The compiled top-level type.
    pub fn root(&self) -> &Arc<MsgType> {
        &self.root
    }

    /// The full definition text in gendeps style, as a V2.0 connection record stores it: the
    /// main text, then for every nested type (depth-first, first use order) a line of 80 `=`,
    /// `MSG: pkg/Type` and its text.
    pub fn full_text(&self) -> String {
        let mut out = self.root.text.clone();
        out.push('\n');
        let mut seen: Vec<&str> = Vec::new();
        let mut order: Vec<&MsgType> = Vec::new();
        collect_deps(&self.root, &mut seen, &mut order);
        for dep in order {
            out.push_str(&"=".repeat(80));
            out.push_str("\nMSG: ");
            out.push_str(&dep.name);
            out.push('\n');
            out.push_str(&dep.text);
            out.push('\n');
        }
        out.pop();
        out
    }
}

fn collect_deps<'t>(ty: &'t MsgType, seen: &mut Vec<&'t str>, order: &mut Vec<&'t MsgType>) {
    for field in &ty.fields {
        if let Elem::Msg(sub) = &field.ty.elem {
            if seen.contains(&sub.name.as_str()) {
                continue;
            }
            seen.push(&sub.name);
            order.push(sub);
            collect_deps(sub, seen, order);
        }
    }
}

pub(crate) fn checked_name(datatype: &str) -> Result<&str, MsgError> {
    let name = parse::canonical_type_name(datatype.trim());
    if parse::is_legal_type_name(name) {
        Ok(name)
    } else {
        Err(MsgError::TypeName {
            datatype: datatype.to_string(),
        })
    }
}

struct Compiler<'a, 's> {
    top: &'a str,
    lookup: &'a Lookup<'s>,
    done: HashMap<String, Arc<MsgType>>,
    stack: Vec<String>,
    /// The ROS 2 dialect (and a CDR plan for every type) instead of ROS1's.
    ros2: bool,
}

impl<'s> Compiler<'_, 's> {
    fn check_cycle(&self, name: &str) -> Result<(), MsgError> {
        match self.stack.iter().position(|n| n == name) {
            Some(pos) => {
                let mut chain: Vec<String> = self.stack.get(pos..).unwrap_or_default().to_vec();
                chain.push(name.to_string());
                Err(MsgError::Recursive {
                    datatype: self.top.to_string(),
                    chain,
                })
            }
            None => Ok(()),
        }
    }

    fn compile(
        &mut self,
        name: &str,
        text: &'s str,
        first_line: usize,
    ) -> Result<Arc<MsgType>, MsgError> {
        if let Some(done) = self.done.get(name) {
            return Ok(Arc::clone(done));
        }
        self.check_cycle(name)?;
        if self.stack.len() >= MAX_DEPTH {
            return Err(MsgError::TooDeep {
                datatype: self.top.to_string(),
                limit: MAX_DEPTH,
            });
        }
        self.stack.push(name.to_string());
        let parsed = if self.ros2 {
            ros2_parse::parse_msg_at(name, text, first_line)?
        } else {
            parse::parse_msg_at(name, text, first_line)?
        };
        let mut fields = Vec::with_capacity(parsed.fields.len());
        for pf in parsed.fields {
            let elem = match pf.base {
                ParsedBase::Prim(p) => Elem::Prim(p),
                ParsedBase::Msg(full) => {
                    let sub = if let Some(done) = self.done.get(&full) {
                        Arc::clone(done)
                    } else {
                        self.check_cycle(&full)?;
                        let (sub_text, sub_line) =
                            (self.lookup)(&full).ok_or_else(|| MsgError::UnresolvedType {
                                datatype: self.top.to_string(),
                                missing: full.clone(),
                                used_by: name.to_string(),
                            })?;
                        self.compile(&full, sub_text, sub_line)?
                    };
                    Elem::Msg(sub)
                }
            };
            fields.push(Field {
                name: pf.name,
                type_text: pf.type_text,
                ty: FieldType {
                    elem,
                    array: pf.array,
                    ros2: Ros2Type {
                        seq_bound: pf.seq_bound,
                        str_bound: pf.str_bound,
                        wide: pf.wide,
                    },
                },
            });
        }
        self.stack.pop();
        let min_size = fields
            .iter()
            .fold(0usize, |acc, f| acc.saturating_add(f.ty.min_size()));
        let fixed_size = fields.iter().try_fold(0usize, |acc, f| {
            f.ty.fixed_size().and_then(|n| acc.checked_add(n))
        });
        let ops: Vec<Op> = fields.iter().map(|f| Op::for_field(&f.ty)).collect();
        let all_f64 = !ops.is_empty()
            && ops
                .iter()
                .all(|op| matches!(op, Op::Prim(Primitive::Float64)));
        let node_hint = ops
            .iter()
            .fold(0usize, |acc, op| acc.saturating_add(op.node_hint()))
            .min(NODE_HINT_CAP);
        let (cdr, cdr_min_size, cdr_wide) = if self.ros2 {
            cdr_plan(&fields)
        } else {
            (Vec::new(), 1, false)
        };
        let mut ty = MsgType {
            name: name.to_string(),
            text: text.to_string(),
            fields,
            ops,
            constants: parsed.constants,
            md5sum: String::new(),
            min_size,
            fixed_size,
            all_f64,
            node_hint,
            cdr,
            cdr_min_size,
            cdr_wide,
        };
        // ROS 2 types have no md5sum (they are identified by their type hash).
        if !self.ros2 {
            ty.md5sum = hex_md5(md5_text(&ty).as_bytes());
        }
        let ty = Arc::new(ty);
        self.done.insert(name.to_string(), Arc::clone(&ty));
        Ok(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    fn sep() -> String {
        "=".repeat(80)
    }

    #[test]
    fn known_md5sums() {
        let s = Schema::from_definition("std_msgs/String", "string data\n").unwrap();
        assert_eq!(s.md5sum(), "992ce8a1687cec8c8bd883ec73ca41d1");
        let header = "uint32 seq\ntime stamp\nstring frame_id\n";
        let h = Schema::from_definition("std_msgs/Header", header).unwrap();
        assert_eq!(h.md5sum(), "2176decaecbce78abc3b96ef049fabed");
        let pose = format!(
            "Point position\nQuaternion orientation\n\n{0}\nMSG: geometry_msgs/Point\n\
             float64 x\nfloat64 y\nfloat64 z\n\n{0}\nMSG: geometry_msgs/Quaternion\n\
             float64 x\nfloat64 y\nfloat64 z\nfloat64 w\n",
            sep()
        );
        let p = Schema::from_definition("geometry_msgs/Pose", &pose).unwrap();
        assert_eq!(p.md5sum(), "e45d45a5a1ce597b249e23fb30fc871f");
        assert_eq!(p.full_text(), pose);
        assert_eq!(p.root().fixed_size(), Some(56));
    }

    #[test]
    fn empty_recursive_and_missing_definitions_are_errors() {
        assert!(matches!(
            Schema::from_definition("a/B", "  \n# nothing\n"),
            Err(MsgError::EmptyDefinition { .. })
        ));
        let rec = format!("C c\n{}\nMSG: a/C\nB b\n", sep());
        let e = Schema::from_definition("a/B", &rec).unwrap_err();
        assert!(
            matches!(&e, MsgError::Recursive { chain, .. } if chain.len() == 3),
            "{e}"
        );
        let selfref = Schema::from_definition("a/B", "B[] children\n").unwrap_err();
        assert!(matches!(selfref, MsgError::Recursive { .. }));
        let missing = Schema::from_definition("a/B", "Header header\n").unwrap_err();
        assert!(
            matches!(&missing, MsgError::UnresolvedType { missing, .. } if missing == "std_msgs/Header")
        );
        assert!(matches!(
            Schema::from_definition("not a type", "int32 x"),
            Err(MsgError::TypeName { .. })
        ));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut def = String::from("T1 t\n");
        for i in 1..=100 {
            write!(def, "{}\nMSG: p/T{i}\nT{} t\n", sep(), i + 1).unwrap();
        }
        write!(def, "{}\nMSG: p/T101\nint32 x\n", sep()).unwrap();
        assert!(matches!(
            Schema::from_definition("p/T0", &def),
            Err(MsgError::TooDeep { .. })
        ));
    }
}
