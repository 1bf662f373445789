//! A slow link: a proxy on loopback that holds every server reply for a
//! fixed delay, as a far-away server would. Requests go through at once.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub struct DelayProxy {
    pub port: u16,
    stop: Arc<AtomicBool>,
    sockets: Arc<Mutex<Vec<TcpStream>>>,
}

impl DelayProxy {
    pub fn start(upstream: &str, delay: Duration) -> DelayProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let sockets: Arc<Mutex<Vec<TcpStream>>> = Arc::new(Mutex::new(Vec::new()));
        let upstream = upstream.to_owned();
        let (st, so) = (Arc::clone(&stop), Arc::clone(&sockets));
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                if let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) {
                    let mut keep = so.lock().unwrap_or_else(PoisonError::into_inner);
                    keep.push(c2);
                    keep.push(s2);
                }
                let (Ok(mut c_read), Ok(mut s_write)) = (client.try_clone(), server.try_clone())
                else {
                    continue;
                };
                // Requests go through at once.
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut c_read, &mut s_write);
                    let _ = s_write.shutdown(Shutdown::Write);
                });
                // Each reply (one wire message) waits `delay` first.
                let (mut s_read, mut c_write) = (server, client);
                std::thread::spawn(move || loop {
                    let mut head = [0u8; 4];
                    if s_read.read_exact(&mut head).is_err() {
                        let _ = c_write.shutdown(Shutdown::Write);
                        return;
                    }
                    let len = i32::from_le_bytes(head).max(4) as usize;
                    let mut msg = vec![0u8; len];
                    msg[..4].copy_from_slice(&head);
                    if s_read.read_exact(&mut msg[4..]).is_err() {
                        return;
                    }
                    std::thread::sleep(delay);
                    if c_write.write_all(&msg).is_err() {
                        return;
                    }
                });
            }
        });
        DelayProxy {
            port,
            stop,
            sockets,
        }
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for s in self
            .sockets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            let _ = s.shutdown(Shutdown::Both);
        }
        // Wake the accept loop so that it sees `stop`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// The test server's `host:port`, when its URI is a plain one the proxy can
/// stand in for.
pub fn upstream_of(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("mongodb://")?;
    let hosts = rest.split(['/', '?']).next()?;
    let hosts = hosts.rsplit('@').next()?;
    (!hosts.contains(',')).then(|| hosts.to_owned())
}
