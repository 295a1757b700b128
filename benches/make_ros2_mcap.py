#!/usr/bin/env python3
"""Writes a ROS 2 bag (rosbag2 directory, MCAP storage, CDR) with rosbags' writer, for the MCAP
and ROS 2 benchmarks (docs/performance.md): opening, `info`, decoding every message, plotting a
field of 1 M messages.

    $BAGSCOPE_EXPORT_PYTHON benches/make_ros2_mcap.py --seconds 5000 --out bench-data/ros2_1g

A simulated robot: /imu/data sensor_msgs/msg/Imu 200 Hz, /odom nav_msgs/msg/Odometry 50 Hz,
/tf tf2_msgs/msg/TFMessage 50 Hz, /lidar/points sensor_msgs/msg/PointCloud2 (4096 points,
64 KiB) 1 Hz, /rosout rcl_interfaces/msg/Log 1 Hz. 5000 s: 1 M Imu messages, about 1 GB.
Needs `rosbags` (the venv `.ci/run` makes has it). Same arguments, same file.
"""
import argparse
import math
import random
import shutil
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    ts = get_typestore(Stores.ROS2_HUMBLE)
    T = ts.types
    Time = T["builtin_interfaces/msg/Time"]
    Header = T["std_msgs/msg/Header"]
    Quat = T["geometry_msgs/msg/Quaternion"]
    Vec3 = T["geometry_msgs/msg/Vector3"]
    Point = T["geometry_msgs/msg/Point"]
    Pose = T["geometry_msgs/msg/Pose"]
    PoseCov = T["geometry_msgs/msg/PoseWithCovariance"]
    Twist = T["geometry_msgs/msg/Twist"]
    TwistCov = T["geometry_msgs/msg/TwistWithCovariance"]
    Imu = T["sensor_msgs/msg/Imu"]
    Odom = T["nav_msgs/msg/Odometry"]
    TfMsg = T["tf2_msgs/msg/TFMessage"]
    Tfs = T["geometry_msgs/msg/TransformStamped"]
    Transform = T["geometry_msgs/msg/Transform"]
    Pc2 = T["sensor_msgs/msg/PointCloud2"]
    PField = T["sensor_msgs/msg/PointField"]
    Log = T["rcl_interfaces/msg/Log"]
    rnd = random.Random(a.seed)
    out = Path(a.out)
    if out.exists():
        shutil.rmtree(out)
    start_ns = 1710500000_125000000
    cov = np.array([0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01], dtype=np.float64)
    cov36 = np.zeros(36, dtype=np.float64)
    fields = [PField(name=n, offset=4 * i, datatype=7, count=1) for i, n in enumerate("xyz")] + [
        PField(name="intensity", offset=12, datatype=7, count=1)
    ]
    cloud = np.frombuffer(np.random.default_rng(a.seed).random(4096 * 4, dtype=np.float32).tobytes(), dtype=np.uint8)
    levels = [10, 20, 20, 20, 30, 40]
    with Writer(out, version=8, storage_plugin=StoragePlugin.MCAP) as w:
        imu = w.add_connection("/imu/data", Imu.__msgtype__, typestore=ts)
        odom = w.add_connection("/odom", Odom.__msgtype__, typestore=ts)
        tf = w.add_connection("/tf", TfMsg.__msgtype__, typestore=ts)
        pc = w.add_connection("/lidar/points", Pc2.__msgtype__, typestore=ts)
        ro = w.add_connection("/rosout", Log.__msgtype__, typestore=ts)
        x = y = yaw = 0.0
        for tick in range(a.seconds * 200):
            t = start_ns + tick * 5_000_000
            stamp = Time(sec=t // 1_000_000_000, nanosec=t % 1_000_000_000)
            yaw += 0.0005 * math.sin(tick / 2000.0)
            q = Quat(x=0.0, y=0.0, z=math.sin(yaw / 2), w=math.cos(yaw / 2))
            m = Imu(
                header=Header(stamp=stamp, frame_id="imu_link"),
                orientation=q,
                orientation_covariance=cov,
                angular_velocity=Vec3(x=rnd.gauss(0, 0.01), y=rnd.gauss(0, 0.01), z=0.1 * math.sin(tick / 2000.0)),
                angular_velocity_covariance=cov,
                linear_acceleration=Vec3(x=rnd.gauss(0, 0.05), y=rnd.gauss(0, 0.05), z=9.81 + rnd.gauss(0, 0.05)),
                linear_acceleration_covariance=cov,
            )
            w.write(imu, t, ts.serialize_cdr(m, Imu.__msgtype__))
            if tick % 4 == 0:
                v = 1.0 + 0.5 * math.sin(tick / 5000.0)
                x += v * 0.02 * math.cos(yaw)
                y += v * 0.02 * math.sin(yaw)
                o = Odom(
                    header=Header(stamp=stamp, frame_id="odom"),
                    child_frame_id="base_link",
                    pose=PoseCov(pose=Pose(position=Point(x=x, y=y, z=0.0), orientation=q), covariance=cov36),
                    twist=TwistCov(
                        twist=Twist(linear=Vec3(x=v, y=0.0, z=0.0), angular=Vec3(x=0.0, y=0.0, z=0.0)),
                        covariance=cov36,
                    ),
                )
                w.write(odom, t, ts.serialize_cdr(o, Odom.__msgtype__))
                f = TfMsg(
                    transforms=[
                        Tfs(
                            header=Header(stamp=stamp, frame_id="odom"),
                            child_frame_id="base_link",
                            transform=Transform(translation=Vec3(x=x, y=y, z=0.0), rotation=q),
                        )
                    ]
                )
                w.write(tf, t, ts.serialize_cdr(f, TfMsg.__msgtype__))
            if tick % 200 == 0:
                p = Pc2(
                    header=Header(stamp=stamp, frame_id="lidar"),
                    height=1,
                    width=4096,
                    fields=fields,
                    is_bigendian=False,
                    point_step=16,
                    row_step=16 * 4096,
                    data=cloud,
                    is_dense=True,
                )
                w.write(pc, t, ts.serialize_cdr(p, Pc2.__msgtype__))
                lv = levels[(tick // 200) % len(levels)]
                l = Log(
                    stamp=stamp,
                    level=lv,
                    name="planner",
                    msg=f"tick {tick // 200}: level {lv}",
                    file="planner.cpp",
                    function="step",
                    line=42,
                )
                w.write(ro, t, ts.serialize_cdr(l, Log.__msgtype__))


if __name__ == "__main__":
    main()
