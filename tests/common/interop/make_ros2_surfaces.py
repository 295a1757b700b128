#!/usr/bin/env python3
"""Writes tests/fixtures/ros2/surfaces/ (a rosbag2 bag, MCAP storage) and
tests/fixtures/ros2/surfaces.echo.json: one message of each type bagscope recognises, as a ROS 2
recorder writes them (CDR, ros2msg definitions), and how `ros2 topic echo --full-length` prints
each topic's messages.

    ~/.cache/bagscope-ci/venv/bin/python tests/common/interop/make_ros2_surfaces.py

Needs rosbags (0.11.9: its writer and its ROS 2 Humble types) and PyYAML. The echo text is
rosidl_runtime_py's message_to_yaml, re-done here on rosbags' decoded messages exactly as
rosidl does it on rclpy's: fields in definition order (an OrderedDict with a representer that
keeps the order), arrays as lists, then yaml.dump(..., allow_unicode=True, width=sys.maxsize,
default_flow_style=False), each message followed by `---`.
"""
import dataclasses
import json
import shutil
import sys
from collections import OrderedDict
from pathlib import Path

import numpy
import yaml
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / 'tests/fixtures/ros2/surfaces'
ECHO = ROOT / 'tests/fixtures/ros2/surfaces.echo.json'

ts = get_typestore(Stores.ROS2_HUMBLE)
T = ts.types
Time = T['builtin_interfaces/msg/Time']
Header = T['std_msgs/msg/Header']


def stamp(sec, nanosec=5):
    return Time(sec=sec, nanosec=nanosec)


def header(sec, frame):
    return Header(stamp=stamp(sec), frame_id=frame)


def vec3(x, y, z):
    return T['geometry_msgs/msg/Vector3'](x=x, y=y, z=z)


def quat(x, y, z, w):
    return T['geometry_msgs/msg/Quaternion'](x=x, y=y, z=z, w=w)


def messages():
    """(topic, type, receive time in s, message)."""
    out = []
    Log = T['rcl_interfaces/msg/Log']
    for i, (level, name, text) in enumerate([
            (10, 'talker', 'starting'),
            (20, 'talker', "Publishing: 'Hello World: 1'"),
            (30, 'ns.driver', 'current high: 2.9 A'),
            (40, 'ns.driver', 'stalled\nretrying'),
            (50, 'rclcpp', 'gave up')]):
        out.append(('/rosout', 'rcl_interfaces/msg/Log', 100 + i,
                    Log(stamp=stamp(1_700_000_000 + i), level=level, name=name, msg=text,
                        file='talker.cpp', function='on_timer', line=42)))
    Image = T['sensor_msgs/msg/Image']
    out.append(('/camera/image_raw', 'sensor_msgs/msg/Image', 100,
                Image(header=header(1_700_000_000, 'cam'), height=2, width=3, encoding='rgb8',
                      is_bigendian=0, step=9,
                      data=numpy.array([255, 0, 0, 0, 255, 0, 0, 0, 255,
                                        255, 255, 255, 0, 0, 0, 128, 128, 128], dtype=numpy.uint8))))
    Scan = T['sensor_msgs/msg/LaserScan']
    out.append(('/scan', 'sensor_msgs/msg/LaserScan', 101,
                Scan(header=header(1_700_000_001, 'laser'), angle_min=-1.5707963705062866,
                     angle_max=1.5707963705062866, angle_increment=1.5707963705062866,
                     time_increment=0.0, scan_time=0.1, range_min=0.1, range_max=10.0,
                     ranges=numpy.array([2.0, 1.5, numpy.inf], dtype=numpy.float32),
                     intensities=numpy.array([], dtype=numpy.float32))))
    TF = T['tf2_msgs/msg/TFMessage']
    TS = T['geometry_msgs/msg/TransformStamped']
    Tr = T['geometry_msgs/msg/Transform']
    out.append(('/tf', 'tf2_msgs/msg/TFMessage', 102,
                TF(transforms=[TS(header=header(1_700_000_002, 'odom'), child_frame_id='base_link',
                                  transform=Tr(translation=vec3(1.0, 2.0, 0.0),
                                               rotation=quat(0.0, 0.0, 0.0, 1.0)))])))
    Fix = T['sensor_msgs/msg/NavSatFix']
    St = T['sensor_msgs/msg/NavSatStatus']
    out.append(('/fix', 'sensor_msgs/msg/NavSatFix', 103,
                Fix(header=header(1_700_000_003, 'gps'), status=St(status=-1, service=1),
                    latitude=48.1372215, longitude=11.5754892, altitude=519.23,
                    position_covariance=numpy.zeros(9, dtype=numpy.float64),
                    position_covariance_type=0)))
    String = T['std_msgs/msg/String']
    for i, text in enumerate(['Hello World: 1', 'héllo: "quoted" # not a comment', 'yes', '']):
        out.append(('/chatter', 'std_msgs/msg/String', 100 + i, String(data=text)))
    return out


def to_ordereddict(value):
    """rosidl_runtime_py's message_to_ordereddict / _convert_value, on rosbags' values."""
    if dataclasses.is_dataclass(value):
        # Fields only, in definition order: rosbags lists constants (upper case; ROS 2 field
        # names are lower case) among its dataclass fields.
        return OrderedDict((f.name, to_ordereddict(getattr(value, f.name)))
                           for f in dataclasses.fields(value)
                           if f.name != '__msgtype__' and not f.name.isupper())
    if isinstance(value, numpy.ndarray):
        return [to_ordereddict(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [to_ordereddict(v) for v in value]
    return value


def represent_ordereddict(dumper, data):
    items = [(dumper.represent_data(k), dumper.represent_data(v)) for k, v in data.items()]
    return yaml.nodes.MappingNode('tag:yaml.org,2002:map', items)


yaml.add_representer(OrderedDict, represent_ordereddict)


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    msgs = messages()
    echo = {}
    with Writer(OUT, version=8, storage_plugin=StoragePlugin.MCAP) as w:
        conns = {}
        for topic, msgtype, _, _ in msgs:
            if topic not in conns:
                conns[topic] = w.add_connection(topic, msgtype, typestore=ts)
        for topic, msgtype, at, msg in sorted(msgs, key=lambda m: m[2]):
            data = ts.serialize_cdr(msg, msgtype)
            w.write(conns[topic], at * 1_000_000_000, data)
            # What a subscriber receives (float32 values widened from their 32 bits).
            received = ts.deserialize_cdr(data, msgtype)
            text = yaml.dump(to_ordereddict(received), allow_unicode=True, width=sys.maxsize,
                             default_flow_style=False)
            echo[topic] = echo.get(topic, '') + text + '---\n'
    ECHO.write_text(json.dumps(echo, indent=1, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
