//! What a ROS peer sends never panics the node: XML-RPC calls and responses, TCPROS connection
//! headers and frames, and `PlayInterval` service requests and responses.
#![no_main]

use bagscope::play::bagserver::{PlayIntervalRequest, PlayIntervalResponse};
use bagscope::ros::xmlrpc::{parse_call, parse_response};
use bagscope::ros::{Header, read_frame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = parse_call(data);
    let _ = parse_response(data);
    let _ = Header::decode(data);
    let _ = Header::read_from(&mut &data[..], 1 << 16);
    let _ = read_frame(&mut &data[..], 1 << 16);
    let _ = PlayIntervalRequest::decode(data);
    let _ = PlayIntervalResponse::decode(data);
});
