//! XML-RPC values: the types the ROS master and slave APIs use.

use std::fmt;

/// One XML-RPC value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `<i4>` / `<int>` (also `<i8>` when it fits in 32 bits).
    Int(i32),
    /// `<boolean>`.
    Bool(bool),
    /// `<string>`, or a `<value>` without a type element.
    Str(String),
    /// `<double>`.
    Double(f64),
    /// `<base64>`.
    Base64(Vec<u8>),
    /// `<array>`.
    Array(Vec<Value>),
    /// `<struct>`: members in the order received.
    Struct(Vec<(String, Value)>),
    /// `<nil/>` (an extension Python's xmlrpc accepts with `allow_none`).
    Nil,
}

impl Value {
    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i32> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// A struct member by name (the last one when repeated).
    pub fn member(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(m) => m.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// An integer value saturated into XML-RPC's 32-bit range (ROS statistics are 64-bit).
    pub fn saturating_int(n: u64) -> Value {
        Value::Int(i32::try_from(n).unwrap_or(i32::MAX))
    }

    /// The name of the XML-RPC type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Bool(_) => "boolean",
            Value::Str(_) => "string",
            Value::Double(_) => "double",
            Value::Base64(_) => "base64",
            Value::Array(_) => "array",
            Value::Struct(_) => "struct",
            Value::Nil => "nil",
        }
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Str(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Str(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Double(v)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Self {
        Value::Array(v.into_iter().map(Into::into).collect())
    }
}

/// A fault: the error answer of an XML-RPC call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// `faultCode`.
    pub code: i32,
    /// `faultString`.
    pub message: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fault {}: {}", self.code, self.message)
    }
}

/// A parsed `<methodCall>`.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodCall {
    /// `methodName`.
    pub method: String,
    /// The parameters in order.
    pub params: Vec<Value>,
}

/// A parsed `<methodResponse>`: the single return value or a fault.
pub type MethodResponse = Result<Value, Fault>;
