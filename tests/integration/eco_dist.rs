//! The robot binaries of `scripts/dist.sh`: the highest glibc symbol version they need is
//! 2.31 or lower (Ubuntu 20.04), read from the ELF `.gnu.version_r` section here (no tool
//! needed), and the x86_64 one runs `info` like the binary under test. Skips with a printed
//! reason when `dist/` has not been built.

use std::path::{Path, PathBuf};

use crate::common::{bagscope, fixtures_dir};

/// The oldest glibc the robot binaries must run on.
const MAX_GLIBC: (u32, u32) = (2, 31);

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?)).ok()
}

/// The ELF machine (`e_machine`) and the version names a 64-bit little-endian ELF file
/// requires from its libraries (`GLIBC_2.29`, ...), from `SHT_GNU_verneed`.
fn required_versions(elf: &[u8]) -> Option<(u16, Vec<String>)> {
    if elf.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let machine = u16_at(elf, 0x12)?;
    let shoff = u64_at(elf, 0x28)?;
    let shentsize = usize::from(u16_at(elf, 0x3A)?);
    let shnum = usize::from(u16_at(elf, 0x3C)?);
    let section = |i: usize| shoff.checked_add(i.checked_mul(shentsize)?);
    let mut names = Vec::new();
    for i in 0..shnum {
        let sh = section(i)?;
        if u32_at(elf, sh + 4)? != 0x6fff_fffe {
            continue; // not SHT_GNU_verneed
        }
        let (offset, size) = (u64_at(elf, sh + 0x18)?, u64_at(elf, sh + 0x20)?);
        let strtab = section(usize::try_from(u32_at(elf, sh + 0x28)?).ok()?)?;
        let str_off = u64_at(elf, strtab + 0x18)?;
        let string = |at: u32| -> Option<String> {
            let start = str_off.checked_add(usize::try_from(at).ok()?)?;
            let rest = elf.get(start..)?;
            let end = rest.iter().position(|b| *b == 0)?;
            Some(String::from_utf8_lossy(rest.get(..end)?).into_owned())
        };
        let mut need = offset;
        for _ in 0..1000 {
            if need >= offset + size {
                break;
            }
            let count = u16_at(elf, need + 2)?;
            let mut aux = need + usize::try_from(u32_at(elf, need + 8)?).ok()?;
            for _ in 0..count {
                names.push(string(u32_at(elf, aux + 8)?)?);
                let next = u32_at(elf, aux + 12)?;
                if next == 0 {
                    break;
                }
                aux += usize::try_from(next).ok()?;
            }
            let next = u32_at(elf, need + 12)?;
            if next == 0 {
                break;
            }
            need += usize::try_from(next).ok()?;
        }
    }
    Some((machine, names))
}

/// The highest `GLIBC_x.y` among `names`.
fn highest_glibc(names: &[String]) -> Option<(u32, u32)> {
    names
        .iter()
        .filter_map(|n| n.strip_prefix("GLIBC_"))
        .filter_map(|v| {
            let mut parts = v.split('.');
            let major = parts.next()?.parse().ok()?;
            let minor = parts.next().map_or(Some(0), |m| m.parse().ok())?;
            Some((major, minor))
        })
        .max()
}

fn dist_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("dist")
}

#[test]
fn the_version_reader_reads_the_binary_under_test() {
    let elf = std::fs::read(env!("CARGO_BIN_EXE_bagscope")).unwrap();
    let (_, names) = required_versions(&elf).expect("an ELF file with version needs");
    assert!(
        highest_glibc(&names).is_some_and(|v| v >= (2, 2)),
        "{names:?}"
    );
}

#[test]
fn robot_binaries_need_glibc_2_31_at_most() {
    let mut seen = 0;
    for (file, machine) in [
        ("bagscope-x86_64-linux", 0x3E),
        ("bagscope-aarch64-linux", 0xB7),
    ] {
        let path = dist_dir().join(file);
        let Ok(elf) = std::fs::read(&path) else {
            println!("skipping {file}: not built (run scripts/dist.sh)");
            continue;
        };
        seen += 1;
        let (got_machine, names) = required_versions(&elf).expect("a 64-bit ELF file");
        assert_eq!(got_machine, machine, "{file}: wrong architecture");
        let highest = highest_glibc(&names);
        println!("{file}: highest glibc symbol version {highest:?}");
        // No GLIBC_ version at all would be a static binary: fine too.
        if let Some(v) = highest {
            assert!(v <= MAX_GLIBC, "{file} needs glibc {v:?}: {names:?}");
        }
    }
    if seen == 0 {
        println!("skipping: dist/ is absent (scripts/dist.sh builds it)");
    }
}

#[test]
fn the_x86_64_robot_binary_runs_info() {
    let bin = dist_dir().join("bagscope-x86_64-linux");
    if !bin.is_file() {
        println!(
            "skipping: {} is absent (run scripts/dist.sh)",
            bin.display()
        );
        return;
    }
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("skipping: not an x86_64 Linux machine");
        return;
    }
    let mut bags = vec![fixtures_dir().join("recorded.bag")];
    if let Some(dir) = crate::common::corpus_dir() {
        if let Some((bag, _)) = crate::common::bags_with_refs(&dir).into_iter().next() {
            bags.push(bag);
        }
    }
    for bag in bags {
        let robot = std::process::Command::new(&bin)
            .arg("info")
            .arg(&bag)
            .output()
            .unwrap();
        let here = bagscope().arg("info").arg(&bag).output().unwrap();
        assert!(robot.status.success(), "{}: {robot:?}", bag.display());
        assert_eq!(
            String::from_utf8_lossy(&robot.stdout),
            String::from_utf8_lossy(&here.stdout),
            "{}",
            bag.display()
        );
        assert!(String::from_utf8_lossy(&robot.stdout).contains("topics:"));
    }
}

/// The aarch64 binary, on an x86_64 machine, under QEMU's user-mode emulation when it is
/// installed (`qemu-user`, with the arm64 C library of `libc6-arm64-cross` as its root):
/// `info` prints what the binary under test prints.
#[test]
fn the_aarch64_robot_binary_runs_info_under_qemu() {
    let bin = dist_dir().join("bagscope-aarch64-linux");
    if !bin.is_file() {
        println!(
            "skipping: {} is absent (run scripts/dist.sh)",
            bin.display()
        );
        return;
    }
    let sysroot = Path::new("/usr/aarch64-linux-gnu");
    let qemu = std::process::Command::new("qemu-aarch64")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !qemu || !sysroot.join("lib/ld-linux-aarch64.so.1").exists() {
        println!("skipping: qemu-aarch64 or /usr/aarch64-linux-gnu (libc6-arm64-cross) missing");
        return;
    }
    let bag = fixtures_dir().join("recorded.bag");
    let robot = std::process::Command::new("qemu-aarch64")
        .arg("-L")
        .arg(sysroot)
        .arg(&bin)
        .arg("info")
        .arg(&bag)
        .output()
        .unwrap();
    let here = bagscope().arg("info").arg(&bag).output().unwrap();
    assert!(robot.status.success(), "{robot:?}");
    assert_eq!(
        String::from_utf8_lossy(&robot.stdout),
        String::from_utf8_lossy(&here.stdout)
    );
}
