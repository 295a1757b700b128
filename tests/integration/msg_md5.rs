//! md5sums and full texts computed from every connection definition in the corpus, against the
//! md5sums the recorders wrote (and the official reader accepted).

use bagscope::msg::{MsgError, Schema};

use crate::common::msg_support;

#[test]
fn corpus_connection_md5sums_match() {
    let Some(dir) = msg_support::corpus_dir() else {
        return;
    };
    let mut checked = 0;
    for path in msg_support::ref_files(&dir) {
        let Some(header) = msg_support::ref_header(&path) else {
            continue;
        };
        for conn in header["connections"].as_array().unwrap() {
            let ty = conn["type"].as_str().unwrap();
            let md5 = conn["md5sum"].as_str().unwrap();
            let def = conn["message_definition"].as_str().unwrap();
            let name = path.file_name().unwrap().to_string_lossy();
            match Schema::from_definition(ty, def) {
                Ok(schema) => {
                    assert_eq!(schema.md5sum(), md5, "{name}: {ty}");
                    assert_eq!(schema.datatype(), ty, "{name}");
                    checked += 1;
                }
                Err(MsgError::EmptyDefinition { .. }) => {
                    assert!(def.trim().is_empty(), "{name}: {ty}");
                }
                Err(e) => panic!("{name}: {ty}: {e}"),
            }
        }
    }
    assert!(checked > 100, "only {checked} connections checked");
}

#[test]
fn corpus_full_texts_round_trip() {
    let Some(dir) = msg_support::corpus_dir() else {
        return;
    };
    let mut differ = Vec::new();
    for path in msg_support::ref_files(&dir) {
        let Some(header) = msg_support::ref_header(&path) else {
            continue;
        };
        for conn in header["connections"].as_array().unwrap() {
            let ty = conn["type"].as_str().unwrap();
            let def = conn["message_definition"].as_str().unwrap();
            // Definitions written before ROS Diamondback (2010) name `roslib/Header` and end
            // with extra blank lines; genpy renames the header the same way we do.
            if def.contains("MSG: roslib/Header") {
                continue;
            }
            if let Ok(schema) = Schema::from_definition(ty, def) {
                if schema.full_text() != def {
                    differ.push(format!("{}: {ty}", path.display()));
                }
            }
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}
