//! Where configuration comes from: the personal config root, its trust checks, and the ast-grep project in it.
