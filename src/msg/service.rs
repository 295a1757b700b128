//! Service (`.srv`) definitions: a request and a response message type, and the service's
//! genmsg md5sum.
//!
//! genmsg splits a `.srv` text at the first line that starts with `---` (in its first column;
//! whatever follows on that line is ignored). Each half is compiled as a message
//! (`pkg/NameRequest`, `pkg/NameResponse`), and the service md5sum is the md5 of the request's
//! md5 text followed directly by the response's (no separator).

use std::sync::Arc;

use super::error::MsgError;
use super::md5::{hex_md5, md5_text};
use super::registry::Registry;
use super::schema::{Schema, checked_name};

/// A compiled service type.
#[derive(Debug, Clone)]
pub struct ServiceSchema {
    datatype: String,
    request: Arc<Schema>,
    response: Arc<Schema>,
    md5sum: String,
}

impl ServiceSchema {
    /// Compiles the `.srv` text of service type `datatype` (`pkg/Name`). Message-typed fields
    /// resolve through `registry` (same-package names and `Header` as in messages).
    pub fn from_srv(
        datatype: &str,
        text: &str,
        registry: &Registry,
    ) -> Result<ServiceSchema, MsgError> {
        let datatype = checked_name(datatype)?.to_string();
        let (request_text, response_text, response_line) = split_srv(text);
        let lookup = |n: &str| registry.first_text(n).map(|t| (t, 1));
        let request = Schema::compile(&format!("{datatype}Request"), &request_text, 1, &lookup)?;
        let response = Schema::compile(
            &format!("{datatype}Response"),
            &response_text,
            response_line,
            &lookup,
        )?;
        let mut hashed = md5_text(request.root());
        hashed.push_str(&md5_text(response.root()));
        Ok(ServiceSchema {
            md5sum: hex_md5(hashed.as_bytes()),
            datatype,
            request,
            response,
        })
    }

    /// The service type, `pkg/Name`.
    pub fn datatype(&self) -> &str {
        &self.datatype
    }

    /// The genmsg md5sum of the service.
    pub fn md5sum(&self) -> &str {
        &self.md5sum
    }

    /// The request type, `pkg/NameRequest`.
    pub fn request(&self) -> &Arc<Schema> {
        &self.request
    }

    /// The response type, `pkg/NameResponse`.
    pub fn response(&self) -> &Arc<Schema> {
        &self.response
    }
}

/// The request and response texts of a `.srv` as genmsg cuts them (every later `---` line
/// is dropped too), and the line number of the response's first line.
fn split_srv(text: &str) -> (String, String, usize) {
    let mut request = String::new();
    let mut response = String::new();
    let mut in_response = false;
    let mut response_line = 1;
    for (i, line) in text.split('\n').enumerate() {
        if line.starts_with("---") {
            if !in_response {
                response_line = i + 2;
            }
            in_response = true;
            continue;
        }
        let half = if in_response {
            &mut response
        } else {
            &mut request
        };
        half.push_str(line);
        half.push('\n');
    }
    (request, response, response_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_service() {
        // std_srvs/Empty: both halves empty, md5 of the empty text.
        let s = ServiceSchema::from_srv("std_srvs/Empty", "---\n", &Registry::empty()).unwrap();
        assert_eq!(s.md5sum(), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(s.request().datatype(), "std_srvs/EmptyRequest");
        assert_eq!(s.response().datatype(), "std_srvs/EmptyResponse");
    }

    #[test]
    fn known_services() {
        // The md5sums ROS publishes for these standard services.
        let set_bool = "bool data # e.g. for hardware enabling / disabling\n---\nbool success   # indicate successful run of triggered service\nstring message # informational, e.g. for error messages\n";
        let s = ServiceSchema::from_srv("std_srvs/SetBool", set_bool, &Registry::empty()).unwrap();
        assert_eq!(s.md5sum(), "09fb03525b03e7ea1fd3992bafd87e16");
        let trigger = "---\nbool success   # indicate successful run of triggered service\nstring message # informational, e.g. for error messages\n";
        let s = ServiceSchema::from_srv("std_srvs/Trigger", trigger, &Registry::empty()).unwrap();
        assert_eq!(s.md5sum(), "937c9679a518e3a18d831e57125ea522");
        // A message-typed field hashes as its type's md5sum (roscpp_tutorials-like).
        let get_map = "---\nnav_msgs/OccupancyGrid map\n";
        let s = ServiceSchema::from_srv("nav_msgs/GetMap", get_map, &Registry::bundled()).unwrap();
        assert_eq!(s.md5sum(), "6cdd0a18e0aff5b0a3ca2326a89b54ff");
    }

    #[test]
    fn constants_and_errors() {
        let s = ServiceSchema::from_srv(
            "p/C",
            "int8 A=1 # one\nint8 a\n--- trailing\nint8 B = 2\nstring S=a # b\n",
            &Registry::empty(),
        )
        .unwrap();
        assert_eq!(s.request().root().constants().len(), 1);
        assert_eq!(s.response().root().constants().len(), 2);
        // Checked with genmsg 0.6.0 (`gentools.compute_md5` of `load_srv_from_string`).
        assert_eq!(s.md5sum(), "4b0243a0fa144eb94a9d854b3a4ede91");
        // A `---` not in the first column is not a separator (genmsg then fails on it).
        assert!(ServiceSchema::from_srv("p/C", "int8 a\n ---\n", &Registry::empty()).is_err());
        assert!(ServiceSchema::from_srv("p/C", "foo bar baz\n---\n", &Registry::empty()).is_err());
        assert!(ServiceSchema::from_srv("not a name", "---\n", &Registry::empty()).is_err());
        assert!(
            ServiceSchema::from_srv("p/C", "---\nmissing/Type t\n", &Registry::empty()).is_err()
        );
    }
}
