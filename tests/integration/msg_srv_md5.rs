//! Service md5sums: `msg::ServiceSchema` agrees with genmsg (Debian's `python3-genmsg`, via
//! `tests/common/interop/srv_md5.py`) on the service, request and response md5sums of the bagserver's
//! `bagscope_msgs/PlayInterval`, of every `.srv` Debian ships under `/usr/share/*/srv`, and of
//! made-up definitions with the corners of the format (comments, constants, `---` lines with
//! text after them, empty halves, nested and array types, `Header`).
//!
//! Skipped with a printed reason when Python cannot import genmsg.

use std::path::{Path, PathBuf};
use std::process::Command;

use bagscope::msg::{MsgError, Registry, ServiceSchema};
use bagscope::play::bagserver::srv::{PLAY_INTERVAL_MD5, PLAY_INTERVAL_SRV, PLAY_INTERVAL_TYPE};

use crate::common;
use crate::common::skip;

const MADE_UP: &[(&str, &str)] = &[
    ("test_srvs/Empty", "---\n"),
    ("test_srvs/NoNewline", "int32 a\n---\nint32 b"),
    (
        "test_srvs/Commented",
        "# header comment\nint32 a # trailing\n\n  # indented comment\n---   anything here\nstring s\n",
    ),
    (
        "test_srvs/Constants",
        "int8 A=-3\nstring NAME=some # text\nuint8 a\n--- \nfloat64 PI = 3.14159\nbool b\n",
    ),
    (
        "test_srvs/Nested",
        "Header header\ngeometry_msgs/Pose[] poses\ntime[3] stamps\n---\nstd_msgs/String[4] names\nduration d\nuint8[] data\n",
    ),
    (
        "test_srvs/ManyDelimiters",
        "int32 a\n---\nint32 b\n---\nint32 c\n",
    ),
];

/// genmsg's answer per service: (service, request, response) md5sums.
fn genmsg(files: &[(String, PathBuf)]) -> Result<Vec<(String, [String; 3])>, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/srv_md5.py");
    let mut cmd = Command::new(common::ros_python());
    cmd.arg(script);
    for (name, path) in files {
        cmd.arg(name).arg(path);
    }
    let out = cmd.output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].to_string(),
                [f[1].to_string(), f[2].to_string(), f[3].to_string()],
            )
        })
        .collect())
}

fn have_genmsg() -> Result<(), String> {
    let ok = Command::new(common::ros_python())
        .args(["-c", "import genmsg.gentools"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err("python3 cannot import genmsg (apt-get install python3-genmsg)".into())
    }
}

/// The registry genmsg's script sees: the bundled packages plus Debian's `/usr/share/PKG/msg`.
fn registry() -> Registry {
    with_debian(Registry::bundled())
}

/// Debian's `/usr/share/PKG/msg` alone.
fn debian_registry() -> Registry {
    with_debian(Registry::empty())
}

fn with_debian(mut r: Registry) -> Registry {
    if let Ok(rd) = std::fs::read_dir("/usr/share") {
        for e in rd.flatten() {
            if e.path().join("msg").is_dir() {
                let _ = r.add_msg_path(e.path());
            }
        }
    }
    r
}

/// The message type a service definition needs (directly or through other messages) whose
/// package's `.msg` files are not installed under `/usr/share`, if that is why it does not compile
/// against Debian's definitions alone. genmsg, which sees only those, cannot load such a service.
fn missing_type(name: &str, srv: &str, debian: &Registry) -> Option<String> {
    match ServiceSchema::from_srv(name, srv, debian) {
        Err(MsgError::UnresolvedType { missing, .. })
            if !Path::new("/usr/share")
                .join(missing.split('/').next().unwrap_or_default())
                .join("msg")
                .is_dir() =>
        {
            Some(missing)
        }
        _ => None,
    }
}

fn not_installed(service: &str, absent: &str) -> String {
    format!(
        "{service}: the definition of {absent} is not installed (/usr/share/{}/msg; .ci/run \
         installs the ros-*-msgs packages)",
        absent.split('/').next().unwrap_or_default()
    )
}

#[test]
fn play_interval_md5_is_the_definitions() {
    // Without genmsg: the constant is what the definition compiles to.
    let ours =
        ServiceSchema::from_srv(PLAY_INTERVAL_TYPE, PLAY_INTERVAL_SRV, &Registry::empty()).unwrap();
    assert_eq!(ours.md5sum(), PLAY_INTERVAL_MD5);
    if let Err(why) = have_genmsg() {
        skip(&why);
        return;
    }
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/srv/bagscope_msgs/srv/PlayInterval.srv");
    let official = genmsg(&[(PLAY_INTERVAL_TYPE.to_string(), path)]).unwrap();
    assert_eq!(official.len(), 1);
    assert_eq!(
        official[0].1,
        [
            PLAY_INTERVAL_MD5.to_string(),
            ours.request().md5sum().to_string(),
            ours.response().md5sum().to_string()
        ]
    );
}

#[test]
fn service_md5sums_agree_with_genmsg() {
    if let Err(why) = have_genmsg() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let registry = registry();
    let debian_only = debian_registry();
    for (name, text) in MADE_UP {
        if let Some(absent) = missing_type(name, text, &debian_only) {
            skip(&not_installed(name, &absent));
            continue;
        }
        let p = dir.path().join(format!("{}.srv", name.replace('/', "_")));
        std::fs::write(&p, text).unwrap();
        files.push((name.to_string(), p));
    }
    let mut debian = 0;
    if let Ok(rd) = std::fs::read_dir("/usr/share") {
        for pkg in rd.flatten() {
            let Ok(srvs) = std::fs::read_dir(pkg.path().join("srv")) else {
                continue;
            };
            for f in srvs.flatten() {
                let p = f.path();
                if p.extension().is_some_and(|x| x == "srv") {
                    let name = format!(
                        "{}/{}",
                        pkg.file_name().to_string_lossy(),
                        p.file_stem().unwrap().to_string_lossy()
                    );
                    let text = std::fs::read_to_string(&p).unwrap();
                    if let Some(absent) = missing_type(&name, &text, &debian_only) {
                        skip(&not_installed(&name, &absent));
                        continue;
                    }
                    files.push((name, p));
                    debian += 1;
                }
            }
        }
    }
    files.sort();
    let official = genmsg(&files).unwrap();
    assert_eq!(official.len(), files.len());
    for ((name, path), (oname, md5s)) in files.iter().zip(&official) {
        assert_eq!(name, oname);
        let text = std::fs::read_to_string(path).unwrap();
        let ours = ServiceSchema::from_srv(name, &text, &registry)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            [
                ours.md5sum(),
                ours.request().md5sum(),
                ours.response().md5sum()
            ],
            [md5s[0].as_str(), md5s[1].as_str(), md5s[2].as_str()],
            "{name}"
        );
    }
    eprintln!(
        "{} service definitions agree with genmsg ({debian} from /usr/share)",
        files.len()
    );
}
