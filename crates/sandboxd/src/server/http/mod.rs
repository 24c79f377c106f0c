pub(crate) mod api;
pub(crate) mod api_body;
pub(crate) mod api_error;
pub(crate) mod proxy;
pub(crate) mod secrets_api;
pub(crate) mod template_api;
pub(crate) mod volume_content;
