// Generates the npm packages of one release from GoReleaser's output:
//
//   node npm/generate.mjs DIST OUT
//
// DIST is GoReleaser's dist directory (artifacts.json lists the binaries,
// metadata.json the version). In OUT it writes one package per binary,
// acp-proxy-<os>-<cpu> with the binary in bin/, and the launcher package
// acp-proxy (from npm/acp-proxy) whose optionalDependencies name them all at
// the same version. npm installs only the one whose "os" and "cpu" match.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [dist, out] = process.argv.slice(2);
if (!dist || !out) {
  console.error("usage: node npm/generate.mjs DIST OUT");
  process.exit(2);
}

// Go's names → Node's (process.platform, process.arch).
const nodeOS = { linux: "linux", darwin: "darwin", windows: "win32", freebsd: "freebsd" };
const nodeCPU = { amd64: "x64", arm64: "arm64" };

const readJSON = (f) => JSON.parse(fs.readFileSync(f, "utf8"));
const writeJSON = (f, v) => fs.writeFileSync(f, JSON.stringify(v, null, 2) + "\n");

const launcher = readJSON(path.join(here, "acp-proxy", "package.json"));
// npm versions carry no build metadata (+…); the binary's --version does.
const version = readJSON(path.join(dist, "metadata.json")).version.replace(/\+.*$/, "");
const binaries = readJSON(path.join(dist, "artifacts.json")).filter((a) => a.type === "Binary");
if (binaries.length === 0) {
  console.error(`${dist}/artifacts.json lists no binaries`);
  process.exit(1);
}

fs.rmSync(out, { recursive: true, force: true });
const optional = {};
for (const b of binaries) {
  const os = nodeOS[b.goos];
  const cpu = nodeCPU[b.goarch];
  if (!os || !cpu) {
    console.error(`no npm platform for ${b.goos}/${b.goarch}; add it to npm/generate.mjs and the launcher`);
    process.exit(1);
  }
  const name = `acp-proxy-${os}-${cpu}`;
  const dir = path.join(out, name);
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  const exe = path.basename(b.path);
  // artifacts.json paths are relative to the directory GoReleaser ran in,
  // which is dist's parent.
  fs.copyFileSync(path.join(dist, "..", b.path), path.join(dir, "bin", exe));
  fs.chmodSync(path.join(dir, "bin", exe), 0o755);
  writeJSON(path.join(dir, "package.json"), {
    name,
    version,
    description: `The acp-proxy binary for ${os} ${cpu}; install acp-proxy, which picks it`,
    homepage: launcher.homepage,
    repository: launcher.repository,
    os: [os],
    cpu: [cpu],
    files: ["bin"],
    preferUnplugged: true,
  });
  optional[name] = version;
}

const main = path.join(out, "acp-proxy");
fs.cpSync(path.join(here, "acp-proxy"), main, { recursive: true });
writeJSON(path.join(main, "package.json"), {
  ...launcher,
  version,
  optionalDependencies: Object.fromEntries(Object.entries(optional).sort()),
});
console.log(`npm packages ${version}: acp-proxy + ${Object.keys(optional).sort().join(", ")}`);
