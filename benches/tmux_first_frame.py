#!/usr/bin/env python3
"""The explorer's first frame as a user sees it: launch each binary in a detached tmux pane
(160x48), poll `tmux capture-pane` until MARKER shows, and print the medians over N runs,
the binaries alternating run by run.

    python3 benches/tmux_first_frame.py [--cold] [--gap SECONDS] BAG MARKER N BINARY [BINARY...]
    python3 benches/tmux_first_frame.py bench-data/chunks_1000000.bag /tock 20 target/release/bagscope
    python3 benches/tmux_first_frame.py --cold bench-data/cold_5g.bag /tf_static 6 target/release/bagscope

A BINARY may carry environment assignments ("NO_COLOR=1 target/release/bagscope"). The
figure includes tmux starting the pane (~27-34 ms here: time a tiny bag the same way).
`--cold` drops the bag's pages from the page cache before every run
(`posix_fadvise(POSIX_FADV_DONTNEED)` on the whole file: no privileges needed; pages another
process holds mapped stay), so each run reads the bag from the disk as a first open after
copying it off a robot would.

`--gap` waits that long before each run (default 0.3 s). On this VM (virtio-balloon free page
reporting) memory a process freed is handed back to the host within a second or two, and the
next process's first touches of fresh memory cost several times more: runs back to back
measure a machine that has just run the same program, `--gap 3` one a user opens a bag on.
"""
import os
import statistics
import subprocess
import sys
import time


GAP = 0.3


def once(command, session, marker):
    subprocess.run(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL)
    started = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "48", command],
                   check=True)
    seen = None
    while time.perf_counter() - started < 10:
        pane = subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                              capture_output=True, text=True).stdout
        if marker in pane:
            seen = time.perf_counter() - started
            break
    subprocess.run(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL)
    time.sleep(GAP)
    return seen


def drop_pages(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main():
    args = sys.argv[1:]
    global GAP
    cold = False
    while args and args[0] in ("--cold", "--gap"):
        if args[0] == "--cold":
            cold = True
            args = args[1:]
        else:
            GAP = float(args[1])
            args = args[2:]
    bag, marker, runs, binaries = args[0], args[1], int(args[2]), args[3:]
    times = {b: [] for b in binaries}
    for i in range(runs):
        for b in binaries:
            if cold:
                drop_pages(bag)
            t = once(f"{b} {bag}", f"first-frame-{i}", marker)
            if t is not None:
                times[b].append(t)
    for b, v in times.items():
        if not v:
            print(f"{b}: {marker!r} never seen")
            continue
        v.sort()
        print(f"{b}: {len(v)}/{runs} runs, median {statistics.median(v) * 1e3:.0f} ms, "
              f"p25 {v[len(v) // 4] * 1e3:.0f}, p75 {v[3 * len(v) // 4] * 1e3:.0f}, "
              f"min {v[0] * 1e3:.0f}")


if __name__ == "__main__":
    main()
