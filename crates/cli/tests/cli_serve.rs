//! `revoice serve`'s refusals that need no model.

#[test]
fn serve_refuses_a_non_loopback_address_unless_remote_access_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_revoice"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--host", "0.0.0.0", "--port", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("--allow-remote"), "{stderr}");
}
