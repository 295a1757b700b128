#!/usr/bin/env python3
"""Writes a large ROS 2 bag (rosbag2 directory, SQLite `.db3` storage, CDR) with rosbags'
writer, for the `.db3` benchmarks (docs/performance.md, docs/ros2-bags.md): first open (the
conversion), second open (the cache), `verify`, peak memory.

    $BAGSCOPE_EXPORT_PYTHON benches/make_ros2_db3.py --size-mb 1500 --out bench-data/ros2_db3

A simulated robot: /camera/image_raw sensor_msgs/msg/Image 640x480 mono8 (307 KB) 30 Hz,
/lidar/points sensor_msgs/msg/PointCloud2 (4096 points, 64 KiB) 10 Hz, /imu/data
sensor_msgs/msg/Imu 200 Hz, /tf tf2_msgs/msg/TFMessage 50 Hz, /rosout rcl_interfaces/msg/Log
1 Hz; ~10.5 MB per simulated second. Timestamps are receive times with up to 3 ms of jitter,
rows inserted in publishing order, as a recorder with several subscriptions writes them: the
`messages` table is *not* in timestamp order (rosbags' writer makes the `timestamp_idx`
index, like rosbag2 since Foxy). `--no-index` drops that index afterwards (a bag as older
writers left it). Needs `rosbags` (the venv `.ci/run` makes has it). Same arguments, same file.
"""
import argparse
import random
import shutil
import sqlite3
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-index", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    ts = get_typestore(Stores.ROS2_HUMBLE)
    T = ts.types
    Time = T["builtin_interfaces/msg/Time"]
    Header = T["std_msgs/msg/Header"]
    Quat = T["geometry_msgs/msg/Quaternion"]
    Vec3 = T["geometry_msgs/msg/Vector3"]
    Imu = T["sensor_msgs/msg/Imu"]
    Image = T["sensor_msgs/msg/Image"]
    TfMsg = T["tf2_msgs/msg/TFMessage"]
    Tfs = T["geometry_msgs/msg/TransformStamped"]
    Transform = T["geometry_msgs/msg/Transform"]
    Pc2 = T["sensor_msgs/msg/PointCloud2"]
    PField = T["sensor_msgs/msg/PointField"]
    Log = T["rcl_interfaces/msg/Log"]
    rnd = random.Random(a.seed)
    rng = np.random.default_rng(a.seed)
    out = Path(a.out)
    if out.exists():
        shutil.rmtree(out)
    start_ns = 1710500000_125000000
    cov = np.array([0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01], dtype=np.float64)
    fields = [PField(name=n, offset=4 * i, datatype=7, count=1) for i, n in enumerate("xyz")] + [
        PField(name="intensity", offset=12, datatype=7, count=1)
    ]
    cloud = np.frombuffer(rng.random(4096 * 4, dtype=np.float32).tobytes(), dtype=np.uint8)
    pixels = [rng.integers(0, 255, 640 * 480, dtype=np.uint8) for _ in range(4)]
    limit = a.size_mb << 20
    written = 0

    def stamp(t):
        return Time(sec=t // 1_000_000_000, nanosec=t % 1_000_000_000)

    def recv(t):
        return t + rnd.randrange(0, 3_000_000)

    with Writer(out, version=8, storage_plugin=StoragePlugin.SQLITE3) as w:
        imu = w.add_connection("/imu/data", Imu.__msgtype__, typestore=ts)
        cam = w.add_connection("/camera/image_raw", Image.__msgtype__, typestore=ts)
        pc = w.add_connection("/lidar/points", Pc2.__msgtype__, typestore=ts)
        tf = w.add_connection("/tf", TfMsg.__msgtype__, typestore=ts)
        ro = w.add_connection("/rosout", Log.__msgtype__, typestore=ts)
        tick = 0
        while written < limit:
            t = start_ns + tick * 5_000_000  # 200 Hz ticks
            q = Quat(x=0.0, y=0.0, z=0.0, w=1.0)
            m = Imu(
                header=Header(stamp=stamp(t), frame_id="imu_link"),
                orientation=q,
                orientation_covariance=cov,
                angular_velocity=Vec3(x=rnd.gauss(0, 0.01), y=rnd.gauss(0, 0.01), z=0.0),
                angular_velocity_covariance=cov,
                linear_acceleration=Vec3(x=rnd.gauss(0, 0.05), y=0.0, z=9.81),
                linear_acceleration_covariance=cov,
            )
            batch = [(imu, recv(t), ts.serialize_cdr(m, Imu.__msgtype__))]
            if tick % 4 == 0:
                f = TfMsg(
                    transforms=[
                        Tfs(
                            header=Header(stamp=stamp(t), frame_id="odom"),
                            child_frame_id="base_link",
                            transform=Transform(translation=Vec3(x=tick * 1e-3, y=0.0, z=0.0), rotation=q),
                        )
                    ]
                )
                batch.append((tf, recv(t), ts.serialize_cdr(f, TfMsg.__msgtype__)))
            if tick % 7 == 0:  # ~28.6 Hz
                img = Image(
                    header=Header(stamp=stamp(t), frame_id="camera"),
                    height=480,
                    width=640,
                    encoding="mono8",
                    is_bigendian=0,
                    step=640,
                    data=pixels[(tick // 7) % len(pixels)],
                )
                batch.append((cam, recv(t), ts.serialize_cdr(img, Image.__msgtype__)))
            if tick % 20 == 0:
                p = Pc2(
                    header=Header(stamp=stamp(t), frame_id="lidar"),
                    height=1,
                    width=4096,
                    fields=fields,
                    is_bigendian=False,
                    point_step=16,
                    row_step=16 * 4096,
                    data=cloud,
                    is_dense=True,
                )
                batch.append((pc, recv(t), ts.serialize_cdr(p, Pc2.__msgtype__)))
            if tick % 200 == 0:
                l = Log(
                    stamp=stamp(t),
                    level=20,
                    name="planner",
                    msg=f"tick {tick // 200}",
                    file="planner.cpp",
                    function="step",
                    line=42,
                )
                batch.append((ro, recv(t), ts.serialize_cdr(l, Log.__msgtype__)))
            for conn, when, data in batch:
                w.write(conn, when, data)
                written += len(data)
            tick += 1
    if a.no_index:
        db = next(out.glob("*.db3"))
        c = sqlite3.connect(db)
        c.execute("DROP INDEX IF EXISTS timestamp_idx")
        c.commit()
        c.execute("VACUUM")
        c.close()


if __name__ == "__main__":
    main()
