#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::filesystem::{EntryInfo, FileType, ListDirRequest};
use crate::process::{
    ProcessConfig, ProcessEvent, SendSignalRequest, Signal, StartRequest, process_event,
};
use proptest::prelude::*;

#[test]
fn every_code_round_trips_by_name_and_maps_to_the_documented_status() {
    let expected = [
        ("canceled", 499),
        ("unknown", 500),
        ("invalid_argument", 400),
        ("deadline_exceeded", 504),
        ("not_found", 404),
        ("already_exists", 409),
        ("permission_denied", 403),
        ("resource_exhausted", 429),
        ("failed_precondition", 400),
        ("aborted", 409),
        ("out_of_range", 400),
        ("unimplemented", 501),
        ("internal", 500),
        ("unavailable", 503),
        ("data_loss", 500),
        ("unauthenticated", 401),
    ];
    for (code, (name, status)) in Code::ALL.into_iter().zip(expected) {
        assert_eq!(code.as_str(), name);
        assert_eq!(Code::parse(name), Some(code));
        assert_eq!(code.http_status(), status);
    }
    assert_eq!(Code::parse("NOT_FOUND"), None);
}

#[test]
fn http_status_fallback_matches_the_sdk_table() {
    let table = [
        (400, Code::InvalidArgument),
        (401, Code::Unauthenticated),
        (403, Code::PermissionDenied),
        (404, Code::NotFound),
        (409, Code::AlreadyExists),
        (413, Code::ResourceExhausted),
        (429, Code::ResourceExhausted),
        (499, Code::Canceled),
        (500, Code::Internal),
        (501, Code::Unimplemented),
        (505, Code::Unimplemented),
        (502, Code::Unavailable),
        (503, Code::Unavailable),
        (504, Code::DeadlineExceeded),
        (418, Code::Unknown),
    ];
    for (status, code) in table {
        assert_eq!(Code::from_http_status(status), code, "status {status}");
    }
}

#[test]
fn unary_error_body_is_connect_json_and_envd_401_body_falls_back_to_status() {
    let mut error = ConnectError::not_found("process with pid 7 not found");
    error.details.push(ErrorDetail { type_name: "x.Y".into(), value: vec![1, 2, 3] });
    assert_eq!(
        error.to_json().to_string(),
        r#"{"code":"not_found","details":[{"type":"x.Y","value":"AQID"}],"message":"process with pid 7 not found"}"#
    );
    let parsed = ConnectError::from_unary_response(404, error.to_json().to_string().as_bytes());
    assert_eq!(parsed, error);

    let envd_401 = br#"{"code":401,"message":"unauthorized access"}"#;
    let parsed = ConnectError::from_unary_response(401, envd_401);
    assert_eq!(parsed, ConnectError::new(Code::Unauthenticated, "unauthorized access"));

    let proxy_page = b"<html>bad gateway</html>\n";
    let parsed = ConnectError::from_unary_response(502, proxy_page);
    assert_eq!(parsed, ConnectError::new(Code::Unavailable, "<html>bad gateway</html>"));
}

#[test]
fn end_stream_encodes_ok_error_and_metadata() {
    assert_eq!(EndStream::ok().to_json_bytes(), Bytes::from_static(b"{}"));
    let end = EndStream::error(ConnectError::new(Code::DeadlineExceeded, "timed out"));
    assert_eq!(
        end.to_json_bytes(),
        Bytes::from_static(br#"{"error":{"code":"deadline_exceeded","message":"timed out"}}"#)
    );
    assert_eq!(EndStream::from_json_bytes(&end.to_json_bytes()).unwrap(), end);

    let mut with_metadata = EndStream::ok();
    with_metadata.metadata.insert("trailer-a".into(), vec!["1".into(), "2".into()]);
    let decoded = EndStream::from_json_bytes(&with_metadata.to_json_bytes()).unwrap();
    assert_eq!(decoded, with_metadata);
    assert!(EndStream::from_json_bytes(b"{not json").is_err());
}

#[test]
fn envelope_layout_is_flag_then_big_endian_length() {
    let frame = encode_envelope(FLAG_END_STREAM, b"{}").unwrap();
    assert_eq!(&frame[..], &[0x02, 0, 0, 0, 2, b'{', b'}']);
}

#[test]
fn decoder_reassembles_envelopes_split_at_every_byte() {
    let mut wire = Vec::new();
    wire.extend_from_slice(&encode_envelope(0, b"first message").unwrap());
    wire.extend_from_slice(&encode_envelope(0, b"").unwrap());
    wire.extend_from_slice(&encode_envelope(FLAG_END_STREAM, b"{}").unwrap());
    for split in 0..=wire.len() {
        let mut decoder = EnvelopeDecoder::new(1024);
        let mut got = Vec::new();
        for chunk in [&wire[..split], &wire[split..]] {
            decoder.push(chunk);
            while let Some(envelope) = decoder.next_envelope().unwrap() {
                got.push(envelope);
            }
        }
        decoder.finish().unwrap();
        assert_eq!(got.len(), 3, "split at {split}");
        assert_eq!(&got[0].payload[..], b"first message");
        assert_eq!(&got[1].payload[..], b"");
        assert!(got[2].is_end_stream());
    }
}

#[test]
fn decoder_refuses_oversized_unknown_flags_and_truncation() {
    let mut decoder = EnvelopeDecoder::new(8);
    decoder.push(&[0, 0, 0, 0, 9]);
    assert_eq!(decoder.next_envelope(), Err(EnvelopeError::TooLarge { len: 9, max: 8 }));

    let mut decoder = EnvelopeDecoder::new(8);
    decoder.push(&[0x80, 0, 0, 0, 1, b'x']);
    assert_eq!(decoder.next_envelope(), Err(EnvelopeError::UnknownFlags(0x80)));

    let mut decoder = EnvelopeDecoder::new(8);
    decoder.push(&[0, 0, 0, 0, 4, b'a', b'b']);
    assert_eq!(decoder.next_envelope(), Ok(None));
    assert_eq!(decoder.finish(), Err(EnvelopeError::Truncated { buffered: 7 }));
    let as_connect: ConnectError = EnvelopeError::Truncated { buffered: 7 }.into();
    assert_eq!(as_connect.code, Code::InvalidArgument);
    let as_connect: ConnectError = EnvelopeError::TooLarge { len: 9, max: 8 }.into();
    assert_eq!(as_connect.code, Code::ResourceExhausted);
}

#[test]
fn content_types_select_codec_and_framing() {
    assert_eq!(Codec::from_content_type("application/json"), Some((Codec::Json, Framing::Unary)));
    assert_eq!(
        Codec::from_content_type("application/json; charset=utf-8"),
        Some((Codec::Json, Framing::Unary))
    );
    assert_eq!(Codec::from_content_type("application/proto"), Some((Codec::Proto, Framing::Unary)));
    assert_eq!(
        Codec::from_content_type("Application/Connect+JSON"),
        Some((Codec::Json, Framing::Streaming))
    );
    assert_eq!(
        Codec::from_content_type("application/connect+proto"),
        Some((Codec::Proto, Framing::Streaming))
    );
    assert_eq!(Codec::from_content_type("text/plain"), None);
    assert_eq!(Codec::from_content_type("application/grpc"), None);
}

#[test]
fn json_follows_proto3_mapping_rules() {
    let start = StartRequest {
        process: Some(ProcessConfig {
            cmd: "/bin/bash".into(),
            args: vec!["-l".into(), "-c".into(), "echo hi".into()],
            envs: Default::default(),
            cwd: None,
        }),
        pty: None,
        tag: None,
        stdin: Some(false),
    };
    let json = Codec::Json.encode(&start).unwrap();
    assert_eq!(
        std::str::from_utf8(&json).unwrap(),
        r#"{"process":{"cmd":"/bin/bash","args":["-l","-c","echo hi"]},"stdin":false}"#
    );

    let entry = EntryInfo {
        name: "a.txt".into(),
        r#type: FileType::File as i32,
        path: "/home/user/a.txt".into(),
        size: 12,
        mode: 0o644,
        permissions: "-rw-r--r--".into(),
        owner: "user".into(),
        group: "user".into(),
        modified_time: None,
        symlink_target: None,
        metadata: Default::default(),
        is_symlink: false,
    };
    let json: serde_json::Value =
        serde_json::from_slice(&Codec::Json.encode(&entry).unwrap()).unwrap();
    assert_eq!(json["size"], serde_json::json!("12"), "int64 is a JSON string");
    assert_eq!(json["type"], serde_json::json!("FILE_TYPE_FILE"), "enums by name");
    assert_eq!(json["mode"], serde_json::json!(420));
    assert!(json.get("isSymlink").is_none(), "defaults are omitted");

    let event = ProcessEvent {
        event: Some(process_event::Event::Data(process_event::DataEvent {
            output: Some(process_event::data_event::Output::Stdout(Bytes::from_static(b"hi\n"))),
        })),
    };
    assert_eq!(
        std::str::from_utf8(&Codec::Json.encode(&event).unwrap()).unwrap(),
        r#"{"data":{"stdout":"aGkK"}}"#
    );
}

#[test]
fn json_decoding_accepts_both_names_ints_for_enums_lenient_base64_and_ignores_unknown_fields() {
    let camel: ListDirRequest =
        Codec::Json.decode(br#"{"path":"/tmp","depth":2,"newField":1}"#).unwrap();
    assert_eq!(camel, ListDirRequest { path: "/tmp".into(), depth: 2 });

    let by_name: SendSignalRequest =
        Codec::Json.decode(br#"{"process":{"pid":5},"signal":"SIGNAL_SIGKILL"}"#).unwrap();
    let by_number: SendSignalRequest =
        Codec::Json.decode(br#"{"process":{"pid":5},"signal":9}"#).unwrap();
    assert_eq!(by_name.signal, Signal::Sigkill as i32);
    assert_eq!(by_name, by_number);

    let entry: EntryInfo = Codec::Json
        .decode(br#"{"size":"12","modified_time":"2026-01-02T03:04:05.5Z","is_symlink":true}"#)
        .unwrap();
    assert_eq!(entry.size, 12);
    assert!(entry.is_symlink);
    assert_eq!(entry.modified_time.unwrap().nanos, 500_000_000);
    let entry_numeric: EntryInfo = Codec::Json.decode(br#"{"size":12}"#).unwrap();
    assert_eq!(entry_numeric.size, 12);

    for text in ["aGk/", "aGk_", "aGk", "aGk="] {
        let input = format!(r#"{{"input":{{"stdin":"{text}"}}}}"#);
        let decoded: crate::process::SendInputRequest =
            Codec::Json.decode(input.as_bytes()).unwrap();
        let Some(crate::process::process_input::Input::Stdin(bytes)) = decoded.input.unwrap().input
        else {
            panic!("stdin expected for {text}");
        };
        assert_eq!(&bytes[..2], b"hi", "{text}");
    }
}

#[test]
fn decoding_rejects_invalid_utf8_and_malformed_input_with_invalid_argument() {
    let err = Codec::Json.decode::<ListDirRequest>(b"{\"path\":\"\xff\"}").unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(err.message.starts_with("request body is not valid UTF-8"), "{}", err.message);

    let err = Codec::Json.decode::<ListDirRequest>(b"{\"path\":").unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(err.message.starts_with("malformed JSON message"), "{}", err.message);

    let err = Codec::Json.decode::<ListDirRequest>(br#"{"depth":"many"}"#).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);

    let err = Codec::Proto.decode::<ListDirRequest>(&[0x0a, 0x05, b'a']).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);

    assert_eq!(Codec::Json.decode::<ListDirRequest>(b"").unwrap(), ListDirRequest::default());
}

#[test]
fn timeout_header_is_digits_only() {
    assert_eq!(parse_timeout_ms("60000").unwrap(), 60_000);
    for bad in ["", "-1", "1.5", "12345678901", "ten"] {
        assert_eq!(parse_timeout_ms(bad).unwrap_err().code, Code::InvalidArgument, "{bad:?}");
    }
}

proptest! {
    #[test]
    fn envelopes_survive_arbitrary_chunking(
        payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..8),
        cuts in proptest::collection::vec(0usize..600, 0..12),
    ) {
        let mut wire = Vec::new();
        for payload in &payloads {
            wire.extend_from_slice(&encode_envelope(0, payload).unwrap());
        }
        let mut cuts: Vec<usize> = cuts.into_iter().filter(|c| *c <= wire.len()).collect();
        cuts.push(0);
        cuts.push(wire.len());
        cuts.sort_unstable();
        let mut decoder = EnvelopeDecoder::new(64);
        let mut got = Vec::new();
        for window in cuts.windows(2) {
            decoder.push(&wire[window[0]..window[1]]);
            while let Some(envelope) = decoder.next_envelope().unwrap() {
                got.push(envelope.payload.to_vec());
            }
        }
        decoder.finish().unwrap();
        prop_assert_eq!(got, payloads);
    }

    #[test]
    fn start_requests_round_trip_through_both_codecs(
        cmd in ".{0,16}",
        args in proptest::collection::vec(".{0,8}", 0..4),
        stdin in proptest::option::of(any::<bool>()),
        cwd in proptest::option::of("[a-z/]{0,12}"),
    ) {
        let request = StartRequest {
            process: Some(ProcessConfig { cmd, args, envs: Default::default(), cwd }),
            pty: None,
            tag: None,
            stdin,
        };
        for codec in [Codec::Json, Codec::Proto] {
            let bytes = codec.encode(&request).unwrap();
            let back: StartRequest = codec.decode(&bytes).unwrap();
            prop_assert_eq!(&back, &request);
        }
    }
}
