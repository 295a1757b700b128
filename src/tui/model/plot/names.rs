//! Short legend names for the plotted series. A series is named by its spec — `/topic/field/path`
//! or `/topic: EXPRESSION` ([`canonical`] makes one text of either) — and the legend shows as
//! little of it as tells the series apart: the last components of the path (at least two, more
//! while another series ends alike, then the topic's), or the expression with every field path
//! in it cut to its last two components (the topic's last component in front when two
//! expressions still read alike).

/// Fewest path components a name shows (when the path has that many).
const MIN_COMPONENTS: usize = 2;

/// The one text of a series spec: `/topic/a/b[0]/c` for a plain field path (whichever of
/// `/topic/a.b[0].c`, `/topic: a.b[0].c` or `/topic/a/b[0]/c` was typed), `/topic: EXPR` for
/// anything else. `topic` is the topic as the bags name it; `spec` the text typed.
pub fn canonical(topic: &str, spec: &str) -> String {
    let topic_text = topic.trim_end_matches('/');
    let rest = field_text(topic, spec);
    if is_plain_path(rest) {
        let path = path_components(rest).join("/");
        if path.is_empty() {
            topic_text.to_string()
        } else {
            format!("{topic_text}/{path}")
        }
    } else {
        format!("{topic_text}: {}", rest.trim())
    }
}

/// The field path of `spec` when it is one (not an expression).
pub fn plain_field<'a>(topic: &str, spec: &'a str) -> Option<&'a str> {
    let rest = field_text(topic, spec);
    is_plain_path(rest).then_some(rest.trim())
}

/// What follows the topic in `spec`: after the colon of `/topic: EXPR`, else after the topic
/// at its start (its leading `/` optional); all of `spec` when neither fits.
pub fn field_text<'a>(topic: &str, spec: &'a str) -> &'a str {
    field_span(topic, spec).map_or(spec.trim(), |(start, _)| spec.get(start..).unwrap_or(""))
}

/// Where the field text of `spec` starts (byte offset) and whether `spec` has the colon form.
pub fn field_span(topic: &str, spec: &str) -> Option<(usize, bool)> {
    if let Some((head, _)) = spec.split_once(':') {
        let after = head.len() + 1;
        let tail = spec.get(after..)?;
        let lead = tail.len() - tail.trim_start().len();
        return Some((after + lead, true));
    }
    let lead = spec.len() - spec.trim_start().len();
    let body = spec.get(lead..)?;
    let (body, slash) = match body.strip_prefix('/') {
        Some(b) => (b, 1),
        None => (body, 0),
    };
    let t = topic.trim_start_matches('/').trim_end_matches('/');
    let after = body.strip_prefix(t)?;
    let seps = after.len() - after.trim_start_matches(['/', '.']).len();
    Some((lead + slash + t.len() + seps, false))
}

/// True when `text` is a field path (names, `.`/`/`, indices), not an expression.
fn is_plain_path(text: &str) -> bool {
    text.trim()
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '[' | ']' | '*'))
}

/// The components of a field path: `a.b[0]/c` → `a`, `b[0]`, `c`.
fn path_components(text: &str) -> Vec<&str> {
    text.trim()
        .split(['.', '/'])
        .filter(|c| !c.is_empty())
        .collect()
}

/// A series as the namer sees it.
enum Parsed<'a> {
    /// The topic's components and the field's.
    Path(Vec<&'a str>, Vec<&'a str>),
    /// The topic's components and the expression.
    Expr(Vec<&'a str>, &'a str),
}

fn parse<'a>(label: &'a str, topic: Option<&'a str>) -> Parsed<'a> {
    if let Some((topic, expr)) = label.split_once(": ") {
        return Parsed::Expr(path_components(topic), expr.trim());
    }
    let t = topic.map(|t| t.trim_end_matches('/'));
    match t.and_then(|t| Some((t, label.strip_prefix(t)?))) {
        Some((t, rest)) if rest.is_empty() || rest.starts_with('/') => {
            Parsed::Path(path_components(t), path_components(rest))
        }
        _ => Parsed::Path(Vec::new(), path_components(label)),
    }
}

/// The last `k` of `parts`, joined by `/`.
fn tail(parts: &[&str], k: usize) -> String {
    parts
        .get(parts.len().saturating_sub(k)..)
        .unwrap_or_default()
        .join("/")
}

/// `expr` with every field path of three components or more cut to its last two:
/// `norm(twist.twist.linear)` → `norm(twist.linear)`.
fn shorten_expr(expr: &str) -> String {
    let mut out = String::with_capacity(expr.len());
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        let parts: Vec<&str> = token.split('.').collect();
        let starts_name = token
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if starts_name && parts.len() > 2 && parts.iter().all(|p| !p.is_empty()) {
            let last_two = parts.get(parts.len() - 2..).unwrap_or_default();
            out.push_str(&last_two.join("."));
        } else {
            out.push_str(token);
        }
        token.clear();
    };
    for c in expr.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '*') {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

/// The fewest last components of `topic` (at least one) that no topic of `others` ends with
/// (all of it when none do).
fn topic_prefix(topic: &[&str], others: &[&[&str]]) -> String {
    let mut m = 1.min(topic.len());
    while m < topic.len() && others.iter().any(|o| tail(o, m) == tail(topic, m)) {
        m += 1;
    }
    tail(topic, m)
}

/// The legend names of the series labelled `labels` (canonical specs, each with its topic
/// when known), in order: each as short as keeps it apart from the others.
pub fn short_names(labels: &[(&str, Option<&str>)]) -> Vec<String> {
    let parsed: Vec<Parsed> = labels.iter().map(|(l, t)| parse(l, *t)).collect();
    let mut names: Vec<String> = parsed
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Parsed::Path(topic, field) => path_name(&parsed, i, topic, field),
            Parsed::Expr(topic, expr) => {
                let short = shorten_expr(expr);
                let twins: Vec<&[&str]> = parsed
                    .iter()
                    .enumerate()
                    .filter_map(|(j, q)| match q {
                        Parsed::Expr(t, e) if j != i && shorten_expr(e) == short => {
                            Some(t.as_slice())
                        }
                        _ => None,
                    })
                    .collect();
                if twins.is_empty() || topic.is_empty() {
                    short
                } else {
                    format!("{}: {short}", topic_prefix(topic, &twins))
                }
            }
        })
        .collect();
    // Whatever still reads alike is named in full.
    let dup: Vec<bool> = names
        .iter()
        .enumerate()
        .map(|(i, n)| names.iter().enumerate().any(|(j, m)| j != i && m == n))
        .collect();
    for ((name, (label, _)), d) in names.iter_mut().zip(labels).zip(dup) {
        if d {
            *name = (*label).to_string();
        }
    }
    names
}

/// The name of path series `i`: the fewest last components of its field (at least two, the
/// topic's last one in front of a one-component field) that no other field ends with; behind
/// the topic's last component(s) when another topic has the very same field.
fn path_name(parsed: &[Parsed], i: usize, topic: &[&str], field: &[&str]) -> String {
    let others = || {
        parsed.iter().enumerate().filter_map(move |(j, p)| match p {
            Parsed::Path(t, f) if j != i => Some((t, f)),
            _ => None,
        })
    };
    let ends_alike =
        |k: usize| others().any(|(_, f)| f.as_slice() != field && tail(f, k) == tail(field, k));
    let mut k = MIN_COMPONENTS.min(field.len());
    while k < field.len() && ends_alike(k) {
        k += 1;
    }
    let name = tail(field, k);
    let same_field: Vec<&[&str]> = others()
        .filter(|(_, f)| f.as_slice() == field)
        .map(|(t, _)| t.as_slice())
        .collect();
    if same_field.is_empty() || topic.is_empty() {
        // A one-component field reads better with the topic's last component.
        return match topic.last() {
            Some(t) if k < MIN_COMPONENTS => format!("{t}/{name}"),
            _ => name,
        };
    }
    format!("{}: {name}", topic_prefix(topic, &same_field))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_have_one_text() {
        for spec in [
            "/imu/data/linear_acceleration/z",
            "/imu/data/linear_acceleration.z",
            "imu/data/linear_acceleration/z",
            "/imu/data: linear_acceleration.z",
            " /imu/data :  linear_acceleration/z ",
        ] {
            assert_eq!(
                canonical("/imu/data", spec),
                "/imu/data/linear_acceleration/z",
                "{spec}"
            );
        }
        assert_eq!(
            canonical("/imu/data", "/imu/data/orientation_covariance[0]"),
            "/imu/data/orientation_covariance[0]"
        );
        assert_eq!(
            canonical("/odom", "/odom:  norm(twist.twist.linear) "),
            "/odom: norm(twist.twist.linear)"
        );
        assert_eq!(field_span("/odom", "/odom: x.y"), Some((7, true)));
        assert_eq!(field_span("/odom", "/odom/x.y"), Some((6, false)));
        assert_eq!(field_span("/odom", "odom/x.y"), Some((5, false)));
        assert_eq!(field_span("/odom", "/imu/x"), None);
    }

    #[test]
    fn names_are_the_fewest_last_components_that_differ() {
        let imu = Some("/imu/data");
        let names = short_names(&[
            ("/imu/data/linear_acceleration/z", imu),
            ("/imu/data/angular_velocity/z", imu),
        ]);
        assert_eq!(names, ["linear_acceleration/z", "angular_velocity/z"]);
        // One series: two components still (the topic's when the field has one).
        assert_eq!(
            short_names(&[("/battery/voltage", None)]),
            ["battery/voltage"]
        );
        assert_eq!(
            short_names(&[("/battery/voltage", Some("/battery"))]),
            ["battery/voltage"]
        );
        assert_eq!(short_names(&[("/a", None)]), ["a"]);
        // More components while another field ends alike.
        let names = short_names(&[
            ("/odom/pose/pose/position/x", Some("/odom")),
            ("/tf/transforms[0]/transform/position/x", Some("/tf")),
        ]);
        assert_eq!(names, ["pose/position/x", "transform/position/x"]);
        // The same field on two topics: behind the topic's last component(s).
        let names = short_names(&[
            ("/left/odom/twist/twist/linear/x", Some("/left/odom")),
            ("/right/odom/twist/twist/linear/x", Some("/right/odom")),
            ("/left/odom/pose/pose/position/x", Some("/left/odom")),
        ]);
        assert_eq!(
            names,
            ["left/odom: linear/x", "right/odom: linear/x", "position/x"]
        );
        let names = short_names(&[
            ("/imu/data/linear_acceleration/z", imu),
            ("/imu2/linear_acceleration/z", Some("/imu2")),
        ]);
        assert_eq!(
            names,
            ["data: linear_acceleration/z", "imu2: linear_acceleration/z"]
        );
        // Without topics, the same labels read alike: in full.
        let names = short_names(&[("/a/x/y", None), ("/b/x/y", None)]);
        assert_eq!(names, ["a/x/y", "b/x/y"]);
    }

    #[test]
    fn expressions_are_shortened_sensibly() {
        let odom = Some("/odom");
        let names = short_names(&[
            ("/odom: norm(twist.twist.linear)", odom),
            ("/odom/pose/pose/position/x", odom),
            ("/odom: yaw(pose.pose.orientation) * 57.29578", odom),
        ]);
        assert_eq!(
            names,
            [
                "norm(twist.linear)",
                "position/x",
                "yaw(pose.orientation) * 57.29578"
            ]
        );
        let names = short_names(&[
            ("/odom: norm(twist.twist.linear)", odom),
            ("/cmd: norm(twist.twist.linear)", Some("/cmd")),
        ]);
        assert_eq!(
            names,
            ["odom: norm(twist.linear)", "cmd: norm(twist.linear)"]
        );
        // Alike even with the topic's last component: in full.
        let names = short_names(&[("/a/odom: norm(x)", None), ("/b/odom: norm(x)", None)]);
        assert_eq!(names, ["a/odom: norm(x)", "b/odom: norm(x)"]);
        let names = short_names(&[("/odom: norm(x)", None), ("/odom: norm(x) ", None)]);
        assert_eq!(names, ["/odom: norm(x)", "/odom: norm(x) "]);
    }
}
