//! What the real-model integration tests share: a scratch data folder over
//! the test install ([`data`]), a real API server with small blocking
//! HTTP and WebSocket clients ([`api_client`]) and test media ([`media`]).

pub mod api_client;
pub mod data;
pub mod media;

pub use revoice_engine::model::testing::installed_data_dir;
