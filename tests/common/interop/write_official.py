#!/usr/bin/env python3
"""Write a bag with the official ROS1 Python writer (Debian's python3-rosbag) from a JSON spec,
so that bagscope's writer can be compared with it record by record.

    write_official.py SPEC.json OUT.bag

SPEC: {"compression": "none"|"bz2"|"lz4", "chunk_threshold": bytes,
       "connections": [{"topic": str, "header": [[name, hex value], ...]}],
       "messages": [[connection index, sec, nsec, payload hex], ...]}

The official writer keys connections by topic, so the spec has one connection per topic; each
connection's header is passed as `connection_header` (written in the order given).
"""
import json
import sys

import genpy
import rosbag


def main(spec_path, out):
    spec = json.load(open(spec_path))
    conns = []
    for c in spec['connections']:
        header = {k: bytes.fromhex(v) for k, v in c['header']}
        md5 = header['md5sum'].decode()
        # The writer checks the md5sum against a message class; give it one that agrees.
        pytype = type('Raw', (), {'_md5sum': md5, '_full_text': ''})
        conns.append((c['topic'], header, header['type'].decode(), md5, pytype))
    with rosbag.Bag(out, 'w', compression=spec['compression'],
                    chunk_threshold=spec['chunk_threshold']) as bag:
        for index, sec, nsec, payload in spec['messages']:
            topic, header, datatype, md5, pytype = conns[index]
            bag.write(topic, (datatype, bytes.fromhex(payload), md5, pytype),
                      genpy.Time(sec, nsec), raw=True, connection_header=header)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
