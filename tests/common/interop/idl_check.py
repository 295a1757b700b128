"""Checks bagscope's ros2idl → .msg translation against the Python `rosbags` reader.

    python idl_check.py probe
    python idl_check.py CASES.json FIXTURE_DIR

CASES.json (written by tests/integration/msg_idl.rs) is a list of
{"datatype", "idl": path of the schema, "sections": [{"name", "text"}]} — bagscope's
`.msg` sections for the schema. For every section, the fields (name, type, array kind and
bound, string bound) and constants (name, type, value) that rosbags' .msg parser reads from
bagscope's text must equal what rosbags' IDL parser reads from the schema, and, where
FIXTURE_DIR/msg/pkg/msg/Type.msg exists (the .msg file rosidl generated the IDL from), what
rosbags reads from that file.

Normalisations, each for a limit of rosbags 0.11.9, not of the translation: `#include` lines
are removed before the IDL parser sees them (it cannot parse preprocessor lines, which every
rosidl file with a dependency has); `wstring` is read as `string` (its .msg parser knows no
`wstring`); a .msg `char` is compared as `uint8` (rosidl writes a .msg `char` into IDL as
`uint8`); rosidl gives a .msg without fields one `uint8 structure_needs_at_least_one_member`
(kept by the translation: it is in the IDL and on the wire), dropped when comparing with the
.msg file. Default values are not compared: rosbags' parsers drop them.
Prints a JSON summary; exits 1 with the differences on stderr.
"""

import json
import re
import sys
from pathlib import Path

SEP = '=' * 80 + '\n'


def probe() -> None:
    from rosbags.typesys import get_types_from_idl, get_types_from_msg  # noqa: F401


def norm_base(name):
    return {'wstring': 'string', 'char': 'uint8'}.get(name, name)


def norm_type(t):
    kind, detail = t
    kind = int(kind)
    if kind == 1:  # base: (name, string bound)
        return ('base', norm_base(detail[0]), detail[1])
    if kind == 2:  # a message type, by name
        return ('msg', detail)
    # 3 = array, 4 = sequence: (element, size or bound)
    return ('array' if kind == 3 else 'sequence', norm_type(detail[0]), detail[1])


def norm(typesdict):
    out = {}
    for name, (consts, fields) in typesdict.items():
        out[name] = {
            'constants': [(c[0], norm_base(c[1]), c[2]) for c in consts],
            'fields': [(f[0], norm_type(f[1])) for f in fields],
        }
    return out


def msg_types(text, name):
    from rosbags.typesys import get_types_from_msg

    text = re.sub(r'\bwstring\b', 'string', text)
    return norm(get_types_from_msg(text, name))


def idl_types(schema):
    from rosbags.typesys import get_types_from_idl

    types = {}
    parts = schema.split(SEP) if schema.startswith(SEP) else ['IDL: ?\n' + schema]
    for part in parts:
        if not part.strip():
            continue
        header, text = part.split('\n', 1)
        if not header.startswith('IDL: '):
            continue
        text = '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('#'))
        types.update(get_types_from_idl(text))
    return norm(types)


def check(cases_path, fixtures):
    cases = json.loads(Path(cases_path).read_text(encoding='utf-8'))
    problems = []
    summary = {'schemas': 0, 'types': 0, 'fields': 0, 'constants': 0, 'compared_with_msg': 0}
    for case in cases:
        summary['schemas'] += 1
        schema = Path(case['idl']).read_text(encoding='utf-8')
        from_idl = idl_types(schema)
        for section in case['sections']:
            name = section['name']
            mine = msg_types(section['text'], name)[name]
            summary['types'] += 1
            summary['fields'] += len(mine['fields'])
            summary['constants'] += len(mine['constants'])
            if from_idl.get(name) != mine:
                problems.append(f'{case["datatype"]}: {name}: rosbags reads from the IDL\n'
                                f'  {from_idl.get(name)}\nand from our .msg\n  {mine}')
            original = Path(fixtures) / 'msg' / f'{name}.msg'
            if original.exists():
                summary['compared_with_msg'] += 1
                orig = msg_types(original.read_text(encoding='utf-8'), name)[name]
                dummy = [('structure_needs_at_least_one_member', ('base', 'uint8', 0))]
                if not orig['fields'] and mine['fields'] == dummy:
                    mine = {**mine, 'fields': []}
                if orig != mine:
                    problems.append(f'{name}: rosbags reads from the original .msg\n'
                                    f'  {orig}\nand from ours\n  {mine}')
    if problems:
        sys.stderr.write('\n'.join(problems) + '\n')
        sys.exit(1)
    print(json.dumps(summary))


if __name__ == '__main__':
    if sys.argv[1] == 'probe':
        probe()
    else:
        check(sys.argv[1], sys.argv[2])
