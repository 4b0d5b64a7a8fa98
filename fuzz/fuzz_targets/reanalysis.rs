#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_native_hooks_fuzz::reanalysis(data));
