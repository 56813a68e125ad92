//! A TCP relay that delays what crosses it by a fixed time each way: the wire of a network with a
//! stated round trip, for kernels without netem (this machine's has none). Each direction has a
//! reader, which stamps every chunk it reads with the moment it is due, and a writer, which sends
//! it then; so a pipeline's window keeps flowing (its chunks are delayed, not serialised) and
//! every byte arrives no earlier than the delay after it was sent, as on a long wire.

use std::{
    collections::HashMap,
    io::{Read, Write},
    net::{Shutdown, SocketAddr, TcpListener, TcpStream},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Mutex,
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::Context;

/// The open connections of a relay by number, both ends each: shut down when it stops.
type Open = Arc<Mutex<HashMap<u64, [TcpStream; 2]>>>;

/// Listens on one address and relays every connection to another, delayed: stops when dropped,
/// closing every connection it relays.
pub struct Relay {
    listen: SocketAddr,
    stop: Arc<AtomicBool>,
    open: Open,
    acceptor: Option<thread::JoinHandle<()>>,
}

impl Relay {
    /// Relays connections to `listen` to `target`, each way `delay` later.
    pub fn start(listen: SocketAddr, target: SocketAddr, delay: Duration) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(listen)
            .with_context(|| format!("relay: cannot listen on {listen}"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let open: Open = Arc::default();
        let acceptor = {
            let (stop, open) = (stop.clone(), open.clone());
            thread::Builder::new()
                .name(format!("relay {listen}"))
                .spawn(move || {
                    for (number, client) in listener.incoming().enumerate() {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        // A target that cannot be reached closes the client's connection, as a
                        // refused connection would.
                        let (Ok(client), Ok(server)) = (client, TcpStream::connect(target)) else {
                            continue;
                        };
                        relay(number as u64, client, server, delay, &open).ok();
                    }
                })?
        };
        Ok(Relay {
            listen,
            stop,
            open,
            acceptor: Some(acceptor),
        })
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the acceptor, which sees the stop.
        TcpStream::connect(self.listen).ok();
        if let Some(acceptor) = self.acceptor.take() {
            acceptor.join().ok();
        }
        for [client, server] in self.open.lock().unwrap_or_else(|e| e.into_inner()).values() {
            client.shutdown(Shutdown::Both).ok();
            server.shutdown(Shutdown::Both).ok();
        }
    }
}

/// Relays one connection, each way by a thread pair of its own.
fn relay(
    number: u64,
    client: TcpStream,
    server: TcpStream,
    delay: Duration,
    open: &Open,
) -> std::io::Result<()> {
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    open.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(number, [client.try_clone()?, server.try_clone()?]);
    forward(client.try_clone()?, server.try_clone()?, delay, || ())?;
    let open = open.clone();
    forward(server, client, delay, move || {
        // The server's side ends last (it closes after the client does): the connection is over.
        open.lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&number);
    })
}

/// Sends what `from` sends to `to`, `delay` later, until either closes; then `done`.
fn forward(
    mut from: TcpStream,
    mut to: TcpStream,
    delay: Duration,
    done: impl FnOnce() + Send + 'static,
) -> std::io::Result<()> {
    let (send, receive) = mpsc::channel::<(Instant, Vec<u8>)>();
    thread::Builder::new().spawn(move || {
        let mut buffer = vec![0; 64 * 1024];
        while let Ok(read @ 1..) = from.read(&mut buffer) {
            if send
                .send((Instant::now() + delay, buffer[..read].to_vec()))
                .is_err()
            {
                break;
            }
        }
    })?;
    thread::Builder::new().spawn(move || {
        // Wakes within a microsecond or so of the moment asked rather than Linux's default 50 µs
        // slack, a quarter of the shortest delay the spec gives.
        // SAFETY: PR_SET_TIMERSLACK sets this thread's slack and reads no memory.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1) };
        let mut next = None;
        while let Some((due, mut bytes)) = next.take().or_else(|| receive.recv().ok()) {
            thread::sleep(due.saturating_duration_since(Instant::now()));
            // What else is due by now goes in the same write; the first that is not waits.
            while let Ok((due, more)) = receive.try_recv() {
                if due > Instant::now() {
                    next = Some((due, more));
                    break;
                }
                bytes.extend(more);
            }
            if to.write_all(&bytes).is_err() {
                break;
            }
        }
        to.shutdown(Shutdown::Write).ok();
        done();
    })?;
    Ok(())
}
