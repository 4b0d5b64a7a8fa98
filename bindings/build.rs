//! Sets up linking for a Node-API addon.

fn main() {
    napi_build::setup();
}
