#!/usr/bin/env python3
"""Writes the ROS 2 bag directories of tests/fixtures/ros2/bags/ with rosbags' writers.

Usage: ros2_bags.py OUT_DIR   (needs rosbags and zstandard: the CI venv has them)

Each bag NAME/ gets NAME.ref.jsonl beside it, read back with rosbags' rosbag2.Reader (the
.db3 bags with Python's sqlite3, ros2_db3_dump.py: rosbags refuses the unknown format):
line 1 {"kind":"header","topics":[{"topic","type","count","serialization"}],"messages":N},
then one line per message in (log time, storage order): {"topic","log_time_ns","md5"} of
the raw (decompressed) CDR bytes. The .db3 files are VACUUMed with 1 KiB pages to keep them
small (the content is what rosbags wrote). Messages: std_msgs/msg/String on /chatter,
rcl_interfaces/msg/Log on /rosout, a service-event topic whose definition is the .srv text,
and a topic whose serialization_format ("fancy") no reader knows.
"""

import hashlib
import json
import shutil
import sqlite3
import sys
from pathlib import Path

import zstandard
from rosbags.rosbag2 import Reader, StoragePlugin, Writer
from rosbags.rosbag2.enums import CompressionFormat, CompressionMode
from rosbags.typesys import Stores, get_typestore

TS = get_typestore(Stores.ROS2_HUMBLE)
BASE = 1_700_000_000_000_000_000
SRV_TEXT = "int64 a\nint64 b\n---\nint64 sum\n"


def string(text):
    return TS.serialize_cdr(TS.types["std_msgs/msg/String"](data=text), "std_msgs/msg/String")


def log(i):
    Time = TS.types["builtin_interfaces/msg/Time"]
    Log = TS.types["rcl_interfaces/msg/Log"]
    msg = Log(stamp=Time(sec=1_700_000_000 + i, nanosec=i), level=20, name="talker",
              msg=f"log {i}", file="talker.cpp", function="main", line=42 + i)
    return TS.serialize_cdr(msg, "rcl_interfaces/msg/Log")


def write(path, storage, first, count, compression=None, extras=True):
    """One bag: `count` rounds of messages starting at round `first`."""
    w = Writer(path, version=9, storage_plugin=storage)
    if compression:
        w.set_compression(compression, CompressionFormat.ZSTD)
    w.open()
    chatter = w.add_connection("/chatter", "std_msgs/msg/String", typestore=TS)
    rosout = w.add_connection("/rosout", "rcl_interfaces/msg/Log", typestore=TS)
    if extras:
        event = w.add_connection("/add_two_ints/_service_event",
                                 "example_interfaces/srv/AddTwoInts_Event",
                                 msgdef=SRV_TEXT, rihs01="RIHS01_" + "0" * 64)
        fancy = w.add_connection("/fancy", "std_msgs/msg/String", typestore=TS,
                                 serialization_format="fancy")
    for i in range(first, first + count):
        t = BASE + i * 100_000_000
        w.write(chatter, t, string(f"hello {i}"))
        w.write(rosout, t, log(i))  # a tie with /chatter: storage order decides
        if extras:
            w.write(event, t + 1, bytes([0, 1, 0, 0]) + i.to_bytes(8, "little") * 2)
            w.write(fancy, t + 2, b"not cdr at all " + bytes([i]))
    w.close()


def shrink_db3(db):
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("PRAGMA page_size=1024")
    con.execute("VACUUM")
    con.close()


def shrink_all(bag):
    for f in bag.iterdir():
        if f.name.endswith(".db3"):
            shrink_db3(f)
        elif f.name.endswith(".db3.zstd"):
            plain = f.with_name(f.name[:-5])
            plain.write_bytes(zstandard.ZstdDecompressor().decompressobj().decompress(f.read_bytes()))
            shrink_db3(plain)
            f.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
            plain.unlink()


def placeholder(db):
    """The Log definition replaced by a placeholder, as seen in public recordings."""
    con = sqlite3.connect(db)
    con.execute("UPDATE message_definitions SET encoded_message_definition = 'uint8 level'"
                " WHERE topic_type = 'rcl_interfaces/msg/Log'")
    con.commit()
    con.close()


def reference(bag, ref):
    if any(f.name.endswith((".db3", ".db3.zstd")) for f in bag.iterdir()):
        # rosbags refuses serialization formats it does not know ("fancy"): read the .db3
        # files with Python's sqlite3 instead.
        sys.path.insert(0, str(Path(__file__).parent))
        from ros2_db3_dump import dump
        Path(ref).write_text(dump(bag))
        return
    with Reader(bag) as r:
        conns = {c.id: c for c in r.connections}
        lines = []
        for c, t, raw in r.messages():
            lines.append({"topic": c.topic, "log_time_ns": t, "md5": hashlib.md5(raw).hexdigest()})
        counts = {}
        for line in lines:
            counts[line["topic"]] = counts.get(line["topic"], 0) + 1
        topics = [{"topic": c.topic, "type": c.msgtype, "count": counts.get(c.topic, 0),
                   "serialization": c.ext.serialization_format} for c in conns.values()]
    lines.sort(key=lambda x: x["log_time_ns"])
    with open(ref, "w") as out:
        out.write(json.dumps({"kind": "header", "topics": topics, "messages": len(lines)}) + "\n")
        for line in lines:
            out.write(json.dumps(line) + "\n")


def split(out):
    """split_db3: two storage files written apart and joined by one metadata.yaml."""
    bag = out / "split_db3"
    tmp = out / "_tmp"
    write(tmp / "a", StoragePlugin.SQLITE3, 0, 3)
    write(tmp / "b", StoragePlugin.SQLITE3, 3, 2)
    bag.mkdir()
    shutil.move(tmp / "a" / "a.db3", bag / "split_db3_0.db3")
    shutil.move(tmp / "b" / "b.db3", bag / "split_db3_1.db3")
    meta_a = (tmp / "a" / "metadata.yaml").read_text()
    meta_b = (tmp / "b" / "metadata.yaml").read_text()
    shutil.rmtree(tmp)
    placeholder(bag / "split_db3_0.db3")
    placeholder(bag / "split_db3_1.db3")
    # Metadata of the joined bag: rosbags' own text for file a, then the list, counts, span
    # and files of both (as rosbag2's splitting recorder writes them).
    from ruamel.yaml import YAML
    yaml = YAML(typ="safe")
    a = yaml.load(meta_a)["rosbag2_bagfile_information"]
    b = yaml.load(meta_b)["rosbag2_bagfile_information"]
    a["relative_file_paths"] = ["split_db3_0.db3", "split_db3_1.db3"]
    a["files"] = [dict(a["files"][0], path="split_db3_0.db3"), dict(b["files"][0], path="split_db3_1.db3")]
    a["message_count"] += b["message_count"]
    end = b["starting_time"]["nanoseconds_since_epoch"] + b["duration"]["nanoseconds"]
    a["duration"]["nanoseconds"] = end - a["starting_time"]["nanoseconds_since_epoch"]
    for ta, tb in zip(a["topics_with_message_count"], b["topics_with_message_count"]):
        ta["message_count"] += tb["message_count"]
    with open(bag / "metadata.yaml", "w") as f:
        YAML().dump({"rosbag2_bagfile_information": a}, f)
    return bag


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    bags = [split(out)]
    for name, storage, compression in [
        ("zstd_file_db3", StoragePlugin.SQLITE3, CompressionMode.FILE),
        ("zstd_message_db3", StoragePlugin.SQLITE3, CompressionMode.MESSAGE),
        ("zstd_file_mcap", StoragePlugin.MCAP, CompressionMode.FILE),
        ("zstd_message_mcap", StoragePlugin.MCAP, CompressionMode.MESSAGE),
    ]:
        write(out / name, storage, 0, 3, compression, extras=name.endswith("db3"))
        bags.append(out / name)
    # No message_definitions table (older recorders): definitions must come from elsewhere.
    write(out / "no_definitions", StoragePlugin.SQLITE3, 0, 2, extras=False)
    con = sqlite3.connect(out / "no_definitions" / "no_definitions.db3")
    con.execute("DROP TABLE message_definitions")
    con.commit()
    con.close()
    bags.append(out / "no_definitions")
    for bag in bags:
        shrink_all(bag)
        reference(bag, out / f"{bag.name}.ref.jsonl")
    # No metadata.yaml at all: the split bag's storage files alone (same reference).
    nometa = out / "no_metadata"
    nometa.mkdir()
    for f in ["split_db3_0.db3", "split_db3_1.db3"]:
        shutil.copy(out / "split_db3" / f, nometa / f.replace("split_db3", "no_metadata"))
    shutil.copy(out / "split_db3.ref.jsonl", out / "no_metadata.ref.jsonl")


if __name__ == "__main__":
    main()
