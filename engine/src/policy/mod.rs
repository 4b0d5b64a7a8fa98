//! Sandboxed Rhai policies (diagnostic and verification) over the immutable analysis snapshot.
