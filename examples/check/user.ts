// Two things the built-in rules flag, for a first `pi-native-hooks check`: the README's set-up
// section quotes what it prints, and a test keeps that quote true.
interface User {
  name?: string;
}

export function greet(user: User | undefined): string {
  debugger;
  return `Hello, ${user!.name}`;
}
