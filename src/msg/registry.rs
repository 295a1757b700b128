//! Message definitions looked up by type name: the bundled set plus users' `--msg-path`
//! trees, for bags that carry no definitions (older than V1.2) or an unusable one. ROS 2
//! lookups (`pkg/msg/Type` or `pkg/Type`) see the user's definitions and the few ROS 2 types
//! known without one ([`ROS2_BUILTINS`]), never the bundled ROS1 set.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::bundled::BUNDLED;
use super::error::MsgError;
use super::md5::EMPTY_MD5;
use super::parse;
use super::ros2_parse::ros2_type_name;
use super::schema::{Schema, checked_name};
use super::type_name::ros1_name;

/// ROS 2 types known without a definition: their text is the same in every distribution.
pub(crate) const ROS2_BUILTINS: [(&str, &str); 5] = [
    (
        "builtin_interfaces/msg/Duration",
        "int32 sec\nuint32 nanosec\n",
    ),
    ("builtin_interfaces/msg/Time", "int32 sec\nuint32 nanosec\n"),
    (
        "service_msgs/msg/ServiceEventInfo",
        "uint8 REQUEST_SENT=0\nuint8 REQUEST_RECEIVED=1\nuint8 RESPONSE_SENT=2\n\
         uint8 RESPONSE_RECEIVED=3\nuint8 event_type\nbuiltin_interfaces/Time stamp\n\
         char[16] client_gid\nint64 sequence_number\n",
    ),
    ("std_msgs/msg/Empty", ""),
    (
        "std_msgs/msg/Header",
        "builtin_interfaces/Time stamp\nstring frame_id\n",
    ),
];

/// How deep `add_msg_path` descends looking for `.msg` files.
const MAX_WALK_DEPTH: usize = 8;

/// A set of `.msg` definitions by type name.
///
/// Lookups try the user's definitions first (in the order their directories were added), then
/// the bundled ones. A nested type resolves to the first definition of its name.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    user: HashMap<String, Vec<UserDefinition>>,
    with_bundled: bool,
}

#[derive(Debug, Clone)]
struct UserDefinition {
    text: Arc<str>,
    path: Option<PathBuf>,
}

impl Registry {
    /// A registry with no definitions at all.
    pub fn empty() -> Self {
        Registry::default()
    }

    /// The definitions shipped in the binary: std_msgs, geometry_msgs, sensor_msgs, nav_msgs,
    /// tf, tf2_msgs, visualization_msgs, diagnostic_msgs, actionlib_msgs, audio_common_msgs,
    /// rosgraph_msgs, stereo_msgs, trajectory_msgs, shape_msgs.
    pub fn bundled() -> Self {
        Registry {
            user: HashMap::new(),
            with_bundled: true,
        }
    }

    /// Adds every `.msg` file under `dir` (`--msg-path DIR`). A file `…/pkg/msg/Type.msg`
    /// defines `pkg/Type`; a file directly in a package directory, `…/pkg/Type.msg` (the
    /// layout of `assets/msgs/`), does too. Hidden directories are skipped and the walk stops
    /// eight levels down. Returns how many definitions were added.
    pub fn add_msg_path(&mut self, dir: impl AsRef<Path>) -> Result<usize, MsgError> {
        let dir = dir.as_ref();
        let io = |source| MsgError::Io {
            path: dir.to_path_buf(),
            source,
        };
        if !std::fs::metadata(dir).map_err(io)?.is_dir() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        let mut files = Vec::new();
        walk(dir, 0, &mut files)?;
        files.sort();
        let mut added = 0;
        for file in files {
            let Some(datatype) = type_of_file(&file) else {
                continue;
            };
            let text = std::fs::read_to_string(&file).map_err(|source| MsgError::Io {
                path: file.clone(),
                source,
            })?;
            self.insert(datatype, text.into(), Some(file));
            added += 1;
        }
        Ok(added)
    }

    /// Adds one definition (the text of a single `.msg` file) for `datatype`.
    pub fn add_definition(&mut self, datatype: &str, text: &str) -> Result<(), MsgError> {
        let name = checked_name(datatype)?;
        self.insert(name.to_string(), text.into(), None);
        Ok(())
    }

    fn insert(&mut self, datatype: String, text: Arc<str>, path: Option<PathBuf>) {
        self.user
            .entry(datatype)
            .or_default()
            .push(UserDefinition { text, path });
    }

    /// The user definitions of `datatype` under either spelling of its name (`pkg/Type` or
    /// the ROS 2 `pkg/msg/Type`), the spelling asked for first.
    fn user_defs(&self, datatype: &str) -> impl Iterator<Item = &UserDefinition> {
        let name = parse::canonical_type_name(datatype);
        let other = match ros1_name(name) {
            Cow::Owned(short) => short,
            Cow::Borrowed(_) => ros2_type_name(name),
        };
        let first = self.user.get(name).into_iter().flatten();
        let second = (other != name)
            .then(|| self.user.get(other.as_str()))
            .flatten()
            .into_iter()
            .flatten();
        first.chain(second)
    }

    /// The `.msg` texts known for `datatype`, user definitions first. A user definition is
    /// found by either spelling (`pkg/Type`, `pkg/msg/Type`); a bundled one (ROS1) by its
    /// ROS1 name only.
    pub fn texts(&self, datatype: &str) -> Vec<&str> {
        let name = parse::canonical_type_name(datatype);
        let mut out: Vec<&str> = self.user_defs(name).map(|d| &*d.text).collect();
        if self.with_bundled {
            if let Some(text) = bundled_text(name) {
                out.push(text);
            }
        }
        out
    }

    /// Where the user definitions of `datatype` came from (files added by `add_msg_path`).
    pub fn sources(&self, datatype: &str) -> Vec<&Path> {
        self.user_defs(datatype)
            .filter_map(|d| d.path.as_deref())
            .collect()
    }

    /// The ROS 2 `.msg` text of `datatype` (either spelling): the first user definition
    /// (`--msg-path` `share/PKG/msg` trees, added definitions), else one of the ROS 2 types
    /// known without a definition ([`ROS2_BUILTINS`]). Never a bundled definition: those are
    /// ROS1's, which differ (`Header` has a `seq`, `time` is a primitive, field names changed).
    pub(crate) fn ros2_text(&self, datatype: &str) -> Option<&str> {
        if let Some(def) = self.user_defs(datatype).next() {
            return Some(&def.text);
        }
        let name = ros2_type_name(parse::canonical_type_name(datatype));
        ROS2_BUILTINS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| *text)
    }

    /// True when some definition of `datatype` is known.
    pub fn contains(&self, datatype: &str) -> bool {
        !self.texts(datatype).is_empty()
    }

    /// Every type name known, sorted.
    pub fn types(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.user.keys().map(String::as_str).collect();
        if self.with_bundled {
            names.extend(BUNDLED.iter().map(|(name, _)| *name));
        }
        names.sort_unstable();
        names.dedup();
        names
    }

    pub(crate) fn first_text(&self, datatype: &str) -> Option<&str> {
        self.texts(datatype).first().copied()
    }
}

fn bundled_text(name: &str) -> Option<&'static str> {
    BUNDLED
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .and_then(|i| BUNDLED.get(i))
        .map(|(_, text)| *text)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), MsgError> {
    if depth > MAX_WALK_DEPTH {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|source| MsgError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && !hidden {
            walk(&path, depth + 1, out)?;
        } else if !kind.is_dir() && path.extension().is_some_and(|e| e == "msg") {
            out.push(path);
        }
    }
    Ok(())
}

/// `pkg/Type` for `…/pkg/msg/Type.msg` or `…/pkg/Type.msg`.
fn type_of_file(file: &Path) -> Option<String> {
    let stem = file.file_stem()?.to_str()?;
    let parent = file.parent()?;
    let pkg_dir = if parent.file_name()? == "msg" {
        parent.parent()?
    } else {
        parent
    };
    let pkg = pkg_dir.file_name()?.to_str()?;
    let name = format!("{pkg}/{stem}");
    parse::is_legal_type_name(&name).then_some(name)
}

impl Schema {
    /// Compiles `datatype` from the registry (for bags older than V1.2, which carry no
    /// definitions). With `md5sum`, only a definition with that md5sum is accepted (`*` means
    /// any); without, the first definition found is used.
    pub fn from_registry(
        datatype: &str,
        md5sum: Option<&str>,
        registry: &Registry,
    ) -> Result<Arc<Schema>, MsgError> {
        let name = checked_name(datatype)?;
        let wanted = md5sum.filter(|m| *m != "*");
        let candidates = registry.texts(name);
        if candidates.is_empty() {
            return Err(MsgError::NotInRegistry {
                datatype: name.to_string(),
            });
        }
        let lookup = |n: &str| registry.first_text(n).map(|t| (t, 1));
        let mut available = Vec::new();
        let mut last_error = None;
        for text in candidates {
            match Schema::compile(name, text, 1, &lookup) {
                Ok(schema) => {
                    if wanted.is_none_or(|m| m == schema.md5sum()) {
                        return Ok(schema);
                    }
                    available.push(schema.md5sum().to_string());
                }
                Err(e) => last_error = Some(e),
            }
        }
        match (last_error, available.is_empty()) {
            (Some(e), true) => Err(e),
            _ => Err(MsgError::Md5NotFound {
                datatype: name.to_string(),
                md5sum: wanted.unwrap_or_default().to_string(),
                available,
            }),
        }
    }

    /// Compiles the schema for a bag connection: its own definition when it has one, falling
    /// back to the registry where the definition is empty or lacks a nested type.
    ///
    /// * A usable definition is compiled as [`Schema::from_definition`] does (compare
    ///   [`Schema::md5sum`] with `md5sum` and warn on a mismatch).
    /// * An empty definition is accepted when `md5sum` is the md5sum of an empty type
    ///   ([`EMPTY_MD5`], e.g. `std_msgs/Empty`); otherwise the registry is asked for the type
    ///   with that md5sum, and failing that the result is [`MsgError::EmptyDefinition`].
    /// * A definition missing a `MSG:` section takes the nested type from the registry.
    pub fn for_connection(
        datatype: &str,
        definition: &str,
        md5sum: &str,
        registry: &Registry,
    ) -> Result<Arc<Schema>, MsgError> {
        match Schema::from_definition(datatype, definition) {
            Err(MsgError::EmptyDefinition { datatype: name }) => {
                if md5sum == EMPTY_MD5 {
                    let lookup = |_: &str| None;
                    return Schema::compile(&name, definition, 1, &lookup);
                }
                Schema::from_registry(&name, Some(md5sum), registry)
                    .map_err(|_| MsgError::EmptyDefinition { datatype: name })
            }
            Err(original @ MsgError::UnresolvedType { .. }) => {
                let sections = parse::split_sections(datatype, definition)?;
                let Some((main, deps)) = sections.split_first() else {
                    return Err(original);
                };
                let lookup = |n: &str| {
                    deps.iter()
                        .rev()
                        .find(|s| s.name.as_deref() == Some(n))
                        .map(|s| (s.text, s.first_line))
                        .or_else(|| registry.first_text(n).map(|t| (t, 1)))
                };
                Schema::compile(checked_name(datatype)?, main.text, 1, &lookup)
                    .map_err(|_| original)
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_list_is_sorted_and_complete() {
        assert!(BUNDLED.windows(2).all(|w| w[0].0 < w[1].0));
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/msgs");
        let mut files = Vec::new();
        walk(&root, 0, &mut files).unwrap();
        let mut on_disk: Vec<String> = files.iter().filter_map(|f| type_of_file(f)).collect();
        on_disk.sort();
        let listed: Vec<String> = BUNDLED.iter().map(|(n, _)| (*n).to_string()).collect();
        assert_eq!(on_disk, listed);
    }

    #[test]
    fn every_bundled_type_compiles() {
        let reg = Registry::bundled();
        for name in reg.types() {
            let s = Schema::from_registry(name, None, &reg).unwrap();
            assert_eq!(s.datatype(), name);
        }
    }

    #[test]
    fn looks_up_by_md5() {
        let reg = Registry::bundled();
        let img = Schema::from_registry(
            "sensor_msgs/Image",
            Some("060021388200f6f0f447d0fcd9c64743"),
            &reg,
        )
        .unwrap();
        assert_eq!(img.datatype(), "sensor_msgs/Image");
        let tf = Schema::from_registry("tf/tfMessage", None, &reg).unwrap();
        assert_eq!(tf.md5sum(), "94810edda583a504dfda3829e70d7eec");
        assert!(matches!(
            Schema::from_registry("sensor_msgs/Image", Some("0123"), &reg),
            Err(MsgError::Md5NotFound { available, .. }) if available.len() == 1
        ));
        assert!(matches!(
            Schema::from_registry("nope/Nope", None, &reg),
            Err(MsgError::NotInRegistry { .. })
        ));
        assert!(matches!(
            Schema::from_registry("sensor_msgs/Image", None, &Registry::empty()),
            Err(MsgError::NotInRegistry { .. })
        ));
    }

    #[test]
    fn user_definitions_come_first_and_resolve_dependencies() {
        let mut reg = Registry::bundled();
        reg.add_definition("my_pkg/Thing", "Header header\nPart[] parts\n")
            .unwrap();
        reg.add_definition("my_pkg/Part", "geometry_msgs/Point p\n")
            .unwrap();
        let s = Schema::from_registry("my_pkg/Thing", None, &reg).unwrap();
        let text = s.full_text();
        assert!(text.contains("MSG: my_pkg/Part\n"), "{text}");
        assert!(text.contains("MSG: geometry_msgs/Point\n"), "{text}");
        assert!(text.contains("MSG: std_msgs/Header\n"), "{text}");
        reg.add_definition("std_msgs/String", "string data\nint32 extra\n")
            .unwrap();
        let first = Schema::from_registry("std_msgs/String", None, &reg).unwrap();
        assert_ne!(first.md5sum(), "992ce8a1687cec8c8bd883ec73ca41d1");
        let bundled = Schema::from_registry(
            "std_msgs/String",
            Some("992ce8a1687cec8c8bd883ec73ca41d1"),
            &reg,
        )
        .unwrap();
        assert_eq!(bundled.root().fields().len(), 1);
    }

    #[test]
    fn connections_with_empty_or_partial_definitions() {
        let reg = Registry::bundled();
        let empty = Schema::for_connection("std_msgs/Empty", "\n", EMPTY_MD5, &reg).unwrap();
        assert_eq!(empty.md5sum(), EMPTY_MD5);
        assert!(empty.root().fields().is_empty());
        let e = Schema::for_connection(
            "led_array_msgs/Status",
            "",
            "53a14e6c06df7ea4cd2bbc2b15ee2b22",
            &reg,
        )
        .unwrap_err();
        assert!(matches!(e, MsgError::EmptyDefinition { .. }), "{e}");
        let odd = Schema::for_connection(
            "geometry_msgs/Pose",
            "",
            "e45d45a5a1ce597b249e23fb30fc871f",
            &reg,
        )
        .unwrap();
        assert_eq!(odd.root().fields().len(), 2);
        let partial =
            Schema::for_connection("a/Stamped", "Header header\nint32 x\n", "whatever", &reg)
                .unwrap();
        assert_eq!(partial.root().fields().len(), 2);
    }

    #[test]
    fn msg_path_layouts() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("ws/src/my_pkg/msg");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::write(a.join("Foo.msg"), "int32 x\n").unwrap();
        let b = dir.path().join("flat/other_pkg");
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(b.join("Bar.msg"), "my_pkg/Foo foo\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".git/x")).unwrap();
        std::fs::write(dir.path().join(".git/x/Hidden.msg"), "int32 y\n").unwrap();
        let mut reg = Registry::empty();
        assert_eq!(reg.add_msg_path(dir.path()).unwrap(), 2);
        assert_eq!(reg.types(), ["my_pkg/Foo", "other_pkg/Bar"]);
        assert_eq!(reg.sources("my_pkg/Foo"), [a.join("Foo.msg").as_path()]);
        let s = Schema::from_registry("other_pkg/Bar", None, &reg).unwrap();
        assert_eq!(s.root().fields().len(), 1);
        assert!(matches!(
            reg.add_msg_path(dir.path().join("missing")),
            Err(MsgError::Io { .. })
        ));
    }
}
