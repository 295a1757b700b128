#!/usr/bin/env python3
"""Check bagscope's MCAP and Parquet exports against the official ROS1 Python reader.

    export_check.py probe
    export_check.py mcap OUT.mcap BAG...
    export_check.py parquet DIR SPEC.json BAG...

`probe` exits 0 when mcap, mcap_ros1, duckdb and rosbag import. `mcap` decodes every message
of OUT.mcap with mcap-ros1-support and compares it, field by field, with the official
reader's decoding of the bags (merged in time order); it also checks the profile, schema and
message encodings, the summary, the chunk indexes and the message indexes. `parquet` reads
DIR with DuckDB (`read_parquet('DIR/**/*.parquet', hive_partitioning=true)`) and compares row
counts per topic and the columns named in SPEC.json with the official decoding (a `time`
column COL by its exact nanoseconds, COL_ns, and its microsecond timestamp, their floor).
Prints one JSON object; exits 1 with the first difference on stderr.
"""
import heapq
import json
import math
import sys


def canon(v):
    """A plain, comparable form of a decoded value (genpy messages of either library)."""
    if hasattr(v, "__slots__") and hasattr(v, "_slot_types"):
        return {s: canon(getattr(v, s)) for s in v.__slots__}
    if hasattr(v, "secs") and hasattr(v, "nsecs"):
        return ["t", int(v.secs), int(v.nsecs)]
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, (list, tuple)):
        return [canon(x) for x in v]
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return repr(v)
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return int(v)
    return v


def official(bags):
    """(time_ns, topic, message) of every bag, merged by time."""
    import rosbag

    streams = []
    for i, path in enumerate(bags):
        b = rosbag.Bag(path)
        streams.append(
            ((t.to_nsec(), i, topic, msg) for topic, msg, t in b.read_messages())
        )
    for t, _i, topic, msg in heapq.merge(*streams, key=lambda x: (x[0], x[1])):
        yield t, topic, msg


def fail(what):
    sys.stderr.write(what + "\n")
    sys.exit(1)


def check_mcap(out, bags):
    from mcap.reader import make_reader
    from mcap_ros1.decoder import DecoderFactory

    with open(out, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        header = reader.get_header()
        if header.profile != "ros1":
            fail(f"profile {header.profile!r}, not 'ros1'")
        summary = reader.get_summary()
        if summary is None:
            fail("no summary section")
        if not summary.chunk_indexes:
            fail("no chunk indexes")
        for ci in summary.chunk_indexes:
            if not ci.message_index_offsets:
                fail(f"chunk at {ci.chunk_start_offset} has no message indexes")
        for s in summary.schemas.values():
            if s.encoding != "ros1msg":
                fail(f"schema {s.name} encoding {s.encoding!r}")
        for c in summary.channels.values():
            if c.message_encoding != "ros1":
                fail(f"channel {c.topic} encoding {c.message_encoding!r}")
        got = [
            (m.log_time, c.topic, canon(d))
            for _s, c, m, d in reader.iter_decoded_messages(log_time_order=False)
        ]
    times = [g[0] for g in got]
    if times != sorted(times):
        fail("messages are not in log time order in the file")
    want = [(t, topic, canon(m)) for t, topic, m in official(bags)]
    if len(got) != len(want):
        fail(f"{len(got)} messages in the MCAP, {len(want)} in the bags")
    key = lambda x: (x[0], x[1], json.dumps(x[2], sort_keys=True))
    for g, w in zip(sorted(got, key=key), sorted(want, key=key)):
        if g != w:
            fail(f"differs at {w[0]} {w[1]}:\n mcap: {g[2]}\n  bag: {w[2]}")
    stats = summary.statistics
    print(
        json.dumps(
            {
                "messages": len(got),
                "channels": len(summary.channels),
                "schemas": len(summary.schemas),
                "chunks": len(summary.chunk_indexes),
                "stat_messages": stats.message_count if stats else None,
            }
        )
    )


def field(msg, path):
    v = msg
    for part in path.split("."):
        if part.endswith("]"):
            name, idx = part[:-1].split("[")
            v = getattr(v, name)[int(idx)]
        else:
            v = getattr(v, part)
    return v


def check_parquet(out, spec_path, bags):
    import duckdb

    with open(spec_path) as f:
        spec = json.load(f)
    con = duckdb.connect()
    glob = out.rstrip("/") + "/**/*.parquet"
    rel = f"read_parquet('{glob}', hive_partitioning=true, union_by_name=true)"
    counts = dict(con.execute(f"select topic, count(*) from {rel} group by topic").fetchall())
    want_counts = {}
    msgs = {}
    only = spec.get("topics")
    for t, topic, m in official(bags):
        if only is not None and topic not in only:
            continue
        want_counts[topic] = want_counts.get(topic, 0) + 1
        msgs.setdefault(topic, []).append((t, m))
    if counts != want_counts:
        fail(f"rows per topic {counts}, official {want_counts}")
    for key, value in spec.get("partitions", {}).items():
        rows = con.execute(f"select distinct {key} from {rel}").fetchall()
        if [str(r[0]) for r in rows] != [value]:
            fail(f"partition {key}: {rows}, want {value}")
    checked = 0
    for topic, columns in spec.get("columns", {}).items():
        file_glob = f"{out.rstrip('/')}/**/{topic.strip('/').replace('/', '.')}*.parquet"
        for col, path, kind in columns:
            # A time is a microsecond timestamp and its exact nanoseconds in COL_ns.
            expr = f'"{col}_ns", epoch_us("{col}")' if kind == "time" else f'"{col}"'
            rows = con.execute(
                f"select log_time_ns, epoch_us(log_time), {expr} from read_parquet('{file_glob}', hive_partitioning=true) order by log_time_ns"
            ).fetchall()
            want = msgs[topic]
            if len(rows) != len(want):
                fail(f"{topic}: {len(rows)} rows, want {len(want)}")
            got_vals, want_vals = [], []
            for row, (wt, m) in zip(rows, want):
                t, t_us, v = row[0], row[1], row[2]
                if t_us != t // 1000:
                    fail(f"{topic}: log_time {t_us} us, log_time_ns {t}")
                if kind == "time" and row[3] != v // 1000:
                    fail(f"{topic} {col}: {row[3]} us, {col}_ns {v}")
                w = field(m, path)
                if kind in ("time", "duration"):
                    w = w.to_nsec()
                elif kind == "bytes":
                    w = bytes(w) if not isinstance(w, str) else w.encode("latin-1")
                    v = bytes(v)
                elif kind == "list":
                    w = [canon(x) for x in w]
                    v = [canon(x) for x in v]
                elif kind == "float":
                    w = canon(float(w))
                    v = canon(float(v))
                else:
                    w = canon(w)
                    v = canon(v)
                got_vals.append((t, repr(v)))
                want_vals.append((wt, repr(w)))
            got_vals.sort()
            want_vals.sort()
            for g, w in zip(got_vals, want_vals):
                if g != w:
                    fail(f"{topic} {col}: parquet {g}, official {w}")
                checked += 1
    print(json.dumps({"topics": len(counts), "rows": sum(counts.values()), "values": checked}))


def main():
    args = sys.argv[1:]
    if args and args[0] == "probe":
        import duckdb  # noqa: F401
        import mcap  # noqa: F401
        import mcap_ros1  # noqa: F401
        import rosbag  # noqa: F401

        return
    if len(args) >= 3 and args[0] == "mcap":
        check_mcap(args[1], args[2:])
    elif len(args) >= 4 and args[0] == "parquet":
        check_parquet(args[1], args[2], args[3:])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
