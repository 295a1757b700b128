#!/usr/bin/python3
"""Writes assets/demo.bag, the bag bagscope opens when it is started without a file.

    /usr/bin/python3 assets/make_demo_bag.py [--out assets/demo.bag] [--chunk-kib 160]

Needs Debian's ROS1 Python packages (python3-rosbag, python3-roslz4 and the message packages
sensor_msgs, geometry_msgs, nav_msgs, tf2_msgs, rosgraph_msgs, std_msgs). The bag is written by the
official rosbag.Bag writer with lz4 compression (roslz4: one LZ4 frame per chunk).

A differential-drive robot drives a short loop through a hall for 24 s: it waits, accelerates,
drives straight, turns left, drives straight, arcs right and stops. Every sensor topic is derived
from that one simulated state, so the topics agree with each other (odometry, tf, IMU yaw rate,
GPS track, the laser scan and the camera picture all move together). The camera drops out for
2 s (12.0 s .. 14.0 s after the start), which the camera driver reports on /rosout.

Everything is seeded (random.Random(SEED)) and the start time is fixed, so two runs write
byte-identical files with the same package versions.
"""
import argparse
import io
import math
import os
import random
import struct
import sys

import genpy
import rosbag
from geometry_msgs.msg import (Point, Pose, PoseWithCovariance, Quaternion, Transform,
                               TransformStamped, Twist, TwistWithCovariance, Vector3)
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Log
from sensor_msgs.msg import (BatteryState, CameraInfo, Image, Imu, LaserScan, NavSatFix,
                             NavSatStatus, PointCloud2, PointField, RegionOfInterest)
from std_msgs.msg import Header, String
from tf2_msgs.msg import TFMessage

SEED = 20240314
T0_NS = 1710421200 * 10**9 + 250_000_000     # 2024-03-14T13:00:00.25Z
DURATION_S = 24.0
CAMERA_GAP = (12.0, 14.0)                    # seconds after T0 without camera frames
DT_MS = 1                                    # simulation step
CHUNK_KIB_DEFAULT = 160

# frames and geometry of the robot
WHEEL_RADIUS = 0.08
WHEEL_BASE = 0.42
LAT0, LON0, ALT0 = 48.1372260, 11.5754830, 519.6   # where the odom origin is (GPS antenna)
ODOM_HEADING_DEG = 28.0                            # odom x axis, counter-clockwise from east


# ---------------------------------------------------------------------------------------------
# time helpers
# ---------------------------------------------------------------------------------------------
def stamp(ns):
    return genpy.Time(ns // 10**9, ns % 10**9)


def s2ns(s):
    return int(round(s * 1e9))


# ---------------------------------------------------------------------------------------------
# simulated robot
# ---------------------------------------------------------------------------------------------
def command(t):
    """The velocity command (v m/s, w rad/s) the planner sends at time t (s after T0)."""
    if t < 1.0:
        return 0.0, 0.0
    if t < 3.0:
        return 0.6 * (t - 1.0) / 2.0, 0.0
    if t < 8.0:
        return 0.6, 0.0
    if t < 11.0:
        return 0.4, 0.52
    if t < 16.0:
        return 0.6, 0.0
    if t < 20.0:
        return 0.5, -0.38
    if t < 22.5:
        return 0.5 * (22.5 - t) / 2.5, 0.0
    return 0.0, 0.0


class Sim(object):
    """Integrates the robot at 1 kHz; query by time in ns after T0."""

    def __init__(self, rng):
        n = int(DURATION_S * 1000) + 2
        self.x, self.y, self.yaw = [0.0] * n, [0.0] * n, [0.0] * n
        self.v, self.w, self.acc = [0.0] * n, [0.0] * n, [0.0] * n
        self.wl, self.wr = [0.0] * n, [0.0] * n          # wheel angles
        x = y = yaw = v = w = 0.0
        wl = wr = 0.0
        tau = 0.25
        dt = DT_MS / 1000.0
        for i in range(n):
            vc, wc = command(i * dt)
            dv = (vc - v) * dt / tau
            v += dv
            w += (wc - w) * dt / tau
            x += v * math.cos(yaw) * dt
            y += v * math.sin(yaw) * dt
            yaw += w * dt
            wl += (v - w * WHEEL_BASE / 2) / WHEEL_RADIUS * dt
            wr += (v + w * WHEEL_BASE / 2) / WHEEL_RADIUS * dt
            self.x[i], self.y[i], self.yaw[i] = x, y, yaw
            self.v[i], self.w[i], self.acc[i] = v, w, dv / dt
            self.wl[i], self.wr[i] = wl, wr

    def at(self, t_ns):
        i = min(max(int(round(t_ns / 1e6)), 0), len(self.x) - 1)
        return i


# ---------------------------------------------------------------------------------------------
# the hall the robot drives through (odom frame, metres)
# ---------------------------------------------------------------------------------------------
WALLS = [((-4.0, -6.0), (16.0, -6.0)), ((16.0, -6.0), (16.0, 14.0)), ((16.0, 14.0), (-4.0, 14.0)),
         ((-4.0, 14.0), (-4.0, -6.0)),
         # shelves and a box
         ((3.0, -3.0), (7.0, -3.0)), ((7.0, -3.0), (7.0, -2.4)), ((7.0, -2.4), (3.0, -2.4)),
         ((3.0, -2.4), (3.0, -3.0)),
         ((10.0, 6.0), (13.0, 6.0)), ((13.0, 6.0), (13.0, 9.0)),
         ((1.0, 4.0), (1.8, 4.0)), ((1.8, 4.0), (1.8, 4.8)), ((1.8, 4.8), (1.0, 4.8)), ((1.0, 4.8), (1.0, 4.0))]
PILLARS = [((5.4, 2.5), 0.25), ((9.5, -1.0), 0.25), ((9.0, 3.5), 0.3), ((2.0, 9.0), 0.3)]
# camera landmarks: (x, y, radius, height, rgb)
LANDMARKS = [(5.4, 2.5, 0.25, 3.0, (200, 40, 40)), (9.5, -1.0, 0.25, 3.0, (40, 70, 200)),
             (9.0, 3.5, 0.3, 3.0, (230, 180, 30)), (2.0, 9.0, 0.3, 3.0, (40, 160, 60))]


def raycast(px, py, ang, max_range):
    """Distance to the first obstacle along the ray, or None."""
    dx, dy = math.cos(ang), math.sin(ang)
    best = None
    for (ax, ay), (bx, by) in WALLS:
        ex, ey = bx - ax, by - ay
        den = dx * ey - dy * ex
        if abs(den) < 1e-12:
            continue
        t = ((ax - px) * ey - (ay - py) * ex) / den
        u = ((ax - px) * dy - (ay - py) * dx) / den
        if t > 0 and 0 <= u <= 1 and (best is None or t < best):
            best = t
    for (cx, cy), r in PILLARS:
        fx, fy = px - cx, py - cy
        b = fx * dx + fy * dy
        c = fx * fx + fy * fy - r * r
        disc = b * b - c
        if disc >= 0:
            t = -b - math.sqrt(disc)
            if t > 0 and (best is None or t < best):
                best = t
    if best is not None and best > max_range:
        return None
    return best


# ---------------------------------------------------------------------------------------------
# message builders
# ---------------------------------------------------------------------------------------------
def quat(roll, pitch, yaw):
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return Quaternion(x=sr * cp * cy - cr * sp * sy, y=cr * sp * cy + sr * cp * sy,
                      z=cr * cp * sy - sr * sp * cy, w=cr * cp * cy + sr * sp * sy)


def tf(parent, child, t_ns, seq, xyz, rpy):
    return TransformStamped(header=Header(seq=seq, stamp=stamp(t_ns), frame_id=parent), child_frame_id=child,
                            transform=Transform(translation=Vector3(*xyz), rotation=quat(*rpy)))


STATIC_TFS = [  # parent, child, xyz, rpy
    ('base_footprint', 'base_link', (0.0, 0.0, 0.06), (0.0, 0.0, 0.0)),
    ('base_link', 'imu_link', (0.05, 0.0, 0.12), (0.0, 0.0, 0.0)),
    ('base_link', 'laser', (0.12, 0.0, 0.28), (0.0, 0.0, math.pi)),
    ('base_link', 'camera_link', (0.22, 0.0, 0.35), (0.0, 0.0, 0.0)),
    ('camera_link', 'camera_optical_frame', (0.0, 0.0, 0.0), (-math.pi / 2, 0.0, -math.pi / 2)),
    ('base_link', 'tof_link', (0.24, 0.0, 0.20), (0.0, 0.0, 0.0)),
    ('base_link', 'gps_link', (-0.10, 0.0, 0.45), (0.0, 0.0, 0.0)),
]

FONT = {  # 3x5 digits, rows top to bottom
    '0': ('111', '101', '101', '101', '111'), '1': ('010', '110', '010', '010', '111'),
    '2': ('111', '001', '111', '100', '111'), '3': ('111', '001', '111', '001', '111'),
    '4': ('101', '101', '111', '001', '001'), '5': ('111', '100', '111', '001', '111'),
    '6': ('111', '100', '111', '101', '111'), '7': ('111', '001', '010', '010', '010'),
    '8': ('111', '101', '111', '101', '111'), '9': ('111', '101', '111', '001', '111'),
}

IMG_W, IMG_H, HFOV = 64, 48, math.radians(62.0)
FX = (IMG_W / 2) / math.tan(HFOV / 2)
CAM_HEIGHT = 0.41


def render_frame(sim, i, seq):
    """64x48 rgb8 picture of the hall seen by the front camera: sky, a tiled floor that scrolls
    as the robot drives and turns, coloured pillars, and the frame number in the corner."""
    px, py, yaw = sim.x[i], sim.y[i], sim.yaw[i]
    cx, cy = px + 0.22 * math.cos(yaw), py + 0.22 * math.sin(yaw)
    horizon = IMG_H // 2 - 4
    buf = bytearray(IMG_W * IMG_H * 3)
    cos_y, sin_y = math.cos(yaw), math.sin(yaw)
    for r in range(IMG_H):
        if r < horizon:
            k = r / horizon
            row = bytes((int(95 + 70 * k), int(150 + 45 * k), int(225 + 15 * k))) * IMG_W
            buf[r * IMG_W * 3:(r + 1) * IMG_W * 3] = row
            continue
        dz = (r - horizon + 0.5) / FX           # ray slope below the horizon
        fwd = CAM_HEIGHT / dz
        for c in range(IMG_W):
            lat = -(c - IMG_W / 2 + 0.5) / FX * fwd
            wx = cx + fwd * cos_y - lat * sin_y
            wy = cy + fwd * sin_y + lat * cos_y
            tile = (math.floor(wx) + math.floor(wy)) & 1
            shade = 1.0 / (1.0 + 0.04 * fwd)
            base = 150 if tile else 105
            v = int(base * shade + 20)
            o = (r * IMG_W + c) * 3
            buf[o], buf[o + 1], buf[o + 2] = v, v, int(v * 0.92)
    # pillars, far ones first
    vis = []
    for lx, ly, rad, hgt, rgb in LANDMARKS:
        dx, dy = lx - cx, ly - cy
        fwd = dx * cos_y + dy * sin_y
        lat = -dx * sin_y + dy * cos_y
        if fwd < 0.3:
            continue
        vis.append((fwd, lat, rad, hgt, rgb))
    for fwd, lat, rad, hgt, rgb in sorted(vis, reverse=True):
        col = IMG_W / 2 - lat / fwd * FX
        half = max(rad / fwd * FX, 0.6)
        top = horizon - (hgt - CAM_HEIGHT) / fwd * FX
        bot = horizon + CAM_HEIGHT / fwd * FX
        shade = 1.0 / (1.0 + 0.05 * fwd)
        for c in range(max(0, int(col - half)), min(IMG_W, int(col + half) + 1)):
            edge = 0.75 if abs(c + 0.5 - col) > 0.6 * half else 1.0
            for r in range(max(0, int(top)), min(IMG_H, int(bot) + 1)):
                o = (r * IMG_W + c) * 3
                buf[o], buf[o + 1], buf[o + 2] = (int(rgb[0] * shade * edge), int(rgb[1] * shade * edge),
                                                  int(rgb[2] * shade * edge))
    # frame number, white on a dark box
    text = '%04d' % seq
    for r in range(1, 8):
        for c in range(1, 2 + 4 * len(text)):
            o = (r * IMG_W + c) * 3
            buf[o:o + 3] = b'\x20\x20\x20'
    for k, ch in enumerate(text):
        for rr, bits in enumerate(FONT[ch]):
            for cc, bit in enumerate(bits):
                if bit == '1':
                    o = ((2 + rr) * IMG_W + 2 + 4 * k + cc) * 3
                    buf[o:o + 3] = b'\xf0\xf0\xf0'
    return bytes(buf)


def camera_info(hdr):
    fx = FX
    return CameraInfo(header=hdr, height=IMG_H, width=IMG_W, distortion_model='plumb_bob',
                      D=[-0.2846, 0.0812, 0.00041, -0.00027, 0.0],
                      K=[fx, 0.0, 31.7, 0.0, fx, 23.6, 0.0, 0.0, 1.0],
                      R=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                      P=[fx, 0.0, 31.7, 0.0, 0.0, fx, 23.6, 0.0, 0.0, 0.0, 1.0, 0.0],
                      binning_x=0, binning_y=0, roi=RegionOfInterest(0, 0, 0, 0, False))


# ---------------------------------------------------------------------------------------------
# writer: the official rosbag.Bag, with one connection per (topic, publisher) like `rosbag record`
# ---------------------------------------------------------------------------------------------
class RecorderLikeBag(object):
    """rosbag.Bag keys connections by topic only; `rosbag record` makes one connection per
    publisher. Before each write we point the writer's per-topic connection slot at the
    connection of this publisher (or clear it so the writer creates a new one). The connection
    header has the fields a subscriber receives, in std::map (alphabetical) order."""

    def __init__(self, path, compression, chunk_threshold):
        self.bag = rosbag.Bag(path, 'w', compression=compression, chunk_threshold=chunk_threshold)
        self.conns = {}
        self.count = 0

    def write(self, topic, msg, t_ns, callerid, latching=False):
        key = (topic, callerid)
        slots = self.bag._topic_connections
        header = None
        if key in self.conns:
            slots[topic] = self.conns[key]
        else:
            slots.pop(topic, None)
            cls = msg.__class__
            header = {'callerid': callerid, 'latching': '1' if latching else '0', 'md5sum': cls._md5sum,
                      'message_definition': cls._full_text, 'topic': topic, 'type': cls._type}
        self.bag.write(topic, msg, stamp(t_ns), connection_header=header)
        self.conns[key] = slots[topic]
        self.count += 1

    def close(self):
        self.bag.close()


# ---------------------------------------------------------------------------------------------
# the scenario
# ---------------------------------------------------------------------------------------------
def periodic(rate_hz, phase_s, start_s=0.0, end_s=DURATION_S):
    period = 1.0 / rate_hz
    k = 0
    while True:
        t = start_s + phase_s + k * period
        if t >= end_s:
            return
        yield k, t
        k += 1


def in_gap(t):
    return CAMERA_GAP[0] <= t < CAMERA_GAP[1]


def build_events(rng):
    """Returns [(receive_ns, order, topic, callerid, latching, msg)], sorted by receive time."""
    sim = Sim(rng)
    ev = []
    seqs = {}

    def nseq(name):
        seqs[name] = seqs.get(name, -1) + 1
        return seqs[name]

    def add(t_stamp_s, latency_s, topic, callerid, msg, latching=False):
        ev.append((T0_NS + s2ns(t_stamp_s + latency_s), len(ev), topic, callerid, latching, msg))

    def hdr(name, t_s, frame):
        return Header(seq=nseq(name), stamp=stamp(T0_NS + s2ns(t_s)), frame_id=frame)

    # --- /tf_static: latched, published when the robot came up 3.4 s before recording started
    ts = T0_NS - s2ns(3.4)
    add(0.0, 0.0123, '/tf_static', '/robot_state_publisher',
        TFMessage(transforms=[tf(p, c, ts, 0, xyz, rpy) for p, c, xyz, rpy in STATIC_TFS]), latching=True)

    # --- /imu/data 100 Hz
    gyro_bias = (0.0011, -0.0007, 0.0031)
    roll_s = pitch_s = 0.0
    for k, t in periodic(100.0, 0.0031):
        i = sim.at(s2ns(t))
        roll_s = 0.98 * roll_s + rng.gauss(0, 0.0008)
        pitch_s = 0.98 * pitch_s + rng.gauss(0, 0.0008) - 0.00004 * sim.acc[i]
        vibration = 0.02 + 0.12 * abs(sim.v[i])
        msg = Imu(header=hdr('imu', t, 'imu_link'),
                  orientation=quat(roll_s, pitch_s, sim.yaw[i] + rng.gauss(0, 0.002)),
                  orientation_covariance=[0.0025, 0, 0, 0, 0.0025, 0, 0, 0, 0.0025],
                  angular_velocity=Vector3(gyro_bias[0] + rng.gauss(0, 0.004),
                                           gyro_bias[1] + rng.gauss(0, 0.004),
                                           sim.w[i] + gyro_bias[2] + rng.gauss(0, 0.004)),
                  angular_velocity_covariance=[2e-5, 0, 0, 0, 2e-5, 0, 0, 0, 2e-5],
                  linear_acceleration=Vector3(sim.acc[i] + rng.gauss(0, vibration),
                                              sim.v[i] * sim.w[i] + rng.gauss(0, vibration),
                                              9.80665 + rng.gauss(0, vibration)),
                  linear_acceleration_covariance=[1.7e-3, 0, 0, 0, 1.7e-3, 0, 0, 0, 1.7e-3])
        add(t, rng.uniform(0.0004, 0.0016), '/imu/data', '/imu_node', msg)

    # --- /odom + /tf (odom -> base_footprint) 50 Hz from the base driver; same stamps
    for k, t in periodic(50.0, 0.0072):
        i = sim.at(s2ns(t))
        cov_p = [0.0] * 36
        cov_t = [0.0] * 36
        for d, val in ((0, 1e-3), (7, 1e-3), (14, 1e6), (21, 1e6), (28, 1e6), (35, 3e-3)):
            cov_p[d] = val
            cov_t[d] = val
        od = Odometry(header=hdr('odom', t, 'odom'), child_frame_id='base_footprint',
                      pose=PoseWithCovariance(pose=Pose(position=Point(sim.x[i], sim.y[i], 0.0),
                                                        orientation=quat(0, 0, sim.yaw[i])), covariance=cov_p),
                      twist=TwistWithCovariance(twist=Twist(linear=Vector3(sim.v[i], 0.0, 0.0),
                                                            angular=Vector3(0.0, 0.0, sim.w[i])),
                                                covariance=cov_t))
        add(t, rng.uniform(0.0008, 0.0021), '/odom', '/base_driver', od)
        tfm = TFMessage(transforms=[tf('odom', 'base_footprint', T0_NS + s2ns(t), nseq('tf_base'),
                                       (sim.x[i], sim.y[i], 0.0), (0.0, 0.0, sim.yaw[i]))])
        add(t, rng.uniform(0.0009, 0.0024), '/tf', '/base_driver', tfm)

    # --- /tf wheels 30 Hz from robot_state_publisher (second connection on /tf)
    for k, t in periodic(30.0, 0.0113):
        i = sim.at(s2ns(t))
        tn = T0_NS + s2ns(t)
        sq = nseq('tf_rsp')
        tfm = TFMessage(transforms=[
            tf('base_link', 'left_wheel_link', tn, sq, (0.0, WHEEL_BASE / 2, 0.02), (0.0, sim.wl[i] % (2 * math.pi), 0.0)),
            tf('base_link', 'right_wheel_link', tn, sq, (0.0, -WHEEL_BASE / 2, 0.02), (0.0, sim.wr[i] % (2 * math.pi), 0.0))])
        add(t, rng.uniform(0.0005, 0.0015), '/tf', '/robot_state_publisher', tfm)

    # --- /cmd_vel 10 Hz from the planner
    for k, t in periodic(10.0, 0.0204):
        v, w = command(t)
        add(t, rng.uniform(0.0003, 0.0009), '/cmd_vel', '/move_base',
            Twist(linear=Vector3(round(v, 4), 0.0, 0.0), angular=Vector3(0.0, 0.0, round(w, 4))))

    # --- /camera/image_raw + /camera/camera_info 5 Hz, with a 2 s drop-out
    for k, t in periodic(5.0, 0.0418):
        if in_gap(t):
            continue
        i = sim.at(s2ns(t))
        h = hdr('cam', t, 'camera_optical_frame')
        img = Image(header=h, height=IMG_H, width=IMG_W, encoding='rgb8', is_bigendian=0, step=IMG_W * 3,
                    data=render_frame(sim, i, h.seq))
        lat = rng.uniform(0.006, 0.011)
        add(t, lat, '/camera/image_raw', '/usb_cam', img)
        add(t, lat + 0.0002, '/camera/camera_info', '/usb_cam', camera_info(h))

    # --- /scan 10 Hz, 360 beams, rplidar style (inf where nothing is in range)
    n_beams = 360
    for k, t in periodic(10.0, 0.0655):
        i = sim.at(s2ns(t))
        yaw = sim.yaw[i]
        lx, ly = sim.x[i] + 0.12 * math.cos(yaw), sim.y[i] + 0.12 * math.sin(yaw)
        ranges, intens = [], []
        for b in range(n_beams):
            a = -math.pi + b * (2 * math.pi / n_beams)
            d = raycast(lx, ly, yaw + math.pi + a, 12.0)   # the laser is mounted backwards (yaw = pi)
            if d is None or d < 0.15 or rng.random() < 0.01:
                ranges.append(float('inf'))
                intens.append(0.0)
            else:
                ranges.append(d + rng.gauss(0, 0.008))
                intens.append(47.0)
        scan = LaserScan(header=hdr('scan', t, 'laser'), angle_min=-math.pi, angle_max=math.pi - 2 * math.pi / n_beams,
                         angle_increment=2 * math.pi / n_beams, time_increment=0.1 / n_beams, scan_time=0.1,
                         range_min=0.15, range_max=12.0, ranges=ranges, intensities=intens)
        add(t, rng.uniform(0.0015, 0.0035), '/scan', '/rplidar_node', scan)

    # --- /points 2 Hz: a small forward-looking time-of-flight cloud (x forward, z up)
    fields = [PointField(name='x', offset=0, datatype=PointField.FLOAT32, count=1),
              PointField(name='y', offset=4, datatype=PointField.FLOAT32, count=1),
              PointField(name='z', offset=8, datatype=PointField.FLOAT32, count=1),
              PointField(name='intensity', offset=12, datatype=PointField.FLOAT32, count=1)]
    for k, t in periodic(2.0, 0.0871):
        i = sim.at(s2ns(t))
        yaw = sim.yaw[i]
        sx, sy, sz = sim.x[i] + 0.24 * math.cos(yaw), sim.y[i] + 0.24 * math.sin(yaw), 0.26
        pts = []
        for col in range(48):
            az = math.radians(-45 + col * 90 / 47)
            d_h = raycast(sx, sy, yaw + az, 8.0)
            for row in range(10):
                el = math.radians(-20 + row * 30 / 9)
                if el < 0:
                    d_floor = sz / math.tan(-el)
                    hit_floor = d_h is None or d_floor < d_h
                else:
                    hit_floor = False
                if hit_floor:
                    dist = d_floor
                elif d_h is not None:
                    dist = d_h
                else:
                    continue
                if dist > 8.0:
                    continue
                dist += rng.gauss(0, 0.01)
                x = dist * math.cos(az)
                y = dist * math.sin(az)
                z = -sz if hit_floor else dist * math.tan(el)
                inten = (40.0 if hit_floor else 120.0) / (1.0 + 0.1 * dist)
                pts.append(struct.pack('<4f', x, y, z, inten))
        data = b''.join(pts)
        pc = PointCloud2(header=hdr('points', t, 'tof_link'), height=1, width=len(pts), fields=fields,
                         is_bigendian=False, point_step=16, row_step=16 * len(pts), data=data, is_dense=True)
        add(t, rng.uniform(0.004, 0.008), '/points', '/tof_camera', pc)

    # --- /gps/fix 5 Hz
    h0 = math.radians(ODOM_HEADING_DEG)
    walk_e = walk_n = 0.0
    m_per_deg_lat = 111132.9
    m_per_deg_lon = 111412.8 * math.cos(math.radians(LAT0))
    for k, t in periodic(5.0, 0.1302):
        i = sim.at(s2ns(t))
        walk_e = 0.97 * walk_e + rng.gauss(0, 0.08)
        walk_n = 0.97 * walk_n + rng.gauss(0, 0.08)
        ox, oy = sim.x[i] - 0.10 * math.cos(sim.yaw[i]), sim.y[i] - 0.10 * math.sin(sim.yaw[i])
        east = ox * math.cos(h0) - oy * math.sin(h0) + walk_e
        north = ox * math.sin(h0) + oy * math.cos(h0) + walk_n
        fix = NavSatFix(header=hdr('gps', t, 'gps_link'),
                        status=NavSatStatus(status=NavSatStatus.STATUS_SBAS_FIX if t > 6 else NavSatStatus.STATUS_FIX,
                                            service=NavSatStatus.SERVICE_GPS | NavSatStatus.SERVICE_GALILEO),
                        latitude=LAT0 + north / m_per_deg_lat, longitude=LON0 + east / m_per_deg_lon,
                        altitude=ALT0 + 0.45 + rng.gauss(0, 0.15),
                        position_covariance=[0.36, 0, 0, 0, 0.36, 0, 0, 0, 1.44],
                        position_covariance_type=NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN)
        add(t, rng.uniform(0.020, 0.045), '/gps/fix', '/gps_driver', fix)

    # --- /battery 1 Hz
    for k, t in periodic(1.0, 0.5117):
        i = sim.at(s2ns(t))
        current = -(1.9 + 2.6 * abs(sim.v[i]) + 1.2 * abs(sim.acc[i]) + rng.gauss(0, 0.05))
        pct = 0.256 - 0.0004 * t
        cell = 3.62 + 0.4 * pct + current * 0.004
        cells = [round(cell + rng.gauss(0, 0.004), 3) for _ in range(6)]
        bat = BatteryState(header=hdr('bat', t, 'base_link'), voltage=sum(cells), temperature=31.5 + 0.02 * t,
                           current=current, charge=float('nan'), capacity=float('nan'), design_capacity=10.0,
                           percentage=pct, power_supply_status=BatteryState.POWER_SUPPLY_STATUS_DISCHARGING,
                           power_supply_health=BatteryState.POWER_SUPPLY_HEALTH_GOOD,
                           power_supply_technology=BatteryState.POWER_SUPPLY_TECHNOLOGY_LIPO, present=True,
                           cell_voltage=cells, cell_temperature=[], location='base', serial_number='BAT-6S-0042')
        add(t, rng.uniform(0.0005, 0.002), '/battery', '/battery_monitor', bat)

    # --- /status 1 Hz, mission state as a string
    waypoints = [(1.0, 'wp 1/4'), (8.0, 'wp 2/4'), (11.0, 'wp 3/4'), (16.0, 'wp 4/4'), (22.5, None)]
    for k, t in periodic(1.0, 0.7373):
        i = sim.at(s2ns(t))
        wp = None
        for start, name in waypoints:
            if t >= start:
                wp = name
        if t < 1.0:
            state = 'state=IDLE mission=demo_loop'
        elif wp is None:
            state = 'state=DONE mission=demo_loop distance=%.2fm' % (sum(abs(v) for v in sim.v[:i]) / 1000.0)
        else:
            state = 'state=DRIVING mission=demo_loop %s speed=%.2f' % (wp, sim.v[i])
        add(t, rng.uniform(0.0003, 0.001), '/status', '/mission_manager', String(data=state))

    # --- /rosout: log lines from several nodes (one connection per node, as recorded)
    logs = [
        (0.048, '/base_driver', Log.INFO, 'Connected to motor controller on /dev/ttyACM0 (firmware 2.3.1)',
         'base_driver.cpp', 'BaseDriver::connect', 118, ['/odom', '/tf', '/rosout']),
        (0.112, '/rplidar_node', Log.INFO, 'RPLIDAR S/N: 8FCBEDF9C7E09BD4A7E59EF3E2664214, firmware 1.29',
         'node.cpp', 'getRPLIDARDeviceInfo', 97, ['/scan', '/rosout']),
        (0.203, '/imu_node', Log.INFO, 'Gyro bias loaded: [0.0011, -0.0007, 0.0031] rad/s',
         'imu_node.cpp', 'ImuNode::loadCalibration', 64, ['/imu/data', '/rosout']),
        (0.417, '/gps_driver', Log.INFO, 'GPS fix: 9 satellites, HDOP 0.9', '/opt/ros/lib/gps_driver/driver.py',
         'on_fix', 212, ['/gps/fix', '/rosout']),
        (0.955, '/mission_manager', Log.INFO, "Starting mission 'demo_loop' with 4 waypoints",
         '/opt/ros/lib/mission_manager/manager.py', 'start', 88, ['/status', '/rosout']),
        (6.02, '/gps_driver', Log.INFO, 'SBAS corrections available, fix upgraded', '/opt/ros/lib/gps_driver/driver.py',
         'on_fix', 230, ['/gps/fix', '/rosout']),
        (8.0, '/mission_manager', Log.INFO, 'Waypoint 1 reached, heading to waypoint 2',
         '/opt/ros/lib/mission_manager/manager.py', 'on_goal', 131, ['/status', '/rosout']),
        (11.0, '/mission_manager', Log.INFO, 'Waypoint 2 reached, heading to waypoint 3',
         '/opt/ros/lib/mission_manager/manager.py', 'on_goal', 131, ['/status', '/rosout']),
        (12.51, '/usb_cam', Log.WARN, 'No frame received for 0.5 s, restarting capture',
         'usb_cam.cpp', 'UsbCam::grab_image', 902, ['/camera/image_raw', '/camera/camera_info', '/rosout']),
        (13.24, '/usb_cam', Log.ERROR, 'VIDIOC_DQBUF error 11, Resource temporarily unavailable',
         'usb_cam.cpp', 'UsbCam::read_frame', 611, ['/camera/image_raw', '/camera/camera_info', '/rosout']),
        (14.06, '/usb_cam', Log.INFO, 'Capture resumed after 2.0 s without frames',
         'usb_cam.cpp', 'UsbCam::grab_image', 915, ['/camera/image_raw', '/camera/camera_info', '/rosout']),
        (15.02, '/battery_monitor', Log.WARN, 'Battery low: 25.0 % (22.0 V), return to dock soon',
         '/opt/ros/lib/battery_monitor/monitor.py', 'check_levels', 57, ['/battery', '/rosout']),
        (16.0, '/mission_manager', Log.INFO, 'Waypoint 3 reached, heading to waypoint 4',
         '/opt/ros/lib/mission_manager/manager.py', 'on_goal', 131, ['/status', '/rosout']),
        (19.31, '/base_driver', Log.DEBUG, 'Left motor current 2.9 A, right motor current 3.4 A',
         'base_driver.cpp', 'BaseDriver::readStatus', 240, ['/odom', '/tf', '/rosout']),
        (22.52, '/mission_manager', Log.INFO, 'Mission complete: 4/4 waypoints',
         '/opt/ros/lib/mission_manager/manager.py', 'on_done', 150, ['/status', '/rosout']),
    ]
    for t, node, level, text, fname, func, line, topics in logs:
        msg = Log(header=hdr('rosout' + node, t, ''), level=level, name=node, msg=text, file=fname,
                  function=func, line=line, topics=topics)
        add(t, rng.uniform(0.0005, 0.002), '/rosout', node, msg)

    ev.sort(key=lambda e: (e[0], e[1]))
    return ev


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', default=os.path.join(here, 'demo.bag'))
    ap.add_argument('--chunk-kib', type=int, default=CHUNK_KIB_DEFAULT, help='chunk threshold in KiB')
    ap.add_argument('--compression', default='lz4', choices=['lz4', 'bz2', 'none'])
    args = ap.parse_args(argv)
    rng = random.Random(SEED)
    events = build_events(rng)
    tmp = args.out + '.tmp'
    bag = RecorderLikeBag(tmp, args.compression, args.chunk_kib * 1024)
    try:
        for t_ns, _, topic, callerid, latching, msg in events:
            bag.write(topic, msg, t_ns, callerid, latching)
    finally:
        bag.close()
    os.replace(tmp, args.out)
    print('%s: %d messages, %d bytes' % (args.out, bag.count, os.path.getsize(args.out)))


if __name__ == '__main__':
    main(sys.argv[1:])
