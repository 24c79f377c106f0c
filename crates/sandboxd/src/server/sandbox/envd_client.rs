//! The daemon's own calls into a sandbox's envd, for template builds: run a command to its
//! end (streaming its output to the build's log) and upload a file. These go straight to
//! envd's port (never through the public proxy) with the sandbox's access token, as the
//! official SDKs' requests do: Connect's streaming JSON for `process.Process/Start`, and
//! `POST /files` with an octet-stream body.

use std::time::Duration;

use anyhow::{anyhow, bail};
use base64::Engine;
use dsh_proto::connect::{Codec, EndStream, EnvelopeDecoder, encode_envelope};
use dsh_proto::process::{
    ProcessConfig, StartRequest, StartResponse, process_event::Event, process_event::data_event,
};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;

use crate::server::upstream::{self as proxy, Port};

/// The most one envelope of envd's may hold (its own output chunks are far smaller).
const MAX_ENVELOPE: usize = 4 << 20;

/// How a sandbox's envd is reached and who the calls act as.
#[derive(Debug, Clone)]
pub struct Envd {
    pub port: Port,
    pub access_token: Option<String>,
}

/// A command to run: a shell line, as whom, where and with what environment.
#[derive(Debug, Clone)]
pub struct Command {
    pub line: String,
    pub user: String,
    pub cwd: Option<String>,
    pub envs: std::collections::BTreeMap<String, String>,
    pub timeout: Duration,
}

/// Which stream a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Envd {
    fn request(&self, method: &str, path: &str, user: &str) -> hyper::http::request::Builder {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:"));
        let mut builder = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header(hyper::header::HOST, format!("127.0.0.1:{}", self.port.port))
            .header(hyper::header::AUTHORIZATION, format!("Basic {basic}"));
        if let Some(token) = &self.access_token {
            builder = builder.header("X-Access-Token", token);
        }
        builder
    }

    /// Runs `command` through `/bin/bash -l -c` (as the SDKs' `commands.run` does) and
    /// returns its exit code once it ends; `on_output` gets its output as it comes, in
    /// whole lines where the command wrote them (invalid UTF-8 replaced). Past
    /// `command.timeout` the call fails, and envd kills the process when the stream
    /// closes.
    pub async fn run(
        &self,
        command: &Command,
        on_output: &mut (dyn FnMut(Stream, &str) + Send),
    ) -> anyhow::Result<i32> {
        let start = StartRequest {
            process: Some(ProcessConfig {
                cmd: "/bin/bash".into(),
                args: vec!["-l".into(), "-c".into(), command.line.clone()],
                envs: command.envs.clone().into_iter().collect(),
                cwd: command.cwd.clone(),
            }),
            pty: None,
            tag: None,
            stdin: Some(false),
        };
        let payload = Codec::Json.encode(&start).map_err(|e| anyhow!("{e}"))?;
        let body = encode_envelope(0, &payload).map_err(|e| anyhow!("{e}"))?;
        let timeout_ms = command.timeout.as_millis().to_string();
        let request = self
            .request("POST", "/process.Process/Start", &command.user)
            .header(hyper::header::CONTENT_TYPE, "application/connect+json")
            .header("Connect-Protocol-Version", "1")
            .header("Connect-Timeout-Ms", timeout_ms)
            .body(Full::new(body))?;
        let streamed = async {
            let response = proxy::send(&self.port, request)
                .await
                .map_err(|e| anyhow!("envd unreachable: {e}"))?;
            let status = response.status();
            let mut body = response.into_body();
            if !status.is_success() {
                let text = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                bail!("envd answered {status}: {}", String::from_utf8_lossy(&text));
            }
            let mut decoder = EnvelopeDecoder::new(MAX_ENVELOPE);
            let mut lines = Lines::default();
            let mut exit = None;
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| anyhow!("reading envd's stream: {e}"))?;
                let Ok(chunk) = frame.into_data() else { continue };
                decoder.push(&chunk);
                while let Some(envelope) = decoder.next_envelope().map_err(|e| anyhow!("{e}"))? {
                    if envelope.is_end_stream() {
                        let end = EndStream::from_json_bytes(&envelope.payload)
                            .map_err(|e| anyhow!("{e}"))?;
                        if let Some(error) = end.error {
                            bail!("envd: {}", error.message);
                        }
                        lines.flush(on_output);
                        return exit.ok_or_else(|| anyhow!("envd's stream ended without an exit"));
                    }
                    let event: StartResponse =
                        Codec::Json.decode(&envelope.payload).map_err(|e| anyhow!("{e}"))?;
                    match event.event.and_then(|e| e.event) {
                        Some(Event::Data(data)) => match data.output {
                            Some(data_event::Output::Stdout(bytes)) => {
                                lines.push(Stream::Stdout, &bytes, on_output)
                            }
                            Some(data_event::Output::Stderr(bytes)) => {
                                lines.push(Stream::Stderr, &bytes, on_output)
                            }
                            _ => {}
                        },
                        Some(Event::End(end)) => {
                            // envd's `error` says "exit status N" for a command that ran
                            // and failed; it is the failure only when nothing exited.
                            if !end.exited {
                                lines.flush(on_output);
                                let error = end.error.unwrap_or_else(|| end.status.clone());
                                bail!("the command could not run: {error}");
                            }
                            exit = Some(end.exit_code);
                        }
                        _ => {}
                    }
                }
            }
            bail!("envd's stream ended early")
        };
        // A little past envd's own deadline, so its answer (a clear error) comes first.
        tokio::time::timeout(command.timeout + Duration::from_secs(5), streamed)
            .await
            .map_err(|_| anyhow!("the command did not end within {:?}", command.timeout))?
    }

    /// Writes `data` to `path` inside (parents made), owned by `user`.
    pub async fn upload(&self, path: &str, user: &str, data: Bytes) -> anyhow::Result<()> {
        let query = format!("/files?path={}&username={}", encode(path), encode(user));
        let request = self
            .request("POST", &query, user)
            .header(hyper::header::CONTENT_TYPE, "application/octet-stream")
            .body(Full::new(data))?;
        let response = tokio::time::timeout(UPLOAD_TIMEOUT, proxy::send(&self.port, request))
            .await
            .map_err(|_| anyhow!("uploading {path} took longer than {UPLOAD_TIMEOUT:?}"))?
            .map_err(|e| anyhow!("envd unreachable: {e}"))?;
        let status = response.status();
        let text = response.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        if !status.is_success() {
            bail!(
                "envd refused the upload of {path} ({status}): {}",
                String::from_utf8_lossy(&text)
            );
        }
        Ok(())
    }
}

/// How long one upload into a build sandbox may take.
const UPLOAD_TIMEOUT: Duration = Duration::from_secs(600);

/// Percent-encodes a query value (everything but unreserved characters and `/`).
fn encode(text: &str) -> String {
    /// What stays as it is in a path: RFC 3986's unreserved characters and `/`.
    const KEPT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~')
        .remove(b'/');
    percent_encoding::utf8_percent_encode(text, KEPT).to_string()
}

/// Output cut into lines per stream: a build log entry is a line, however the process's
/// writes were chunked. A line longer than [`MAX_LINE`] is cut there.
#[derive(Default)]
struct Lines {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

const MAX_LINE: usize = 16 * 1024;

impl Lines {
    fn push(&mut self, stream: Stream, bytes: &[u8], sink: &mut (dyn FnMut(Stream, &str) + Send)) {
        let buffer = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        buffer.extend_from_slice(bytes);
        while let Some(end) = buffer.iter().position(|b| *b == b'\n').or_else(|| {
            // No newline within a whole line's room: cut it there.
            (buffer.len() >= MAX_LINE).then_some(MAX_LINE)
        }) {
            let line: Vec<u8> = buffer.drain(..end).collect();
            if buffer.first() == Some(&b'\n') {
                buffer.remove(0);
            }
            sink(stream, String::from_utf8_lossy(&line).trim_end_matches('\r'));
        }
    }

    fn flush(&mut self, sink: &mut (dyn FnMut(Stream, &str) + Send)) {
        for (stream, buffer) in
            [(Stream::Stdout, &mut self.stdout), (Stream::Stderr, &mut self.stderr)]
        {
            if !buffer.is_empty() {
                sink(stream, &String::from_utf8_lossy(buffer));
                buffer.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_encoded_but_for_unreserved_characters_and_slashes() {
        assert_eq!(encode("/home/user/a b%é~.-_"), "/home/user/a%20b%25%C3%A9~.-_");
        assert_eq!(encode("q?x=1&y#z"), "q%3Fx%3D1%26y%23z");
    }

    #[test]
    fn output_is_cut_into_lines_per_stream_whatever_the_chunks() {
        let mut seen: Vec<(Stream, String)> = Vec::new();
        let mut sink = |stream: Stream, line: &str| seen.push((stream, line.to_owned()));
        let mut lines = Lines::default();
        lines.push(Stream::Stdout, b"hel", &mut sink);
        lines.push(Stream::Stderr, b"oops\r\nwa", &mut sink);
        lines.push(Stream::Stdout, b"lo\nworld\n\nlast", &mut sink);
        lines.flush(&mut sink);
        let expected = [
            (Stream::Stderr, "oops"),
            (Stream::Stdout, "hello"),
            (Stream::Stdout, "world"),
            (Stream::Stdout, ""),
            (Stream::Stdout, "last"),
            (Stream::Stderr, "wa"),
        ];
        let expected: Vec<(Stream, String)> =
            expected.iter().map(|(s, l)| (*s, (*l).to_owned())).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_line_without_end_is_cut_at_the_cap() {
        let mut seen: Vec<usize> = Vec::new();
        let mut sink = |_: Stream, line: &str| seen.push(line.len());
        let mut lines = Lines::default();
        lines.push(Stream::Stdout, &vec![b'x'; MAX_LINE * 2 + 5], &mut sink);
        lines.flush(&mut sink);
        assert_eq!(seen, [MAX_LINE, MAX_LINE, 5]);
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode("/tmp/a b&c=d"), "/tmp/a%20b%26c%3Dd");
    }
}
