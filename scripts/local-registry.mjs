// A local npm registry for the registry end-to-end test and the release rehearsal: verdaccio from
// the repository's own node_modules, on 127.0.0.1, with its storage and users in a folder the
// caller owns and no uplink, so nothing reaches npmjs.org. Starting waits at most 60 s; stopping
// sends SIGTERM, then SIGKILL after 10 s.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dirname, "..");

/** @typedef {{ url: string, child: import("node:child_process").ChildProcess }} LocalRegistry */

/** @returns {Promise<number>} a TCP port free on 127.0.0.1 a moment ago */
async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", () => done(undefined)));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (!address || typeof address !== "object") throw new Error("a TCP server on 127.0.0.1 has no port");
  return address.port;
}

/**
 * Starts verdaccio with its configuration, storage and users in `dir` (created).
 * @param {string} dir
 * @returns {Promise<LocalRegistry>}
 */
export async function startRegistry(dir) {
  mkdirSync(dir);
  const port = await freePort();
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${join(dir, "storage")}`,
      `auth: { htpasswd: { file: ${join(dir, "htpasswd")} } }`,
      "uplinks: {}",
      "packages: { '**': { access: $all, publish: $authenticated } }",
      "max_body_size: 200mb",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const bin = join(REPO, "node_modules", "verdaccio", "bin", "verdaccio");
  const child = spawn(process.execPath, [bin, "--config", config, "--listen", `127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}-/ping`, { signal: AbortSignal.timeout(2_000) })).ok) return { url, child };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`verdaccio did not answer within 60 s:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** Stops `registry` if it runs. @param {LocalRegistry | undefined} registry */
export async function stopRegistry(registry) {
  if (!registry || registry.child.exitCode !== null) return;
  const { child } = registry;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Registers the user `publisher` on `registry` and writes an npmrc holding its token in `dir`.
 * @param {LocalRegistry} registry
 * @param {string} dir
 * @returns {Promise<string>} the npmrc's path
 */
export async function registerPublisher(registry, dir) {
  const response = await fetch(`${registry.url}-/user/org.couchdb.user:publisher`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "publisher", password: "publisher-password", type: "user", roles: [] }),
    signal: AbortSignal.timeout(10_000),
  });
  if (response.status !== 201) throw new Error(`the registry did not register the publisher: HTTP ${response.status}`);
  /** @type {{ token: string }} */
  const { token } = await response.json();
  const npmrc = join(dir, "publisher.npmrc");
  writeFileSync(npmrc, `${registry.url.replace(/^http:/, "")}:_authToken=${token}\n`);
  return npmrc;
}
