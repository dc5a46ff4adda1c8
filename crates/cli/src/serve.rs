//! `revoice serve`: the engine's OpenAI-compatible speech API without the
//! app. Listens on 127.0.0.1 (the `[api] port`, or `--port`); any other
//! address needs `--allow-remote`. A bearer token comes from `--api-key`,
//! `REVOICE_API_KEY` or `[api] api_key`. Stops on Ctrl-C.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use revoice_api::server::{bind, serve, ApiOptions, ApiState, API_KEY_ENV};

/// What `revoice serve` takes.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// TCP port (default: `[api] port` in config.toml, 8880 unless changed).
    #[arg(long)]
    port: Option<u16>,
    /// Address to listen on. Anything but a loopback address is refused unless --allow-remote.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Let other machines reach the API (use with --api-key).
    #[arg(long)]
    allow_remote: bool,
    /// Bearer token every request must carry (default: $REVOICE_API_KEY, then `[api] api_key`).
    #[arg(long, env = API_KEY_ENV, hide_env_values = true)]
    api_key: Option<String>,
    /// A folder whose files `ref_audio: "file://..."` may name (repeatable; adds to `[api] media_folders`).
    #[arg(long = "media-folder", value_name = "DIR")]
    media_folders: Vec<PathBuf>,
    /// Let `ref_audio` URLs reach private and link-local addresses.
    #[arg(long)]
    allow_private_urls: bool,
}

/// Runs the server until Ctrl-C.
pub async fn run(engine: &std::sync::Arc<revoice_engine::Engine>, args: ServeArgs) -> revoice_engine::Result<()> {
    let mut options = ApiOptions::from_engine(engine);
    if let Some(key) = args.api_key.filter(|k| !k.is_empty()) {
        options.api_key = Some(key);
    }
    options.ref_audio.media_folders.extend(args.media_folders);
    options.ref_audio.allow_private_urls = args.allow_private_urls;
    let port = args.port.unwrap_or(engine.config().settings.api.port);
    let addr = SocketAddr::new(args.host, port);
    revoice_api::server::check_bind(addr.ip(), args.allow_remote)?;
    if !addr.ip().is_loopback() && options.api_key.is_none() {
        eprintln!("warning: listening on {addr} without an API key: anyone who can reach this machine can use the engine");
    }
    let listener = bind(addr, args.allow_remote).await?;
    // The model loads in the background: speech requests answer 503 until it is ready.
    eprintln!("loading the model (speech requests answer 503 until it is ready)...");
    let state = ApiState::new(engine.clone(), options);
    let local = listener.local_addr().map_err(|e| revoice_engine::Error::io("read the address of", addr.to_string(), e))?;
    println!("revoice API listening on http://{local}");
    serve(listener, state, async {
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("stopping");
    })
    .await
}
