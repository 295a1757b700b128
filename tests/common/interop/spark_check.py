#!/usr/bin/env python3
"""Read a bagscope Parquet export with Apache Spark, with Spark's default reading settings,
and compare it with the official ROS1 Python reader's decoding of the bag.

    spark_check.py probe
    spark_check.py DIR BAG

`probe` exits 0 when pyspark and rosbag import and a Java runtime of version 17 or later
runs (what Spark 4 needs); otherwise it prints why on stderr and exits 1. `DIR BAG` starts
one local Spark session (one JVM) and reads DIR, exported from BAG with
`--partition-by robot=r1,date`: the whole dataset (Hive partitions discovered: `robot`,
`date`), and `odom.parquet` and `imu.parquet` on their own; it compares row counts, the sum
of a float column, the exact receive times (`log_time_ns`), the microsecond timestamps
(`unix_micros(log_time)`, their floor) and the `header.stamp_ns` of every row with the
official decoding. Prints one JSON object; exits 1 with the first difference on stderr.
The only settings given are the session's (one local core, no web UI, two shuffle
partitions); reading uses Spark's defaults.
"""
import json
import math
import re
import shutil
import subprocess
import sys


def fail(what):
    sys.stderr.write(what + "\n")
    sys.exit(1)


def probe():
    try:
        import pyspark  # noqa: F401
        import rosbag  # noqa: F401
    except ImportError as e:
        fail(f"cannot import {e.name}")
    java = shutil.which("java")
    if java is None:
        fail("no java on PATH (Spark needs a Java runtime, e.g. openjdk-17-jre-headless)")
    out = subprocess.run([java, "-version"], capture_output=True, text=True)
    m = re.search(r'version "(\d+)', out.stderr + out.stdout)
    if out.returncode != 0 or m is None or int(m.group(1)) < 17:
        fail(f"java -version: {out.stderr.strip()!r} (Spark 4 needs Java 17 or later)")


def official(bag):
    import rosbag

    by_topic = {}
    for topic, msg, t in rosbag.Bag(bag).read_messages():
        by_topic.setdefault(topic, []).append((t.to_nsec(), msg))
    return by_topic


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def main():
    args = sys.argv[1:]
    if args == ["probe"]:
        probe()
        return
    if len(args) != 2:
        fail(__doc__)
    out, bag = args
    want = official(bag)

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import DateType, TimestampType

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("bagscope-export-check")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        result = {}
        every = spark.read.parquet(out)
        fields = {f.name: f.dataType for f in every.schema.fields}
        if not isinstance(fields.get("date"), DateType):
            fail(f"partition column date: {fields.get('date')}")
        if not isinstance(fields.get("log_time"), TimestampType):
            fail(f"log_time: {fields.get('log_time')}")
        robots = [r[0] for r in every.select("robot").distinct().collect()]
        if robots != ["r1"]:
            fail(f"partition robot: {robots}")
        result["rows"] = every.count()
        total = sum(len(v) for v in want.values())
        if result["rows"] != total:
            fail(f"{result['rows']} rows, the bag has {total}")
        for topic, name, column, fieldpath in [
            ("/odom", "odom", "pose.pose.position.x", ("pose", "pose", "position", "x")),
            ("/imu", "imu", "linear_acceleration.z", ("linear_acceleration", "z")),
        ]:
            df = spark.read.option("basePath", out).parquet(f"{out}/*/*/{name}.parquet")
            rows = df.select(
                "log_time_ns",
                F.unix_micros("log_time").alias("us"),
                F.col("`header.stamp_ns`").alias("stamp"),
                F.col(f"`{column}`").alias("v"),
            ).orderBy("log_time_ns").collect()
            msgs = want[topic]
            if len(rows) != len(msgs):
                fail(f"{topic}: {len(rows)} rows, the bag has {len(msgs)}")
            for r, (t, m) in zip(rows, msgs):
                if r["log_time_ns"] != t or r["us"] != t // 1000:
                    fail(f"{topic}: log_time_ns {r['log_time_ns']} / {r['us']} us, the bag {t}")
                if r["stamp"] != m.header.stamp.to_nsec():
                    fail(f"{topic}: header.stamp_ns {r['stamp']}, the bag {m.header.stamp.to_nsec()}")
            got = df.agg(F.sum(F.col(f"`{column}`"))).collect()[0][0]
            expected = 0.0
            for _t, m in msgs:
                v = m
                for part in fieldpath:
                    v = getattr(v, part)
                expected += v
            if not close(got, expected):
                fail(f"{topic}: sum of {column} {got!r}, the bag {expected!r}")
            result[name] = {"rows": len(rows), "sum": got}
        print(json.dumps(result))
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
