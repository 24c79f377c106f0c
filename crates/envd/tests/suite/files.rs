//! `/files`: uploads (multipart, octet-stream, gzip, metadata), downloads (gzip, ranges)
//! and the token/signature rules.

use std::io::Write as _;

use dsh_envd::EnvdConfig;

use crate::common;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn multipart_upload_writes_each_part_owned_by_the_user() {
    let envd = common::start().await;
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(b"one".to_vec()).file_name("dir/a.txt"))
        .part(
            "file",
            reqwest::multipart::Part::bytes(vec![0xff, 0x00, 0xfe])
                .file_name("/tmp/dsh-envd-abs-test.bin"),
        );
    let response = envd.http.post(envd.url("/files")).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let written: serde_json::Value = response.json().await.unwrap();
    let home = envd.home.display();
    assert_eq!(
        written,
        serde_json::json!([
            {"path": format!("{home}/dir/a.txt"), "name": "a.txt", "type": "file"},
            {"path": "/tmp/dsh-envd-abs-test.bin", "name": "dsh-envd-abs-test.bin", "type": "file"},
        ])
    );
    assert_eq!(std::fs::read(envd.home.join("dir/a.txt")).unwrap(), b"one");
    assert_eq!(std::fs::read("/tmp/dsh-envd-abs-test.bin").unwrap(), [0xff, 0x00, 0xfe]);
    let meta = std::fs::metadata(envd.home.join("dir/a.txt")).unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&meta), 1000);
    std::fs::remove_file("/tmp/dsh-envd-abs-test.bin").unwrap();

    let duplicate = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(b"1".to_vec()).file_name("same"))
        .part("file", reqwest::multipart::Part::bytes(b"2".to_vec()).file_name("same"));
    let response = envd.http.post(envd.url("/files")).multipart(duplicate).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 400);
}

#[tokio::test]
async fn octet_stream_gzip_and_metadata_round_trip() {
    let envd = common::start().await;
    let payload: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let response = envd
        .http
        .post(envd.url("/files?path=big.bin"))
        .header("content-type", "application/octet-stream")
        .header("content-encoding", "gzip")
        .header("x-metadata-Owner", "tests")
        .body(gzip(&payload))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let written: serde_json::Value = response.json().await.unwrap();
    assert_eq!(written[0]["metadata"], serde_json::json!({"owner": "tests"}));
    assert_eq!(std::fs::read(envd.home.join("big.bin")).unwrap(), payload);
    let owner = || {
        let mut value = [0u8; 16];
        rustix::fs::getxattr(envd.home.join("big.bin"), "user.e2b.owner", &mut value)
            .map(|n| value[..n].to_vec())
    };
    assert_eq!(owner().unwrap(), b"tests");

    let plain = envd.http.get(envd.url("/files?path=big.bin")).send().await.unwrap();
    assert_eq!(plain.headers()["content-type"], "application/octet-stream");
    assert_eq!(plain.headers()["content-disposition"], "inline; filename=\"big.bin\"");
    assert_eq!(plain.bytes().await.unwrap().as_ref(), payload.as_slice());

    let gz = envd
        .http
        .get(envd.url("/files?path=big.bin"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    let compressed = gz.bytes().await.unwrap();
    let mut inflated = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&compressed[..]), &mut inflated)
        .unwrap();
    assert_eq!(inflated, payload);

    let ranged = envd
        .http
        .get(envd.url("/files?path=big.bin"))
        .header("range", "bytes=4-11")
        .send()
        .await
        .unwrap();
    assert_eq!(ranged.status().as_u16(), 206);
    assert_eq!(ranged.headers()["content-range"], format!("bytes 4-11/{}", payload.len()));
    assert_eq!(ranged.bytes().await.unwrap().as_ref(), &payload[4..12]);

    let bad_gzip = envd
        .http
        .post(envd.url("/files?path=broken.bin"))
        .header("content-type", "application/octet-stream")
        .header("content-encoding", "gzip")
        .body("not gzip at all")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_gzip.status().as_u16(), 400);
    // Overwritten without metadata: what the first write stored is gone (E2B's rule).
    let response = envd
        .http
        .post(envd.url("/files?path=big.bin"))
        .header("content-type", "application/octet-stream")
        .body("second")
        .send()
        .await
        .unwrap();
    let written: serde_json::Value = response.json().await.unwrap();
    assert_eq!(written[0].get("metadata"), None, "{written}");
    assert_eq!(owner().unwrap_err(), rustix::io::Errno::NODATA);
}

#[tokio::test]
async fn download_errors_use_envd_http_error_bodies() {
    let envd = common::start().await;
    let missing = envd.http.get(envd.url("/files?path=/nope/x")).send().await.unwrap();
    assert_eq!(missing.status().as_u16(), 404);
    let body: serde_json::Value = missing.json().await.unwrap();
    assert_eq!(body, serde_json::json!({"code": 404, "message": "path '/nope/x' does not exist"}));
    let dir = envd.http.get(envd.url("/files?path=/tmp")).send().await.unwrap();
    assert_eq!(dir.status().as_u16(), 400);
    let unknown_user =
        envd.http.get(envd.url("/files?path=/etc/hostname&username=mallory")).send().await.unwrap();
    assert_eq!(unknown_user.status().as_u16(), 401);
    let upload_to_dir = envd
        .http
        .post(envd.url("/files?path=/tmp"))
        .header("content-type", "application/octet-stream")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(upload_to_dir.status().as_u16(), 400);
    let no_path = envd
        .http
        .post(envd.url("/files"))
        .header("content-type", "application/octet-stream")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(no_path.status().as_u16(), 400);
}

#[tokio::test]
async fn access_token_guards_rpcs_and_files_accept_signatures() {
    let envd = common::start_with(EnvdConfig {
        default_user: "user".into(),
        access_token: Some("secret-token".into()),
        ..EnvdConfig::default()
    })
    .await;
    std::fs::write(envd.home.join("s.txt"), "signed").unwrap();
    let health = envd.http.get(envd.url("/health")).send().await.unwrap();
    assert_eq!(health.status().as_u16(), 204, "health stays open");
    let rpc = envd
        .http
        .post(envd.url("/process.Process/List"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(rpc.status().as_u16(), 401);
    let body: serde_json::Value = rpc.json().await.unwrap();
    assert_eq!(body["code"], 401);
    let with_token = envd
        .http
        .post(envd.url("/process.Process/List"))
        .header("content-type", "application/json")
        .header("x-access-token", "secret-token")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status().as_u16(), 200);

    let url = |query: &str| envd.url(&format!("/files?path=s.txt{query}"));
    assert_eq!(envd.http.get(url("")).send().await.unwrap().status().as_u16(), 401);
    let wrong_header =
        envd.http.get(url("")).header("x-access-token", "nope").send().await.unwrap();
    assert_eq!(wrong_header.status().as_u16(), 401);
    let signature = dsh_envd::auth::file_signature("s.txt", "read", "", "secret-token", None);
    let signed = envd.http.get(url(&format!("&signature={signature}"))).send().await.unwrap();
    assert_eq!(signed.status().as_u16(), 200);
    assert_eq!(signed.text().await.unwrap(), "signed");
    let write_signature =
        dsh_envd::auth::file_signature("s.txt", "write", "", "secret-token", None);
    let wrong_op =
        envd.http.get(url(&format!("&signature={write_signature}"))).send().await.unwrap();
    assert_eq!(wrong_op.status().as_u16(), 401);
    let expired = dsh_envd::auth::file_signature("s.txt", "read", "", "secret-token", Some(1_000));
    let expired = envd
        .http
        .get(url(&format!("&signature={expired}&signature_expiration=1000")))
        .send()
        .await
        .unwrap();
    assert_eq!(expired.status().as_u16(), 401);
}

#[tokio::test]
async fn upload_larger_than_free_space_is_507_and_the_daemon_keeps_serving() {
    let envd = common::start().await;
    let small = tempfile::tempdir().unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(small.path())
        .status()
        .unwrap();
    assert!(mounted.success(), "tests run as root and mount a 64 KiB tmpfs");
    let target = small.path().join("big.bin");
    let response = envd
        .http
        .post(envd.url(&format!("/files?path={}", target.display())))
        .header("content-type", "application/octet-stream")
        .body(vec![7u8; 1024 * 1024])
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap();
    let unmounted = std::process::Command::new("umount").arg(small.path()).status().unwrap();
    assert!(unmounted.success());
    assert_eq!(status, 507);
    assert_eq!(body["code"], 507);
    assert!(
        body["message"].as_str().unwrap().starts_with("not enough disk space to write"),
        "{body}"
    );
    let health = envd.http.get(envd.url("/health")).send().await.unwrap();
    assert_eq!(health.status().as_u16(), 204);
}

#[tokio::test]
async fn a_path_nobody_may_write_is_a_clear_error() {
    let envd = common::start().await;
    let response = envd
        .http
        .post(envd.url("/files?path=/proc/dsh-envd-cannot-write-here"))
        .header("content-type", "application/octet-stream")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 500);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["code"], 500);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("error writing '/proc/dsh-envd-cannot-write-here'"),
        "{body}"
    );
}

#[tokio::test]
async fn a_fifo_is_refused_instead_of_blocking_the_download() {
    let envd = common::start().await;
    let fifo = envd.home.join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let response = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        envd.http.get(envd.url(&format!("/files?path={}", fifo.display()))).send(),
    )
    .await
    .expect("a FIFO must not block the download")
    .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["message"], format!("path '{}' is not a regular file", fifo.display()));
}

#[tokio::test]
async fn a_path_through_a_regular_file_is_a_bad_request() {
    let envd = common::start().await;
    std::fs::write(envd.home.join("plain"), "x").unwrap();
    let through = envd.home.join("plain/x");
    let response = envd
        .http
        .get(envd.url(&format!("/files?path={}", through.display())))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["code"], 400);
    assert_eq!(
        body["message"],
        format!("a component of path '{}' is not a directory", through.display())
    );
}

#[tokio::test]
async fn a_nul_byte_in_a_path_is_a_400_naming_it_for_reads_and_writes() {
    let envd = common::start().await;
    let get = envd.http.get(envd.url("/files?path=/tmp/a%00b")).send().await.unwrap();
    assert_eq!(get.status().as_u16(), 400);
    let body: serde_json::Value = get.json().await.unwrap();
    assert_eq!(body["message"], "path \"/tmp/a\\0b\" contains a NUL byte");
    let post = envd
        .http
        .post(envd.url("/files?path=x%00y"))
        .header("content-type", "application/octet-stream")
        .body("data")
        .send()
        .await
        .unwrap();
    assert_eq!(post.status().as_u16(), 400);
    let body: serde_json::Value = post.json().await.unwrap();
    assert_eq!(body["code"], 400);
    assert_eq!(body["message"], "path \"x\\0y\" contains a NUL byte");
}
