#!/usr/bin/env python3
"""Dump a bag with the official ROS1 Python reader (Debian's python3-rosbag) as JSON lines:
a header line with the connections, then one line per message with its topic, connection id,
receive time, payload size and payload md5 -- the raw facts bagscope must agree with.

    dump_raw.py BAG

Unindexed bags (a recording that was killed) are first copied and `reindex`ed with the official
algorithm, as `rosbag reindex` would; the header then says "reindexed": true.
"""
import hashlib
import json
import os
import shutil
import sys
import tempfile

import rosbag
from rosbag.bag import ROSBagUnindexedException


def main(path):
    reindexed = False
    tmp = None
    try:
        try:
            bag = rosbag.Bag(path, 'r')
        except ROSBagUnindexedException:
            tmp = tempfile.mkdtemp()
            copy = os.path.join(tmp, 'copy.bag')
            shutil.copyfile(path, copy)
            with rosbag.Bag(copy, 'a', allow_unindexed=True) as b:
                for _ in b.reindex():
                    pass
            bag = rosbag.Bag(copy, 'r')
            reindexed = True
        ids = {id(c.header): c.id for c in bag._connections.values()}
        rows = []
        for topic, raw, t, header in bag.read_messages(raw=True, return_connection_header=True):
            data = raw[1]
            rows.append((t.to_nsec(), ids[id(header)], topic, len(data), hashlib.md5(data).hexdigest()))
        rows.sort(key=lambda r: (r[0], r[1]))
        conns = []
        for c in sorted(bag._connections.values(), key=lambda c: c.id):
            h = c.header
            get = lambda k: h[k].decode('utf-8', 'replace') if isinstance(h.get(k), bytes) else h.get(k)
            conns.append({'id': c.id, 'topic': c.topic, 'type': c.datatype, 'md5sum': c.md5sum,
                          'callerid': get('callerid'), 'latching': get('latching')})
        print(json.dumps({'kind': 'header', 'version': '%d.%d' % (bag.version // 100, bag.version % 100),
                          'reindexed': reindexed, 'messages': len(rows), 'connections': conns}))
        for t, cid, topic, size, md5 in rows:
            print(json.dumps({'topic': topic, 'conn': cid, 'time': {'sec': t // 10**9, 'nsec': t % 10**9},
                              'size': size, 'md5': md5}))
        bag.close()
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main(sys.argv[1])
