#!/usr/bin/python3
"""Writes a large, realistic ROS1 bag for benchmarks.

    /usr/bin/python3 benches/make_big_bag.py --size-mb 1100 --compression lz4 --out bench-data/big_lz4.bag

Runs with Debian's ROS1 Python packages (python3-rosbag, python3-roslz4 and the message packages
sensor_msgs, geometry_msgs, nav_msgs, tf2_msgs, rosgraph_msgs, std_msgs) under /usr/bin/python3. (The oracle
venv has no message packages, and its rosbag-standalone writes one LZ4 frame per write() call instead of one
per chunk, so it is not used.) The bag is written by the official rosbag.Bag writer with 768 KiB chunks (the
`rosbag record` default), so a chunk holds about one camera image plus the small messages around it; lz4 is
Debian's roslz4 (one frame per chunk), bz2 is Python's bz2 module, as in `rosbag record -j`/`--lz4`.

Content (simulated robot, time advancing from a fixed start, as long as needed to reach --size-mb):
  /camera/image_raw      sensor_msgs/Image        10 Hz  640x480 rgb8 (a scrolling scene + sensor noise) - most bytes
  /camera/camera_info    sensor_msgs/CameraInfo   10 Hz
  /lidar/points          sensor_msgs/PointCloud2  10 Hz  8192 points x,y,z,intensity (16 rings x 512)
  /scan                  sensor_msgs/LaserScan    10 Hz  720 beams
  /imu/data              sensor_msgs/Imu         200 Hz
  /odom                  nav_msgs/Odometry        50 Hz
  /tf                    tf2_msgs/TFMessage       50 Hz (/base_driver) + 30 Hz (/robot_state_publisher)
  /tf_static             tf2_msgs/TFMessage       latched, once
  /cmd_vel               geometry_msgs/Twist      20 Hz
  /gps/fix               sensor_msgs/NavSatFix     5 Hz
  /battery               sensor_msgs/BatteryState  1 Hz
  /rosout                rosgraph_msgs/Log         ~1 Hz, from 3 nodes (3 connections)
Per simulated second about 11 MB in ~400 messages.

Speed: the big payloads (images, clouds, scans) come from small pools serialised once; per message only the
header (seq, stamp) is patched in the serialised bytes. Small messages are built and serialised normally.
Seeded (--seed), fixed start time: the same arguments and package versions give the same file.
"""
import argparse
import io
import math
import os
import random
import struct
import sys
import time

import genpy
import rosbag
from geometry_msgs.msg import (Point, Pose, PoseWithCovariance, Quaternion, Transform, TransformStamped, Twist,
                               TwistWithCovariance, Vector3)
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Log
from sensor_msgs.msg import (BatteryState, CameraInfo, Image, Imu, LaserScan, NavSatFix, NavSatStatus,
                             PointCloud2, PointField)
from std_msgs.msg import Header
from tf2_msgs.msg import TFMessage

T0_NS = 1710500000 * 10**9 + 125_000_000    # 2024-03-15T10:53:20.125Z
CHUNK = 768 * 1024


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def stamp(ns):
    return genpy.Time(ns // 10**9, ns % 10**9)


def ser(msg):
    b = io.BytesIO()
    msg.serialize(b)
    return b.getvalue()


def yaw_q(yaw):
    return Quaternion(0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


class Pool(object):
    """Pre-serialised messages that start with a std_msgs/Header; per use only seq and stamp change."""

    def __init__(self, payloads):
        self.tails = [p[12:] for p in payloads]
        self.i = 0

    def next(self, seq, t_ns):
        tail = self.tails[self.i % len(self.tails)]
        self.i += 1
        return struct.pack('<III', seq & 0xFFFFFFFF, t_ns // 10**9, t_ns % 10**9) + tail


class Writer(object):
    """The official rosbag.Bag writer with one connection per (topic, publisher), as `rosbag record`
    writes: the writer's per-topic connection slot is pointed at the right connection before each write."""

    def __init__(self, path, compression):
        self.bag = rosbag.Bag(path, 'w', compression=compression, chunk_threshold=CHUNK)
        self.conns = {}
        self.count = 0

    def write(self, topic, cls, payload, t_ns, callerid, latching=False):
        key = (topic, callerid)
        slots = self.bag._topic_connections
        header = None
        if key in self.conns:
            slots[topic] = self.conns[key]
        else:
            slots.pop(topic, None)
            header = {'callerid': callerid, 'latching': '1' if latching else '0', 'md5sum': cls._md5sum,
                      'message_definition': cls._full_text, 'topic': topic, 'type': cls._type}
        self.bag.write(topic, (cls._type, payload, cls._md5sum, cls), stamp(t_ns), raw=True,
                       connection_header=header)
        self.conns[key] = slots[topic]
        self.count += 1

    def tell(self):
        return self.bag._file.tell()

    def close(self):
        self.bag.close()


# ---------------------------------------------------------------------------------------------
# pools of big payloads
# ---------------------------------------------------------------------------------------------
W, H = 640, 480


def image_pool(rng, n):
    """n frames of a scene scrolling 12 px per frame, with 2-bit sensor noise."""
    span = W + 12 * n
    rows = []
    stripes = []
    x = 0
    while x < span:   # objects: vertical bands of random width and colour
        w = rng.randint(6, 60)
        stripes.append((x, x + w, (rng.randint(40, 220), rng.randint(40, 220), rng.randint(40, 220))))
        x += w + rng.randint(0, 40)
    horizon = H * 2 // 5
    for r in range(H):
        row = bytearray(span * 3)
        if r < horizon:
            sky = bytes((90 + r * 60 // horizon, 140 + r * 50 // horizon, 230))
            row[:] = sky * span
            top = horizon - 20 - (r * 7) % 90
            for a, b, col in stripes:
                if r >= top and (a // 7) % 3:
                    row[a * 3:min(b, span) * 3] = bytes(col) * (min(b, span) - a)
        else:
            g = 60 + (r - horizon) * 90 // (H - horizon)
            for c in range(0, span, 16):
                v = g + (12 if ((c // 16) + (r // 12)) % 2 else 0)
                row[c * 3:min(c + 16, span) * 3] = bytes((v, v, v - 8)) * (min(c + 16, span) - c)
        rows.append(bytes(row))
    low2 = bytes(i & 3 for i in range(256))
    frames = []
    for k in range(n):
        off = 12 * k * 3
        img = b''.join(row[off:off + W * 3] for row in rows)
        noise = rng.randbytes(len(img)).translate(low2)
        img = (int.from_bytes(img, 'little') ^ int.from_bytes(noise, 'little')).to_bytes(len(img), 'little')
        msg = Image(header=Header(0, stamp(0), 'camera_optical_frame'), height=H, width=W, encoding='rgb8',
                    is_bigendian=0, step=W * 3, data=img)
        frames.append(ser(msg))
    return Pool(frames)


def cloud_pool(rng, n):
    fields = [PointField('x', 0, PointField.FLOAT32, 1), PointField('y', 4, PointField.FLOAT32, 1),
              PointField('z', 8, PointField.FLOAT32, 1), PointField('intensity', 12, PointField.FLOAT32, 1)]
    out = []
    rings, steps = 16, 512
    for k in range(n):
        pts = []
        for ring in range(rings):
            el = math.radians(-15.0 + 2.0 * ring)
            for s in range(steps):
                az = -math.pi + 2 * math.pi * s / steps
                d = 9.0 + 4.0 * math.sin(3 * az + 0.3 * k) + rng.gauss(0, 0.02)
                pts.append(struct.pack('<4f', d * math.cos(el) * math.cos(az), d * math.cos(el) * math.sin(az),
                                       d * math.sin(el), 10.0 + ring * 5.0))
        data = b''.join(pts)
        out.append(ser(PointCloud2(header=Header(0, stamp(0), 'lidar'), height=rings, width=steps, fields=fields,
                                   is_bigendian=False, point_step=16, row_step=16 * steps, data=data,
                                   is_dense=True)))
    return Pool(out)


def scan_pool(rng, n):
    out = []
    beams = 720
    for k in range(n):
        ranges = []
        for b in range(beams):
            a = -math.pi + b * 2 * math.pi / beams
            d = 6.0 + 3.0 * math.cos(2 * a + 0.2 * k) + rng.gauss(0, 0.01)
            ranges.append(float('inf') if rng.random() < 0.02 else d)
        out.append(ser(LaserScan(header=Header(0, stamp(0), 'laser'), angle_min=-math.pi,
                                 angle_max=math.pi - 2 * math.pi / beams, angle_increment=2 * math.pi / beams,
                                 time_increment=0.1 / beams, scan_time=0.1, range_min=0.1, range_max=25.0,
                                 ranges=ranges, intensities=[47.0 if r != float('inf') else 0.0 for r in ranges])))
    return Pool(out)


# ---------------------------------------------------------------------------------------------
# main loop
# ---------------------------------------------------------------------------------------------
def generate(out, size_mb, compression, seed, quiet):
    rng = random.Random(seed)
    t_start = time.time()
    images, clouds, scans = image_pool(rng, 20), cloud_pool(rng, 10), scan_pool(rng, 10)
    if not quiet:
        print('payload pools ready in %.1f s' % (time.time() - t_start), file=sys.stderr)
    target = int(size_mb * 1024 * 1024)
    w = Writer(out, compression)
    seqs = {}

    def nseq(k):
        seqs[k] = seqs.get(k, -1) + 1
        return seqs[k]

    def hdr(k, t_ns, frame):
        return Header(seq=nseq(k), stamp=stamp(t_ns), frame_id=frame)

    # latched static transforms first
    st = TFMessage(transforms=[
        TransformStamped(header=Header(0, stamp(T0_NS - 5 * 10**9), p), child_frame_id=c,
                         transform=Transform(Vector3(*xyz), yaw_q(0.0)))
        for p, c, xyz in (('base_link', 'imu_link', (0.05, 0, 0.12)), ('base_link', 'laser', (0.12, 0, 0.3)),
                          ('base_link', 'lidar', (0.0, 0, 0.8)), ('base_link', 'camera_link', (0.25, 0, 0.5)))])
    w.write('/tf_static', TFMessage, ser(st), T0_NS + 1_000_000, '/robot_state_publisher', latching=True)

    cinfo = CameraInfo(height=H, width=W, distortion_model='plumb_bob', D=[-0.28, 0.08, 0.0004, -0.0003, 0.0],
                       K=[520.0, 0, 320.5, 0, 520.0, 240.5, 0, 0, 1], R=[1, 0, 0, 0, 1, 0, 0, 0, 1],
                       P=[520.0, 0, 320.5, 0, 0, 520.0, 240.5, 0, 0, 0, 1, 0])
    # (topic, period_ns, phase_ns, latency_ns)
    schedule = [('img', 100_000_000, 33_000_000, 9_000_000), ('cinfo', 100_000_000, 33_000_000, 9_100_000),
                ('pc', 100_000_000, 71_000_000, 6_000_000), ('scan', 100_000_000, 52_000_000, 2_500_000),
                ('imu', 5_000_000, 1_300_000, 600_000), ('odom', 20_000_000, 7_000_000, 1_200_000),
                ('tf', 20_000_000, 7_000_000, 1_400_000), ('tf_rsp', 33_333_333, 11_000_000, 900_000),
                ('cmd', 50_000_000, 19_000_000, 400_000), ('gps', 200_000_000, 131_000_000, 30_000_000),
                ('bat', 1_000_000_000, 511_000_000, 800_000), ('log', 1_000_000_000, 733_000_000, 1_000_000)]
    nodes = ['/base_driver', '/camera_driver', '/lidar_driver']
    window = 100_000_000
    win = 0
    x = y = yaw = 0.0
    done = False
    while not done:
        lo, hi = T0_NS + win * window, T0_NS + (win + 1) * window
        batch = []
        for name, period, phase, lat in schedule:
            first = max(0, -(-(lo - T0_NS - phase) // period))
            t = T0_NS + phase + first * period
            while t < hi:
                batch.append((t + lat + rng.randint(0, lat // 4), t, name))
                t += period
        batch.sort()
        for recv, t, name in batch:
            ts = (t - T0_NS) / 1e9
            v, wz = 1.2 + 0.3 * math.sin(ts / 7.0), 0.15 * math.sin(ts / 11.0)
            yaw = 1.65 * (1 - math.cos(ts / 11.0))   # integral of wz
            if name == 'img':
                w.write('/camera/image_raw', Image, images.next(nseq('img'), t), recv, '/camera_driver')
            elif name == 'cinfo':
                cinfo.header = hdr('cinfo', t, 'camera_optical_frame')
                w.write('/camera/camera_info', CameraInfo, ser(cinfo), recv, '/camera_driver')
            elif name == 'pc':
                w.write('/lidar/points', PointCloud2, clouds.next(nseq('pc'), t), recv, '/lidar_driver')
            elif name == 'scan':
                w.write('/scan', LaserScan, scans.next(nseq('scan'), t), recv, '/laser_driver')
            elif name == 'imu':
                m = Imu(header=hdr('imu', t, 'imu_link'), orientation=yaw_q(yaw + rng.gauss(0, 0.002)),
                        orientation_covariance=[0.0025, 0, 0, 0, 0.0025, 0, 0, 0, 0.0025],
                        angular_velocity=Vector3(rng.gauss(0, 0.004), rng.gauss(0, 0.004), wz + rng.gauss(0, 0.004)),
                        angular_velocity_covariance=[2e-5, 0, 0, 0, 2e-5, 0, 0, 0, 2e-5],
                        linear_acceleration=Vector3(rng.gauss(0, 0.1), v * wz + rng.gauss(0, 0.1),
                                                    9.80665 + rng.gauss(0, 0.1)),
                        linear_acceleration_covariance=[1.7e-3, 0, 0, 0, 1.7e-3, 0, 0, 0, 1.7e-3])
                w.write('/imu/data', Imu, ser(m), recv, '/imu_node')
            elif name == 'odom':
                x += v * math.cos(yaw) * 0.02
                y += v * math.sin(yaw) * 0.02
                m = Odometry(header=hdr('odom', t, 'odom'), child_frame_id='base_link',
                             pose=PoseWithCovariance(pose=Pose(Point(x, y, 0.0), yaw_q(yaw))),
                             twist=TwistWithCovariance(twist=Twist(Vector3(v, 0, 0), Vector3(0, 0, wz))))
                w.write('/odom', Odometry, ser(m), recv, '/base_driver')
            elif name == 'tf':
                m = TFMessage(transforms=[TransformStamped(header=hdr('tf', t, 'odom'), child_frame_id='base_link',
                                                           transform=Transform(Vector3(x, y, 0), yaw_q(yaw)))])
                w.write('/tf', TFMessage, ser(m), recv, '/base_driver')
            elif name == 'tf_rsp':
                s = nseq('tf_rsp')
                ang = (v * ts / 0.1) % (2 * math.pi)
                m = TFMessage(transforms=[
                    TransformStamped(header=Header(s, stamp(t), 'base_link'), child_frame_id=c,
                                     transform=Transform(Vector3(0, side, 0.05),
                                                         Quaternion(0, math.sin(ang / 2), 0, math.cos(ang / 2))))
                    for c, side in (('left_wheel', 0.25), ('right_wheel', -0.25))])
                w.write('/tf', TFMessage, ser(m), recv, '/robot_state_publisher')
            elif name == 'cmd':
                w.write('/cmd_vel', Twist, ser(Twist(Vector3(round(v, 3), 0, 0), Vector3(0, 0, round(wz, 3)))),
                        recv, '/move_base')
            elif name == 'gps':
                m = NavSatFix(header=hdr('gps', t, 'gps_link'),
                              status=NavSatStatus(NavSatStatus.STATUS_FIX, NavSatStatus.SERVICE_GPS),
                              latitude=48.137 + y / 111133.0 + rng.gauss(0, 3e-6),
                              longitude=11.575 + x / 74300.0 + rng.gauss(0, 4e-6), altitude=519.0 + rng.gauss(0, 0.3),
                              position_covariance=[0.5, 0, 0, 0, 0.5, 0, 0, 0, 2.0],
                              position_covariance_type=NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN)
                w.write('/gps/fix', NavSatFix, ser(m), recv, '/gps_driver')
            elif name == 'bat':
                m = BatteryState(header=hdr('bat', t, 'base_link'), voltage=24.0 - ts * 1e-3, current=-4.2,
                                 charge=float('nan'), capacity=float('nan'), design_capacity=20.0,
                                 percentage=max(0.0, 0.9 - ts * 1e-4),
                                 power_supply_status=BatteryState.POWER_SUPPLY_STATUS_DISCHARGING,
                                 power_supply_health=BatteryState.POWER_SUPPLY_HEALTH_GOOD,
                                 power_supply_technology=BatteryState.POWER_SUPPLY_TECHNOLOGY_LION, present=True)
                w.write('/battery', BatteryState, ser(m), recv, '/battery_monitor')
            elif name == 'log':
                k = nseq('log')
                node = nodes[k % len(nodes)]
                m = Log(header=hdr('log' + node, t, ''), level=Log.WARN if k % 10 == 9 else Log.INFO, name=node,
                        msg='%s: heartbeat %d, %.1f s since start' % (node, k, ts), file='node.cpp',
                        function='spin', line=100 + k % 7, topics=['/rosout'])
                w.write('/rosout', Log, ser(m), recv, node)
        win += 1
        if w.tell() >= target:
            done = True
        elif not quiet and win % 50 == 0:
            el = time.time() - t_start
            print('  %.0f MB written, %d msgs, %.0f s simulated, %.1f s elapsed' % (
                w.tell() / 1e6, w.count, win * window / 1e9, el), file=sys.stderr)
    w.close()
    return w.count, win * window / 1e9


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--size-mb', type=float, default=1100.0, help='stop once the file reaches this size (MiB)')
    ap.add_argument('--compression', default='lz4', choices=['lz4', 'bz2', 'none'])
    ap.add_argument('--out', required=True)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('-q', '--quiet', action='store_true')
    a = ap.parse_args(argv)
    if a.compression == 'lz4':
        try:
            import roslz4  # noqa: F401
        except ImportError:
            sys.exit('lz4 needs Debian\'s python3-roslz4 (run with /usr/bin/python3)')
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    t0 = time.time()
    n, secs = generate(a.out, a.size_mb, a.compression, a.seed, a.quiet)
    el = time.time() - t0
    size = os.path.getsize(a.out)
    print('%s: %.1f MB, %d messages, %.1f s of data, compression %s, written in %.1f s (%.0f MB/s)' % (
        a.out, size / 1e6, n, secs, a.compression, el, size / 1e6 / el))


if __name__ == '__main__':
    main(sys.argv[1:])
