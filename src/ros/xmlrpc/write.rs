//! Serialising calls, responses and faults.

use std::fmt::Write as _;

use base64::Engine;

use super::value::{Fault, Value};
use super::xml::escape_into;

/// A `<methodCall>` document.
pub fn call_document(method: &str, params: &[Value]) -> String {
    let mut out = String::from("<?xml version=\"1.0\"?>\n<methodCall><methodName>");
    escape_into(&mut out, method);
    out.push_str("</methodName><params>");
    for p in params {
        out.push_str("<param>");
        write_value(&mut out, p);
        out.push_str("</param>");
    }
    out.push_str("</params></methodCall>\n");
    out
}

/// A `<methodResponse>` document with one value.
pub fn response_document(value: &Value) -> String {
    let mut out = String::from("<?xml version=\"1.0\"?>\n<methodResponse><params><param>");
    write_value(&mut out, value);
    out.push_str("</param></params></methodResponse>\n");
    out
}

/// A `<methodResponse>` document with a fault.
pub fn fault_document(fault: &Fault) -> String {
    let mut out = String::from("<?xml version=\"1.0\"?>\n<methodResponse><fault>");
    write_value(
        &mut out,
        &Value::Struct(vec![
            ("faultCode".into(), Value::Int(fault.code)),
            ("faultString".into(), Value::Str(fault.message.clone())),
        ]),
    );
    out.push_str("</fault></methodResponse>\n");
    out
}

/// Appends `<value>...</value>`.
pub fn write_value(out: &mut String, v: &Value) {
    out.push_str("<value>");
    match v {
        Value::Int(i) => {
            let _ = write!(out, "<i4>{i}</i4>");
        }
        Value::Bool(b) => {
            out.push_str(if *b {
                "<boolean>1</boolean>"
            } else {
                "<boolean>0</boolean>"
            });
        }
        Value::Str(s) => {
            out.push_str("<string>");
            escape_into(out, s);
            out.push_str("</string>");
        }
        Value::Double(d) => {
            // XML-RPC has no spelling for NaN or infinities.
            let d = if d.is_finite() { *d } else { 0.0 };
            let _ = write!(out, "<double>{d}</double>");
        }
        Value::Base64(b) => {
            out.push_str("<base64>");
            out.push_str(&base64::engine::general_purpose::STANDARD.encode(b));
            out.push_str("</base64>");
        }
        Value::Array(items) => {
            out.push_str("<array><data>");
            for item in items {
                write_value(out, item);
            }
            out.push_str("</data></array>");
        }
        Value::Struct(members) => {
            out.push_str("<struct>");
            for (k, item) in members {
                out.push_str("<member><name>");
                escape_into(out, k);
                out.push_str("</name>");
                write_value(out, item);
                out.push_str("</member>");
            }
            out.push_str("</struct>");
        }
        Value::Nil => out.push_str("<nil/>"),
    }
    out.push_str("</value>");
}
