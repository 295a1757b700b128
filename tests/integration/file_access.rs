//! Reading a bag changes nothing about it, and works whoever owns it: bagscope asks the kernel
//! not to set the access time (`O_NOATIME`, allowed only to the file's owner) and opens
//! anyone else's bag without that flag.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// `info` on a root-owned bag, run as `nobody` (where `O_NOATIME` is refused with `EPERM`),
/// reads it as `info` run by its owner does.
#[test]
fn a_bag_owned_by_someone_else_is_read_as_by_its_owner() {
    let uid = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        eprintln!("skipped: needs root, to run bagscope as another user");
        return;
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: no setpriv (util-linux) to run bagscope as another user");
        return;
    }
    let as_nobody = |bin: &Path| {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin);
        c
    };
    // Everything `nobody` needs is in a directory it may enter: the bag, and the binary when
    // the build directory is where `nobody` may not go (under a home only root enters).
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bag = dir.path().join("theirs.bag");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::fs::copy(fixtures.join("recorded_lz4.bag"), &bag).unwrap();
    std::fs::set_permissions(&bag, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut bin = Path::new(env!("CARGO_BIN_EXE_bagscope")).to_path_buf();
    let runs = as_nobody(&bin).arg("--version").output();
    if !runs.is_ok_and(|o| o.status.success()) {
        let copy = dir.path().join("bagscope");
        std::fs::copy(&bin, &copy).unwrap();
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        bin = copy;
    }
    let owner = Command::new(&bin).arg("info").arg(&bag).output().unwrap();
    assert!(owner.status.success(), "{owner:?}");
    let other = as_nobody(&bin).arg("info").arg(&bag).output().unwrap();
    assert!(
        other.status.success(),
        "{}",
        String::from_utf8_lossy(&other.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&other.stdout),
        String::from_utf8_lossy(&owner.stdout)
    );
    assert!(String::from_utf8_lossy(&other.stdout).contains("messages:"));
}
