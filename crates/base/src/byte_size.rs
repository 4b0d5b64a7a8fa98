//! Owns how the engine writes a size for a person: in the largest binary unit that keeps it at
//! least 1, to a tenth, rounded down (`1.5 MiB`, `12.0 KiB`, `0 B`).

/// `bytes` in the largest binary unit that keeps it at least 1.
pub fn byte_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    UNITS.iter().find(|(_, size)| bytes >= *size).map_or_else(
        || format!("{bytes} B"),
        |(unit, size)| {
            // Tenths, rounded down, in integers: exact for every u64.
            let tenths = u128::from(bytes) * 10 / u128::from(*size);
            format!("{}.{} {unit}", tenths / 10, tenths % 10)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_the_largest_unit_to_a_tenth_rounded_down() {
        assert_eq!(byte_size(0), "0 B");
        assert_eq!(byte_size(1023), "1023 B");
        assert_eq!(byte_size(1024), "1.0 KiB");
        assert_eq!(byte_size(1536 * 1024), "1.5 MiB");
        assert_eq!(byte_size((1 << 30) - 1), "1023.9 MiB");
        assert_eq!(byte_size(u64::MAX), "17179869183.9 GiB");
    }
}
