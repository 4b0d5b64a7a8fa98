//! Owns reading a caught panic: `panic!` gives its message as a `&str` or a `String`, and
//! `panic_any` anything at all, which is then named as an unknown panic.

use std::any::Any;

/// The text a panic was raised with, when it was raised with text.
pub fn panic_text(payload: &(dyn Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}

/// The text a panic was raised with, or `unknown panic`.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    panic_text(payload).unwrap_or_else(|| "unknown panic".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_read_as_its_text_whatever_it_was_raised_with() {
        let caught = |f: fn()| std::panic::catch_unwind(f).expect_err("it panics");
        assert_eq!(panic_message(&*caught(|| panic!("static"))), "static");
        assert_eq!(
            panic_message(&*caught(|| panic!("formatted {}", 1))),
            "formatted 1"
        );
        let any = caught(|| std::panic::panic_any(7_u8));
        assert_eq!(panic_text(&*any), None);
        assert_eq!(panic_message(&*any), "unknown panic");
    }
}
