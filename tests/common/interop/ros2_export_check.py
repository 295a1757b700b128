#!/usr/bin/env python3
"""Check bagscope's Parquet and CSV exports of MCAP files and ROS 2 bags against a reference
dump made by the Python readers (`*.ref.jsonl` of ../shared/corpus-mcap: one JSON object per
message, `{"topic", "log_time_ns", "data"}`, after a header line).

    ros2_export_check.py probe
    ros2_export_check.py REF.jsonl PARQUET_DIR CSV_DIR

`probe` exits 0 when duckdb imports. Otherwise every topic of the dump must have a Parquet file
(`PARQUET_DIR/<topic without the leading slash, '/' as '.'>.parquet`, read with DuckDB) and a
CSV file (`CSV_DIR/<same>.csv`, as `export --format csv -t TOPIC` writes it) with the dump's
messages in order, and every value of the dump must equal the export's:

- Parquet: a field is a column of its name (nested messages flattened with `.`); arrays of
  primitives are lists, `uint8`/`char` arrays blobs, arrays of messages JSON text. float32
  values are compared after rounding both sides to float32.
- CSV (`rostopic echo -p` columns): `field.NAME`, arrays as `NAME0`, `NAME1`, ..., nested
  messages as `NAME.SUB`; booleans are 1/0; `uint8`/`char` arrays have no columns (as
  `rostopic echo -p`), so a list of small integers may be absent; the columns come from the
  first message, which must have every other leaf; every column must be a leaf of the dump.
  Messages of one log time may be in another order than the dump's.

Prints one JSON object (counts compared); exits 1 with the first difference on stderr.
"""
import base64
import binascii
import csv
import json
import math
import struct
import sys


def fail(what):
    sys.stderr.write(what + "\n")
    sys.exit(1)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same_number(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return int(a) == int(b)
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    # float32 fields: the dump may print the widened value, the export the shortest one.
    try:
        return f32(a) == f32(b)
    except OverflowError:
        return False


def blob(text):
    """The bytes a dump's base64 string holds, or None when it is not base64."""
    if not isinstance(text, str):
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def same(want, got):
    """Compares a dump value with an export value (Parquet form)."""
    if isinstance(want, str) and isinstance(got, (bytes, bytearray, list)):
        data = blob(want)
        return data is not None and list(data) == list(got)
    if isinstance(want, str) and want in SPECIAL and isinstance(got, float):
        return same_number(SPECIAL[want], got)
    if isinstance(want, dict):
        if isinstance(got, str):
            got = json.loads(got)
        if not isinstance(got, dict) or set(got) != set(want):
            return False
        return all(same(want[k], got[k]) for k in want)
    if isinstance(want, list):
        if isinstance(got, (bytes, bytearray)):
            got = list(got)
        if isinstance(got, str):
            got = json.loads(got)
        if not isinstance(got, list) or len(got) != len(want):
            return False
        return all(same(w, g) for w, g in zip(want, got))
    if isinstance(want, str):
        return want == got
    if want is None:
        return got is None
    if isinstance(got, (int, float, bool)):
        return same_number(want, got)
    return False


def leaves(prefix, value, out):
    """The CSV columns a dump value gives: `(column, value, maybe_blob)`."""
    if isinstance(value, dict) and set(value) == {"sec", "nsec"}:
        # A ROS1 time or duration: `rostopic echo -p` prints its nanoseconds.
        out.append((prefix, value["sec"] * 10**9 + value["nsec"], False))
    elif isinstance(value, dict):
        for k, v in value.items():
            leaves(f"{prefix}.{k}", v, out)
    elif isinstance(value, list):
        small = all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 256 for x in value)
        for i, v in enumerate(value):
            n = len(out)
            leaves(f"{prefix}{i}", v, out)
            if small:
                out[n:] = [(c, x, True) for c, x, _ in out[n:]]
    else:
        out.append((prefix, value, blob(value) is not None))


def same_cell(want, cell):
    if isinstance(want, str) and want in SPECIAL:
        return cell.lower() in (want, want.replace("inf", "infinity"))
    if isinstance(want, str):
        return want == cell
    if isinstance(want, bool):
        return cell == ("1" if want else "0") or cell == str(want)
    try:
        got = float(cell) if any(c in cell for c in ".eEn") else int(cell)
    except ValueError:
        return False
    return same_number(want, got)


def parquet_row(m, got, cols, counts):
    """Why a Parquet row is not the dump's message `m`, or None."""
    if got["log_time_ns"] != m["log_time_ns"]:
        return f"Parquet time {got['log_time_ns']}, dump {m['log_time_ns']}"
    flat = {}

    def flatten(prefix, v):
        if isinstance(v, dict) and set(v) == {"sec", "nsec"} and prefix in cols:
            # A ROS1 time: its exact nanoseconds are the `_ns` column.
            flat[prefix + "_ns"] = v["sec"] * 10**9 + v["nsec"]
        elif isinstance(v, dict) and not any(k == prefix for k in cols):
            for k, x in v.items():
                flatten(f"{prefix}.{k}" if prefix else k, x)
        else:
            flat[prefix] = v

    flatten("", m["data"])
    for k, want in flat.items():
        if k not in got:
            return f"no Parquet column {k!r} (columns: {cols})"
        if not same(want, got[k]):
            return f"Parquet {k} = {got[k]!r}, dump {want!r}"
    counts["parquet_values"] += len(flat)
    return None


def csv_row(m, header, line, counts, first):
    """Why a CSV row is not the dump's message `m`, or None. The columns come from the first
    message (as in `rostopic echo -p`): a later message's longer arrays lose their extra
    elements (bagscope warns), so only the first must have every leaf."""
    if line[0] != str(m["log_time_ns"]):
        return f"CSV time {line[0]}, dump {m['log_time_ns']}"
    row_cells = dict(zip(header, line))
    expected = []
    leaves("field", m["data"], expected)
    names = set()
    n = 0
    for col, want, maybe_blob in expected:
        names.add(col)
        if col not in row_cells:
            if maybe_blob or not first:
                continue
            return f"no CSV column {col!r}"
        if not same_cell(want, row_cells[col]):
            return f"CSV {col} = {row_cells[col]!r}, dump {want!r}"
        n += 1
    extra = [c for c in header[1:] if c not in names and row_cells.get(c, "") != ""]
    if extra:
        return f"CSV columns the dump does not have: {extra[:5]}"
    counts["csv_cells"] += n
    return None


def file_of(topic):
    return topic.lstrip("/").replace("/", ".")


def main():
    if sys.argv[1:] == ["probe"]:
        import duckdb  # noqa: F401

        return
    import duckdb

    ref, pq_dir, csv_dir = sys.argv[1:4]
    by_topic = {}
    with open(ref) as f:
        for line in f:
            m = json.loads(line)
            if m.get("kind") == "header":
                continue
            by_topic.setdefault(m["topic"], []).append(m)
    counts = {"messages": 0, "parquet_values": 0, "csv_cells": 0}
    for topic, msgs in sorted(by_topic.items()):
        name = file_of(topic)
        rel = duckdb.sql(
            f"select * from read_parquet('{pq_dir}/{name}.parquet') order by log_time_ns"
        )
        cols = rel.columns
        rows = rel.fetchall()
        if len(rows) != len(msgs):
            fail(f"{topic}: {len(rows)} Parquet rows, the dump has {len(msgs)} messages")
        with open(f"{csv_dir}/{name}.csv", newline="") as f:
            table = list(csv.reader(f))
        header, cells = table[0], table[1:]
        if len(cells) != len(msgs):
            fail(f"{topic}: {len(cells)} CSV rows, the dump has {len(msgs)} messages")
        for i, m in enumerate(msgs):
            # Ties (one log time) are in storage order in the dump, in another order in an
            # export: each message is matched with a row of its time.
            ties = [j for j in range(len(msgs)) if msgs[j]["log_time_ns"] == m["log_time_ns"]]
            tried = [parquet_row(m, dict(zip(cols, rows[j])), cols, counts) for j in ties]
            if None not in tried:
                fail(f"{topic} #{i}: " + " | ".join(tried))
            tried = [csv_row(m, header, cells[j], counts, j == 0) for j in ties]
            if None not in tried:
                fail(f"{topic} #{i}: " + " | ".join(tried))
            counts["messages"] += 1
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
