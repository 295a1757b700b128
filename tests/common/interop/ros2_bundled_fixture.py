#!/usr/bin/env python3
"""Writes tests/fixtures/ros2/bundled/imu_no_defs/ (a rosbag2 .db3 bag without message
definitions, as ROS 2 before Jazzy records) and imu_no_defs.ref.jsonl.

Usage (from the repository root, with the CI venv that has rosbags 0.11.9 and numpy):
    ~/.cache/bagscope-ci/venv/bin/python tests/common/interop/ros2_bundled_fixture.py

rosbags writes a version 8 sqlite3 bag of sensor_msgs/msg/Imu (Humble typestore), then the
`message_definitions` table is dropped, so a reader must know the type by itself (bagscope: its
bundled ROS 2 Humble definitions). Reference lines as in ros2_cdr_fixtures.py: rosbags'
decoding of each stored payload.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ros2_cdr_fixtures import jmsg  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / 'tests/fixtures/ros2/bundled'
BAG = OUT / 'imu_no_defs'
REF = OUT / 'imu_no_defs.ref.jsonl'
TYP = 'sensor_msgs/msg/Imu'


def imu(store, i):
    t = store.types
    return t[TYP](
        header=t['std_msgs/msg/Header'](
            stamp=t['builtin_interfaces/msg/Time'](sec=1_700_000_000 + i, nanosec=1000 * i),
            frame_id='imu_link' if i % 2 else 'i',
        ),
        orientation=t['geometry_msgs/msg/Quaternion'](x=0.1 * i, y=-0.5, z=0.0, w=1.0),
        orientation_covariance=np.array([0.01 * (k + i) for k in range(9)]),
        angular_velocity=t['geometry_msgs/msg/Vector3'](x=i, y=-i, z=float('nan') if i == 2 else 0.25),
        angular_velocity_covariance=np.zeros(9),
        linear_acceleration=t['geometry_msgs/msg/Vector3'](x=0.0, y=0.0, z=9.81),
        linear_acceleration_covariance=np.array([-1.0] + [0.0] * 8),
    )


def main():
    store = get_typestore(Stores.ROS2_HUMBLE)
    if BAG.exists():
        shutil.rmtree(BAG)
    OUT.mkdir(parents=True, exist_ok=True)
    lines = []
    stamp = 1_700_000_000_000_000_000
    with Writer(BAG, version=8, storage_plugin=StoragePlugin.SQLITE3) as writer:
        conn = writer.add_connection('/imu', TYP, typestore=store)
        for i in range(5):
            data = bytes(store.serialize_cdr(imu(store, i), TYP))
            stamp += 10_000_000
            writer.write(conn, stamp, data)
            back = store.deserialize_cdr(data, TYP)
            lines.append({'topic': '/imu', 'log_time_ns': stamp, 'data': jmsg(TYP, back, store)})
    for db in BAG.glob('*.db3'):
        con = sqlite3.connect(db)
        con.execute('DROP TABLE IF EXISTS message_definitions')
        con.commit()
        con.execute('PRAGMA journal_mode=DELETE')
        con.execute('PRAGMA page_size=1024')
        con.execute('VACUUM')
        con.close()
    with REF.open('w') as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + '\n')
    print(f'{len(lines)} messages -> {BAG}, {REF}')


if __name__ == '__main__':
    main()
