//! The diagnostic block as the model reads it: grouped by rule, within a token budget, with what
//! was left out named. Pure rendering, compared with snapshots.

mod render;
