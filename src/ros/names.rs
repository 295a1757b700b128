//! ROS graph resource names: validation, canonical form, relocation under a namespace.

use super::error::RosError;

fn invalid(name: &str, why: &'static str) -> RosError {
    RosError::InvalidName {
        name: name.to_string(),
        why,
    }
}

/// Checks a global name (`/a/b_1`): a leading `/`, then `/`-separated segments that start
/// with a letter and hold letters, digits and `_` (the rules of `rosgraph.names`).
pub fn validate_global(name: &str) -> Result<(), RosError> {
    let Some(rest) = name.strip_prefix('/') else {
        return Err(invalid(name, "must start with '/'"));
    };
    if rest.is_empty() {
        return Ok(());
    }
    for seg in rest.split('/') {
        let mut chars = seg.chars();
        match chars.next() {
            None => return Err(invalid(name, "has an empty segment")),
            Some(c) if !c.is_ascii_alphabetic() => {
                return Err(invalid(name, "each segment must start with a letter"));
            }
            Some(_) => {}
        }
        if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(invalid(
                name,
                "only letters, digits, '_' and '/' are allowed",
            ));
        }
    }
    Ok(())
}

/// The canonical global form of a name given relative to `namespace` (itself global):
/// `"hist"` in `/` → `/hist`; `"/a//b/"` → `/a/b`.
pub fn resolve(namespace: &str, name: &str) -> String {
    let joined = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("{namespace}/{name}")
    };
    let segments: Vec<&str> = joined.split('/').filter(|s| !s.is_empty()).collect();
    format!("/{}", segments.join("/"))
}

/// `topic` moved under `namespace` (`/hist` + `/chatter` → `/hist/chatter`); the root
/// namespace leaves it in place. Both are canonicalised.
pub fn relocate(namespace: &str, topic: &str) -> String {
    let ns = resolve("/", namespace);
    let topic = resolve("/", topic);
    if ns == "/" {
        topic
    } else if topic == "/" {
        ns
    } else {
        format!("{ns}{topic}")
    }
}

/// A node name unlikely to clash with any other: `{base}_{pid}_{milliseconds}` (rospy's
/// anonymous names use the same parts).
pub fn anonymous(base: &str) -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("{base}_{}_{millis}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        for ok in ["/", "/a", "/a/b_2", "/A1/b"] {
            assert!(validate_global(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a", "//a", "/a/", "/1a", "/a-b", "/a b", "/a/~b", "/ä"] {
            assert!(validate_global(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolution_and_relocation() {
        assert_eq!(resolve("/", "hist"), "/hist");
        assert_eq!(resolve("/ns", "hist/x/"), "/ns/hist/x");
        assert_eq!(resolve("/ns", "/a//b/"), "/a/b");
        assert_eq!(resolve("/", ""), "/");
        assert_eq!(relocate("/hist", "/chatter"), "/hist/chatter");
        assert_eq!(relocate("hist/", "chatter"), "/hist/chatter");
        assert_eq!(relocate("/", "/a/b"), "/a/b");
        assert_eq!(relocate("", "a"), "/a");
        assert!(anonymous("/play").starts_with("/play_"));
    }
}
