//! Every bundled definition's md5sum and full text against what Debian's genmsg computes from
//! the same files (skips when `python3` with genmsg is absent).

use std::process::Command;

use bagscope::msg::{Registry, Schema};

use crate::common::msg_support;

const GENMSG_SCRIPT: &str = r"
import json, os, sys
import genmsg.msg_loader as ml, genmsg.gentools as gt
root = sys.argv[1]
search = {p: [os.path.join(root, p)] for p in os.listdir(root) if os.path.isdir(os.path.join(root, p))}
out = {}
for pkg in sorted(search):
    for f in sorted(os.listdir(search[pkg][0])):
        if not f.endswith('.msg'):
            continue
        ctx = ml.MsgContext.create_default()
        t = pkg + '/' + f[:-4]
        spec = ml.load_msg_by_type(ctx, t, search)
        ml.load_depends(ctx, spec, search)
        out[t] = {'md5': gt.compute_md5(ctx, spec), 'full_text': gt.compute_full_text(ctx, spec)}
json.dump(out, sys.stdout)
";

#[test]
fn bundled_md5sums_and_full_texts_match_genmsg() {
    let Some(python) = msg_support::debian_python() else {
        return;
    };
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/msgs");
    let output = Command::new(python)
        .arg("-c")
        .arg(GENMSG_SCRIPT)
        .arg(&assets)
        .output()
        .expect("run python");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reference: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let reference = reference.as_object().unwrap();
    let registry = Registry::bundled();
    assert_eq!(registry.types().len(), reference.len());
    for (name, want) in reference {
        let schema =
            Schema::from_registry(name, None, &registry).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(schema.md5sum(), want["md5"].as_str().unwrap(), "{name}");
        assert_eq!(
            schema.full_text(),
            want["full_text"].as_str().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn well_known_md5sums() {
    let registry = Registry::bundled();
    for (name, md5) in [
        ("std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1"),
        ("std_msgs/Header", "2176decaecbce78abc3b96ef049fabed"),
        ("geometry_msgs/Pose", "e45d45a5a1ce597b249e23fb30fc871f"),
        ("sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743"),
        ("tf/tfMessage", "94810edda583a504dfda3829e70d7eec"),
        ("tf2_msgs/TFMessage", "94810edda583a504dfda3829e70d7eec"),
        (
            "audio_common_msgs/AudioData",
            "f43a8e1b362b75baa741461b46adc7e0",
        ),
        (
            "audio_common_msgs/AudioInfo",
            "9413d9b7029680d3b1db6ed0ae535f88",
        ),
    ] {
        let schema = Schema::from_registry(name, Some(md5), &registry)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(schema.md5sum(), md5);
    }
}
