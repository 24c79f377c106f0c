//! The jupyter-server this server drives: its REST API for kernels
//! (`/api/kernels`, `.../restart`, `.../interrupt`) and each kernel's WebSocket, where
//! Jupyter's messages travel as JSON text frames (the protocol E2B's server speaks to it:
//! e2b-dev/code-interpreter `template/server/messaging.py`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<QuickAck>;

/// The kernel's WebSocket, acknowledging at once what it reads. jupyter-server (tornado)
/// writes a cell's messages one small write each without `TCP_NODELAY`: with the usual
/// delayed ACK here, each message after the first waited some 40 ms for ours.
pub struct QuickAck(tokio::net::TcpStream);

impl tokio::io::AsyncRead for QuickAck {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let polled = std::pin::Pin::new(&mut self.0).poll_read(cx, buf);
        if polled.is_ready() {
            // Linux leaves quick-ACK mode by itself: set again after every read.
            let _ = rustix::net::sockopt::set_tcp_quickack(&self.0, true);
        }
        polled
    }
}

impl tokio::io::AsyncWrite for QuickAck {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// A jupyter-server on the loopback, without a token.
#[derive(Clone)]
pub struct Jupyter {
    port: u16,
    http: reqwest::Client,
}

/// A random id in UUID form (Jupyter's message and session ids).
pub fn new_id() -> String {
    let bytes: [u8; 16] = rand::random();
    let hex = format!("{:032x}", u128::from_be_bytes(bytes));
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// Now as RFC 3339 in UTC with microseconds (a Jupyter header's `date`).
pub fn now_rfc3339() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_micros()
    )
}

impl Jupyter {
    pub fn new(port: u16) -> Jupyter {
        Jupyter { port, http: reqwest::Client::new() }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Whether the server answers `GET /api/status`.
    pub async fn is_up(&self) -> bool {
        let request = self.http.get(self.url("/api/status")).timeout(Duration::from_secs(2));
        matches!(request.send().await, Ok(r) if r.status().is_success())
    }

    async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        let response = self
            .http
            .post(self.url(path))
            .json(&body)
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .with_context(|| format!("POST {path}"))?;
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        if !status.is_success() {
            bail!("POST {path}: {status}: {text}");
        }
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Starts a kernel of `kernelspec`; its id.
    pub async fn start_kernel(&self, kernelspec: &str) -> anyhow::Result<String> {
        let kernel = self.post("/api/kernels", json!({"name": kernelspec})).await?;
        kernel["id"].as_str().map(str::to_owned).context("jupyter-server's kernel has no id")
    }

    pub async fn restart(&self, kernel: &str) -> anyhow::Result<()> {
        self.post(&format!("/api/kernels/{kernel}/restart"), json!({})).await.map(drop)
    }

    /// E2B interrupts through the REST API too (`ContextWebSocket.interrupt`).
    pub async fn interrupt(&self, kernel: &str) -> anyhow::Result<()> {
        self.post(&format!("/api/kernels/{kernel}/interrupt"), json!({})).await.map(drop)
    }

    pub async fn shutdown(&self, kernel: &str) -> anyhow::Result<()> {
        let path = format!("/api/kernels/{kernel}");
        let response = self
            .http
            .delete(self.url(&path))
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .with_context(|| format!("DELETE {path}"))?;
        if !response.status().is_success() {
            bail!("DELETE {path}: {}", response.status());
        }
        Ok(())
    }

    /// Opens the kernel's channels.
    pub async fn connect(&self, kernel: &str) -> anyhow::Result<Channels> {
        let session = new_id();
        let url = format!(
            "ws://127.0.0.1:{}/api/kernels/{kernel}/channels?session_id={session}",
            self.port
        );
        // No size limits (E2B: `max_size=None`): a cell's images come as one message. No
        // Nagle: a request is written in pieces, and the second would wait for the
        // first's delayed ACK (some 40 ms a cell).
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(None)
            .max_frame_size(None);
        let stream = tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .with_context(|| format!("connecting to jupyter-server on port {}", self.port))?;
        stream.set_nodelay(true)?;
        let _ = rustix::net::sockopt::set_tcp_quickack(&stream, true);
        let (socket, _) = tokio_tungstenite::client_async_with_config(
            url.as_str(),
            QuickAck(stream),
            Some(config),
        )
        .await
        .with_context(|| format!("connecting to {url}"))?;
        let (sink, mut stream) = socket.split();
        let (tx, incoming) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            while let Some(frame) = stream.next().await {
                match frame {
                    Ok(Message::Text(text)) => {
                        let Ok(message) = serde_json::from_str::<Value>(text.as_str()) else {
                            continue;
                        };
                        if tx.send(message).is_err() {
                            break;
                        }
                    }
                    Ok(Message::Close(_)) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        });
        Ok(Channels { sink, incoming, session, reader })
    }
}

/// One kernel's channels: requests go out on `shell`; every message comes back here.
pub struct Channels {
    sink: futures_util::stream::SplitSink<Socket, Message>,
    incoming: mpsc::UnboundedReceiver<Value>,
    session: String,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Channels {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Channels {
    /// Sends an `execute_request` (E2B: `_get_execute_request`); its message id.
    pub async fn execute(&mut self, code: &str, silent: bool) -> anyhow::Result<String> {
        let msg_id = new_id();
        let request = json!({
            "header": {
                "msg_id": msg_id,
                "username": "e2b",
                "session": self.session,
                "msg_type": "execute_request",
                "version": "5.3",
                "date": now_rfc3339(),
            },
            "parent_header": {},
            "metadata": {},
            "channel": "shell",
            "content": {
                "code": code,
                "silent": silent,
                "store_history": !silent,
                "user_expressions": {},
                "stop_on_error": true,
                "allow_stdin": false,
            },
        });
        self.sink
            .send(Message::text(request.to_string()))
            .await
            .context("sending to the kernel's channels")?;
        Ok(msg_id)
    }

    /// The next message; `None` once the channels are closed.
    pub async fn next(&mut self) -> Option<Value> {
        self.incoming.recv().await
    }

    /// Runs `code` silently and waits for the kernel to be idle again; the error the
    /// kernel raised, if any.
    pub async fn run_quietly(&mut self, code: &str, limit: Duration) -> anyhow::Result<()> {
        let msg_id = self.execute(code, true).await?;
        let waited = tokio::time::timeout(limit, async {
            let mut failure = None;
            while let Some(message) = self.next().await {
                if message["parent_header"]["msg_id"].as_str() != Some(msg_id.as_str()) {
                    continue;
                }
                match message["msg_type"].as_str() {
                    Some("error") => {
                        failure = Some(format!(
                            "{}: {}",
                            message["content"]["ename"].as_str().unwrap_or_default(),
                            message["content"]["evalue"].as_str().unwrap_or_default()
                        ));
                    }
                    Some("status") if message["content"]["execution_state"] == "idle" => {
                        return match failure {
                            Some(failure) => Err(anyhow::anyhow!(failure)),
                            None => Ok(()),
                        };
                    }
                    _ => {}
                }
            }
            bail!("the kernel's channels closed")
        })
        .await;
        waited.unwrap_or_else(|_| Err(anyhow::anyhow!("the kernel did not answer in {limit:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuid_shaped_lowercase_hex() {
        let id = new_id();
        let lengths: Vec<usize> = id.split('-').map(str::len).collect();
        assert_eq!(lengths, [8, 4, 4, 4, 12], "{id}");
        assert!(id.bytes().all(|b| b == b'-' || matches!(b, b'0'..=b'9' | b'a'..=b'f')), "{id}");
    }

    #[test]
    fn ids_and_dates_have_their_forms() {
        let id = new_id();
        assert_eq!(id.len(), 36);
        assert_eq!(id.matches('-').count(), 4);
        let date = now_rfc3339();
        assert_eq!(date.len(), 27, "{date}");
        assert!(date.starts_with("20"), "{date}");
        assert!(date.ends_with('Z'));
    }
}
