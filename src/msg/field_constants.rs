//! Which of a message's constants name the values of which field.
//!
//! A definition declares constants apart from the fields they describe (`uint8 ARROW=0 …`
//! before `int32 type`), so a value equal to a constant is not always that constant:
//! `Marker.id: 0` is not `ARROW`, `PointField.offset: 4` is not `UINT16`. The rule, for the
//! integer, bool and string constants of one message:
//!
//! 1. **Named after the field.** A constant whose name starts with the field's name in capitals
//!    and `_` belongs to that field (`STATUS_FIX` to `status`, `POWER_SUPPLY_HEALTH_DEAD` to
//!    `power_supply_health`; the longest such field wins). Its type must be of the same kind.
//! 2. **Groups.** The other constants form groups in declaration order: a group ends where the
//!    type changes or the value goes down (`TRIANGLE_LIST=11` then `ADD=0`; equal values are
//!    aliases and stay together). A group whose every name is another group's constant plus
//!    `_…` describes that constant, not a field (`BOX_X`, `CYLINDER_RADIUS` in `SolidPrimitive`),
//!    and names no field.
//! 3. **Fields for a group.** The candidates are the message's single fields of the group's
//!    type that no constant is named after and whose name is not an identifier or a quantity
//!    (`id`, `*_id`, `seq`, `count`, `offset`, `size`, `line`, …); when no field has exactly
//!    the group's type, the integer fields of any width (`uint8 ARROW` for `int32 type`).
//!    The groups of one type pair up in order with the first of these lists that has as many
//!    fields as there are groups: fields of exactly that type, those of them named like an
//!    enumeration (`type`, `action`, `*_mode`, `level`, …), integer fields of any width, those
//!    of them named like an enumeration (`ImageMarker`: shapes → `type`, actions → `action`,
//!    not the `uint8 filled` flag). When no list fits, the groups name nothing rather than
//!    guess.

use super::constant::{ConstValue, Constant};
use super::primitive::Primitive;
use super::types::{ArrayKind, Elem, MsgType};

/// For each field of `ty` (same order), the indices in `ty.constants()` of the constants that
/// name its values.
#[must_use]
pub fn field_constants(ty: &MsgType) -> Vec<Vec<usize>> {
    let fields = ty.fields();
    let constants = ty.constants();
    let mut owned = vec![Vec::new(); fields.len()];
    // (field index, its type when it is a single primitive value).
    let scalar: Vec<Option<Primitive>> = fields
        .iter()
        .map(|f| match (f.ty().elem(), f.ty().array()) {
            (Elem::Prim(p), ArrayKind::Single) => Some(normal(*p)),
            _ => None,
        })
        .collect();
    let kind_of_field = |fi: usize| scalar.get(fi).copied().flatten().and_then(kind);

    // 1. Constants named after a field.
    let mut free: Vec<(usize, &Constant)> = Vec::new();
    for (ci, c) in constants.iter().enumerate() {
        let Some(k) = kind(c.ty()) else {
            continue;
        };
        let named_after = fields
            .iter()
            .enumerate()
            .filter(|(fi, f)| kind_of_field(*fi) == Some(k) && named_for(c.name(), f.name()))
            .max_by_key(|(_, f)| f.name().len());
        match named_after.and_then(|(fi, _)| owned.get_mut(fi)) {
            Some(list) => list.push(ci),
            None => free.push((ci, c)),
        }
    }

    // 2. Groups of the other constants.
    let mut groups: Vec<Vec<(usize, &Constant)>> = Vec::new();
    for &(ci, c) in &free {
        let continues = groups.last().and_then(|g| g.last()).is_some_and(|(_, p)| {
            normal(p.ty()) == normal(c.ty()) && !goes_down(p.value(), c.value())
        });
        match groups.last_mut() {
            Some(g) if continues => g.push((ci, c)),
            _ => groups.push(vec![(ci, c)]),
        }
    }
    let describes_another = |g: &[(usize, &Constant)]| {
        g.iter().all(|(_, c)| {
            free.iter()
                .filter(|(o, _)| !g.iter().any(|(i, _)| i == o))
                .any(|(_, other)| named_for(c.name(), other.name()))
        })
    };
    groups.retain(|g| !describes_another(g));

    // 3. The fields each group may describe.
    let open: Vec<usize> = (0..fields.len())
        .filter(|&fi| {
            owned.get(fi).is_some_and(Vec::is_empty)
                && fields.get(fi).is_some_and(|f| !is_quantity(f.name()))
        })
        .collect();
    let mut by_type: Vec<(Primitive, Vec<Vec<usize>>)> = Vec::new();
    for g in groups {
        let Some(ty) = g.first().map(|(_, c)| normal(c.ty())) else {
            continue;
        };
        let g: Vec<usize> = g.iter().map(|(ci, _)| *ci).collect();
        match by_type.iter_mut().find(|(t, _)| *t == ty) {
            Some((_, gs)) => gs.push(g),
            None => by_type.push((ty, vec![g])),
        }
    }
    for (ty, gs) in by_type {
        let exact: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&fi| scalar.get(fi).copied().flatten() == Some(ty))
            .collect();
        let wide: Vec<usize> = if kind(ty) == Some(Kind::Int) {
            open.iter()
                .copied()
                .filter(|&fi| kind_of_field(fi) == Some(Kind::Int))
                .collect()
        } else {
            Vec::new()
        };
        let enum_named = |list: &[usize]| -> Vec<usize> {
            list.iter()
                .copied()
                .filter(|&fi| fields.get(fi).is_some_and(|f| is_enumeration(f.name())))
                .collect()
        };
        let tries = [enum_named(&exact), enum_named(&wide)];
        let chosen = [&exact, &tries[0], &wide, &tries[1]]
            .into_iter()
            .find(|c| c.len() == gs.len());
        if let Some(candidates) = chosen {
            for (&fi, g) in candidates.iter().zip(gs) {
                if let Some(list) = owned.get_mut(fi) {
                    list.extend(g);
                }
            }
        }
    }
    owned
}

/// Whether constant `name` is `PREFIX_…` with `PREFIX` the capitals of `field`.
fn named_for(name: &str, field: &str) -> bool {
    name.get(..field.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(field))
        && name.as_bytes().get(field.len()) == Some(&b'_')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Bool,
    String,
}

/// `byte` is `int8` and `char` is `uint8` (genmsg's aliases).
fn normal(p: Primitive) -> Primitive {
    match p {
        Primitive::Byte => Primitive::Int8,
        Primitive::Char => Primitive::UInt8,
        p => p,
    }
}

/// The kind of a type that can name a value; floats name none (equality would be luck).
fn kind(p: Primitive) -> Option<Kind> {
    match normal(p) {
        Primitive::Int8
        | Primitive::UInt8
        | Primitive::Int16
        | Primitive::UInt16
        | Primitive::Int32
        | Primitive::UInt32
        | Primitive::Int64
        | Primitive::UInt64 => Some(Kind::Int),
        Primitive::Bool => Some(Kind::Bool),
        Primitive::String => Some(Kind::String),
        _ => None,
    }
}

/// Whether `b` comes after `a` with a smaller value (a new enumeration starts).
fn goes_down(a: &ConstValue, b: &ConstValue) -> bool {
    match (int(a), int(b)) {
        (Some(x), Some(y)) => y < x,
        _ => false,
    }
}

fn int(v: &ConstValue) -> Option<i128> {
    match v {
        ConstValue::Int(x) => Some(i128::from(*x)),
        ConstValue::UInt(x) => Some(i128::from(*x)),
        _ => None,
    }
}

/// Field names that say they hold one of several kinds (`type`, `action`, `*_mode`, …).
fn is_enumeration(name: &str) -> bool {
    const WORDS: [&str; 14] = [
        "type", "action", "mode", "status", "state", "level", "kind", "command", "event", "result",
        "code", "error", "severity", "datatype",
    ];
    WORDS.contains(&name.rsplit('_').next().unwrap_or_default())
}

/// Field names that hold identifiers or quantities, never an enumeration's value.
fn is_quantity(name: &str) -> bool {
    const WORDS: [&str; 13] = [
        "id", "seq", "count", "offset", "size", "length", "index", "line", "width", "height",
        "step", "num", "stamp",
    ];
    let mut parts = name.split('_');
    let first = parts.next().unwrap_or_default();
    let last = name.rsplit('_').next().unwrap_or_default();
    WORDS.contains(&last) || matches!(first, "num" | "seq")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Registry, Schema};

    /// field → names of its constants, for the fields that have any.
    fn owners(datatype: &str) -> Vec<(String, Vec<String>)> {
        let schema = Schema::from_registry(datatype, None, &Registry::bundled()).unwrap();
        let ty = schema.root();
        let owned = field_constants(ty);
        ty.fields()
            .iter()
            .zip(owned)
            .filter(|(_, o)| !o.is_empty())
            .map(|(f, o)| {
                let names = o
                    .iter()
                    .map(|&i| ty.constants()[i].name().to_string())
                    .collect();
                (f.name().to_string(), names)
            })
            .collect()
    }

    fn only(datatype: &str, field: &str) -> Vec<String> {
        let all = owners(datatype);
        assert!(
            all.iter().all(|(f, _)| f == field),
            "{datatype}: constants for other fields than {field}: {all:?}"
        );
        all.into_iter().next().map(|(_, n)| n).unwrap_or_default()
    }

    #[test]
    fn point_field_datatype_only() {
        let n = only("sensor_msgs/PointField", "datatype");
        assert_eq!(
            n,
            [
                "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "FLOAT32", "FLOAT64"
            ]
        );
    }

    #[test]
    fn marker_type_and_action_but_not_id() {
        for ty in [
            "visualization_msgs/Marker",
            "visualization_msgs/ImageMarker",
        ] {
            let o = owners(ty);
            let fields: Vec<&str> = o.iter().map(|(f, _)| f.as_str()).collect();
            assert_eq!(fields, ["type", "action"], "{ty}: {o:?}");
            assert!(!o[0].1.iter().any(|n| n == "ADD"), "{o:?}");
            assert!(o[1].1.iter().any(|n| n == "ADD"), "{o:?}");
        }
        let o = owners("visualization_msgs/Marker");
        assert_eq!(o[0].1.first().map(String::as_str), Some("ARROW"));
        assert_eq!(o[1].1, ["ADD", "MODIFY", "DELETE", "DELETEALL"]);
    }

    #[test]
    fn log_level_and_not_line() {
        assert_eq!(
            only("rosgraph_msgs/Log", "level"),
            ["DEBUG", "INFO", "WARN", "ERROR", "FATAL"]
        );
        assert_eq!(
            only("diagnostic_msgs/DiagnosticStatus", "level"),
            ["OK", "WARN", "ERROR", "STALE"]
        );
    }

    #[test]
    fn prefixes_pick_the_field() {
        let o = owners("sensor_msgs/NavSatStatus");
        assert_eq!(o.len(), 2, "{o:?}");
        assert_eq!(o[0].0, "status");
        assert!(o[0].1.iter().all(|n| n.starts_with("STATUS_")));
        assert_eq!(o[1].0, "service");
        assert!(o[1].1.iter().all(|n| n.starts_with("SERVICE_")));
        let o = owners("sensor_msgs/BatteryState");
        for (field, names) in &o {
            let prefix = field.to_ascii_uppercase() + "_";
            assert!(names.iter().all(|n| n.starts_with(&prefix)), "{o:?}");
        }
        let fields: Vec<&str> = o.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "power_supply_status",
                "power_supply_health",
                "power_supply_technology"
            ]
        );
    }

    #[test]
    fn single_enumerations() {
        assert_eq!(only("actionlib_msgs/GoalStatus", "status")[0], "PENDING");
        assert_eq!(
            only("sensor_msgs/NavSatFix", "position_covariance_type")[0],
            "COVARIANCE_TYPE_UNKNOWN"
        );
        assert_eq!(
            only("sensor_msgs/Range", "radiation_type"),
            ["ULTRASOUND", "INFRARED"]
        );
        assert_eq!(
            only("visualization_msgs/InteractiveMarkerFeedback", "event_type")[0],
            "KEEP_ALIVE"
        );
        assert_eq!(
            only("visualization_msgs/InteractiveMarkerUpdate", "type"),
            ["KEEP_ALIVE", "UPDATE"]
        );
        assert_eq!(
            only("visualization_msgs/MenuEntry", "command_type"),
            ["FEEDBACK", "ROSRUN", "ROSLAUNCH"]
        );
        // The dimension indices describe the shapes, not `type`.
        assert_eq!(
            only("shape_msgs/SolidPrimitive", "type"),
            ["BOX", "SPHERE", "CYLINDER", "CONE"]
        );
    }

    #[test]
    fn two_enumerations_pair_with_two_fields_in_order() {
        let o = owners("visualization_msgs/InteractiveMarkerControl");
        assert_eq!(o[0].0, "orientation_mode");
        assert_eq!(o[0].1, ["INHERIT", "FIXED", "VIEW_FACING"]);
        assert_eq!(o[1].0, "interaction_mode");
        assert_eq!(o[1].1[0], "NONE");
    }

    /// Every bundled type: no identifier or quantity names a constant; printed for review
    /// (`cargo test field_constants -- --nocapture`).
    #[test]
    fn every_bundled_type() {
        let registry = Registry::bundled();
        for datatype in registry.types() {
            let Ok(schema) = Schema::from_registry(datatype, None, &registry) else {
                continue;
            };
            if schema.root().constants().is_empty() {
                continue;
            }
            let o = owners(datatype);
            for (field, _) in &o {
                assert!(!is_quantity(field), "{datatype}.{field}: {o:?}");
            }
            println!("{datatype}: {o:?}");
        }
    }

    #[test]
    fn ambiguous_groups_name_nothing() {
        let def = "uint8 A=0\nuint8 B=1\nuint8 C=0\nuint8 D=1\nuint8 E=0\nuint8 mode\nuint8 kind\n";
        let schema = Schema::from_definition("p/T", def).unwrap();
        assert!(field_constants(schema.root()).iter().all(Vec::is_empty));
        let def = "uint8 A=0\nuint8 B=1\nuint32 offset\nuint32 count\nuint8 datatype\n";
        let schema = Schema::from_definition("p/T", def).unwrap();
        assert_eq!(field_constants(schema.root()), [vec![], vec![], vec![0, 1]]);
    }

    /// ROS 2's `rcl_interfaces/msg/Log` declares its levels as `byte` constants (ROS 2's
    /// unsigned octet) before a `builtin_interfaces/Time stamp`, for a `uint8 level`; ROS 2's
    /// `NavSatStatus` as ROS1's.
    #[test]
    fn ros2_types_name_their_constants_as_ros1_ones() {
        let sep = "=".repeat(80);
        let def = format!(
            "byte DEBUG=10\nbyte INFO=20\nbyte WARN=30\nbyte ERROR=40\nbyte FATAL=50\n\
             builtin_interfaces/Time stamp\nuint8 level\nstring name\nstring msg\n\
             string file\nstring function\nuint32 line\n\
             {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
        );
        let schema = Schema::from_definition("rcl_interfaces/msg/Log", &def).unwrap();
        let owned = field_constants(schema.root());
        assert_eq!(
            owned,
            [
                vec![],
                vec![0, 1, 2, 3, 4],
                vec![],
                vec![],
                vec![],
                vec![],
                vec![]
            ]
        );
        let fix = crate::msg::stamp::ros2_like::schema("sensor_msgs/msg/NavSatFix");
        let owned = field_constants(fix.root());
        let names: Vec<&str> = owned[6]
            .iter()
            .map(|&i| fix.root().constants()[i].name())
            .collect();
        assert_eq!(fix.root().fields()[6].name(), "position_covariance_type");
        assert_eq!(names.len(), 4, "{names:?}");
    }
}
