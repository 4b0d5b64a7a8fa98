//! Owns the persisted format: a `custom` session entry of type [`STATE_ENTRY_TYPE`] whose data is
//! `{"version": "pi-native-hooks-state-v1", "gate": <GateSnapshot>}`, written only when the gate
//! reports a meaningful transition, and decoding it back (rejecting malformed and newer entries).

use crate::{GateSnapshot, VerificationGate};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// The type name state entries are persisted under.
pub const STATE_ENTRY_TYPE: &str = "pi-native-hooks-state";

/// The version this engine writes and reads.
pub const STATE_VERSION: &str = "pi-native-hooks-state-v1";

const VERSION_PREFIX: &str = "pi-native-hooks-state-v";
const CURRENT: u32 = 1;

/// One entry to append: `pi.appendEntry(custom_type, data)`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateEntry {
    /// Always [`STATE_ENTRY_TYPE`].
    pub custom_type: &'static str,
    /// The versioned state.
    pub data: Value,
}

/// Why the state could not be written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The state could not be encoded as JSON (e.g. a path that is not UTF-8).
    #[error("the verification state could not be saved: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Why a state entry was skipped.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateProblem {
    /// Written by a newer engine.
    #[error("it was written by a newer version ({version}); update pi-native-hooks to use it")]
    Newer { version: String },
    /// Not a state this engine can read.
    #[error("it is malformed: {0}")]
    Malformed(String),
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    version: String,
    gate: GateSnapshot,
}

#[derive(Deserialize)]
struct Version {
    version: String,
}

/// The entry to append when the gate went through a meaningful transition since the last call;
/// `Ok(None)` otherwise. Call after every gate operation.
pub fn take_entry(gate: &mut VerificationGate) -> Result<Option<StateEntry>, StateError> {
    let Some(snapshot) = gate.take_transition() else {
        return Ok(None);
    };
    let data = serde_json::to_value(Envelope {
        version: STATE_VERSION.to_owned(),
        gate: snapshot,
    })?;
    Ok(Some(StateEntry {
        custom_type: STATE_ENTRY_TYPE,
        data,
    }))
}

/// The largest integer a JSON number written by a JavaScript host holds exactly (2^53).
const MAX_EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Decodes the data of a state entry.
///
/// JSON has a single number type and a JavaScript host keeps every number as a double, so an
/// entry that went through one (Pi's session file, the Node binding) may hold an integer field
/// such as a timestamp as `1796055723096.0`. Integral numbers are read back as integers before
/// decoding; a fractional number in an integer field is still malformed.
pub(crate) fn decode(data: &Value) -> Result<GateSnapshot, StateProblem> {
    let Version { version } = Version::deserialize(data)
        .map_err(|error| StateProblem::Malformed(format!("no version: {error}")))?;
    if version != STATE_VERSION {
        return Err(
            match version
                .strip_prefix(VERSION_PREFIX)
                .and_then(|number| number.parse::<u32>().ok())
            {
                Some(number) if number > CURRENT => StateProblem::Newer { version },
                _ => StateProblem::Malformed(format!("unknown version {version:?}")),
            },
        );
    }
    let mut data = data.clone();
    integral_numbers_as_integers(&mut data);
    Envelope::deserialize(&data)
        .map(|envelope| envelope.gate)
        .map_err(|error| StateProblem::Malformed(error.to_string()))
}

/// Rewrites every floating-point number of `value` that holds an exact integer as that integer.
fn integral_numbers_as_integers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            let Some(float) = number.as_f64().filter(|_| number.is_f64()) else {
                return;
            };
            if float.fract() != 0.0 || float.abs() > MAX_EXACT_INTEGER {
                return;
            }
            // Exact: the value is integral and within ±2^53.
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let integer = if float < 0.0 {
                Number::from(float as i64)
            } else {
                Number::from(float as u64)
            };
            *number = integer;
        }
        Value::Array(items) => items.iter_mut().for_each(integral_numbers_as_integers),
        Value::Object(map) => map.values_mut().for_each(integral_numbers_as_integers),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}
