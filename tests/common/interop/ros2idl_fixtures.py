"""Writes the ros2idl schemas of tests/fixtures/ros2idl/ from installed ROS 2 interface files.

    python ros2idl_fixtures.py SHARE_DIR OUT_DIR

SHARE_DIR is a ROS 2 `share/` tree holding `PKG/msg/Type.idl` (as rosidl generated them)
and `PKG/msg/Type.msg`. Each schema is concatenated exactly as rosbag2's
LocalMessageDefinitionSource does for `ros2idl` (rosbag2_cpp, get_full_text): a line of 80
`=`, `IDL: pkg/msg/Type`, the file's text; then, depth first, for every `#include`d file not
written yet (in sorted order), a newline, the same two-line delimiter and its text. The
schema goes to OUT_DIR/pkg__Type.idl, and the `.msg` file of every type in it (when the
package has one) to OUT_DIR/msg/pkg/msg/Type.msg, the oracle idl_check.py compares with.
"""

import re
import shutil
import sys
from pathlib import Path

SEP = '=' * 80 + '\n'
INCLUDE = re.compile(r'(?:^|\n)#include\s+(?:"|<)([a-zA-Z0-9_/]+)\.idl(?:"|>)')

TYPES = [
    'builtin_interfaces/msg/Time',
    'std_msgs/msg/Header',
    'geometry_msgs/msg/PoseStamped',
    'sensor_msgs/msg/Image',
    'sensor_msgs/msg/CameraInfo',
    'rcl_interfaces/msg/Log',
    'rcl_interfaces/msg/ParameterEvent',
    'test_msgs/msg/Arrays',
    'test_msgs/msg/BoundedSequences',
    'test_msgs/msg/UnboundedSequences',
    'test_msgs/msg/Strings',
    'test_msgs/msg/WStrings',
    'test_msgs/msg/MultiNested',
    'test_msgs/msg/Empty',
    'test_msgs/msg/ComplexNestedKey',
]


def full_text(share: Path, root: str, used: list) -> str:
    seen = set()

    def append(name: str) -> str:
        used.append(name)
        text = (share / f'{name}.idl').read_text(encoding='utf-8')
        out = text
        for dep in sorted(set(INCLUDE.findall(text))):
            if dep not in seen:
                seen.add(dep)
                out += '\n' + SEP + f'IDL: {dep}\n' + append(dep)
        return out

    return SEP + f'IDL: {root}\n' + append(root)


def main() -> None:
    share, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for root in TYPES:
        used: list = []
        schema = full_text(share, root, used)
        (out / (root.replace('/msg/', '__') + '.idl')).write_text(schema, encoding='utf-8')
        for name in used:
            msg = share / f'{name}.msg'
            if msg.exists():
                dest = out / 'msg' / f'{name}.msg'
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(msg, dest)


if __name__ == '__main__':
    main()
