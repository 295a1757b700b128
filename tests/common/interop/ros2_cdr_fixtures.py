#!/usr/bin/env python3
"""Writes tests/fixtures/ros2/cdr_types/ (a rosbag2 MCAP bag) and cdr_types.ref.jsonl.

Usage (from the repository root, with the CI venv that has rosbags 0.11.9 and numpy):
    ~/.cache/bagscope-ci/venv/bin/python tests/common/interop/ros2_cdr_fixtures.py

The bag covers the CDR cases bagscope's reader must get right: every primitive with odd sizes
before 2-, 4- and 8-byte values, bounded strings and sequences, fixed arrays of strings and of
messages, sequences of messages holding sequences, empty messages (one dummy byte), field
defaults, constants and comments in the definitions, both spellings of section names
(`MSG: pkg/Type`, `MSG: pkg/msg/Type`), a schema lacking its builtin_interfaces sections
(known builtins), big-endian payloads (`serialize_cdr(..., little_endian=False)`) and payloads
padded to 4 bytes as Fast-DDS writes them. Definitions are our own ros2msg texts (given to the
writer as msgdef), payloads and expected values are rosbags'. rosbags cannot serialize
`wstring`; those are covered by the unit tests.

The reference lines follow ../shared/corpus-mcap/README.md "Reference dumps": fields in
definition order, constants left out, uint8/byte/char arrays as base64, float32 as the shortest
text of the float32, NaN/Inf as "nan"/"inf"/"-inf", empty messages as {}. One deliberate
difference from rosbags: a scalar `byte` is written unsigned (0..255), as ROS 2 defines it
(rosidl maps `byte` to IDL `octet`; rosbags reads it as int8).
"""
from __future__ import annotations

import base64
import json
import math
import shutil
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / 'tests/fixtures/ros2'
BAG = OUT / 'cdr_types'
REF = OUT / 'cdr_types.ref.jsonl'
SEP = '=' * 80
PKG = 'cdr_fixture'

# Our types: (name, text). Texts use ROS 2 syntax: defaults, constants, comments.
TYPES = {
    'Point': 'float64 x\nfloat64 y\n',
    'Empty': '# no fields: one dummy byte in CDR\n',
    'Inner': 'string label\nPoint[] path\nuint8 flag\nint16[2] pair\n',
    'Prims': (
        '# every primitive, odd sizes before wider ones\n'
        'bool b\nint16 i16\nbyte by\nfloat64 f64\nchar ch\nint32 i32\nint8 i8\n'
        'uint64 u64\nuint8 u8\nfloat32 f32\nuint16 u16\nint64 i64\nuint32 u32\n'
        'string s\nbool last\n'
    ),
    'Bounded': (
        'string<=10 name\nint32[<=5] small\nstring<=4[<=3] tags\nfloat64[<=2] pair\n'
        'uint8[<=8] blob\nPoint[<=2] pts\nuint8 tail\n'
    ),
    'Arrays': (
        'string[3] names\nPoint[2] fixed_points\nPoint[] points\nInner[] inners\n'
        'uint8[] blob\nbyte[4] b4\nchar[2] c2\nbool[] flags\nfloat32[] f32s\n'
        'int64[2] i64s\nuint16[] u16s\nEmpty[] empties\nEmpty[2] two_empties\nuint8 end\n'
    ),
    'Defaults': (
        'int32 X=5 # a constant\nstring S="a # b"\nstring T=\'c\'\nbool B=true\n'
        'int32 x 5\nint32[] a [1, 2]\nstring s "hi # not a comment"  # a comment\n'
        'float64 f 1.5\nbool b true\nEmpty e\nuint8 u 7\n'
    ),
    'Stamped': (
        'std_msgs/Header header\nbuiltin_interfaces/Duration d\nPoint p\n'
    ),
}

HEADER_TEXT = 'builtin_interfaces/Time stamp\nstring frame_id\n'
TIME_TEXT = 'int32 sec\nuint32 nanosec\n'
DEPS = {
    'Prims': [],
    'Bounded': ['Point'],
    'Arrays': ['Point', 'Inner', 'Empty'],
    'Defaults': ['Empty'],
    'Stamped': ['Point'],
}


def msgdef(name: str) -> str:
    """The ros2msg text of a type: main text, then its dependencies (alternating spellings)."""
    parts = [TYPES[name]]
    for i, dep in enumerate(DEPS[name]):
        section = f'{PKG}/{dep}' if i % 2 == 0 else f'{PKG}/msg/{dep}'
        parts.append(f'{SEP}\nMSG: {section}\n{TYPES[dep]}')
    if name == 'Stamped':
        # The header's section, but no builtin_interfaces sections: those are known builtins.
        parts.append(f'{SEP}\nMSG: std_msgs/Header\n{HEADER_TEXT}')
    return '\n'.join(parts)


def typestore():
    store = get_typestore(Stores.ROS2_HUMBLE)
    types = {}
    for name, text in TYPES.items():
        types.update(get_types_from_msg(text, f'{PKG}/msg/{name}'))
    store.register(types)
    return store


def point(x, y, store):
    return store.types[f'{PKG}/msg/Point'](x=x, y=y)


def messages(store):
    """(type, [message objects]) per type."""
    t = store.types
    P = lambda x, y: point(x, y, store)  # noqa: E731
    E = t[f'{PKG}/msg/Empty']
    Inner = t[f'{PKG}/msg/Inner']
    out = {}
    out['Prims'] = [
        t[f'{PKG}/msg/Prims'](
            b=True, i16=-2, by=5, f64=-2.5, ch=200, i32=-(2**31), i8=-128,
            u64=2**64 - 1, u8=255, f32=np.float32(0.1), u16=65535, i64=-(2**63),
            u32=2**32 - 1, s='héllo', last=False,
        ),
        t[f'{PKG}/msg/Prims'](
            b=False, i16=32767, by=127, f64=float('nan'), ch=0, i32=7, i8=1, u64=0, u8=0,
            f32=np.float32('inf'), u16=0, i64=2**63 - 1, u32=0, s='', last=True,
        ),
        t[f'{PKG}/msg/Prims'](
            b=True, i16=0, by=0, f64=1e-300, ch=1, i32=0, i8=0, u64=1, u8=1,
            f32=np.float32(-3.4e38), u16=1, i64=0, u32=1, s='x' * 7, last=True,
        ),
    ]
    out['Bounded'] = [
        t[f'{PKG}/msg/Bounded'](
            name='ten chars!', small=np.array([1, -2, 3, -4, 5], dtype=np.int32),
            tags=['a', 'bb', 'cccc'], pair=np.array([0.5, -0.25]),
            blob=np.array([1, 2, 3], dtype=np.uint8), pts=[P(1, 2)], tail=9,
        ),
        t[f'{PKG}/msg/Bounded'](
            name='', small=np.array([], dtype=np.int32), tags=[], pair=np.array([]),
            blob=np.array([], dtype=np.uint8), pts=[], tail=0,
        ),
    ]
    out['Arrays'] = [
        t[f'{PKG}/msg/Arrays'](
            names=['one', '', 'three'], fixed_points=[P(1, 2), P(3, 4)],
            points=[P(5, 6)],
            inners=[
                Inner(label='first', path=[P(0, 0), P(1, 1)], flag=1,
                      pair=np.array([-1, 1], dtype=np.int16)),
                Inner(label='', path=[], flag=0, pair=np.array([0, 0], dtype=np.int16)),
                Inner(label='third, longer label', path=[P(-1, -1)], flag=255,
                      pair=np.array([32767, -32768], dtype=np.int16)),
            ],
            blob=np.arange(11, dtype=np.uint8), b4=np.array([0, 1, 127, -128], dtype=np.int8),
            c2=np.array([65, 255], dtype=np.uint8), flags=np.array([True, False, True]),
            f32s=np.array([1.5, -0.1, 3e-5], dtype=np.float32),
            i64s=np.array([-1, 2**62], dtype=np.int64),
            u16s=np.array([1, 65535, 3], dtype=np.uint16),
            empties=[E(), E(), E()], two_empties=[E(), E()], end=42,
        ),
        t[f'{PKG}/msg/Arrays'](
            names=['', '', ''], fixed_points=[P(0, 0), P(0, 0)], points=[], inners=[],
            blob=np.array([], dtype=np.uint8), b4=np.zeros(4, dtype=np.int8),
            c2=np.zeros(2, dtype=np.uint8), flags=np.array([], dtype=bool),
            f32s=np.array([], dtype=np.float32), i64s=np.zeros(2, dtype=np.int64),
            u16s=np.array([], dtype=np.uint16), empties=[], two_empties=[E(), E()], end=0,
        ),
    ]
    out['Defaults'] = [
        t[f'{PKG}/msg/Defaults'](
            x=5, a=np.array([1, 2], dtype=np.int32), s='hi # not a comment', f=1.5, b=True,
            e=E(), u=7,
        ),
    ]
    Time = t['builtin_interfaces/msg/Time']
    Dur = t['builtin_interfaces/msg/Duration']
    Header = t['std_msgs/msg/Header']
    out['Stamped'] = [
        t[f'{PKG}/msg/Stamped'](
            header=Header(stamp=Time(sec=1700000000, nanosec=123456789), frame_id='map'),
            d=Dur(sec=-1, nanosec=999999999), p=P(0.1, -0.2),
        ),
    ]
    return out


def jv(v, node, store):
    """A rosbags value as a reference JSON value (see the module notes)."""
    kind, det = node
    if kind == 1:  # BASE
        typ = det[0]
        if typ == 'bool':
            return bool(v)
        if typ in ('float32', 'float64'):
            x = float(v)
            if math.isnan(x):
                return 'nan'
            if math.isinf(x):
                return 'inf' if x > 0 else '-inf'
            return float(str(np.float32(x))) if typ == 'float32' else x
        if typ == 'string':
            return str(v)
        if typ == 'byte':
            return int(v) & 0xFF
        return int(v)
    if kind == 2:  # NAME
        return jmsg(det, v, store)
    sub = det[0]
    if sub[0] == 1 and sub[1][0] in ('uint8', 'byte', 'char'):
        return base64.b64encode(np.asarray(v).astype(np.uint8).tobytes()).decode()
    return [jv(x, sub, store) for x in v]


def jmsg(typ, obj, store):
    fields = store.get_msgdef(typ).fields
    if len(fields) == 1 and fields[0][0] == 'structure_needs_at_least_one_member':
        return {}
    return {name: jv(getattr(obj, name), node, store) for name, node in fields}


def main():
    store = typestore()
    if BAG.exists():
        shutil.rmtree(BAG)
    OUT.mkdir(parents=True, exist_ok=True)
    lines = []
    stamp = 1_700_000_000_000_000_000
    with Writer(BAG, version=8, storage_plugin=StoragePlugin.MCAP) as writer:
        for name, msgs in messages(store).items():
            typ = f'{PKG}/msg/{name}'
            rihs = store.hash_rihs01(typ)
            topics = [(f'/{name.lower()}', 'le'), (f'/{name.lower()}/be', 'be')]
            if name in ('Prims', 'Arrays'):
                topics.append((f'/{name.lower()}/padded', 'padded'))
            for topic, how in topics:
                conn = writer.add_connection(topic, typ, msgdef=msgdef(name), rihs01=rihs)
                for m in msgs:
                    data = bytes(store.serialize_cdr(m, typ, little_endian=how != 'be'))
                    if how == 'padded':
                        # Fast-DDS pads payloads to a multiple of 4 (non-zero here: ignored).
                        data += b'\xee' * (-len(data) % 4)
                    back = store.deserialize_cdr(data, typ)
                    stamp += 1000
                    writer.write(conn, stamp, data)
                    lines.append({'topic': topic, 'log_time_ns': stamp,
                                  'data': jmsg(typ, back, store)})
    with REF.open('w') as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + '\n')
    print(f'{len(lines)} messages -> {BAG}, {REF}')


if __name__ == '__main__':
    main()
