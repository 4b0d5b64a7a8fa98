//! What reaches the model: fingerprints, the delivery memory and the rendered block.

mod memory;
mod render;
