//! Owns reading a project's name from the manifest at its root: `package.json` (`name`) and
//! `Cargo.toml` (`[package] name`, else `[workspace.package] name`).

use pi_native_hooks_base::safe_open::{Opened, open_no_follow};
use serde::Deserialize;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// Why a manifest named by a verification policy could not give a project name.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The policy names a manifest kind the gate cannot read.
    #[error(
        "`{manifest}` is not a supported manifest; verification policies can match `package.json` or `Cargo.toml`"
    )]
    Unsupported {
        /// The manifest file name from `PROJECT.manifest`.
        manifest: String,
    },
    /// The file exists but could not be read.
    #[error("{}: cannot be read: {message}; check its permissions", path.display())]
    Read {
        path: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// The file is not valid JSON or TOML.
    #[error("{}: is not valid {format}: {message}; fix the file so the project can be matched", path.display())]
    Parse {
        path: PathBuf,
        /// `JSON` or `TOML`.
        format: &'static str,
        message: String,
    },
    /// The file parses but declares no name where the gate looks for one.
    #[error("{}: declares no project name ({expected}); add one so the project can be matched", path.display())]
    NoName {
        path: PathBuf,
        /// Where the name was looked for.
        expected: &'static str,
    },
}

#[derive(Deserialize)]
struct PackageJson {
    name: Option<String>,
}

#[derive(Deserialize)]
struct CargoToml {
    package: Option<Named>,
    workspace: Option<CargoWorkspace>,
}

#[derive(Deserialize)]
struct CargoWorkspace {
    package: Option<Named>,
}

#[derive(Deserialize)]
struct Named {
    name: Option<String>,
}

/// The project name declared by `<root>/<manifest>`; `Ok(None)` when the file does not exist.
pub fn manifest_name(root: &Path, manifest: &str) -> Result<Option<String>, ManifestError> {
    let parse: fn(&Path, &str) -> Result<Option<String>, ManifestError> = match manifest {
        "package.json" => package_json_name,
        "Cargo.toml" => cargo_toml_name,
        _ => {
            return Err(ManifestError::Unsupported {
                manifest: manifest.to_owned(),
            });
        }
    };
    let path = root.join(manifest);
    match read_manifest(&path) {
        Ok(Some(text)) => parse(&path, &text),
        Ok(None) => Ok(None),
        Err(error) => Err(ManifestError::Read {
            path,
            message: error.to_string(),
        }),
    }
}

/// The largest manifest read: a real `package.json` or `Cargo.toml` is a few KiB.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// Why a manifest's text could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ManifestReadError {
    /// A directory, FIFO, socket, device or symlink where the manifest should be.
    #[error("it is a {0}, not a regular file")]
    NotRegular(String),
    /// Larger than [`MAX_MANIFEST_BYTES`].
    #[error("{0} bytes is more than the {MAX_MANIFEST_BYTES} bytes a manifest may have")]
    TooLarge(u64),
    /// Opening or reading failed (including text that is not UTF-8).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Reads a manifest the way every repository file is read: never through a final symlink, never
/// blocking (a FIFO named `package.json` must not hang the session), regular files only, bounded.
/// `Ok(None)` when nothing is there.
pub(crate) fn read_manifest(path: &Path) -> Result<Option<String>, ManifestReadError> {
    let (file, stat) = match open_no_follow(path) {
        Ok(Opened::Regular { file, stat }) => (file, stat),
        Ok(Opened::Other { kind, .. }) => {
            return Err(ManifestReadError::NotRegular(kind.to_string()));
        }
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.into()),
    };
    let size = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
    if size > MAX_MANIFEST_BYTES {
        return Err(ManifestReadError::TooLarge(size));
    }
    let mut text = String::new();
    file.take(MAX_MANIFEST_BYTES).read_to_string(&mut text)?;
    Ok(Some(text))
}

fn package_json_name(path: &Path, text: &str) -> Result<Option<String>, ManifestError> {
    let parsed: PackageJson = serde_json::from_str(text).map_err(|error| ManifestError::Parse {
        path: path.to_owned(),
        format: "JSON",
        message: error.to_string(),
    })?;
    named(path, parsed.name, "a top-level `name` string").map(Some)
}

fn cargo_toml_name(path: &Path, text: &str) -> Result<Option<String>, ManifestError> {
    let parsed: CargoToml = toml::from_str(text).map_err(|error| ManifestError::Parse {
        path: path.to_owned(),
        format: "TOML",
        message: error.to_string(),
    })?;
    let name = parsed.package.and_then(|package| package.name).or_else(|| {
        parsed
            .workspace
            .and_then(|workspace| workspace.package)
            .and_then(|package| package.name)
    });
    named(path, name, "`[package] name` or `[workspace.package] name`").map(Some)
}

fn named(
    path: &Path,
    name: Option<String>,
    expected: &'static str,
) -> Result<String, ManifestError> {
    name.filter(|name| !name.trim().is_empty())
        .ok_or_else(|| ManifestError::NoName {
            path: path.to_owned(),
            expected,
        })
}
