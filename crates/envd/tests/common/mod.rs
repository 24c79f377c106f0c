//! A real envd on 127.0.0.1:<ephemeral>, with a private passwd/group (root and `user`
//! with a temporary home), and a minimal raw Connect client.

use std::path::PathBuf;

use bytes::Bytes;
use dsh_envd::EnvdConfig;
use dsh_proto::connect::{self, Codec, EndStream, EnvelopeDecoder, Framing, WireMessage};

pub struct TestEnvd {
    pub base: String,
    pub home: PathBuf,
    /// Where `/init`'s `caBundle` is installed (in a temporary directory).
    pub ca_paths: dsh_envd::cacerts::CaPaths,
    pub http: reqwest::Client,
    _daemon: dsh_envd::testing::TestDaemon,
}

pub async fn start() -> TestEnvd {
    start_with(EnvdConfig { default_user: "user".into(), ..EnvdConfig::default() }).await
}

pub async fn start_with(config: EnvdConfig) -> TestEnvd {
    let daemon = dsh_envd::testing::start_with(config).await.unwrap();
    TestEnvd {
        base: daemon.base_url.clone(),
        home: daemon.home.clone(),
        ca_paths: daemon.ca_paths.clone(),
        http: reqwest::Client::new(),
        _daemon: daemon,
    }
}

/// What a streaming call returned.
#[derive(Debug)]
pub struct StreamOutcome<M> {
    pub messages: Vec<M>,
    pub end: EndStream,
}

impl TestEnvd {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn unary<Req: WireMessage, Resp: WireMessage>(
        &self,
        route: &str,
        request: &Req,
    ) -> Result<Resp, connect::ConnectError> {
        self.unary_as(route, request, Codec::Json, &[]).await
    }

    pub async fn unary_as<Req: WireMessage, Resp: WireMessage>(
        &self,
        route: &str,
        request: &Req,
        codec: Codec,
        headers: &[(&str, &str)],
    ) -> Result<Resp, connect::ConnectError> {
        let mut builder = self
            .http
            .post(self.url(route))
            .header("content-type", codec.content_type(Framing::Unary))
            .body(codec.encode(request).unwrap());
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        let response = builder.send().await.unwrap();
        let status = response.status().as_u16();
        let body = response.bytes().await.unwrap();
        if status == 200 {
            Ok(codec.decode(&body).unwrap())
        } else {
            Err(connect::ConnectError::from_unary_response(status, &body))
        }
    }

    pub async fn stream<Req: WireMessage, Resp: WireMessage>(
        &self,
        route: &str,
        request: &Req,
        headers: &[(&str, &str)],
    ) -> StreamOutcome<Resp> {
        let payload = Codec::Json.encode(request).unwrap();
        let body = connect::encode_envelope(0, &payload).unwrap();
        self.stream_raw(route, body, headers).await
    }

    pub async fn stream_raw<Resp: WireMessage>(
        &self,
        route: &str,
        body: Bytes,
        headers: &[(&str, &str)],
    ) -> StreamOutcome<Resp> {
        let mut builder = self
            .http
            .post(self.url(route))
            .header("content-type", "application/connect+json")
            .body(body);
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        let response = builder.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "streams always answer 200");
        let bytes = response.bytes().await.unwrap();
        decode_stream(&bytes)
    }
}

pub fn decode_stream<Resp: WireMessage>(bytes: &[u8]) -> StreamOutcome<Resp> {
    let mut decoder = EnvelopeDecoder::new(64 * 1024 * 1024);
    decoder.push(bytes);
    let mut messages = Vec::new();
    let mut end = None;
    while let Some(envelope) = decoder.next_envelope().unwrap() {
        assert!(end.is_none(), "nothing may follow the end-of-stream envelope");
        if envelope.is_end_stream() {
            end = Some(EndStream::from_json_bytes(&envelope.payload).unwrap());
        } else {
            messages.push(Codec::Json.decode(&envelope.payload).unwrap());
        }
    }
    decoder.finish().unwrap();
    StreamOutcome { messages, end: end.expect("stream must end with an end-of-stream envelope") }
}

/// `/bin/bash -c <script>` as a process config.
pub fn bash(script: &str) -> dsh_proto::process::ProcessConfig {
    dsh_proto::process::ProcessConfig {
        cmd: "/bin/bash".into(),
        args: vec!["-c".into(), script.into()],
        envs: Default::default(),
        cwd: None,
    }
}

/// A streaming call read incrementally, for tests that act while the stream is open.
pub struct LiveStream {
    response: reqwest::Response,
    decoder: EnvelopeDecoder,
    pub end: Option<EndStream>,
}

impl TestEnvd {
    pub async fn open_stream<Req: WireMessage>(
        &self,
        route: &str,
        request: &Req,
        headers: &[(&str, &str)],
    ) -> LiveStream {
        let payload = Codec::Json.encode(request).unwrap();
        let mut builder = self
            .http
            .post(self.url(route))
            .header("content-type", "application/connect+json")
            .body(connect::encode_envelope(0, &payload).unwrap());
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        let response = builder.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        LiveStream { response, decoder: EnvelopeDecoder::new(64 * 1024 * 1024), end: None }
    }
}

impl LiveStream {
    /// The next message, or `None` at the end of the stream (then `self.end` is set).
    pub async fn next<M: WireMessage>(&mut self) -> Option<M> {
        loop {
            if let Some(envelope) = self.decoder.next_envelope().unwrap() {
                if envelope.is_end_stream() {
                    self.end = Some(EndStream::from_json_bytes(&envelope.payload).unwrap());
                    return None;
                }
                return Some(Codec::Json.decode(&envelope.payload).unwrap());
            }
            match tokio::time::timeout(std::time::Duration::from_secs(20), self.response.chunk())
                .await
            {
                Ok(Ok(Some(chunk))) => self.decoder.push(&chunk),
                Ok(Ok(None)) => return None,
                Ok(Err(err)) => panic!("stream failed: {err}"),
                Err(_) => panic!("no stream message within 20 s"),
            }
        }
    }
}

/// Waits (up to 5 s) until process group `pgid` has exactly `count` live members on this
/// host: processes start and die asynchronously to the replies that caused them.
pub async fn group_settles(pgid: u32, count: usize) -> bool {
    dsh_core::host::wait_for_processes(std::time::Duration::from_secs(5), |procs| {
        procs.iter().filter(|p| p.group == pgid).count() == count
    })
    .await
}
