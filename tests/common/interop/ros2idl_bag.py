"""Writes tests/fixtures/ros2idl_bag/: a rosbag2 MCAP bag whose channels' schemas are the
ros2idl schemas of tests/fixtures/ros2idl/, with CDR messages rosbags serialized, and the
reference decoding `ros2idl_bag.ref.jsonl` (one JSON line per message: topic, log_time_ns,
data as rosbags deserializes the bytes it wrote).

    python ros2idl_bag.py FIXTURE_DIR

The types are rosbags' reading of the IDL (`#include` lines removed: rosbags 0.11.9 cannot
parse them); the schema stored in the bag is the IDL as it is. Values are deterministic and
differ from field to field and message to message (extremes of each integer type included;
`byte` and `char` stay below 128, where rosbags, which packs a `byte` as a signed char, and
ROS 2, whose `byte` is an unsigned octet, agree).
"""

import dataclasses
import collections
import json
import shutil
import sys
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_idl, get_typestore

SEP = '=' * 80 + '\n'

TOPICS = [
    ('/rosout', 'rcl_interfaces/msg/Log'),
    ('/parameter_events', 'rcl_interfaces/msg/ParameterEvent'),
    ('/camera_info', 'sensor_msgs/msg/CameraInfo'),
    ('/image', 'sensor_msgs/msg/Image'),
    ('/pose', 'geometry_msgs/msg/PoseStamped'),
    ('/arrays', 'test_msgs/msg/Arrays'),
    ('/bounded', 'test_msgs/msg/BoundedSequences'),
    ('/unbounded', 'test_msgs/msg/UnboundedSequences'),
    ('/strings', 'test_msgs/msg/Strings'),
    ('/empty', 'test_msgs/msg/Empty'),
    ('/keyed', 'test_msgs/msg/ComplexNestedKey'),
    ('/hazard', 'autoware_auto_system_msgs/msg/HazardStatusStamped'),
]

INTS = {
    'int8': (8, True), 'uint8': (8, False), 'byte': (7, False), 'char': (7, False),
    'int16': (16, True), 'uint16': (16, False), 'int32': (32, True), 'uint32': (32, False),
    'int64': (64, True), 'uint64': (64, False),
}
DTYPES = {'bool': np.bool_, 'byte': np.uint8, 'char': np.uint8, 'float32': np.float32,
          'float64': np.float64}


class Counter:
    def __init__(self, seed):
        self.k = seed

    def next(self):
        self.k += 1
        return self.k


def base_value(name, bound, c):
    k = c.next()
    if name == 'bool':
        return k % 2 == 1
    if name in INTS:
        bits, signed = INTS[name]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        pick = k % 4
        return lo if pick == 0 else hi if pick == 1 else lo + (k * 7919) % (hi - lo + 1)
    if name == 'float32':
        return k * 0.25 - 3.5
    if name == 'float64':
        return k / 3.0 - 1e9
    if name == 'string':
        s = f'v{k} ü"x\\' if not bound else f'v{k}'
        return s[:bound] if bound else s
    raise ValueError(name)


def value(ts, typ, c, depth=0):
    kind, detail = typ
    kind = int(kind)
    if kind == 1:
        return base_value(detail[0], detail[1], c)
    if kind == 2:
        return message(ts, detail, c, depth + 1)
    elem, size = detail
    want = 2 if depth == 0 else 1
    count = size if kind == 3 else (min(size, want) if size else want)
    items = [value(ts, elem, c, depth) for _ in range(count)]
    ekind, edetail = elem
    if int(ekind) == 1 and edetail[0] != 'string':
        return np.array(items, dtype=DTYPES.get(edetail[0], edetail[0]))
    return items


def message(ts, msgtype, c, depth=0):
    _, fields = ts.fielddefs[msgtype]
    cls = ts.types[msgtype]
    return cls(**{name: value(ts, typ, c, depth) for name, typ in fields})


def plain(ts, v):
    if dataclasses.is_dataclass(v):
        _, fields = ts.fielddefs[v.__msgtype__]
        return {name: plain(ts, getattr(v, name)) for name, _ in fields}
    if isinstance(v, np.ndarray):
        return [plain(ts, x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [plain(ts, x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def main():
    fixtures = Path(sys.argv[1])
    ts = get_typestore(Stores.EMPTY)
    schemas = {}
    for _, msgtype in TOPICS:
        schema = (fixtures / 'ros2idl' / (msgtype.replace('/msg/', '__') + '.idl')).read_text()
        schemas[msgtype] = schema
        for part in schema.split(SEP)[1:]:
            header, text = part.split('\n', 1)
            if header.startswith('IDL: '):
                text = '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('#'))
                types = get_types_from_idl(text)
                ts.register({k: v for k, v in types.items() if k not in ts.fielddefs})
    out = fixtures / 'ros2idl_bag'
    shutil.rmtree(out, ignore_errors=True)
    refs = []
    with Writer(out, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conns = {}
        for topic, msgtype in TOPICS:
            conns[topic] = writer.add_connection(
                topic, msgtype, msgdef=schemas[msgtype], rihs01='RIHS01_' + '0' * 64)
        c = Counter(0)
        sizes = collections.Counter()
        t = 1_700_000_000_000_000_000
        for _ in range(2):
            for topic, msgtype in TOPICS:
                t += 1_000_000
                data = ts.serialize_cdr(message(ts, msgtype, c), msgtype)
                writer.write(conns[topic], t, data)
                back = ts.deserialize_cdr(data, msgtype)
                sizes[topic] += len(data)
                refs.append({'topic': topic, 'log_time_ns': t, 'data': plain(ts, back)})
    print(dict(sizes))
    with (fixtures / 'ros2idl_bag.ref.jsonl').open('w') as f:
        for r in refs:
            f.write(json.dumps(r, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
