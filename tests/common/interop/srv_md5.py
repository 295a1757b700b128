#!/usr/bin/env python3
"""Print the md5sums genmsg (Debian's python3-genmsg) computes for service definitions -- what
rospy and roscpp put in a service's connection header -- one line per service:

    srv_md5.py pkg/Name FILE.srv [pkg/Name FILE.srv]...
    -> pkg/Name SERVICE_MD5 REQUEST_MD5 RESPONSE_MD5

Message-typed fields are looked up in /usr/share/PKG/msg (Debian's message packages).
"""
import os
import sys

import genmsg
import genmsg.gentools
import genmsg.msg_loader


def main(args):
    search = {}
    for pkg in os.listdir('/usr/share'):
        d = os.path.join('/usr/share', pkg, 'msg')
        if os.path.isdir(d):
            search[pkg] = [d]
    for name, path in zip(args[0::2], args[1::2]):
        ctx = genmsg.MsgContext.create_default()
        with open(path) as f:
            spec = genmsg.msg_loader.load_srv_from_string(ctx, f.read(), name)
        genmsg.msg_loader.load_depends(ctx, spec, search)
        print(name, genmsg.gentools.compute_md5(ctx, spec),
              genmsg.gentools.compute_md5(ctx, spec.request),
              genmsg.gentools.compute_md5(ctx, spec.response))


if __name__ == '__main__':
    main(sys.argv[1:])
