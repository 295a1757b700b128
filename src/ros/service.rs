//! TCPROS services: the server side (handshake, `probe`, persistent connections, one `ok`
//! byte and a framed response per request) and a one-shot client.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::accept::Ticket;
use super::error::RosError;
use super::header::{self, Header, MAX_HEADER, Prefixed};
use super::limits::{DeadlineStream, FrameBudget, NodeLimits, Reservation, is_timeout};
use super::uri;

/// Largest request (or response, for the client) accepted.
pub const MAX_SERVICE_MESSAGE: usize = 64 * 1024 * 1024;
/// How long a client may take to send a request (and a persistent one may stay idle).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// What a service takes and returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServiceInfo {
    /// The service type, e.g. `bagscope/Replay`.
    pub datatype: String,
    /// md5sum of the service type.
    pub md5sum: String,
    /// The request message type.
    pub request_type: String,
    /// The response message type.
    pub response_type: String,
}

/// Answers a serialized request with a serialized response, or an error message that the
/// client receives (with a false `ok` byte).
pub type ServiceHandler = Arc<dyn Fn(&ServiceCall<'_>) -> Result<Vec<u8>, String> + Send + Sync>;

/// One request as a [`ServiceHandler`] sees it.
pub struct ServiceCall<'a> {
    /// The serialized request.
    pub request: &'a [u8],
    /// The client's connection header (clients may add fields of their own).
    pub header: &'a Header,
    /// Cancelled when the client closes its connection before the answer.
    pub cancel: &'a Cancel,
}

type CancelHook = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct CancelState {
    cancelled: bool,
    hooks: Vec<CancelHook>,
}

/// Set once the client of a request has gone (or someone else gave up on it); a long
/// handler checks it or registers a hook.
#[derive(Clone, Default)]
pub struct Cancel(Arc<Mutex<CancelState>>);

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Cancel").field(&self.is_cancelled()).finish()
    }
}

impl Cancel {
    fn lock(&self) -> MutexGuard<'_, CancelState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True once cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.lock().cancelled
    }

    /// Cancels: runs every hook (once).
    pub fn cancel(&self) {
        let hooks = {
            let mut st = self.lock();
            st.cancelled = true;
            std::mem::take(&mut st.hooks)
        };
        for h in hooks {
            h();
        }
    }

    /// Runs `hook` when cancelled (at once if already cancelled).
    pub fn on_cancel(&self, hook: impl FnOnce() + Send + 'static) {
        let mut st = self.lock();
        if st.cancelled {
            drop(st);
            hook();
        } else {
            st.hooks.push(Box::new(hook));
        }
    }
}

/// How often the connection of a request being handled is checked for the client leaving.
const CLIENT_CHECK: Duration = Duration::from_millis(20);

/// Watches `stream` while a request is handled: cancels `cancel` when the client closes
/// the connection. Ends when `done` is set (or the client sends more: it is still there).
fn watch_client(stream: &TcpStream, cancel: &Cancel, done: &AtomicBool) {
    let mut byte = [0u8; 1];
    if stream.set_read_timeout(Some(CLIENT_CHECK)).is_err() {
        return;
    }
    while !done.load(Ordering::SeqCst) {
        match stream.peek(&mut byte) {
            Ok(0) => {
                cancel.cancel();
                return;
            }
            Ok(_) => return,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => {
                cancel.cancel();
                return;
            }
        }
    }
}

/// A service this node provides.
pub(crate) struct ServiceServer {
    name: String,
    info: ServiceInfo,
    callerid: String,
    handler: ServiceHandler,
    calls: AtomicU64,
    /// Requests being handled or answered right now.
    in_flight: AtomicUsize,
}

/// Counts a request in flight until dropped (the answer written or given up).
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl ServiceServer {
    pub(crate) fn new(
        name: &str,
        info: ServiceInfo,
        callerid: &str,
        handler: ServiceHandler,
    ) -> Self {
        ServiceServer {
            name: name.to_string(),
            info,
            callerid: callerid.to_string(),
            handler,
            calls: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        }
    }

    /// Waits until no request is being handled or answered, at most until `deadline`. True
    /// when none is.
    pub(crate) fn drain(&self, deadline: Instant) -> bool {
        while self.in_flight.load(Ordering::SeqCst) > 0 {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    pub(crate) fn info(&self) -> &ServiceInfo {
        &self.info
    }

    /// Requests answered so far.
    pub(crate) fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// The header we answer clients with.
    pub(crate) fn reply_header(&self) -> Header {
        Header::new()
            .with("callerid", &self.callerid)
            .with("md5sum", &self.info.md5sum)
            .with("request_type", &self.info.request_type)
            .with("response_type", &self.info.response_type)
            .with("service", &self.name)
            .with("type", &self.info.datatype)
    }

    /// Serves a client whose header was read: `Err` is the reason to send back in an
    /// `error` header; otherwise requests are answered until the client is done. Each
    /// request must arrive whole within `limits.frame_deadline` of its first byte, fit
    /// `limits.max_service_request` and the node's `budget`; a persistent client may stay
    /// idle `limits.idle_timeout` between requests.
    pub(crate) fn serve(
        &self,
        stream: &TcpStream,
        header: &Header,
        limits: &NodeLimits,
        budget: &Arc<FrameBudget>,
        ticket: &Ticket,
    ) -> Result<(), String> {
        check_client(&self.name, &self.info, header)?;
        let mut out = stream;
        out.write_all(&self.reply_header().encode())
            .map_err(|e| format!("writing the connection header: {e}"))?;
        if header.get("probe") == Some("1") {
            return Ok(());
        }
        let persistent = matches!(header.get("persistent"), Some("1" | "true" | "True"));
        loop {
            ticket.reading();
            let mut len4 = [0u8; 4];
            let mut idle = DeadlineStream::new(stream, Instant::now() + limits.idle_timeout);
            let Ok(()) = idle.read_exact(&mut len4) else {
                return Ok(());
            };
            idle.set_deadline(Instant::now() + limits.frame_deadline);
            let mut reservation = Reservation::new(Some(budget));
            let request = match header::read_body(
                &mut idle,
                u32::from_le_bytes(len4),
                limits.max_service_request,
                &mut reservation,
            ) {
                Ok(r) => r,
                Err(Prefixed::TooLarge(n)) => {
                    let _ = Self::answer(
                        stream,
                        Err(format!(
                            "request of {n} bytes refused (at most {} accepted)",
                            limits.max_service_request
                        )),
                    );
                    return Ok(());
                }
                Err(Prefixed::OverBudget(n)) => {
                    let _ = Self::answer(
                        stream,
                        Err(format!(
                            "request of {n} bytes refused: the node is busy receiving others"
                        )),
                    );
                    return Ok(());
                }
                Err(Prefixed::Io(_)) => return Ok(()),
            };
            ticket.answering();
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            let _answering = InFlight(&self.in_flight);
            let cancel = Cancel::default();
            let done = AtomicBool::new(false);
            let result = std::thread::scope(|scope| {
                let watcher = std::thread::Builder::new()
                    .name("service-watch".into())
                    .spawn_scoped(scope, || watch_client(stream, &cancel, &done));
                let call = ServiceCall {
                    request: &request,
                    header,
                    cancel: &cancel,
                };
                let result = (self.handler)(&call);
                done.store(true, Ordering::SeqCst);
                if let Ok(w) = watcher {
                    let _ = w.join();
                }
                result
            });
            drop(reservation);
            if cancel.is_cancelled() || Self::answer(stream, result).is_err() || !persistent {
                return Ok(());
            }
        }
    }

    /// Writes the `ok` byte and the framed response (or error message).
    fn answer(mut stream: &TcpStream, result: Result<Vec<u8>, String>) -> io::Result<()> {
        let (ok, body) = match result {
            Ok(resp) => (1u8, resp),
            Err(msg) => (0u8, msg.into_bytes()),
        };
        let framed = header::frame(&body)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "response too large"))?;
        let mut out = Vec::with_capacity(framed.len() + 1);
        out.push(ok);
        out.extend_from_slice(&framed);
        stream.write_all(&out)
    }
}

/// Checks a service client's connection header: `service`, `md5sum` and `callerid` are
/// required; the md5sum must be ours or `*`.
pub fn check_client(name: &str, info: &ServiceInfo, header: &Header) -> Result<(), String> {
    for required in ["service", "md5sum", "callerid"] {
        if header.get(required).is_none() {
            return Err(format!("Missing required '{required}' field"));
        }
    }
    let wanted = header.get("service").unwrap_or_default();
    if wanted != name {
        return Err(format!("not a provider of [{wanted}]"));
    }
    let md5 = header.get("md5sum").unwrap_or_default();
    if md5 != "*" && md5 != info.md5sum {
        let callerid = header.get("callerid").unwrap_or_default();
        return Err(format!(
            "request from [{callerid}]: md5sums do not match: [{md5}] vs. [{}]",
            info.md5sum
        ));
    }
    Ok(())
}

/// Calls the service `name` at `service_uri` (`rosrpc://HOST:PORT`) once: `Ok(Ok(response))`,
/// or `Ok(Err(message))` when the server answered with a false `ok` byte. `timeout` bounds
/// connecting, the handshake and sending the request, together; `answer_timeout`, when
/// given, bounds the whole call from its start, the answer included (`None`: the answer is
/// awaited as long as the server keeps the connection open, for services that take long to
/// answer). A server that trickles its bytes does not stretch either: they bound the whole
/// exchange, not each read. When one passes the error is of kind `TimedOut`.
pub fn call_service(
    service_uri: &str,
    name: &str,
    md5sum: &str,
    callerid: &str,
    request: &[u8],
    timeout: Duration,
    answer_timeout: Option<Duration>,
) -> Result<Result<Vec<u8>, String>, RosError> {
    let hello = Header::new()
        .with("callerid", callerid)
        .with("md5sum", md5sum)
        .with("service", name);
    call_service_with_header(service_uri, &hello, request, timeout, answer_timeout)
}

/// A `TimedOut` error saying how long was waited, when `deadline` has passed (`e` otherwise).
fn timed_out(e: io::Error, started: Instant, deadline: Option<Instant>) -> io::Error {
    match deadline {
        Some(d) if is_timeout(&e) || Instant::now() >= d => io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "no answer within {:.1} s",
                d.saturating_duration_since(started).as_secs_f64()
            ),
        ),
        _ => e,
    }
}

/// [`call_service`] with the connection header given whole: `service`, `md5sum`
/// and `callerid`, plus any field the server understands.
pub fn call_service_with_header(
    service_uri: &str,
    hello: &Header,
    request: &[u8],
    timeout: Duration,
    answer_timeout: Option<Duration>,
) -> Result<Result<Vec<u8>, String>, RosError> {
    let started = Instant::now();
    let whole = answer_timeout.filter(|t| !t.is_zero()).map(|t| started + t);
    let setup = whole.map_or(started + timeout, |w| w.min(started + timeout));
    let name = hello.get("service").unwrap_or_default();
    let io_err = |context: &str, source: io::Error, deadline: Option<Instant>| RosError::Io {
        context: format!("{context} {name} at {service_uri}"),
        source: timed_out(source, started, deadline),
    };
    let (host, port) =
        uri::host_port(service_uri, "rosrpc").ok_or_else(|| RosError::BadAnswer {
            method: "lookupService".into(),
            uri: service_uri.to_string(),
            what: "not a rosrpc:// URI".into(),
        })?;
    let s = uri::connect_until(host, port, setup)
        .map_err(|e| io_err("connecting to", e, Some(setup)))?;
    let mut io = DeadlineStream::new(&s, setup);
    io.write_all(&hello.encode())
        .map_err(|e| io_err("calling", e, Some(setup)))?;
    let reply = Header::read_from(&mut io, MAX_HEADER).map_err(|e| {
        let source = match e {
            super::header::HeaderError::Io(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
        };
        io_err("calling", source, Some(setup))
    })?;
    if let Some(e) = reply.get("error") {
        return Err(RosError::Refused {
            method: "service handshake".into(),
            uri: service_uri.to_string(),
            code: 0,
            message: e.to_string(),
        });
    }
    let framed = header::frame(request).ok_or_else(|| {
        io_err(
            "calling",
            io::Error::new(io::ErrorKind::InvalidInput, "request too large"),
            None,
        )
    })?;
    io.write_all(&framed)
        .map_err(|e| io_err("calling", e, Some(setup)))?;
    let mut ok = [0u8; 1];
    let body = if let Some(deadline) = whole {
        io.set_deadline(deadline);
        io.read_exact(&mut ok)
            .and_then(|()| header::read_frame(&mut io, MAX_SERVICE_MESSAGE))
    } else {
        let mut r: &TcpStream = &s;
        r.set_read_timeout(None)
            .and_then(|()| r.read_exact(&mut ok))
            .and_then(|()| header::read_frame(&mut r, MAX_SERVICE_MESSAGE))
    }
    .map_err(|e| io_err("reading the answer of", e, whole))?;
    Ok(if ok[0] == 1 {
        Ok(body)
    } else {
        Err(String::from_utf8_lossy(&body).into_owned())
    })
}
