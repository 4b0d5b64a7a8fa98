// The pi-native-hooks extension as Pi loads it: the personal config root, resolved from the OS
// user record (never $HOME or the repository).
import { createPiNativeHooks } from "./hooks.ts";

export default createPiNativeHooks();
