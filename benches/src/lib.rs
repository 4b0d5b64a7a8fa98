//! Shared helpers for the pi-native-hooks benchmarks.
