//! The IDL → `.msg` translation, construct by construct, and the errors for what `.msg`
//! cannot express.

use super::to_msg_sections;
use crate::msg::MsgError;

const SEP: &str =
    "================================================================================";

/// `body` inside `module p { module msg { ... }; };`, translated for `p/msg/T`.
fn msg(body: &str) -> String {
    let idl = format!("module p {{\n  module msg {{\n{body}\n  }};\n}};\n");
    match to_msg_sections("p/msg/T", &idl) {
        Ok(sections) => sections.first().map(|s| s.text.clone()).unwrap_or_default(),
        Err(e) => panic!("{e}\n{idl}"),
    }
}

/// The error for `body` (as in [`msg`]).
fn error(body: &str) -> String {
    let idl = format!("module p {{\n  module msg {{\n{body}\n  }};\n}};\n");
    match to_msg_sections("p/msg/T", &idl) {
        Ok(s) => panic!("expected an error, got {s:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn primitives_map_as_rosidl_does() {
    let text = msg("struct T {
        boolean a; octet b; char c; int8 d; uint8 e; int16 f; uint16 g; int32 h; uint32 i;
        int64 j; uint64 k; float l; double m; string n; wstring o;
        short p1; unsigned short p2; long p3; unsigned long p4; long long p5;
        unsigned long long p6;
    };");
    assert_eq!(
        text,
        "bool a\nbyte b\nchar c\nint8 d\nuint8 e\nint16 f\nuint16 g\nint32 h\nuint32 i\n\
         int64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\nwstring o\nint16 p1\nuint16 p2\n\
         int32 p3\nuint32 p4\nint64 p5\nuint64 p6"
    );
}

#[test]
fn bounded_strings_sequences_and_arrays() {
    let text = msg("struct T {
        string<10> a; wstring<3> b;
        sequence<int32> c; sequence<int32, 5> d; sequence<string<4>, 2> e;
        double f[9]; string<7> g[2]; p::msg::U h[3]; sequence<U> i;
    };
    struct U { int8 x; };");
    assert_eq!(
        text,
        "string<=10 a\nwstring<=3 b\nint32[] c\nint32[<=5] d\nstring<=4[<=2] e\n\
         float64[9] f\nstring<=7[2] g\np/U[3] h\np/U[] i"
    );
}

#[test]
fn typedefs_resolve_including_array_typedefs() {
    let text = msg("typedef double double__9[9];
    typedef sequence<uint8, 4> bytes4;
    @default (value=5) typedef short five;
    typedef double__9 again;
    struct T { double__9 k; bytes4 b; five f; again a; };");
    assert_eq!(text, "float64[9] k\nuint8[<=4] b\nint16 f 5\nfloat64[9] a");
}

#[test]
fn constants_module_gives_the_constants() {
    let text = msg(r#"module T_Constants {
      @verbatim (language="comment", text="Debug level.")
      const uint8 DEBUG = 10;
      const int16 NEG = -23;
      const unsigned long BIG = 0x10 + 2 * 3;
      const double PI = 3.14159;
      const float SMALL = 1.25e-3;
      const string NAME = "a b" " c";
      const boolean YES = TRUE;
      const octet SEVEN = 07;
      const int32 REF = BIG << 1;
    };
    struct T { uint8 level; };"#);
    assert_eq!(
        text,
        "# Debug level.\nuint8 DEBUG=10\nint16 NEG=-23\nuint32 BIG=22\nfloat64 PI=3.14159\n\
         float32 SMALL=0.00125\nstring NAME=\"a b c\"\nbool YES=true\nbyte SEVEN=7\n\
         int32 REF=44\nuint8 level"
    );
}

#[test]
fn defaults_become_msg_defaults() {
    let text = msg(r#"struct T {
      @default (value=1.5) double a;
      @default (value=TRUE) boolean b;
      @default (value="Hello \"world\"") string c;
      @default (value=-7) int32 d;
      @default (value="(1, 2, 3)") sequence<int32, 3> e;
      @default (value="(True, False)") boolean f[2];
      @default (value="('a', 'b, c')") sequence<string> g;
      @default (value="(5, )") sequence<uint8> h;
      @default (value=0.0) float i;
    };"#);
    assert_eq!(
        text,
        "float64 a 1.5\nbool b true\nstring c \"Hello \\\"world\\\"\"\nint32 d -7\n\
         int32[<=3] e [1, 2, 3]\nbool[2] f [true, false]\nstring[] g ['a', 'b, c']\n\
         uint8[] h [5]\nfloat32 i 0.0"
    );
}

#[test]
fn comments_and_annotations() {
    let text = msg(r#"
    // a line comment
    /* a block
       comment */
    @verbatim (language="comment", text=
      "First line." "\n" "Second line.")
    @transfer_mode(SHMEM_REF)
    struct T {
      @verbatim (language="comment", text=" Indented.")
      @key @range (min=0.0, max=1.0) @unit (value="m")
      float x; /** trailing */
      @value (default=False) @verbatim (language="rst", text="not a comment")
      boolean y, z;
    };"#);
    assert_eq!(
        text,
        "# First line.\n# Second line.\n# Indented.\nfloat32 x\nbool y\nbool z"
    );
}

#[test]
fn includes_and_headers_and_dependencies() {
    let idl = format!(
        "{SEP}\nIDL: a/msg/Outer\n// generated\n#include \"b/msg/Inner.idl\"\n\n\
         module a {{ module msg {{ struct Outer {{ b::msg::Inner i; sequence<a::msg::Leaf> l; }}; }}; }};\n\
         {SEP}\nIDL: b/msg/Inner\nmodule b {{ module msg {{ struct Inner {{ ::a::msg::Leaf x; }}; }}; }};\n\
         {SEP}\nIDL: a/msg/Leaf\nmodule a {{ module msg {{ struct Leaf {{ int8 v; }}; }}; }};\n\
         {SEP}\nIDL: a/msg/Unused\nmodule a {{ module msg {{ struct Unused {{ wchar w; }}; }}; }};\n"
    );
    let sections = to_msg_sections("a/msg/Outer", &idl).unwrap();
    let got: Vec<(&str, &str)> = sections
        .iter()
        .map(|s| (s.name.as_str(), s.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("a/msg/Outer", "b/Inner i\na/Leaf[] l"),
            ("b/msg/Inner", "a/Leaf x"),
            ("a/msg/Leaf", "int8 v"),
        ]
    );
    // The ROS1 spelling of the name finds the type too; a header-less main section works.
    let bare = "module a { module msg { struct Leaf { int8 v; }; }; };";
    assert_eq!(
        to_msg_sections("a/Leaf", bare).unwrap()[0].name,
        "a/msg/Leaf"
    );
}

#[test]
fn interface_sections_are_passed_on() {
    let idl = format!(
        "{SEP}\nSRV: p/srv/S\np/BasicIdl req\n---\np/BasicIdl resp\n\n\
         {SEP}\nMSG: p/BasicIdl\n\n\
         {SEP}\nIDL: p/BasicIdl\nmodule p {{ module msg {{ struct BasicIdl {{ float x; }}; }}; }};\n"
    );
    let sections = to_msg_sections("p/srv/S", &idl).unwrap();
    assert_eq!(sections.len(), 1, "{sections:?}");
    assert_eq!(sections[0].text, "p/BasicIdl req\n---\np/BasicIdl resp");
    let sections = to_msg_sections("p/msg/BasicIdl", &idl).unwrap();
    assert_eq!(sections[0].text, "float32 x");
    assert_eq!(sections[1].name, "p/srv/S");
}

#[test]
fn unsupported_constructs_are_named_with_their_place() {
    let cases = [
        (
            "struct T { long double x; };",
            "long double is not supported",
            3,
        ),
        ("struct T { wchar c; };", "wchar is not supported", 3),
        ("struct T { fixed<5, 2> f; };", "fixed is not supported", 3),
        ("struct T { any a; };", "any is not supported", 3),
        (
            "struct T { map<string, int32> m; };",
            "map is not supported",
            3,
        ),
        (
            "struct T { int32 m[2][3]; };",
            "multi-dimensional array [2][3]",
            3,
        ),
        (
            "struct T { sequence<sequence<int8>> s; };",
            "sequence of arrays",
            3,
        ),
        (
            "typedef int8 a4[4];\nstruct T { a4 x[2]; };",
            "array of a sequence",
            4,
        ),
        (
            "enum E { A, B };\nstruct T { E e; };",
            "enum p/msg/E (line 3)",
            4,
        ),
        (
            "union U switch (long) { case 1: long a; };\nstruct T { U u; };",
            "union p/msg/U",
            4,
        ),
        ("bitmask B { X };\nstruct T { B b; };", "bitmask", 4),
        (
            "struct B { int8 x; };\nstruct T : B { int8 y; };\nstruct V { T t; };",
            "",
            0,
        ),
    ];
    for (body, wanted, line) in cases {
        if line == 0 {
            continue;
        }
        let e = error(body);
        assert!(e.contains(wanted), "{body}: {e}");
        assert!(
            e.starts_with(&format!("p/msg/T: IDL schema line {line}, column ")),
            "{body}: {e}"
        );
    }
    // Inheritance: the derived type is named where it is used.
    let idl = "module p { module msg { struct B { int8 x; }; struct D : B { int8 y; }; \
               struct T { D d; }; }; };";
    let e = to_msg_sections("p/msg/T", idl).unwrap_err().to_string();
    assert!(e.contains("struct inheritance (D : ...)"), "{e}");
    // Unsupported constructs that the type does not use are no error.
    assert_eq!(
        msg("enum E { A };\nunion U switch (long) { case 1: long a; };\nstruct T { int8 x; };"),
        "int8 x"
    );
}

#[test]
fn syntax_errors_say_where() {
    let cases = [
        (
            "struct T { int32 x }; ",
            "expected ';', found '}'",
            "line 3, column 20",
        ),
        (
            "struct T { int32 x; ",
            "expected '}', found the end",
            "line 6, column 1",
        ),
        (
            "struct T { int32 x[0]; };",
            "a bound must be a positive integer",
            "column 20",
        ),
        (
            "struct T { string<N> x; };",
            "no constant named N",
            "column 19",
        ),
        (
            "module T_Constants { const uint8 X = 300; };\nstruct T { int8 x; };",
            "300 does not fit uint8",
            "line 3",
        ),
        (
            "struct T { int32 x; }; $",
            "unexpected character $",
            "line 3",
        ),
        ("/* open", "unterminated /* comment", "line 3, column 1"),
        (
            "struct T { @default (value=\"x\") int32 x; };",
            "a string is not a valid int32",
            "line 3",
        ),
        ("const string S = \"a\nb\"; struct T { int8 x; };", "", ""),
        (
            "struct U { int8 x; };",
            "the schema does not define p/msg/T",
            "line 1, column 1",
        ),
    ];
    for (body, wanted, place) in cases {
        if wanted.is_empty() {
            continue;
        }
        let e = error(body);
        assert!(e.contains(wanted) && e.contains(place), "{body}: {e}");
    }
}

#[test]
fn hostile_inputs_are_bounded() {
    let deep = format!("{}{}", "module m { ".repeat(200), "};".repeat(200));
    let e = to_msg_sections("m/T", &deep).unwrap_err().to_string();
    assert!(e.contains("nests more than 64 levels"), "{e}");
    let parens = format!("const long X = {}1{};", "(".repeat(500), ")".repeat(500));
    let e = to_msg_sections("m/T", &parens).unwrap_err().to_string();
    assert!(e.contains("nests more than"), "{e}");
    let seqs = format!(
        "struct T {{ {}int8{} x; }};",
        "sequence<".repeat(100),
        ">".repeat(100)
    );
    let e = to_msg_sections("T", &seqs).unwrap_err().to_string();
    assert!(e.contains("nests more than"), "{e}");
    let cycle = "module p { module msg { typedef B A; typedef A B; struct T { A a; }; }; };";
    let e = to_msg_sections("p/msg/T", cycle).unwrap_err().to_string();
    assert!(e.contains("typedefs nest more than"), "{e}");
    let big = "x".repeat(super::MAX_SCHEMA_BYTES + 1);
    assert!(matches!(
        to_msg_sections("p/msg/T", &big),
        Err(MsgError::Idl { .. })
    ));
    for bad in [
        "'",
        "\"\\",
        "0x",
        "@",
        "module",
        "struct T { sequence<",
        "const long X = 1 <<",
        "L",
    ] {
        assert!(to_msg_sections("p/msg/T", bad).is_err(), "{bad}");
    }
    // Every prefix of a real schema is an error or a translation, never a panic.
    let real = include_str!("../../../tests/fixtures/ros2idl/rcl_interfaces__Log.idl");
    for (i, _) in real.char_indices() {
        let _ = to_msg_sections("rcl_interfaces/msg/Log", real.get(..i).unwrap_or(""));
    }
}
