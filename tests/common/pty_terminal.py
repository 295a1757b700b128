#!/usr/bin/env python3
"""A terminal for the explorer's end-to-end tests of its startup queries: runs BINARY BAG in a
pseudo-terminal (120x40 cells of 10x20 pixels, TERM=xterm-256color, outside tmux) and plays
STEPS, a JSON list, against it:

    ["wait", TEXT]      until TEXT has been written to the terminal (at most 10 s)
    ["answer"]          the answers of a terminal with kitty graphics, sixel and 10x20-pixel
                        cells to ratatui-image's query, ending with the status report
    ["answer", W, H]    the same, claiming cells of W x H pixels (a terminal that lies)
    ["keys", TEXT]      types TEXT
    ["sleep", SECONDS]
    ["exit", SECONDS]   until the explorer exits (at most SECONDS)
    ["alive"]           the explorer has not exited

Writes everything the explorer wrote to OUT and prints one JSON object: "done" (the steps
completed), "failed" (the step that did not, or null), "exit" (the exit status, or null).

    python3 tests/common/pty_terminal.py BINARY BAG OUT STEPS
"""
import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time


def answers(width=10, height=20):
    return b"\x1b_Gi=31;OK\x1b\\\x1b[?62;4;22c\x1b[6;%d;%dt\x1b[0n" % (height, width)


def main():
    binary, bag, out_path, steps = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    pid, fd = pty.fork()
    if pid == 0:
        env = {k: v for k, v in os.environ.items()
               if k not in ("TMUX", "NO_COLOR", "BAGSCOPE_GRAPHICS", "TERM_PROGRAM",
                            "LC_TERMINAL", "WEZTERM_EXECUTABLE", "KONSOLE_VERSION")}
        env["TERM"] = "xterm-256color"
        os.execve(binary, [binary, bag], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 1200, 800))
    out = bytearray()
    status = None

    def pump(wait):
        nonlocal status
        ready, _, _ = select.select([fd], [], [], wait)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            out.extend(data)
        if status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)

    done, failed = 0, None
    for step in steps:
        kind = step[0]
        if kind == "wait":
            text = step[1].encode()
            deadline = time.monotonic() + 10
            while text not in out and time.monotonic() < deadline and status is None:
                pump(0.01)
            ok = text in out
        elif kind == "answer":
            os.write(fd, answers(*step[1:3]))
            ok = True
        elif kind == "keys":
            os.write(fd, step[1].encode())
            ok = True
        elif kind == "sleep":
            deadline = time.monotonic() + step[1]
            while time.monotonic() < deadline:
                pump(0.01)
            ok = True
        elif kind == "alive":
            pump(0.01)
            ok = status is None
        elif kind == "exit":
            deadline = time.monotonic() + step[1]
            while status is None and time.monotonic() < deadline:
                pump(0.01)
            ok = status is not None
        else:
            ok = False
        if not ok:
            failed = step
            break
        done += 1
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    else:
        # What is still buffered.
        for _ in range(20):
            try:
                ready, _, _ = select.select([fd], [], [], 0.01)
                if not ready:
                    break
                data = os.read(fd, 65536)
                if not data:
                    break
                out.extend(data)
            except OSError:
                break
    os.close(fd)
    with open(out_path, "wb") as f:
        f.write(out)
    print(json.dumps({"done": done, "failed": failed, "exit": status}))


if __name__ == "__main__":
    main()
