"""Writes a small bag of camera frames with the official rosbag writer, and converts every
frame to an image the way a ROS user would (numpy + PIL), as the reference for
`bagscope export --format images`.

    picture_bag.py write BAG
    picture_bag.py compare BAG DIR      # DIR holds bagscope's export; exit 1 on a difference
"""
import io
import os
import sys

import numpy as np
import rosbag
import rospy
from PIL import Image as PILImage
from sensor_msgs.msg import CompressedImage, Image

W, H = 7, 5  # odd sizes catch step and demosaic edge mistakes


def pattern(channels, dtype=np.uint8):
    y, x = np.mgrid[0:H, 0:W]
    planes = [(x * 37 + y * 11 + c * 71) % 256 for c in range(channels)]
    a = np.stack(planes, axis=-1).astype(dtype)
    if dtype == np.uint16:
        a = a * 257 + 3
    return a


def image(encoding, array, bigendian=False, pad=3):
    msg = Image()
    msg.height, msg.width = array.shape[0], array.shape[1]
    msg.encoding = encoding
    msg.is_bigendian = 1 if bigendian else 0
    a = array.astype(array.dtype.newbyteorder(">" if bigendian else "<"))
    rows = [a[r].tobytes() + b"\x00" * pad for r in range(a.shape[0])]
    msg.step = len(rows[0])
    msg.data = b"".join(rows)
    return msg


def write(path):
    frames = [
        ("rgb8", pattern(3)),
        ("bgr8", pattern(3)),
        ("rgba8", pattern(4)),
        ("bgra8", pattern(4)),
        ("mono8", pattern(1)[:, :, 0]),
        ("mono16", pattern(1, np.uint16)[:, :, 0]),
        ("16UC1", pattern(1, np.uint16)[:, :, 0]),
    ]
    with rosbag.Bag(path, "w") as bag:
        t = 1700000000
        for i, (enc, a) in enumerate(frames):
            big = enc == "16UC1"
            bag.write("/camera/image_raw", image(enc, a, big), rospy.Time(t, i * 1000))
        buf = io.BytesIO()
        PILImage.fromarray(pattern(3)).save(buf, format="JPEG", quality=90)
        c = CompressedImage()
        c.format = "rgb8; jpeg compressed bgr8"
        c.data = buf.getvalue()
        bag.write("/camera/compressed", c, rospy.Time(t + 1, 5))


def to_array(msg):
    """The frame's pixels as PIL would save them (RGB order, native depth)."""
    big = msg.is_bigendian
    enc = msg.encoding
    chans = {"rgb8": 3, "bgr8": 3, "rgba8": 4, "bgra8": 4, "mono8": 1}.get(enc)
    if chans:
        raw = np.frombuffer(msg.data, np.uint8).reshape(msg.height, msg.step)
        a = raw[:, : msg.width * chans].reshape(msg.height, msg.width, chans)
        if enc.startswith("bgr"):
            a = a[:, :, [2, 1, 0] + ([3] if chans == 4 else [])]
        return a[:, :, 0] if chans == 1 else a
    if enc in ("mono16", "16UC1"):
        dt = np.dtype(">u2" if big else "<u2")
        raw = np.frombuffer(msg.data, np.uint8).reshape(msg.height, msg.step)
        a = raw[:, : msg.width * 2].copy().view(dt).reshape(msg.height, msg.width)
        return a.astype(np.uint16)
    raise SystemExit("unsupported " + enc)


def compare(path, out):
    checked = 0
    bad = []
    with rosbag.Bag(path) as bag:
        for topic, msg, t in bag.read_messages():
            name = os.path.join(out, "%d.%09d" % (t.secs, t.nsecs))
            if hasattr(msg, "format"):
                with open(name + ".jpg", "rb") as f:
                    if f.read() != bytes(msg.data):
                        bad.append(name + ".jpg: bytes differ")
            else:
                want = to_array(msg)
                got = np.array(PILImage.open(name + ".png"))
                if got.shape != want.shape or not np.array_equal(got.astype(np.int64), want.astype(np.int64)):
                    bad.append("%s.png (%s): %s %s vs %s %s" % (name, msg.encoding, got.shape, got.dtype, want.shape, want.dtype))
            checked += 1
    for b in bad:
        print(b)
    print("checked %d frames" % checked)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    {"write": lambda: write(sys.argv[2]), "compare": lambda: compare(sys.argv[2], sys.argv[3])}[
        sys.argv[1]
    ]()
