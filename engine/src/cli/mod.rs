//! The `pi-native-hooks` command line: argument parsing and output, over the engine's library API.
