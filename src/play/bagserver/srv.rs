//! `bagscope_msgs/PlayInterval`, the bagserver's service type (`assets/srv/`): its definition,
//! md5sum, and the request and response in their ROS serialization — compiled from the `.srv`
//! and read and written by the message decoder and encoder (`msg`), like any message.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::msg::{
    ArrayKind, DecodeError, DecodeErrorKind, Decoded, Elem, Message, PathSegment, Primitive,
    Registry, Schema, ServiceSchema, Value, ValueRef, decode, encode,
};
use crate::ros::ServiceInfo;
use crate::time::RosTime;

/// The `.srv` text (`assets/srv/bagscope_msgs/srv/PlayInterval.srv`).
pub const PLAY_INTERVAL_SRV: &str =
    include_str!("../../../assets/srv/bagscope_msgs/srv/PlayInterval.srv");
/// The service type.
pub const PLAY_INTERVAL_TYPE: &str = "bagscope_msgs/PlayInterval";
/// Its genmsg md5sum (checked against [`PLAY_INTERVAL_SRV`] by the tests, and against
/// genmsg itself by `tests/integration/ros_serve.rs`).
pub const PLAY_INTERVAL_MD5: &str = "458af331909da245a337f210e69c5572";
/// The service's name under the server's namespace: `NS/play_interval`.
pub const SERVICE_NAME: &str = "play_interval";

/// What the service announces in its connection header.
pub fn play_interval_info() -> ServiceInfo {
    ServiceInfo {
        datatype: PLAY_INTERVAL_TYPE.to_string(),
        md5sum: PLAY_INTERVAL_MD5.to_string(),
        request_type: format!("{PLAY_INTERVAL_TYPE}Request"),
        response_type: format!("{PLAY_INTERVAL_TYPE}Response"),
    }
}

/// A request or response that does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {what}: {why} at byte {offset}")]
pub struct WireError {
    /// `request` or `response`.
    pub what: &'static str,
    /// What was wrong.
    pub why: &'static str,
    /// Where.
    pub offset: usize,
}

/// A request: publish the messages of an interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayIntervalRequest {
    /// First receive time (inclusive); an offset from the index's first message when
    /// `relative`.
    pub start: RosTime,
    /// Last receive time (inclusive); an offset like `start` when `relative`.
    pub end: RosTime,
    /// `start` and `end` count from the index's first message.
    pub relative: bool,
    /// Original topic names; empty: every indexed topic.
    pub topics: Vec<String>,
    /// Speed factor; `+inf`: as fast as the subscribers take them; 0: the server's default.
    pub rate: f64,
}

/// The answer, once the messages are out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayIntervalResponse {
    /// Messages published.
    pub published: u32,
    /// Messages of the interval that could not be read or published.
    pub failed: u32,
    /// Receive time of the first message published (zero when none).
    pub first: RosTime,
    /// Receive time of the last message published (zero when none).
    pub last: RosTime,
    /// A one-line summary, naming the first problem when `failed > 0`.
    pub message: String,
}

/// The compiled service type (the bundled `.srv`; a unit test checks that it compiles).
fn schema() -> Option<&'static ServiceSchema> {
    static SCHEMA: OnceLock<Option<ServiceSchema>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            ServiceSchema::from_srv(PLAY_INTERVAL_TYPE, PLAY_INTERVAL_SRV, &Registry::empty()).ok()
        })
        .as_ref()
}

/// Serializes the fields of a request or response (in definition order) with `schema`.
/// The definition is bundled and the values follow it, so this cannot fail; were it to,
/// the empty body would be refused by the peer as cut short.
fn encode_fields(schema: Option<&Arc<Schema>>, fields: Vec<Value<'_>>) -> Vec<u8> {
    schema
        .and_then(|s| {
            let value = Value::Message(Message::new(Arc::clone(s.root()), fields));
            encode(s, &value).ok()
        })
        .unwrap_or_default()
}

/// Decodes `data` with `schema` (every length checked by the message decoder), naming
/// problems as `what`.
fn decode_fields<'a>(
    schema: Option<&'a Arc<Schema>>,
    data: &'a [u8],
    what: &'static str,
) -> Result<Fields<'a>, WireError> {
    let schema = schema.ok_or(WireError {
        what,
        why: "no service definition",
        offset: 0,
    })?;
    let decoded = decode(schema, data).map_err(|e| wire_error(schema, what, &e, data.len()))?;
    Ok(Fields {
        decoded,
        data,
        what,
    })
}

/// The decoder's error in the bagserver's terms (what, and the offset its own reads named:
/// after an array's count or a string's length, at a time's second half).
fn wire_error(schema: &Schema, what: &'static str, e: &DecodeError, len: usize) -> WireError {
    let offset = e.offset();
    let (why, offset) = match *e.kind() {
        DecodeErrorKind::TrailingBytes { .. } => ("trailing bytes", offset),
        // CDR and JSON only (services here are ROS1).
        DecodeErrorKind::Encapsulation { .. }
        | DecodeErrorKind::OverBound { .. }
        | DecodeErrorKind::Json { .. } => ("not a ROS1 payload", offset),
        // The service's arrays are all counted: past the 4-byte count.
        DecodeErrorKind::ArrayTooLong { .. } | DecodeErrorKind::TooManyValues { .. } => {
            ("array longer than the message", offset + 4)
        }
        DecodeErrorKind::Truncated { available, .. } => {
            let available = usize::try_from(available).unwrap_or(usize::MAX);
            // A string longer than what follows its length; or a time whose seconds are there.
            let string_bytes = (offset + 4).saturating_add(available) == len;
            let time_half = available >= 4 && is_time_field(schema, e);
            let past = if string_bytes || time_half { 4 } else { 0 };
            ("cut short", offset + past)
        }
    };
    WireError { what, why, offset }
}

/// Whether the error is in a `time` field.
fn is_time_field(schema: &Schema, e: &DecodeError) -> bool {
    let [PathSegment::Field(name)] = e.path().segments() else {
        return false;
    };
    schema.root().field(name).is_some_and(|(_, f)| {
        matches!(f.ty().elem(), Elem::Prim(Primitive::Time)) && f.ty().array() == ArrayKind::Single
    })
}

/// A decoded request or response, read field by field.
struct Fields<'a> {
    decoded: Decoded<'a>,
    data: &'a [u8],
    what: &'static str,
}

impl Fields<'_> {
    fn get(&self, name: &str) -> Result<ValueRef<'_>, WireError> {
        self.decoded.root().get(name).ok_or(WireError {
            what: self.what,
            why: "a field is missing",
            offset: 0,
        })
    }

    fn mismatch(&self) -> WireError {
        WireError {
            what: self.what,
            why: "a field is not of the service's type",
            offset: 0,
        }
    }

    fn time(&self, name: &str) -> Result<RosTime, WireError> {
        match self.get(name)? {
            ValueRef::Time(t) => Ok(t),
            _ => Err(self.mismatch()),
        }
    }

    fn u32(&self, name: &str) -> Result<u32, WireError> {
        match self.get(name)? {
            ValueRef::U32(v) => Ok(v),
            _ => Err(self.mismatch()),
        }
    }

    /// A string as UTF-8 (an error naming where its bytes start otherwise).
    fn text(&self, value: &ValueRef<'_>) -> Result<String, WireError> {
        let ValueRef::String(bytes) = *value else {
            return Err(self.mismatch());
        };
        String::from_utf8(bytes.to_vec()).map_err(|_| WireError {
            what: self.what,
            why: "a string is not UTF-8",
            offset: bytes
                .as_ptr()
                .addr()
                .saturating_sub(self.data.as_ptr().addr()),
        })
    }
}

impl PlayIntervalRequest {
    /// The ROS serialization.
    pub fn encode(&self) -> Vec<u8> {
        let topics = self
            .topics
            .iter()
            .map(|t| Value::String(Cow::Borrowed(t.as_bytes())))
            .collect();
        encode_fields(
            schema().map(ServiceSchema::request),
            vec![
                Value::Time(self.start),
                Value::Time(self.end),
                Value::Bool(self.relative),
                Value::Array(topics),
                Value::F64(self.rate),
            ],
        )
    }

    /// Decodes a serialized request (from the network: every length is checked). The layout
    /// is checked before the text: a request that is both cut short and holds a topic that is
    /// not UTF-8 is reported as cut short.
    pub fn decode(data: &[u8]) -> Result<Self, WireError> {
        let f = decode_fields(schema().map(ServiceSchema::request), data, "request")?;
        let topics = match f.get("topics")? {
            ValueRef::Array(items) => items.iter().map(|t| f.text(&t)).collect::<Result<_, _>>()?,
            _ => return Err(f.mismatch()),
        };
        let (ValueRef::Bool(relative), ValueRef::F64(rate)) = (f.get("relative")?, f.get("rate")?)
        else {
            return Err(f.mismatch());
        };
        Ok(PlayIntervalRequest {
            start: f.time("start")?,
            end: f.time("end")?,
            relative,
            topics,
            rate,
        })
    }
}

impl PlayIntervalResponse {
    /// The ROS serialization.
    pub fn encode(&self) -> Vec<u8> {
        encode_fields(
            schema().map(ServiceSchema::response),
            vec![
                Value::U32(self.published),
                Value::U32(self.failed),
                Value::Time(self.first),
                Value::Time(self.last),
                Value::String(Cow::Borrowed(self.message.as_bytes())),
            ],
        )
    }

    /// Decodes a serialized response.
    pub fn decode(data: &[u8]) -> Result<Self, WireError> {
        let f = decode_fields(schema().map(ServiceSchema::response), data, "response")?;
        Ok(PlayIntervalResponse {
            published: f.u32("published")?,
            failed: f.u32("failed")?,
            first: f.time("first")?,
            last: f.time("last")?,
            message: f.text(&f.get("message")?)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> ServiceSchema {
        ServiceSchema::from_srv(PLAY_INTERVAL_TYPE, PLAY_INTERVAL_SRV, &Registry::empty()).unwrap()
    }

    #[test]
    fn md5sum_is_the_definitions() {
        let s = schema();
        assert_eq!(s.md5sum(), PLAY_INTERVAL_MD5);
        let info = play_interval_info();
        assert_eq!(info.request_type, s.request().datatype());
        assert_eq!(info.response_type, s.response().datatype());
        // The request and response md5sums genpy reports for the generated classes.
        assert_eq!(s.request().md5sum(), "d5ffc4fd8c061e7691166a1906053b36");
    }

    #[test]
    fn request_bytes_match_genpy() {
        // genpy 0.6.16: PlayIntervalRequest(start=Time(5,6), end=Time(7,8), relative=True,
        // topics=['/a','bc'], rate=inf).serialize()
        let genpy =
            "050000000600000007000000080000000102000000020000002f61020000006263000000000000f07f";
        let req = PlayIntervalRequest {
            start: RosTime::new(5, 6),
            end: RosTime::new(7, 8),
            relative: true,
            topics: vec!["/a".into(), "bc".into()],
            rate: f64::INFINITY,
        };
        let bytes = req.encode();
        let expected: Vec<u8> = (0..genpy.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&genpy[i..i + 2], 16).unwrap())
            .collect();
        assert_eq!(bytes, expected);
        assert_eq!(PlayIntervalRequest::decode(&bytes).unwrap(), req);
    }

    #[test]
    fn round_trips_agree_with_the_message_decoder() {
        let s = schema();
        let req = PlayIntervalRequest {
            start: RosTime::new(1_795_297_619, 5),
            end: RosTime::new(1_795_297_623, 999_999_999),
            relative: false,
            topics: vec!["/odom".into(), "/tf".into(), String::new()],
            rate: 2.5,
        };
        let bytes = req.encode();
        assert_eq!(PlayIntervalRequest::decode(&bytes).unwrap(), req);
        let d = decode(s.request(), &bytes).unwrap();
        let v = d.to_value();
        let Some(Value::Array(topics)) = v.get("topics") else {
            panic!("topics: {:?}", v.get("topics"));
        };
        let topics: Vec<&[u8]> = topics
            .iter()
            .map(|t| match t {
                Value::String(s) => s.as_ref(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(topics, [&b"/odom"[..], b"/tf", b""]);
        assert!(matches!(v.get("start"), Some(Value::Time(t)) if *t == req.start));
        assert!(matches!(v.get("rate"), Some(Value::F64(r)) if r.to_bits() == 2.5f64.to_bits()));

        let resp = PlayIntervalResponse {
            published: 42,
            failed: 1,
            first: RosTime::new(1, 2),
            last: RosTime::new(3, 4),
            message: "published 42 messages; 1 could not be read: ✗".into(),
        };
        let bytes = resp.encode();
        assert_eq!(PlayIntervalResponse::decode(&bytes).unwrap(), resp);
        let d = decode(s.response(), &bytes).unwrap();
        let v = d.to_value();
        assert!(matches!(v.get("published"), Some(Value::U32(42))));
        assert!(matches!(v.get("failed"), Some(Value::U32(1))));
    }

    #[test]
    fn malformed_input_is_an_error() {
        let good = PlayIntervalRequest {
            topics: vec!["/a".into()],
            rate: 1.0,
            ..PlayIntervalRequest::default()
        }
        .encode();
        // Every truncation fails; so does anything appended.
        for n in 0..good.len() {
            assert!(PlayIntervalRequest::decode(&good[..n]).is_err(), "{n}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            PlayIntervalRequest::decode(&longer).unwrap_err().why,
            "trailing bytes"
        );
        // A huge array count does not allocate.
        let mut huge = good.clone();
        huge[17..21].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(PlayIntervalRequest::decode(&huge).is_err());
        // A string length beyond the end, and one that is not UTF-8.
        let mut cut = good.clone();
        cut[21..25].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(PlayIntervalRequest::decode(&cut).is_err());
        let mut bad = good;
        bad[25] = 0xff;
        assert_eq!(
            PlayIntervalRequest::decode(&bad).unwrap_err().why,
            "a string is not UTF-8"
        );
        assert!(PlayIntervalResponse::decode(&[1, 2, 3]).is_err());
    }

    #[test]
    fn errors_name_what_and_where_as_the_first_reader_did() {
        // start 0..8, end 8..16, relative 16, topic count 17..21, its length 21..25, "/a"
        // 25..27, rate 27..35.
        let good = PlayIntervalRequest {
            topics: vec!["/a".into()],
            rate: 1.0,
            ..PlayIntervalRequest::default()
        }
        .encode();
        let err = |data: &[u8]| {
            let e = PlayIntervalRequest::decode(data).unwrap_err();
            (e.why, e.offset)
        };
        assert_eq!(err(&good[..5]), ("cut short", 4));
        assert_eq!(err(&good[..3]), ("cut short", 0));
        assert_eq!(err(&good[..19]), ("cut short", 17));
        assert_eq!(err(&good[..23]), ("array longer than the message", 21));
        assert_eq!(err(&good[..26]), ("cut short", 25));
        assert_eq!(err(&good[..30]), ("cut short", 27));
        let mut huge = good.clone();
        huge[17..21].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(err(&huge), ("array longer than the message", 21));
        let mut cut = good.clone();
        cut[21..25].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(err(&cut), ("cut short", 25));
        let mut bad = good.clone();
        bad[25] = 0xff;
        assert_eq!(err(&bad), ("a string is not UTF-8", 25));
        let mut longer = good;
        longer.push(0);
        assert_eq!(err(&longer), ("trailing bytes", 35));
        let e = PlayIntervalResponse::decode(&[1, 2, 3]).unwrap_err();
        assert_eq!((e.what, e.why, e.offset), ("response", "cut short", 0));
        assert_eq!(e.to_string(), "malformed response: cut short at byte 0");
    }
}
