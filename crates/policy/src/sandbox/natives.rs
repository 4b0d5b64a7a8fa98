//! Checked versions of the native string functions whose result can be far larger than their
//! input: `split`, `split_rev` and `to_chars` (one array element, about 60 bytes, per piece) and
//! `replace` (one substitute per match). Rhai checks a result against the size limits only after
//! the native function built it, and the memory budget is checked only between operations, so one
//! `split("")` of a 4 MiB string would allocate hundreds of MiB before any check. These versions
//! count first and refuse with the same limit errors before allocating; string `pad` is replaced
//! too, so that its refusal names the line. Functions registered on the engine take precedence
//! over the packages' functions of the same signature.
//!
//! Refusals are raised as [`LimitHit`] values rather than Rhai's own limit errors: Rhai resets the
//! position of its "system" errors at every function boundary (so a limit hit inside a policy
//! would be reported without a line), but keeps the position of a thrown value.

use crate::sandbox::limits::SandboxLimits;
use rhai::{Array, Dynamic, Engine, EvalAltResult, INT, ImmutableString, Position};

type Checked<T> = Result<T, Box<EvalAltResult>>;

/// A limit the host refused to let a call cross, raised as a thrown value so it keeps its line;
/// the sandbox reports it as [`RunError::Limit`](super::RunError::Limit) with this name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LimitHit(pub(crate) &'static str);

/// The error that stops a call at `limit`; Rhai fills in the position of the failing call.
// Rhai's native functions return `Box<EvalAltResult>` errors; this builds one.
#[expect(clippy::unnecessary_box_returns)]
pub(crate) fn limit_hit(limit: &'static str) -> Box<EvalAltResult> {
    Box::new(EvalAltResult::ErrorRuntime(
        Dynamic::from(LimitHit(limit)),
        Position::NONE,
    ))
}

const ARRAY_LIMIT: &str = "size of array/blob";
const STRING_LIMIT: &str = "length of string";

/// How many pieces splitting `text` at `delimiter` makes (an empty delimiter splits between every
/// character, with an empty piece at each end, as `str::split` does).
fn pieces(text: &str, delimiter: &str) -> usize {
    if delimiter.is_empty() {
        text.chars().count() + 2
    } else {
        text.matches(delimiter).count() + 1
    }
}

fn collect(parts: &mut dyn Iterator<Item = &str>) -> Array {
    parts
        .map(|part| Dynamic::from(ImmutableString::from(part)))
        .collect()
}

fn segments(segments: INT) -> usize {
    usize::try_from(segments).unwrap_or(usize::MAX)
}

/// Registers the checked functions on `engine`, with the array and string limits of `limits`.
pub(crate) fn register(engine: &mut Engine, limits: &SandboxLimits) {
    register_split(engine, limits.max_array_size);
    register_split_rev(engine, limits.max_array_size);
    register_replace(engine, limits.max_string_size);
    register_pad(engine, limits.max_string_size);
}

/// Refuses a split into more than `max_array` pieces before any piece is made.
fn piece_check(max_array: usize) -> impl Fn(usize) -> Checked<()> + Copy {
    move |count: usize| -> Checked<()> {
        if count > max_array {
            Err(limit_hit(ARRAY_LIMIT))
        } else {
            Ok(())
        }
    }
}

/// `to_chars` and the `split` overloads.
fn register_split(engine: &mut Engine, max_array: usize) {
    let check_pieces = piece_check(max_array);

    engine.register_fn("to_chars", move |text: &str| -> Checked<Array> {
        check_pieces(text.chars().count())?;
        Ok(text.chars().map(Dynamic::from).collect())
    });
    engine.register_fn(
        "split",
        move |text: &mut ImmutableString| -> Checked<Array> {
            if text.is_empty() {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces(text.split_whitespace().count())?;
            Ok(collect(&mut text.split_whitespace()))
        },
    );
    engine.register_fn(
        "split",
        move |text: &mut ImmutableString, delimiter: &str| -> Checked<Array> {
            if text.is_empty() || (!delimiter.is_empty() && !text.contains(delimiter)) {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces(pieces(text, delimiter))?;
            Ok(collect(&mut text.split(delimiter)))
        },
    );
    engine.register_fn(
        "split",
        move |text: &mut ImmutableString, delimiter: &str, limit: INT| -> Checked<Array> {
            if limit <= 1 || text.is_empty() || (!delimiter.is_empty() && !text.contains(delimiter))
            {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces(pieces(text, delimiter).min(segments(limit)))?;
            Ok(collect(&mut text.splitn(segments(limit), delimiter)))
        },
    );
    engine.register_fn(
        "split",
        move |text: &mut ImmutableString, delimiter: char| -> Checked<Array> {
            if text.is_empty() || !text.contains(delimiter) {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces(text.matches(delimiter).count() + 1)?;
            Ok(collect(&mut text.split(delimiter)))
        },
    );
    engine.register_fn(
        "split",
        move |text: &mut ImmutableString, delimiter: char, limit: INT| -> Checked<Array> {
            if limit <= 1 || text.is_empty() || !text.contains(delimiter) {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces((text.matches(delimiter).count() + 1).min(segments(limit)))?;
            Ok(collect(&mut text.splitn(segments(limit), delimiter)))
        },
    );
}

/// The `split_rev` overloads.
fn register_split_rev(engine: &mut Engine, max_array: usize) {
    let check_pieces = piece_check(max_array);
    engine.register_fn(
        "split_rev",
        move |text: &mut ImmutableString, delimiter: &str| -> Checked<Array> {
            if text.is_empty() || (!delimiter.is_empty() && !text.contains(delimiter)) {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces(pieces(text, delimiter))?;
            Ok(collect(&mut text.rsplit(delimiter)))
        },
    );
    engine.register_fn(
        "split_rev",
        move |text: &mut ImmutableString, delimiter: &str, limit: INT| -> Checked<Array> {
            if limit <= 1 || text.is_empty() || (!delimiter.is_empty() && !text.contains(delimiter))
            {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces(pieces(text, delimiter).min(segments(limit)))?;
            Ok(collect(&mut text.rsplitn(segments(limit), delimiter)))
        },
    );
    engine.register_fn(
        "split_rev",
        move |text: &mut ImmutableString, delimiter: char| -> Checked<Array> {
            if text.is_empty() || !text.contains(delimiter) {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces(text.matches(delimiter).count() + 1)?;
            Ok(collect(&mut text.rsplit(delimiter)))
        },
    );
    engine.register_fn(
        "split_rev",
        move |text: &mut ImmutableString, delimiter: char, limit: INT| -> Checked<Array> {
            if limit <= 1 || text.is_empty() || !text.contains(delimiter) {
                return Ok(vec![Dynamic::from(text.clone())]);
            }
            check_pieces((text.matches(delimiter).count() + 1).min(segments(limit)))?;
            Ok(collect(&mut text.rsplitn(segments(limit), delimiter)))
        },
    );
}

/// The `replace` overloads.
fn register_replace(engine: &mut Engine, max_string: usize) {
    // `replace` grows a string by (substitute - found) bytes per match: check the final length.
    let replace = move |text: &mut ImmutableString, find: &str, substitute: &str| -> Checked<()> {
        if text.is_empty() {
            return Ok(());
        }
        let matches = pieces(text, find) - 1;
        let grown = text
            .len()
            .saturating_add(matches.saturating_mul(substitute.len()))
            .saturating_sub(matches.saturating_mul(find.len()));
        if grown > max_string {
            return Err(limit_hit(STRING_LIMIT));
        }
        *text = text.replace(find, substitute).into();
        Ok(())
    };
    engine.register_fn(
        "replace",
        move |text: &mut ImmutableString, find: &str, substitute: &str| {
            replace(text, find, substitute)
        },
    );
    engine.register_fn(
        "replace",
        move |text: &mut ImmutableString, find: &str, substitute: char| {
            replace(text, find, substitute.encode_utf8(&mut [0; 4]))
        },
    );
    engine.register_fn(
        "replace",
        move |text: &mut ImmutableString, find: char, substitute: &str| {
            replace(text, find.encode_utf8(&mut [0; 4]), substitute)
        },
    );
}

/// The `pad` overloads.
fn register_pad(engine: &mut Engine, max_string: usize) {
    // `pad` to `length` characters: refuse before growing past the string limit.
    let pad = move |text: &mut ImmutableString, length: INT, padding: &str| -> Checked<()> {
        let Ok(length) = usize::try_from(length) else {
            return Ok(());
        };
        let current = text.chars().count();
        if length <= current || padding.is_empty() {
            return Ok(());
        }
        let widest = padding.chars().map(char::len_utf8).max().unwrap_or(1);
        if text
            .len()
            .saturating_add((length - current).saturating_mul(widest))
            > max_string
        {
            return Err(limit_hit(STRING_LIMIT));
        }
        let grown = text.make_mut();
        grown.extend(padding.chars().cycle().take(length - current));
        Ok(())
    };
    engine.register_fn(
        "pad",
        move |text: &mut ImmutableString, length: INT, padding: &str| pad(text, length, padding),
    );
    engine.register_fn(
        "pad",
        move |text: &mut ImmutableString, length: INT, padding: char| {
            pad(text, length, padding.encode_utf8(&mut [0; 4]))
        },
    );
}
