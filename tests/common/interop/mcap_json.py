#!/usr/bin/env python3
"""MCAP files with `json` channels, and their messages as Python's json.loads reads them.

    mcap_json.py write OUT.mcap   writes the fixture (mcap 1.6.0's Writer):
        /sample  jsonschema `demo.Sample`: nested objects, arrays of numbers, strings and
                 objects, int64 extremes, floats, booleans, unicode and escapes (5 messages)
        /free    no schema (schema id 0), messages of different shapes (3 messages)
        /bad     jsonschema `demo.Count`; its second message has a string where the schema
                 says integer, its third lacks a property and has one the schema does not (3)
        /loose   a jsonschema using `$ref` (not mapped): decoded without it (2 messages)
    mcap_json.py dump IN.mcap     one JSON line per message, in log-time order:
        {"topic": ..., "log_time": ns, "data": json.loads(message)}

Run with ~/.cache/bagscope-ci/venv/bin/python (mcap 1.6.0).
"""

import json
import sys

SAMPLE_SCHEMA = {
    "title": "demo.Sample",
    "type": "object",
    "properties": {
        "seq": {"type": "integer"},
        "stamp": {
            "type": "object",
            "properties": {"sec": {"type": "integer"}, "nsec": {"type": "integer"}},
        },
        "temperature": {"type": "number"},
        "ok": {"type": "boolean"},
        "label": {"type": "string"},
        "ranges": {"type": "array", "items": {"type": "number"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "pose": {
            "type": "object",
            "properties": {
                "position": {
                    "type": "object",
                    "properties": {
                        "x": {"type": "number"},
                        "y": {"type": "number"},
                        "z": {"type": "number"},
                    },
                },
                "frame": {"type": "string"},
            },
        },
        "points": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "v": {"type": "number"}},
            },
        },
        "flags": {"type": "array", "items": {"type": "boolean"}},
    },
    "required": ["seq", "stamp"],
}

LABELS = ["plain", "h\u00e9llo w\u00f6rld", "\u65e5\u672c\u8a9e \U0001F680", 'quote " and \\ back', "tab\tnew\nline"]


def sample(i):
    return {
        "seq": i,
        "stamp": {"sec": 1700000000 + i, "nsec": 250000000 * i},
        "temperature": [21.5, -3.25, 1e-7, 123456.789, 0.1][i],
        "ok": i % 2 == 0,
        "label": LABELS[i],
        "ranges": [[], [1.5], [0.5, 2.25, -1e300], [3.0, 4.0], [0.1, 0.2, 0.3]][i],
        "ids": [[1, 2, 3], [-9223372036854775808, 9223372036854775807], [], [0], [9007199254740993]][i],
        "tags": [["a"], [], ["\u00fc", "x y"], ["", "z"], ["end"]][i],
        "pose": {
            "position": {"x": 1.0 * i, "y": -0.5 * i, "z": 1.25},
            "frame": "map" if i % 2 else "odom",
        },
        "points": [{"name": "p%d" % k, "v": k * 0.5} for k in range(i)],
        "flags": [k % 2 == 0 for k in range(i + 1)],
    }


COUNT_SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer"}, "unit": {"type": "string"}},
}

LOOSE_SCHEMA = {
    "type": "object",
    "$defs": {"V": {"type": "object", "properties": {"x": {"type": "number"}}}},
    "properties": {"v": {"$ref": "#/$defs/V"}, "name": {"type": "string"}},
}


def write(out):
    from mcap.writer import Writer

    with open(out, "wb") as f:
        w = Writer(f)
        w.start(profile="", library="bagscope tests/common/interop/mcap_json.py")
        sample_id = w.register_schema(
            name="demo.Sample", encoding="jsonschema",
            data=json.dumps(SAMPLE_SCHEMA, indent=1).encode())
        count_id = w.register_schema(
            name="demo.Count", encoding="jsonschema", data=json.dumps(COUNT_SCHEMA).encode())
        loose_id = w.register_schema(
            name="demo.Loose", encoding="jsonschema", data=json.dumps(LOOSE_SCHEMA).encode())
        sample_ch = w.register_channel(topic="/sample", message_encoding="json", schema_id=sample_id)
        free = w.register_channel(topic="/free", message_encoding="json", schema_id=0)
        bad = w.register_channel(topic="/bad", message_encoding="json", schema_id=count_id)
        loose = w.register_channel(topic="/loose", message_encoding="json", schema_id=loose_id)
        t0 = 1_700_000_000_000_000_000
        messages = []
        for i in range(5):
            # ensure_ascii=True for some, raw UTF-8 for others: both are JSON.
            messages.append((sample_ch, t0 + i * 100_000_000,
                             json.dumps(sample(i), ensure_ascii=i % 2 == 0)))
        free_msgs = [
            '{"speed": 3, "name": "a", "nested": {"k": [1, 2.5]}, "big": 18446744073709551615}',
            '{"other": true, "list": [{"a": 1}, {"a": -2}], "empty": []}',
            '{"speed": 4.5, "text": "\\u00e9\\ud83d\\ude00"}',
        ]
        for i, text in enumerate(free_msgs):
            messages.append((free, t0 + 10_000_000 + i * 100_000_000, text))
        bad_msgs = [
            '{"count": 1, "unit": "m"}',
            '{"count": "2", "unit": "m"}',
            '{"unit": "m", "extra": 3}',
        ]
        for i, text in enumerate(bad_msgs):
            messages.append((bad, t0 + 20_000_000 + i * 100_000_000, text))
        for i, text in enumerate(['{"v": {"x": 1.5}, "name": "one"}', '{"v": {"x": -2.0}, "name": "two"}']):
            messages.append((loose, t0 + 30_000_000 + i * 100_000_000, text))
        for seq, (channel, t, text) in enumerate(sorted(messages, key=lambda m: m[1])):
            w.add_message(channel_id=channel, log_time=t, publish_time=t, sequence=seq,
                          data=text.encode("utf-8"))
        w.finish()


def dump(path):
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        for _schema, channel, message in make_reader(f).iter_messages(log_time_order=True):
            line = {"topic": channel.topic, "log_time": message.log_time,
                    "data": json.loads(message.data)}
            print(json.dumps(line, ensure_ascii=False))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "dump"):
        sys.exit(__doc__)
    (write if sys.argv[1] == "write" else dump)(sys.argv[2])
