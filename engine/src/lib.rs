//! pi-native-hooks engine: everything the Pi extension and the `pi-native-hooks` CLI do, as a library.
//!
//! Data flows one way: [`config`] → [`analysis`] and [`policy`] → [`setup`] → [`workspace`] →
//! [`delivery`] → [`wave`] → [`verification`] → [`state`] and [`status`] → [`session`], the one
//! object a Pi session holds. The CLI ([`cli`]) and the Node binding sit on top and own no logic.
//! [`safe_open`] is the one way any of them opens a repository's file for reading; [`text`]
//! escapes untrusted text for every module that shows it; [`cancel`] is the one cancellation flag
//! that workspace captures and policy calls watch; [`blocking`] runs blocking work from async code.

pub mod analysis;
pub mod blocking;
pub mod cancel;
pub mod cli;
pub mod config;
pub mod delivery;
pub mod hash;
pub mod ids;
pub mod paths;
pub mod policy;
pub mod safe_open;
pub mod session;
pub mod setup;
pub mod state;
pub mod status;
pub mod suggest;
pub mod text;
pub mod verification;
pub mod wave;
pub mod workspace;
