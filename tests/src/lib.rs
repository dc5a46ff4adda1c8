//! What the real-model integration tests share: a scratch data folder over
//! the test install ([`data`]) and a real API server with small blocking
//! HTTP and WebSocket clients ([`api_client`]).

pub mod api_client;
pub mod data;

pub use revoice_engine::model::testing::installed_data_dir;
