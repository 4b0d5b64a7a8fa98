//! The personal config root, `<home>/.config/pi-native-hooks`, where `<home>` is the home
//! directory in the OS user record of the current uid: never `$HOME` or another environment
//! variable, so a repository being edited cannot redirect it. Only the binary and the Pi binding
//! call this; library code takes the root as a parameter.

use std::path::PathBuf;

/// The root's path below the home directory.
pub const ROOT_BELOW_HOME: &str = ".config/pi-native-hooks";

/// Why the personal root could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RootError {
    /// The user database could not be queried.
    #[error("cannot look up uid {uid} in the user database: {error}")]
    Lookup {
        /// The uid looked up.
        uid: u32,
        /// The operating system's message.
        error: String,
    },
    /// The uid has no entry in the user database.
    #[error("uid {uid} has no entry in the user database")]
    NoUser {
        /// The uid looked up.
        uid: u32,
    },
    /// The user record's home directory is not an absolute path.
    #[error("the home directory {home:?} of uid {uid} is not an absolute path")]
    RelativeHome {
        /// The uid looked up.
        uid: u32,
        /// The home directory from the user record.
        home: PathBuf,
    },
}

/// The personal config root of the current (effective) user.
pub fn personal_root() -> Result<PathBuf, RootError> {
    let uid = nix::unistd::geteuid();
    let user = nix::unistd::User::from_uid(uid)
        .map_err(|error| RootError::Lookup {
            uid: uid.as_raw(),
            error: error.to_string(),
        })?
        .ok_or(RootError::NoUser { uid: uid.as_raw() })?;
    root_below(user.dir).map_err(|home| RootError::RelativeHome {
        uid: uid.as_raw(),
        home,
    })
}

/// `<home>/.config/pi-native-hooks`, or the home back when it is not absolute.
fn root_below(home: PathBuf) -> Result<PathBuf, PathBuf> {
    if home.is_absolute() {
        Ok(home.join(ROOT_BELOW_HOME))
    } else {
        Err(home)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_comes_from_the_user_record_not_the_environment() {
        let uid = nix::unistd::geteuid();
        let user = nix::unistd::User::from_uid(uid).unwrap().unwrap();
        let root = personal_root().unwrap();
        assert_eq!(root, user.dir.join(".config/pi-native-hooks"));
        // The environment is never consulted: the result is the record's home even when $HOME
        // points elsewhere (checked without mutating the process environment).
        assert!(root.starts_with(&user.dir));
    }

    #[test]
    fn relative_home_is_refused() {
        assert_eq!(
            root_below(PathBuf::from("home/x")),
            Err(PathBuf::from("home/x"))
        );
        assert_eq!(
            root_below(PathBuf::from("/h")),
            Ok(PathBuf::from("/h/.config/pi-native-hooks"))
        );
    }
}
