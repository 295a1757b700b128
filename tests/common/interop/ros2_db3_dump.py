#!/usr/bin/env python3
"""Dumps a rosbag2 .db3 bag directory as Python's sqlite3 reads it (no rosbags involved).

Usage: ros2_db3_dump.py BAG_DIR      (stdout: JSON lines)

Storage files: metadata.yaml's relative_file_paths (by file name), else every *.db3 /
*.db3.zstd in natural name order. compression_mode FILE: each file is zstd data (decompressed
to a temporary file); MESSAGE: each message's data is zstd data (needs `zstandard`).
Line 1: {"kind":"header","topics":[{"topic","type","count","serialization"}],"messages":N};
then per message, in (timestamp, file order, id) order:
{"topic","log_time_ns","md5"} of the raw (decompressed) bytes.
"""

import hashlib
import json
import re
import sqlite3
import sys
import tempfile
from pathlib import Path


def natural(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def metadata(bag):
    path = bag / "metadata.yaml"
    if not path.exists():
        return None
    from ruamel.yaml import YAML
    return YAML(typ="safe").load(path.read_text())["rosbag2_bagfile_information"]


def dump(bag):
    meta = metadata(bag)
    if meta:
        names = [Path(p).name for p in meta.get("relative_file_paths", [])]
        mode = (meta.get("compression_mode") or "").upper()
    else:
        names = sorted((f.name for f in bag.iterdir() if f.name.endswith((".db3", ".db3.zstd"))), key=natural)
        mode = ""
    rows, topics = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for order, name in enumerate(names):
            path = bag / name
            if not path.exists():
                continue
            if path.read_bytes()[:4] == b"\x28\xb5\x2f\xfd":
                import zstandard
                plain = Path(tmp) / f"{order}.db3"
                with open(path, "rb") as src, open(plain, "wb") as dst:
                    zstandard.ZstdDecompressor().copy_stream(src, dst)
                path = plain
            con = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
            ids = {}
            for tid, tname, ttype, fmt in con.execute(
                    "SELECT id, name, type, serialization_format FROM topics ORDER BY id"):
                ids[tid] = tname
                topics.setdefault(tname, {"topic": tname, "type": ttype, "count": 0, "serialization": fmt})
            for tid, ts, mid, data in con.execute(
                    "SELECT topic_id, timestamp, id, data FROM messages ORDER BY timestamp, id"):
                if mode == "MESSAGE":
                    import zstandard
                    data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
                rows.append((ts, order, mid, ids[tid], hashlib.md5(data).hexdigest()))
            con.close()
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    for r in rows:
        topics[r[3]]["count"] += 1
    out = [json.dumps({"kind": "header", "topics": list(topics.values()), "messages": len(rows)})]
    out += [json.dumps({"topic": r[3], "log_time_ns": r[0], "md5": r[4]}) for r in rows]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(dump(Path(sys.argv[1])))
