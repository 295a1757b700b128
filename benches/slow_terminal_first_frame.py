#!/usr/bin/env python3
"""The explorer's first full frame on a terminal that answers its queries late, as one does
over SSH: each BINARY runs in a pseudo-terminal (160x48, TERM=xterm-256color, no tmux, so the
explorer asks for the graphics protocol and cell size) whose replies are sent DELAY seconds
after each query, like a round trip to the user's terminal. Prints the median time until
MARKER is on the screen over N runs, the binaries alternating run by run.

    python3 benches/slow_terminal_first_frame.py DELAY N MARKER BAG BINARY [BINARY...]
    python3 benches/slow_terminal_first_frame.py 0.15 10 /tock bench-data/chunks_1000000.bag target/release/bagscope

The queries answered (in the order asked): DA1 (`ESC [ c`), the cell size (`ESC [ 16 t`), the
window size in pixels (`ESC [ 14 t`), the cursor position (`ESC [ 6 n`) and the status report
(`ESC [ 5 n`). The kitty graphics query gets no answer (as from a terminal without it).
"""
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import termios
import time

REPLIES = (
    (b"\x1b[c", b"\x1b[?62;22c"),
    (b"\x1b[16t", b"\x1b[6;20;10t"),
    (b"\x1b[14t", b"\x1b[4;960;1600t"),
    (b"\x1b[6n", b"\x1b[1;1R"),
    (b"\x1b[5n", b"\x1b[0n"),
)


def once(binary, bag, marker, delay):
    """Milliseconds from the start until `marker` is drawn (None after 10 s)."""
    pid, fd = pty.fork()
    if pid == 0:
        env = {k: v for k, v in os.environ.items()
               if k not in ("TMUX", "NO_COLOR", "BAGSCOPE_GRAPHICS")}
        env["TERM"] = "xterm-256color"
        os.execve(binary, [binary, bag], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 960, 1600))
    started = time.perf_counter()
    screen = b""
    pending = []
    seen = None
    while time.perf_counter() - started < 10:
        now = time.perf_counter()
        for due in [p for p in pending if p[0] <= now]:
            os.write(fd, due[1])
            pending.remove(due)
        ready, _, _ = select.select([fd], [], [], 0.002)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        screen += chunk
        asked = []
        for query, reply in REPLIES:
            at = chunk.find(query)
            while at >= 0:
                asked.append((at, reply))
                at = chunk.find(query, at + 1)
        for _, reply in sorted(asked):
            pending.append((time.perf_counter() + delay, reply))
        if marker in screen:
            seen = (time.perf_counter() - started) * 1e3
            break
    try:
        os.write(fd, b"q")
        time.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
    except (OSError, ProcessLookupError):
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    return seen


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    delay, n, marker, bag = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4]
    binaries = sys.argv[5:]
    times = {b: [] for b in binaries}
    for _ in range(n):
        for b in binaries:
            time.sleep(0.3)
            times[b].append(once(b, bag, marker, delay))
    for b, runs in times.items():
        ok = sorted(t for t in runs if t is not None)
        if not ok:
            print(f"{b}: marker never seen in {len(runs)} runs")
            continue
        print(f"{b}: {len(ok)}/{len(runs)} runs, median {statistics.median(ok):.0f} ms, "
              f"min {ok[0]:.0f} (replies {delay * 1e3:.0f} ms after each query)")


if __name__ == "__main__":
    main()
