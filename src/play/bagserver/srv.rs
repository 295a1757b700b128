//! `bagscope_msgs/PlayInterval`, the bagserver's service type (`assets/srv/`): its definition,
//! md5sum, and the request and response in their ROS serialization.

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

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_time(out: &mut Vec<u8>, t: RosTime) {
    put_u32(out, t.sec);
    put_u32(out, t.nsec);
}

/// Strings longer than a `u32` length are cut (nothing here comes near).
fn put_string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    put_u32(out, len);
    out.extend_from_slice(bytes.get(..len as usize).unwrap_or(bytes));
}

/// Reads the fields of a serialized message, bounds-checked.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn err(&self, why: &'static str) -> WireError {
        WireError {
            what: self.what,
            why,
            offset: self.pos,
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| self.err("length overflows"))?;
        let bytes = self
            .data
            .get(self.pos..end)
            .ok_or_else(|| self.err("cut short"))?;
        self.pos = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u32(&mut self) -> Result<u32, WireError> {
        self.array().map(u32::from_le_bytes)
    }

    fn time(&mut self) -> Result<RosTime, WireError> {
        Ok(RosTime::new(self.u32()?, self.u32()?))
    }

    fn bool(&mut self) -> Result<bool, WireError> {
        Ok(self.array::<1>()?[0] != 0)
    }

    fn f64(&mut self) -> Result<f64, WireError> {
        self.array().map(f64::from_le_bytes)
    }

    fn string(&mut self) -> Result<String, WireError> {
        let len = self.u32()? as usize;
        let at = self.pos;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| WireError {
            what: self.what,
            why: "a string is not UTF-8",
            offset: at,
        })
    }

    fn strings(&mut self) -> Result<Vec<String>, WireError> {
        let n = self.u32()? as usize;
        // Every string takes at least its 4-byte length: no allocation beyond the input.
        if n > self.data.len().saturating_sub(self.pos) / 4 {
            return Err(self.err("array longer than the message"));
        }
        (0..n).map(|_| self.string()).collect()
    }

    fn finish(&self) -> Result<(), WireError> {
        if self.pos == self.data.len() {
            Ok(())
        } else {
            Err(self.err("trailing bytes"))
        }
    }
}

impl PlayIntervalRequest {
    /// The ROS serialization.
    pub fn encode(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(32 + self.topics.iter().map(|t| t.len() + 4).sum::<usize>());
        put_time(&mut out, self.start);
        put_time(&mut out, self.end);
        out.push(u8::from(self.relative));
        put_u32(
            &mut out,
            u32::try_from(self.topics.len()).unwrap_or(u32::MAX),
        );
        for t in &self.topics {
            put_string(&mut out, t);
        }
        out.extend_from_slice(&self.rate.to_le_bytes());
        out
    }

    /// Decodes a serialized request (from the network: every length is checked).
    pub fn decode(data: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader {
            data,
            pos: 0,
            what: "request",
        };
        let req = PlayIntervalRequest {
            start: r.time()?,
            end: r.time()?,
            relative: r.bool()?,
            topics: r.strings()?,
            rate: r.f64()?,
        };
        r.finish()?;
        Ok(req)
    }
}

impl PlayIntervalResponse {
    /// The ROS serialization.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(28 + self.message.len());
        put_u32(&mut out, self.published);
        put_u32(&mut out, self.failed);
        put_time(&mut out, self.first);
        put_time(&mut out, self.last);
        put_string(&mut out, &self.message);
        out
    }

    /// Decodes a serialized response.
    pub fn decode(data: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader {
            data,
            pos: 0,
            what: "response",
        };
        let resp = PlayIntervalResponse {
            published: r.u32()?,
            failed: r.u32()?,
            first: r.time()?,
            last: r.time()?,
            message: r.string()?,
        };
        r.finish()?;
        Ok(resp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Registry, ServiceSchema, Value, decode};

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
}
