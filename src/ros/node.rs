//! A ROS1 node: its slave XML-RPC server, its TCPROS server socket, the topics it publishes
//! and the services it provides, registered with the master and unregistered on shutdown.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::accept::{AcceptLoop, AdmissionStats, Caps, Ticket};
use super::config::NodeConfig;
use super::error::RosError;
use super::fds;
use super::limits::{FrameBudget, NodeLimits};
use super::link::QueueLimits;
use super::master::MasterClient;
use super::names;
use super::publication::{Publication, TopicInfo};
use super::seats::Seats;
use super::service::{ServiceHandler, ServiceInfo, ServiceServer};
use super::slave::{SlaveApi, SlaveState};
use super::stall::StallBudget;
use super::tcpros::{self, Router};
use super::uri;
use super::xmlrpc::{self, XmlRpcError};

/// How long shutting down waits for service requests being answered.
const SERVICE_DRAIN: Duration = Duration::from_secs(2);
/// How long shutting down spends unregistering from the master, at most (then the rest is
/// skipped: the master is too slow or gone).
const UNREGISTER_BUDGET: Duration = Duration::from_secs(5);

type ShutdownHook = Box<dyn Fn(&str) + Send + Sync>;

#[derive(Default)]
struct Servers {
    xmlrpc: Option<xmlrpc::Server>,
    tcpros: Option<AcceptLoop>,
}

/// The shared state of a node (the servers' threads hold it weakly).
pub(crate) struct NodeInner {
    pub(crate) config: NodeConfig,
    master: MasterClient,
    uri: String,
    pub(crate) tcpros_port: u16,
    /// The limits in force: the configured ones fitted to the file descriptors there are.
    limits: NodeLimits,
    budget: Arc<FrameBudget>,
    ids: Arc<AtomicU32>,
    seats: Arc<Seats>,
    pubs: Mutex<BTreeMap<String, Publication>>,
    services: Mutex<BTreeMap<String, Arc<ServiceServer>>>,
    servers: Mutex<Servers>,
    shut_down: AtomicBool,
    shutdown_requested: AtomicBool,
    hooks: Mutex<Vec<ShutdownHook>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl NodeInner {
    pub(crate) fn publications(&self) -> Vec<Publication> {
        lock(&self.pubs).values().cloned().collect()
    }

    pub(crate) fn publication(&self, topic: &str) -> Option<Publication> {
        lock(&self.pubs).get(topic).cloned()
    }

    /// Someone (`rosnode kill`, a node registering under our name) asked us to shut down:
    /// tell the owner.
    pub(crate) fn request_shutdown(&self, why: &str) {
        self.shutdown_requested.store(true, Ordering::SeqCst);
        for hook in lock(&self.hooks).iter() {
            hook(why);
        }
    }
}

impl SlaveState for NodeInner {
    fn master_uri(&self) -> &str {
        &self.config.master_uri
    }

    fn host(&self) -> &str {
        &self.config.host
    }

    fn tcpros_port(&self) -> u16 {
        self.tcpros_port
    }

    fn publications(&self) -> Vec<Publication> {
        NodeInner::publications(self)
    }

    fn publication(&self, topic: &str) -> Option<Publication> {
        NodeInner::publication(self, topic)
    }

    fn request_shutdown(&self, why: &str) {
        NodeInner::request_shutdown(self, why);
    }
}

impl Router for NodeInner {
    fn callerid(&self) -> &str {
        &self.config.name
    }

    fn publication(&self, topic: &str) -> Option<Publication> {
        NodeInner::publication(self, topic)
    }

    fn service(&self, name: &str) -> Option<Arc<ServiceServer>> {
        lock(&self.services).get(name).cloned()
    }

    fn shutting_down(&self) -> bool {
        self.shut_down.load(Ordering::SeqCst)
    }

    fn limits(&self) -> &NodeLimits {
        &self.limits
    }

    fn budget(&self) -> &Arc<FrameBudget> {
        &self.budget
    }
}

/// A topic just advertised and the subscribers the master knew of at that moment (they are
/// about to connect).
#[derive(Debug)]
pub struct Advertised {
    /// The publication.
    pub publication: Publication,
    /// XML-RPC URIs of the topic's subscribers, from `registerPublisher`.
    pub subscribers: Vec<String>,
}

/// How loaded a node's servers are (see [`Node::load`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeLoad {
    /// The slave API server's connections.
    pub xmlrpc: AdmissionStats,
    /// The TCPROS server's connections (handshakes and service clients).
    pub tcpros: AdmissionStats,
    /// Bytes of connection headers and service requests being received.
    pub frame_bytes: usize,
    /// Subscriber connections kept now, every topic together.
    pub subscribers: usize,
    /// Subscribers refused since the start (beyond a cap).
    pub refused_subscribers: u64,
}

/// A running node. Dropping it shuts it down (unregistering everything).
pub struct Node {
    inner: Arc<NodeInner>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("name", &self.inner.config.name)
            .field("uri", &self.inner.uri)
            .finish_non_exhaustive()
    }
}

fn io_error(context: &str) -> impl FnOnce(std::io::Error) -> RosError {
    let context = context.to_string();
    move |source| RosError::Io { context, source }
}

impl Node {
    /// Starts the node's servers after checking that the master answers. Nothing is
    /// registered yet. The process's soft limit on open files is raised to the hard one,
    /// and the node's connection caps are fitted to the descriptors left then, less
    /// [`FD_RESERVE`](super::FD_RESERVE) kept for calls to the master and files (see
    /// [`NodeLimits::fitted`]); open what else must stay open (bags) before.
    pub fn start(config: NodeConfig) -> Result<Node, RosError> {
        let master = MasterClient::new(&config.master_uri, &config.name, config.call_timeout);
        master.get_uri()?;
        let limits = match fds::available() {
            Some(n) => config.limits.fitted(n),
            None => config.limits.clone(),
        };
        let tcpros_listener = TcpListener::bind(SocketAddr::new(config.bind, 0))
            .map_err(io_error("binding the TCPROS socket"))?;
        let tcpros_port = tcpros_listener
            .local_addr()
            .map_err(io_error("binding the TCPROS socket"))?
            .port();
        let xml_listener = TcpListener::bind(SocketAddr::new(config.bind, 0))
            .map_err(io_error("binding the XML-RPC socket"))?;
        let xml_port = xml_listener
            .local_addr()
            .map_err(io_error("binding the XML-RPC socket"))?
            .port();
        let inner = Arc::new(NodeInner {
            uri: uri::format("http", &config.host, xml_port, true),
            budget: FrameBudget::new(limits.frame_budget),
            seats: Seats::new(limits.max_subscribers, limits.max_subscribers_per_peer),
            limits: limits.clone(),
            config,
            master,
            tcpros_port,
            ids: Arc::new(AtomicU32::new(1)),
            pubs: Mutex::new(BTreeMap::new()),
            services: Mutex::new(BTreeMap::new()),
            servers: Mutex::new(Servers::default()),
            shut_down: AtomicBool::new(false),
            shutdown_requested: AtomicBool::new(false),
            hooks: Mutex::new(Vec::new()),
        });
        let server = xmlrpc::Server::with_limits(
            xml_listener,
            Arc::new(SlaveApi {
                node: Arc::downgrade(&inner),
            }),
            &limits,
            Arc::clone(&inner.budget),
        )
        .map_err(io_error("starting the XML-RPC server"))?;
        let weak = Arc::downgrade(&inner);
        let accept = AcceptLoop::spawn(
            tcpros_listener,
            "tcpros",
            Caps {
                active: limits.max_active,
                reading: limits.max_reading,
                reading_per_peer: limits.max_reading_per_peer,
            },
            Arc::new(move |stream, _peer, ticket: &Ticket| {
                if let Some(node) = weak.upgrade() {
                    tcpros::serve_connection(stream, node.as_ref(), ticket);
                }
            }),
        )
        .map_err(io_error("starting the TCPROS server"))?;
        {
            let mut s = lock(&inner.servers);
            s.xmlrpc = Some(server);
            s.tcpros = Some(accept);
        }
        Ok(Node { inner })
    }

    /// The node's name (its `callerid`).
    pub fn name(&self) -> &str {
        &self.inner.config.name
    }

    /// The node's slave API URI (`http://HOST:PORT/`).
    pub fn uri(&self) -> &str {
        &self.inner.uri
    }

    /// The configuration the node runs with.
    pub fn config(&self) -> &NodeConfig {
        &self.inner.config
    }

    /// The limits in force: the configured ones fitted to the file descriptors the process
    /// had when the node started.
    pub fn limits(&self) -> &NodeLimits {
        &self.inner.limits
    }

    /// Calls `hook` (on a connection's thread) with a line when subscribers are refused
    /// because of a cap: at most one line every 10 s, counting the others.
    pub fn on_refusal(&self, hook: impl Fn(&str) + Send + Sync + 'static) {
        self.inner.seats.on_refusal(hook);
    }

    /// The master client (calling as this node).
    pub fn master(&self) -> &MasterClient {
        &self.inner.master
    }

    /// Counters of the connections the slave API (XML-RPC) and TCPROS servers handle, and
    /// the bytes of frames being received now.
    pub fn load(&self) -> NodeLoad {
        let servers = lock(&self.inner.servers);
        NodeLoad {
            xmlrpc: servers
                .xmlrpc
                .as_ref()
                .map(xmlrpc::Server::admission)
                .unwrap_or_default(),
            tcpros: servers
                .tcpros
                .as_ref()
                .map(AcceptLoop::stats)
                .unwrap_or_default(),
            frame_bytes: self.inner.budget.used(),
            subscribers: self.inner.seats.taken(),
            refused_subscribers: self.inner.seats.refused(),
        }
    }

    /// The port of the TCPROS server socket.
    pub fn tcpros_port(&self) -> u16 {
        self.inner.tcpros_port
    }

    /// `name` resolved in the node's namespace and checked.
    pub fn resolve(&self, name: &str) -> Result<String, RosError> {
        let resolved = names::resolve(&self.inner.config.namespace, name);
        names::validate_global(&resolved)?;
        Ok(resolved)
    }

    fn check_running(&self) -> Result<(), RosError> {
        if self.inner.shut_down.load(Ordering::SeqCst) {
            Err(RosError::ShutDown)
        } else {
            Ok(())
        }
    }

    /// Advertises `topic` (resolved in the node's namespace) and registers it with the
    /// master. Advertising a topic again with the same type returns the same publication.
    pub fn advertise(
        &self,
        topic: &str,
        info: TopicInfo,
        limits: QueueLimits,
    ) -> Result<Advertised, RosError> {
        self.check_running()?;
        let topic = self.resolve(topic)?;
        let mut pubs = lock(&self.inner.pubs);
        if let Some(p) = pubs.get(&topic) {
            if p.info().datatype != info.datatype || p.info().md5sum != info.md5sum {
                return Err(RosError::TypeConflict {
                    topic,
                    existing: p.info().datatype.clone(),
                    requested: info.datatype,
                });
            }
            return Ok(Advertised {
                publication: p.clone(),
                subscribers: Vec::new(),
            });
        }
        let datatype = info.datatype.clone();
        let publication = Publication::new(
            &topic,
            info,
            &self.inner.config.name,
            limits,
            Arc::clone(&self.inner.ids),
            Arc::clone(&self.inner.seats),
        );
        pubs.insert(topic.clone(), publication.clone());
        drop(pubs);
        match self
            .inner
            .master
            .register_publisher(&topic, &datatype, &self.inner.uri)
        {
            Ok(subscribers) => Ok(Advertised {
                publication,
                subscribers,
            }),
            Err(e) => {
                lock(&self.inner.pubs).remove(&topic);
                publication.close();
                Err(e)
            }
        }
    }

    /// Stops publishing `topic`: unregisters it and closes its connections.
    pub fn unadvertise(&self, topic: &str) -> Result<(), RosError> {
        let topic = self.resolve(topic)?;
        let Some(p) = lock(&self.inner.pubs).remove(&topic) else {
            return Ok(());
        };
        p.close();
        self.inner
            .master
            .unregister_publisher(&topic, &self.inner.uri)
            .map(|_| ())
    }

    /// The topics published, by name.
    pub fn publications(&self) -> Vec<Publication> {
        self.inner.publications()
    }

    /// Provides service `name` (resolved in the node's namespace): registers it with the
    /// master; `handler` answers each request on the connection's thread.
    pub fn advertise_service(
        &self,
        name: &str,
        info: ServiceInfo,
        handler: ServiceHandler,
    ) -> Result<(), RosError> {
        self.check_running()?;
        let name = self.resolve(name)?;
        let server = Arc::new(ServiceServer::new(
            &name,
            info,
            &self.inner.config.name,
            handler,
        ));
        lock(&self.inner.services).insert(name.clone(), server);
        if let Err(e) =
            self.inner
                .master
                .register_service(&name, &self.service_uri(), &self.inner.uri)
        {
            lock(&self.inner.services).remove(&name);
            return Err(e);
        }
        Ok(())
    }

    /// Stops providing service `name`.
    pub fn unadvertise_service(&self, name: &str) -> Result<(), RosError> {
        let name = self.resolve(name)?;
        if lock(&self.inner.services).remove(&name).is_none() {
            return Ok(());
        }
        self.inner
            .master
            .unregister_service(&name, &self.service_uri())
            .map(|_| ())
    }

    /// Requests answered by service `name` so far (`None` if not provided).
    pub fn service_calls(&self, name: &str) -> Option<u64> {
        let name = self.resolve(name).ok()?;
        lock(&self.inner.services).get(&name).map(|s| s.calls())
    }

    /// The type of service `name`, if provided.
    pub fn service_info(&self, name: &str) -> Option<ServiceInfo> {
        let name = self.resolve(name).ok()?;
        lock(&self.inner.services)
            .get(&name)
            .map(|s| s.info().clone())
    }

    /// The `rosrpc://HOST:PORT` URI of our services.
    pub fn service_uri(&self) -> String {
        uri::format(
            "rosrpc",
            &self.inner.config.host,
            self.inner.tcpros_port,
            false,
        )
    }

    /// Calls `hook` (on a server thread) when someone asks the node to shut down through
    /// the slave API. The node keeps running: the owner decides.
    pub fn on_shutdown_request(&self, hook: impl Fn(&str) + Send + Sync + 'static) {
        lock(&self.inner.hooks).push(Box::new(hook));
    }

    /// Asks the master for its URI every `period`, each call bounded by `period`; once it
    /// has not answered for `misses` periods (`misses` failures in a row, or calls that
    /// hang), calls `hook` once (on a background thread) with what failed. Ends with the
    /// node.
    pub fn watch_master(
        &self,
        period: Duration,
        misses: u32,
        hook: impl FnOnce(&str) + Send + 'static,
    ) {
        let weak = Arc::downgrade(&self.inner);
        let lost_after = period.saturating_mul(misses.max(1));
        let _ = std::thread::Builder::new()
            .name("master-watch".into())
            .spawn(move || {
                let mut failed = 0u32;
                let mut last_answer = Instant::now();
                let mut next = Instant::now() + period;
                loop {
                    while Instant::now() < next {
                        std::thread::sleep(Duration::from_millis(50).min(period));
                        match weak.upgrade() {
                            Some(n) if !n.shut_down.load(Ordering::SeqCst) => {}
                            _ => return,
                        }
                    }
                    next += period;
                    let Some(node) = weak.upgrade() else { return };
                    let lost_at = last_answer + lost_after;
                    let left = lost_at.saturating_duration_since(Instant::now());
                    let timeout = period.min(left).max(Duration::from_millis(10));
                    match node.master.with_timeout(timeout).get_uri() {
                        Ok(_) => {
                            failed = 0;
                            last_answer = Instant::now();
                        }
                        Err(e) => {
                            failed += 1;
                            if failed >= misses.max(1) || Instant::now() >= lost_at {
                                hook(&e.to_string());
                                return;
                            }
                        }
                    }
                    // A call that hung until its timeout starts the next one at once.
                    next = next.max(Instant::now());
                }
            });
    }

    /// True once a shutdown was requested through the slave API.
    pub fn shutdown_requested(&self) -> bool {
        self.inner.shutdown_requested.load(Ordering::SeqCst)
    }

    /// Waits until every subscriber of every topic has been sent everything queued, at most
    /// `timeout`. True when everything was sent.
    pub fn flush(&self, timeout: Duration) -> bool {
        self.flush_within(timeout, None)
    }

    /// [`Node::flush`] within `budget` (see [`StallBudget`]): a subscriber that takes
    /// nothing for its stall is marked slow and no longer waited for (nor by lossless
    /// publishing), and nobody is waited for once it is spent.
    pub fn flush_within(&self, timeout: Duration, budget: Option<&StallBudget>) -> bool {
        let deadline = Instant::now() + timeout;
        let mut all = true;
        for p in self.publications() {
            all &= p.flush_within(deadline.saturating_duration_since(Instant::now()), budget);
        }
        all
    }

    /// Unregisters every topic and service from the master (5 s at most in all), lets
    /// service requests being answered finish (2 s at most), closes every connection and
    /// stops the servers. Idempotent; also done on drop. When the master cannot be reached
    /// (or is too slow), the remaining unregistrations are skipped and the first error is
    /// returned.
    pub fn shutdown(&self) -> Result<(), RosError> {
        if self.inner.shut_down.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let mut first_error: Option<RosError> = None;
        // After a connection failure (or a call that timed out) the master is taken as
        // gone: no more waiting on it.
        let mut note = |r: Result<i32, RosError>| {
            if let Err(e) = r {
                first_error.get_or_insert(e);
            }
            matches!(
                first_error,
                Some(RosError::Call {
                    source: XmlRpcError::Io { .. } | XmlRpcError::TimedOut { .. },
                    ..
                })
            )
        };
        let mut master_gone = false;
        let budget = Instant::now() + UNREGISTER_BUDGET;
        let mut timed_out = false;
        let mut out_of_time = |gone: &mut bool| {
            if !*gone && Instant::now() >= budget {
                *gone = true;
                timed_out = true;
            }
            *gone
        };
        let pubs = std::mem::take(&mut *lock(&self.inner.pubs));
        for (topic, p) in &pubs {
            if !out_of_time(&mut master_gone) {
                master_gone = note(
                    self.inner
                        .master
                        .unregister_publisher(topic, &self.inner.uri),
                );
            }
            p.close();
        }
        let services = std::mem::take(&mut *lock(&self.inner.services));
        let service_uri = self.service_uri();
        for name in services.keys() {
            if !out_of_time(&mut master_gone) {
                master_gone = note(self.inner.master.unregister_service(name, &service_uri));
            }
        }
        // Requests being answered get their answer before the servers stop.
        let deadline = Instant::now() + SERVICE_DRAIN;
        for s in services.values() {
            s.drain(deadline);
        }
        let mut servers = lock(&self.inner.servers);
        if let Some(mut s) = servers.xmlrpc.take() {
            s.stop();
        }
        if let Some(mut a) = servers.tcpros.take() {
            a.stop();
        }
        drop(servers);
        if timed_out && first_error.is_none() {
            first_error = Some(RosError::Io {
                context: "unregistering from the master".into(),
                source: std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("gave up after {} s", UNREGISTER_BUDGET.as_secs()),
                ),
            });
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}
