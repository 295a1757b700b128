#!/usr/bin/env python3
"""Writes a bag of N rosgraph_msgs/Log messages on /rosout (100 Hz, 12 nodes, every level) with the
official rosbag writer, beside a 10 Hz std_msgs/String topic that `log` must skip.

Used by the `log` benchmark (docs/performance.md): `bagscope log` against `rostopic echo -b BAG /rosout`.

    /usr/bin/python3 benches/make_log_bag.py --count 1000000 --out bench-data/log_1m.bag
"""
import argparse
import random

import rosbag
import rospy
from rosgraph_msgs.msg import Log
from std_msgs.msg import String

LEVELS = [Log.DEBUG] * 20 + [Log.INFO] * 70 + [Log.WARN] * 7 + [Log.ERROR] * 2 + [Log.FATAL]
WORDS = "planner path goal costmap obstacle timeout retry motor current battery frame tf lookup".split()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--compression", default="lz4", choices=["none", "lz4", "bz2"])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    start = 1710500000.125
    nodes = ["/node_%02d" % i for i in range(12)]
    texts = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 14))) for _ in range(500)]
    m = Log()
    s = String()
    with rosbag.Bag(a.out, "w", compression=a.compression) as bag:
        for i in range(a.count):
            t = rospy.Time.from_sec(start + i / 100.0)
            m.header.seq = i
            m.header.stamp = t
            m.level = rnd.choice(LEVELS)
            m.name = rnd.choice(nodes)
            m.msg = "%s (%d)" % (rnd.choice(texts), i)
            m.file = "src/%s.cpp" % m.name[1:]
            m.function = "Node::spin"
            m.line = 100 + i % 300
            m.topics = ["/rosout", "/cmd_vel"]
            bag.write("/rosout", m, t)
            if i % 10 == 0:
                s.data = "tick %d" % i
                bag.write("/chatter", s, t)


if __name__ == "__main__":
    main()
