//! Compiles our `.proto` files with protox (pure Rust, no `protoc` binary), then generates
//! prost message types and pbjson serde impls that follow the proto3 JSON mapping.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["proto/filesystem/filesystem.proto", "proto/process/process.proto"];
    for proto in &protos {
        println!("cargo:rerun-if-changed={proto}");
    }
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let descriptors = protox::compile(protos, ["proto"])?;
    let descriptor_bytes = prost::Message::encode_to_vec(&descriptors);
    let descriptor_path = out_dir.join("envd_descriptor.bin");
    std::fs::write(&descriptor_path, &descriptor_bytes)?;

    let mut config = prost_build::Config::new();
    config
        .file_descriptor_set_path(&descriptor_path)
        .extern_path(".google.protobuf.Timestamp", "crate::timestamp::Timestamp")
        .bytes(["."]);
    config.compile_fds(descriptors)?;

    pbjson_build::Builder::new()
        .register_descriptors(&descriptor_bytes)?
        .ignore_unknown_fields()
        .build(&[".filesystem", ".process"])?;
    Ok(())
}
