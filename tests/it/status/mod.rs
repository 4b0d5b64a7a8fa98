//! The status model behind `/hooks-status`.

mod model;
