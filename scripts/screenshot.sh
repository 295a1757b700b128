#!/usr/bin/env bash
# docs/screenshot.txt: the explorer on the bundled demo bag, as text, from a real run in a
# 100x30 tmux terminal (TZ=UTC). The README includes it; run this again when the screen changes.
#
# Usage: scripts/screenshot.sh            (uses target/release/bagscope, built if missing)
#        BAGSCOPE=target/debug/bagscope scripts/screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="${BAGSCOPE:-target/release/bagscope}"
if [ ! -x "$BIN" ]; then
    cargo build --release --locked --bin bagscope
fi
command -v tmux >/dev/null || { echo "screenshot.sh: tmux is needed" >&2; exit 1; }

session="bagscope-screenshot-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT
TZ=UTC tmux new-session -d -s "$session" -x 100 -y 30 "TZ=UTC $(printf %q "$BIN") --no-mouse"
# Wait until the demo bag is shown and the screen stops changing.
previous=""
for _ in $(seq 1 50); do
    sleep 0.3
    screen="$(tmux capture-pane -p -t "$session")"
    if [ -n "$screen" ] && [ "$screen" = "$previous" ] && grep -q '/' <<<"$screen"; then
        break
    fi
    previous="$screen"
done
# Trailing spaces off, so the file diffs cleanly.
tmux capture-pane -p -t "$session" | sed 's/[[:space:]]*$//' > docs/screenshot.txt
tmux send-keys -t "$session" q
echo "docs/screenshot.txt written" >&2
