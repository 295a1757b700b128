"""Writes a ROS 2 MCAP (profile ros2, CDR std_msgs/msg/String on /chatter) as a recorder does:
one message every PERIOD seconds with the wall clock as log time, chunks of 512 bytes written
whole when full (the Python `mcap` writer keeps the open chunk in memory, as libmcap does for
`ros2 bag record`), the summary at the end.

usage: live_mcap.py OUT N PERIOD     (or: live_mcap.py probe)
"""
import sys
import time

from mcap_ros2.writer import Writer


def main():
    if sys.argv[1:] == ["probe"]:
        return
    out, n, period = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    with open(out, "wb") as f:
        w = Writer(f, chunk_size=512)
        schema = w.register_msgdef("std_msgs/msg/String", "string data")
        for i in range(n):
            t = time.time_ns()
            w.write_message(
                topic="/chatter",
                schema=schema,
                message={"data": f"hello {i}"},
                log_time=t,
                publish_time=t,
                sequence=i,
            )
            f.flush()
            time.sleep(period)
        w.finish()


if __name__ == "__main__":
    main()
