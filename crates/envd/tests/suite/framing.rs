//! Connect framing and bad input: every failure is the documented code, and the daemon
//! keeps serving.

use bytes::Bytes;
use dsh_proto::connect::{Code, Codec, encode_envelope};
use dsh_proto::filesystem::{ListDirRequest, ListDirResponse, StatRequest, StatResponse};
use dsh_proto::process::{StartResponse, StreamInputResponse};

use crate::common;

#[tokio::test]
async fn wrong_content_type_is_415_and_names_what_is_accepted() {
    let envd = common::start().await;
    let response = envd
        .http
        .post(envd.url("/filesystem.Filesystem/Stat"))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    assert_eq!(response.headers()["accept-post"], "application/json, application/proto");

    // A unary procedure called with streaming framing is refused the same way.
    let response = envd
        .http
        .post(envd.url("/filesystem.Filesystem/Stat"))
        .header("content-type", "application/connect+json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
}

#[tokio::test]
async fn unknown_procedure_is_404_unimplemented() {
    let envd = common::start().await;
    let err = envd
        .unary::<StatRequest, StatResponse>("/filesystem.Filesystem/Chmod", &StatRequest::default())
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::Unimplemented);
    assert_eq!(err.message, "unknown procedure /filesystem.Filesystem/Chmod");
}

#[tokio::test]
async fn invalid_utf8_and_malformed_json_are_invalid_argument() {
    let envd = common::start().await;
    for body in [&b"{\"path\":\"\xff\xfe\"}"[..], b"{\"path\":", b"[1,2]"] {
        let response = envd
            .http
            .post(envd.url("/filesystem.Filesystem/ListDir"))
            .header("content-type", "application/json")
            .body(Bytes::copy_from_slice(body))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 400);
        let json: serde_json::Value = response.json().await.unwrap();
        assert_eq!(json["code"], "invalid_argument");
    }
    // Still serving.
    let listed: ListDirResponse = envd
        .unary("/filesystem.Filesystem/ListDir", &ListDirRequest { path: "/".into(), depth: 1 })
        .await
        .unwrap();
    assert!(listed.entries.iter().any(|e| e.path == "/tmp"));
}

#[tokio::test]
async fn binary_proto_codec_works_for_unary_calls() {
    let envd = common::start().await;
    std::fs::write(envd.home.join("bin.txt"), "12345").unwrap();
    let stat: StatResponse = envd
        .unary_as(
            "/filesystem.Filesystem/Stat",
            &StatRequest { path: "bin.txt".into() },
            Codec::Proto,
            &[],
        )
        .await
        .unwrap();
    assert_eq!(stat.entry.unwrap().size, 5);
}

#[tokio::test]
async fn malformed_stream_envelopes_end_the_stream_with_an_error() {
    let envd = common::start().await;
    let cases: [(&str, Bytes, Code); 4] = [
        ("truncated envelope", Bytes::from_static(&[0, 0, 0, 0, 10, b'{']), Code::InvalidArgument),
        (
            "unknown flags",
            Bytes::from_static(&[0x40, 0, 0, 0, 2, b'{', b'}']),
            Code::InvalidArgument,
        ),
        (
            "oversized length",
            Bytes::from_static(&[0, 0xff, 0xff, 0xff, 0xff]),
            Code::ResourceExhausted,
        ),
        ("no envelope", Bytes::new(), Code::InvalidArgument),
    ];
    for (what, body, code) in cases {
        let outcome = envd.stream_raw::<StartResponse>("/process.Process/Start", body, &[]).await;
        assert!(outcome.messages.is_empty(), "{what}");
        assert_eq!(outcome.end.error.map(|e| e.code), Some(code), "{what}");
    }
}

#[tokio::test]
async fn stream_input_without_start_is_refused() {
    let envd = common::start().await;
    let data = serde_json::json!({"data": {"input": {"stdin": "aGk="}}}).to_string();
    let body = encode_envelope(0, data.as_bytes()).unwrap();
    let outcome =
        envd.stream_raw::<StreamInputResponse>("/process.Process/StreamInput", body, &[]).await;
    let error = outcome.end.error.unwrap();
    assert_eq!(error.code, Code::InvalidArgument);
    assert_eq!(error.message, "the first message must be start{process}");
}

#[tokio::test]
async fn unknown_user_is_unauthenticated_in_both_framings() {
    let envd = common::start().await;
    let auth = ("authorization", "Basic bWFsbG9yeTo="); // "mallory:"
    let err = envd
        .unary_as::<_, StatResponse>(
            "/filesystem.Filesystem/Stat",
            &StatRequest { path: "/".into() },
            Codec::Json,
            &[auth],
        )
        .await
        .unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (Code::Unauthenticated, "invalid username: 'mallory'")
    );
    let start = dsh_proto::process::StartRequest {
        process: Some(common::bash("true")),
        ..Default::default()
    };
    let outcome = envd.stream::<_, StartResponse>("/process.Process/Start", &start, &[auth]).await;
    assert_eq!(outcome.end.error.unwrap().code, Code::Unauthenticated);
}

#[tokio::test]
async fn bad_timeout_header_is_invalid_argument() {
    let envd = common::start().await;
    let err = envd
        .unary_as::<_, StatResponse>(
            "/filesystem.Filesystem/Stat",
            &StatRequest { path: "/".into() },
            Codec::Json,
            &[("connect-timeout-ms", "soon")],
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
}
