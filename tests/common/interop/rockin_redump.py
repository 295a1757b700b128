#!/usr/bin/env python3
"""Rewrites a RoCKIn YAML file with PyYAML's emitter, as other tools would write it.

    rockin_redump.py IN OUT STYLE

STYLE: `block` (block style everywhere, keys sorted: `message` comes before `topic`), `flow`
(PyYAML's default: leaf collections in flow style), `unsorted` (block, keys in file order,
UTF-8 text, 40-column folding), `json` (flow style everywhere, 60 columns: long plain scalars
fold across lines inside flow collections). Binary values come out as `!!binary` blocks.
"""
import sys

import yaml

STYLES = {
    "flow": dict(default_flow_style=None),
    "block": dict(default_flow_style=False),
    "unsorted": dict(default_flow_style=False, sort_keys=False, allow_unicode=True, width=40),
    "json": dict(default_flow_style=True, width=60),
}


def main():
    src, out, style = sys.argv[1:4]
    with open(src, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    with open(out, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump(data, **STYLES[style]))


if __name__ == "__main__":
    main()
