#!/usr/bin/env python3
"""Dump bags with the official ROS1 Python reader (Debian's python3-rosbag): one JSON object per
bag and per line, in the order given, with every connection's full header and one row per
message -- what bagscope's writer must reproduce.

    dump_full.py [--reindex-copy] [--decode] BAG...

Per bag: {"path", "ok": true, "reindexed", "version", "chunks", "compression": [..per chunk..],
"connections": [{"id", "topic", "header": [[name, hex value], ...]}],
"messages": [[time_ns, topic, size, md5, conn_id], ...]} (messages in the reader's order), or
{"path", "ok": false, "error"} when the official reader fails.

With --reindex-copy, an unindexed bag is first copied and reindexed with the official algorithm
(as `rosbag reindex` does); without it, an unindexed bag is an error. With --decode, every
message is also deserialized with the classes genpy generates from the bag's definitions and
serialized again: each row gets a sixth element, the md5 of those bytes (or the error).
"""
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile

import rosbag
from rosbag.bag import ROSBagUnindexedException


def open_bag(path, reindex_copy, tmp):
    try:
        return rosbag.Bag(path, 'r'), False
    except ROSBagUnindexedException:
        if not reindex_copy:
            raise
        copy = os.path.join(tmp, 'copy.bag')
        shutil.copyfile(path, copy)
        with rosbag.Bag(copy, 'a', allow_unindexed=True) as b:
            for _ in b.reindex():
                pass
        return rosbag.Bag(copy, 'r'), True


def decoded_md5s(bag):
    out = []
    for _, msg, _ in bag.read_messages():
        try:
            buf = io.BytesIO()
            msg.serialize(buf)
            out.append(hashlib.md5(buf.getvalue()).hexdigest())
        except Exception as ex:
            out.append('error: %s' % ex)
    return out


def dump(path, reindex_copy, decode):
    tmp = tempfile.mkdtemp()
    try:
        bag, reindexed = open_bag(path, reindex_copy, tmp)
        ids = {id(c.header): c.id for c in bag._connections.values()}
        conns = [{'id': c.id, 'topic': c.topic,
                  'header': [[k, v.hex() if isinstance(v, bytes) else v.encode().hex()]
                             for k, v in c.header.items()]}
                 for c in sorted(bag._connections.values(), key=lambda c: c.id)]
        rows = []
        for topic, raw, t, header in bag.read_messages(raw=True, return_connection_header=True):
            data = raw[1]
            rows.append([t.to_nsec(), topic, len(data), hashlib.md5(data).hexdigest(), ids[id(header)]])
        if decode:
            try:
                md5s = decoded_md5s(bag)
            except Exception as ex:  # a class could not be generated
                md5s = ['error: %s: %s' % (type(ex).__name__, ex)] * len(rows)
            for row, md5 in zip(rows, md5s):
                row.append(md5)
        chunks = [bag._chunk_headers[c.pos].compression for c in bag._chunks]
        out = {'path': path, 'ok': True, 'reindexed': reindexed,
               'version': '%d.%d' % (bag.version // 100, bag.version % 100),
               'chunks': len(bag._chunks), 'compression': chunks,
               'connections': conns, 'messages': rows}
        bag.close()
        return out
    except Exception as ex:  # report, do not stop the other bags
        return {'path': path, 'ok': False, 'error': '%s: %s' % (type(ex).__name__, ex)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    flags = {'--reindex-copy', '--decode'}
    for path in [a for a in argv if a not in flags]:
        print(json.dumps(dump(path, '--reindex-copy' in argv, '--decode' in argv)), flush=True)


if __name__ == '__main__':
    main(sys.argv[1:])
