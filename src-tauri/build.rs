//! The app's build: Tauri's code generation, reading the app's config from
//! `tauri.conf.json` at the repository root (beside the workspace's
//! `Cargo.toml` and `package.json`, as the design card has it).

fn main() {
    let attributes = tauri_build::Attributes::new().config_path("../tauri.conf.json");
    tauri_build::try_build(attributes).expect("the Tauri build (tauri.conf.json at the repository root)");
}
