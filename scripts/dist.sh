#!/usr/bin/env bash
# Release binaries that run on the robot: dist/bagscope-x86_64-linux and, where the toolchain can
# be had, dist/bagscope-aarch64-linux. Both link against glibc 2.31 at most (Ubuntu 20.04 /
# ROS Noetic), so they run on that and every later distribution without a Rust toolchain there.
#
# How: cargo-zigbuild uses zig as the C compiler and linker, which links against the symbol
# versions of the glibc named in the target (`x86_64-unknown-linux-gnu.2.31`) instead of the
# build machine's. What it needs (installed by this script when missing):
#   pip install ziglang                      # zig, from the Python package registry
#   cargo install cargo-zigbuild --locked
#   rustup target add aarch64-unknown-linux-gnu
#
# Usage: scripts/dist.sh [x86_64] [aarch64]      (default: both)
#   GLIBC=2.31 (default) picks the oldest glibc to support.
#   CARGO_TARGET_DIR=DIR builds there (keeps target/ free for cargo test/bench meanwhile).
# tests/integration/eco_dist.rs checks the result (highest GLIBC_ symbol version, runs `info`).
set -euo pipefail
cd "$(dirname "$0")/.."

GLIBC="${GLIBC:-2.31}"
ARCHES=("$@")
[ ${#ARCHES[@]} -eq 0 ] && ARCHES=(x86_64 aarch64)

if ! python3 -m ziglang version >/dev/null 2>&1 && ! command -v zig >/dev/null; then
    echo "dist.sh: installing zig (pip install ziglang)" >&2
    python3 -m pip install --quiet ziglang
fi
if ! command -v cargo-zigbuild >/dev/null; then
    echo "dist.sh: installing cargo-zigbuild" >&2
    cargo install cargo-zigbuild --locked
fi

mkdir -p dist
status=0
for arch in "${ARCHES[@]}"; do
    triple="$arch-unknown-linux-gnu"
    if ! rustup target list --installed | grep -qx "$triple"; then
        if ! rustup target add "$triple"; then
            echo "dist.sh: cannot install the Rust target $triple: no $arch binary" >&2
            status=1
            continue
        fi
    fi
    echo "dist.sh: building $triple, glibc $GLIBC" >&2
    start=$(date +%s)
    # No debug info and no symbol table: a smaller file to copy to the robot.
    # The `dist` profile (Cargo.toml): whole-program fat LTO, one codegen unit.
    CARGO_PROFILE_DIST_DEBUG=0 CARGO_PROFILE_DIST_STRIP=symbols \
        cargo zigbuild --profile dist --locked --bin bagscope --target "$triple.$GLIBC"
    cp "${CARGO_TARGET_DIR:-target}/$triple/dist/bagscope" "dist/bagscope-$arch-linux.tmp"
    mv "dist/bagscope-$arch-linux.tmp" "dist/bagscope-$arch-linux"
    echo "dist.sh: dist/bagscope-$arch-linux ($(( $(date +%s) - start )) s)" >&2
done
ls -l dist >&2
exit "$status"
