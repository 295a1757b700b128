#!/usr/bin/env python3
"""Writes a bag of N sensor_msgs/Imu messages on /imu at 200 Hz with the official rosbag writer.

Used by the text-output benchmarks (docs/performance.md): `export --format csv` and `echo` against
`rostopic echo -p` / `rostopic echo -b` on the same file.

    /usr/bin/python3 benches/make_imu_bag.py --count 1000000 --out bench-data/imu_1m.bag
"""
import argparse
import math
import random

import rosbag
import rospy
from sensor_msgs.msg import Imu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--compression", default="none", choices=["none", "lz4", "bz2"])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    start = 1710500000.125
    m = Imu()
    m.header.frame_id = "imu_link"
    m.orientation_covariance = [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01]
    m.angular_velocity_covariance = [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001]
    m.linear_acceleration_covariance = [0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1]
    with rosbag.Bag(a.out, "w", compression=a.compression) as bag:
        for i in range(a.count):
            t = rospy.Time.from_sec(start + i / 200.0)
            m.header.seq = i
            m.header.stamp = t
            yaw = 0.001 * i
            m.orientation.z = math.sin(yaw / 2)
            m.orientation.w = math.cos(yaw / 2)
            m.angular_velocity.x = rnd.gauss(0, 0.01)
            m.angular_velocity.y = rnd.gauss(0, 0.01)
            m.angular_velocity.z = 0.2 + rnd.gauss(0, 0.01)
            m.linear_acceleration.x = rnd.gauss(0, 0.05)
            m.linear_acceleration.y = rnd.gauss(0, 0.05)
            m.linear_acceleration.z = 9.81 + rnd.gauss(0, 0.05)
            bag.write("/imu", m, t)


if __name__ == "__main__":
    main()
